"""Figure 2's state in Python: the article's defaults, its numbers, its changes and what it refuses."""

import pytest

from explainer import metrics
from explainer.figures.ndcg import RESULT_COUNT, TITLES, NdcgFigure, NdcgState
from explainer.metrics import format_number

ARTICLE = [1, 3, 0, 2, 0, 3, 1, 2]
IDENTITY = list(range(8))


def written(values: dict[str, float]) -> dict[str, str]:
    return {name: format_number(value) for name, value in values.items()}


def test_the_defaults_are_the_article_example():
    state = NdcgState()
    assert state.grades == ARTICLE
    assert state.order == IDENTITY
    assert state.k == 8
    assert state.gain == "exponential"
    assert state.ranked_grades == ARTICLE
    assert state.to_dict() == {"grades": ARTICLE, "order": IDENTITY, "k": 8, "gain": "exponential"}
    assert RESULT_COUNT == len(TITLES) == 8


def test_the_default_values_are_the_articles_numbers():
    # Exponential gains 1, 7, 0, 3, 0, 7, 1, 3 over log2(rank + 1).
    dcg8 = 1 / 1 + 7 / 1.5849625 + 0 + 3 / 2.3219281 + 0 + 7 / 2.8073549 + 1 / 3 + 3 / 3.1699250
    ideal8 = 7 + 7 / 1.5849625 + 3 / 2 + 3 / 2.3219281 + 1 / 2.5849625 + 1 / 2.8073549
    assert format_number(dcg8) == "10.48" and format_number(ideal8) == "14.95"

    state = NdcgState()
    assert state.values["dcg"] == pytest.approx(dcg8, abs=1e-6)
    assert state.values["ideal_dcg"] == pytest.approx(ideal8, abs=1e-6)
    assert written(state.values) == {"dcg": "10.48", "ideal_dcg": "14.95", "ndcg": "0.70"}

    state.k = 3
    assert written(state.values) == {"dcg": "5.42", "ideal_dcg": "12.92", "ndcg": "0.42"}

    state.gain = "linear"
    assert written(state.values) == {"dcg": "2.89", "ideal_dcg": "5.89", "ndcg": "0.49"}

    state.k = 8
    assert written(state.values) == {"dcg": "5.79", "ideal_dcg": "7.50", "ndcg": "0.77"}


def test_values_come_from_the_metrics_core_for_any_state():
    state = NdcgState(grades=[0, 2, 3, 1, 0, 0, 2, 1], order=[7, 6, 5, 4, 3, 2, 1, 0], k=5, gain="linear")
    ranked = [1, 2, 0, 0, 1, 3, 2, 0]
    assert state.ranked_grades == ranked
    assert state.values == {
        "dcg": metrics.dcg_at_k(ranked, 5, "linear"),
        "ideal_dcg": metrics.dcg_at_k(metrics.ideal_grades(ranked), 5, "linear"),
        "ndcg": metrics.ndcg_at_k(ranked, 5, "linear"),
    }


def test_all_grades_zero_gives_ndcg_zero():
    state = NdcgState(grades=[0] * 8)
    assert state.values == {"dcg": 0.0, "ideal_dcg": 0.0, "ndcg": 0.0}


def test_promote_swaps_with_the_result_above_and_rank_1_stays():
    state = NdcgState()
    state.promote(6)
    assert state.order == [0, 1, 2, 3, 5, 4, 6, 7]
    assert state.ranked_grades == [1, 3, 0, 2, 3, 0, 1, 2]
    assert state.values["ndcg"] == metrics.ndcg_at_k([1, 3, 0, 2, 3, 0, 1, 2], 8)
    state.promote(2)
    assert state.order == [1, 0, 2, 3, 5, 4, 6, 7]
    state.promote(1)
    assert state.order == [1, 0, 2, 3, 5, 4, 6, 7]
    # A document keeps its grade when it moves.
    assert state.grades == ARTICLE


@pytest.mark.parametrize("rank", [0, 9, -1])
def test_promote_refuses_a_rank_outside_the_list(rank):
    state = NdcgState()
    with pytest.raises(ValueError):
        state.promote(rank)
    assert state.order == IDENTITY


def test_set_grade_changes_the_document_at_that_rank():
    state = NdcgState(order=[7, 6, 5, 4, 3, 2, 1, 0])
    state.set_grade(1, 0)  # rank 1 holds document 7
    assert state.grades == [1, 3, 0, 2, 0, 3, 1, 0]
    assert state.ranked_grades == [0, 1, 3, 0, 2, 0, 3, 1]
    state.set_grade(8, 3)  # rank 8 holds document 0
    assert state.grades == [3, 3, 0, 2, 0, 3, 1, 0]


@pytest.mark.parametrize("rank, grade", [(0, 1), (9, 1), (1, 4), (1, -1)])
def test_set_grade_refuses_bad_ranks_and_grades(rank, grade):
    state = NdcgState()
    with pytest.raises(ValueError):
        state.set_grade(rank, grade)
    assert state.grades == ARTICLE


def test_reset_returns_to_the_article():
    state = NdcgState()
    state.promote(4)
    state.set_grade(2, 0)
    state.k = 2
    state.gain = "linear"
    state.reset()
    assert state.to_dict() == NdcgState().to_dict()
    assert state.to_dict() == {"grades": ARTICLE, "order": IDENTITY, "k": 8, "gain": "exponential"}


def test_reset_does_not_share_the_default_lists():
    """An in-place edit after reset() must not change the class default (and every later NdcgState())."""
    state = NdcgState()
    state.reset()
    before = state.grades[0]
    try:
        state.grades[0] = 3  # in place, as a notebook user might
        assert NdcgState().grades == ARTICLE
    finally:
        state.grades[0] = before  # undo, in case it was the shared default
    assert NdcgState().grades == ARTICLE


@pytest.mark.parametrize(
    "values",
    [
        {"grades": [4, 3, 0, 2, 0, 3, 1, 2]},
        {"grades": [1, 3, 0, -1, 0, 3, 1, 2]},
        {"grades": [1, 3, 0, 2, 0, 3, 1]},
        {"grades": [1, 3, 0, 2, 0, 3, 1, 2, 0]},
        {"grades": [True, 3, 0, 2, 0, 3, 1, 2]},
        {"order": [0, 0, 1, 2, 3, 4, 5, 6]},
        {"order": [1, 2, 3, 4, 5, 6, 7, 8]},
        {"order": [0, 1, 2, 3, 4, 5, 6]},
        {"k": 0},
        {"k": 9},
        {"gain": "logarithmic"},
        {"gain": None},
    ],
    ids=lambda v: repr(v),
)
def test_invalid_values_raise_value_error(values):
    with pytest.raises(ValueError):
        NdcgState(**values)
    state = NdcgState()
    name, value = next(iter(values.items()))
    with pytest.raises(ValueError):
        setattr(state, name, value)
    with pytest.raises(ValueError):
        state.update_from_dict(values)
    assert state.to_dict() == NdcgState().to_dict()


def test_a_fractional_grade_raises_value_error():
    """update_from_dict promises ValueError (Figure._pull catches only that), also for a wrong item type."""
    state = NdcgState()
    with pytest.raises(ValueError):
        state.update_from_dict({"grades": [1.5, 3, 0, 2, 0, 3, 1, 2]})
    with pytest.raises(ValueError):
        state.update_from_dict({"order": [0.0, 1, 2, 3, 4, 5, 6, 7]})
    assert state.to_dict() == NdcgState().to_dict()


def test_update_from_dict_sets_everything_at_once():
    state = NdcgState()
    events = []
    state.param.watch(lambda *e: events.append([x.name for x in e]), ["grades", "order", "k", "gain"])
    state.update_from_dict({"order": [7, 6, 5, 4, 3, 2, 1, 0], "k": 4, "gain": "linear"})
    assert state.to_dict() == {"grades": ARTICLE, "order": [7, 6, 5, 4, 3, 2, 1, 0], "k": 4, "gain": "linear"}
    assert len(events) == 1 and sorted(events[0]) == ["gain", "k", "order"]


@pytest.mark.parametrize(
    "values",
    [
        {"k": 3, "gain": "logarithmic"},
        {"order": [7, 6, 5, 4, 3, 2, 1, 0], "grades": [9, 0, 0, 0, 0, 0, 0, 0]},
        {"grades": [0] * 8, "order": [0, 0, 1, 2, 3, 4, 5, 6]},
        {"k": 2, "colour": "red"},
    ],
)
def test_update_from_dict_is_all_or_nothing(values):
    state = NdcgState()
    with pytest.raises(ValueError):
        state.update_from_dict(values)
    assert state.to_dict() == NdcgState().to_dict()


def test_the_figure_keeps_the_view_equal_to_the_state():
    figure = NdcgFigure()
    assert figure.view.state == figure.state.to_dict()
    assert figure.view.default == NdcgState().to_dict()
    assert figure.view.titles == list(TITLES)
    figure.state.promote(3)
    assert figure.view.state["order"] == [0, 2, 1, 3, 4, 5, 6, 7]
    # What the browser sends comes back to the state; what the state refuses is undone in the view.
    figure.view.state = {**figure.state.to_dict(), "k": 5}
    assert figure.state.k == 5
    figure.view.state = {**figure.state.to_dict(), "k": 12}
    assert figure.state.k == 5
    assert figure.view.state == figure.state.to_dict()
