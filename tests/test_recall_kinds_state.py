"""The two-recalls figure's state in plain Python: a sound collection, both recalls, the story's numbers."""

from __future__ import annotations

import re

import pytest

from explainer import metrics
from explainer.figures.recall_kinds import (
    MODELS,
    RELEVANT,
    K,
    RecallKindsFigure,
    RecallKindsState,
    story_numbers,
)
from explainer.metrics import format_number as fmt

from support.expected import index_list

BAD_WORDS = re.compile(r"NaN|undefined|Infinity|null")


# == the state, in plain Python ================================================================


def test_the_constants_make_a_sound_collection():
    assert K == 10 and len(RELEVANT) == 8
    for name, data in MODELS.items():
        assert len(data["neighbours"]) == len(data["next"]) == K, name
        assert len(set(data["neighbours"]) | set(data["next"])) == 2 * K, name
        # The index's stand-ins are never relevant: a miss costs relevance only through what it lost.
        assert not set(data["next"]) & set(RELEVANT), name


def test_a_suited_model_and_a_perfect_index():
    state = RecallKindsState()
    assert state.to_dict() == {"model": "suited", "missed_neighbours": []}
    # Relevant at ranks 1 to 5, 7 and 9 (the two drawings among them): 7 of the 8 judged relevant.
    assert state.values == {"ann_recall": 1.0, "recall": 7 / 8, "precision": 7 / 10}
    assert {k: fmt(v) for k, v in state.values.items()} == {"ann_recall": "1.00", "recall": "0.88", "precision": "0.70"}


def test_the_key_fact_a_perfect_index_and_a_poor_list():
    state = RecallKindsState(model="mismatched")
    assert state.values["ann_recall"] == 1.0
    # Relevant at ranks 3, 4, 5 and 8 only (two of them drawings): 4 of 8.
    assert fmt(state.values["recall"]) == "0.50" and state.values["recall"] == 4 / 8
    assert state.values["precision"] == 0.4


def test_misses_lower_ann_recall_by_a_tenth_and_relevance_recall_only_for_relevant_neighbours():
    state = RecallKindsState()
    state.toggle(6)  # a crack in a cabin floor panel: not relevant
    assert state.missed_neighbours == [6]
    assert state.values["ann_recall"] == 0.9
    assert state.values["recall"] == 7 / 8
    state.toggle(1)  # the supplier notice: relevant
    assert state.missed_neighbours == [1, 6]
    assert state.values == {
        "ann_recall": metrics.recall_at_k([0, 1, 1, 1, 1, 0, 1, 1, 1, 1], 10, 10),
        "recall": metrics.recall_at_k([0, 1, 1, 1, 1, 0, 1, 0, 1, 0], 10, 8),
        "precision": metrics.precision_at_k([0, 1, 1, 1, 1, 0, 1, 0, 1, 0], 10),
    }
    assert state.index_results == index_list("suited", [1, 6])
    assert (
        state.index_results[0] == MODELS["suited"]["next"][0] and state.index_results[5] == MODELS["suited"]["next"][1]
    )
    state.toggle(6)
    assert state.missed_neighbours == [1]
    for rank in range(1, 11):
        state.toggle(rank)
    assert state.missed_neighbours == list(range(2, 11))
    assert state.values["ann_recall"] == 0.1


@pytest.mark.parametrize("rank", [0, 11, -1, True, 1.0])
def test_toggle_refuses_a_rank_that_is_not_a_neighbour(rank):
    state = RecallKindsState()
    with pytest.raises(ValueError, match="rank must be a whole number from 1 to 10"):
        state.toggle(rank)


@pytest.mark.parametrize(
    "values, message",
    [
        ({"model": "word2vec"}, "model"),
        ({"model": None}, "model"),
        ({"missed_neighbours": [0]}, "missed_neighbours must list distinct neighbour ranks from 1 to 10, got 0"),
        ({"missed_neighbours": [11]}, "missed_neighbours must list distinct neighbour ranks from 1 to 10, got 11"),
        (
            {"missed_neighbours": [3, 3]},
            "missed_neighbours must list distinct neighbour ranks from 1 to 10; it names a neighbour rank twice",
        ),
        ({"missed_neighbours": [True]}, "missed_neighbours"),
        ({"missed_neighbours": [2.0]}, "missed_neighbours"),
        ({"missed_neighbours": "3"}, "missed_neighbours"),
        ({"k": 5}, "unknown state field"),
    ],
    ids=repr,
)
def test_invalid_values_raise_value_error_and_change_nothing(values, message):
    state = RecallKindsState()
    with pytest.raises(ValueError, match=message):
        state.update_from_dict(values)
    assert state.to_dict() == RecallKindsState().to_dict()


def test_story_numbers():
    assert story_numbers() == {
        "recall_kinds_k": "10",
        "recall_kinds_r": "8",
        "recall_kinds_suited_recall": "0.88",
        "recall_kinds_mismatched_ann": "1.00",
        "recall_kinds_mismatched_found": "4",
        "recall_kinds_mismatched_recall": "0.50",
        "recall_kinds_mismatched_precision": "0.40",
    }


def test_the_figure_keeps_the_view_equal_to_the_state():
    figure = RecallKindsFigure()
    assert figure.view.state == figure.state.to_dict()
    figure.state.toggle(2)
    assert figure.view.state == {"model": "suited", "missed_neighbours": [2]}
    figure.view.state = {"model": "mismatched", "missed_neighbours": [2, 99]}
    assert figure.state.to_dict() == {"model": "suited", "missed_neighbours": [2]}
    assert figure.view.state == figure.state.to_dict()
