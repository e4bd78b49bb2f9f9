"""Figure 1's state in plain Python: the article's defaults, validation, and the figure's sync."""

import pytest

from explainer import metrics
from explainer.figures.binary import RESULT_COUNT, BinaryFigure, BinaryState
from explainer.metrics import format_number

ARTICLE = [False, True, True, False, True, False, False, True, False, False, True, False]  # ranks 2, 3, 5, 8, 11


def test_defaults_are_the_articles_list():
    state = BinaryState()
    assert [rank for rank, r in enumerate(state.relevant, start=1) if r] == [2, 3, 5, 8, 11]
    assert state.relevant == ARTICLE
    assert state.k == 5
    assert state.missed == 1
    assert state.grades == [int(r) for r in ARTICLE]
    assert state.n_relevant == 5 + 1
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}


def test_default_values_are_the_articles_numbers():
    values = BinaryState().values
    assert set(values) == {"precision", "recall", "rr", "ap"}
    assert values["precision"] == pytest.approx(3 / 5)
    assert values["recall"] == pytest.approx(3 / 6)
    assert values["rr"] == pytest.approx(1 / 2)
    assert values["ap"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6)
    assert {name: format_number(v) for name, v in values.items()} == {
        "precision": "0.60",
        "recall": "0.50",
        "rr": "0.50",
        "ap": "0.45",
    }


def test_values_follow_k_and_missed():
    state = BinaryState(k=8, missed=3)
    assert state.n_relevant == 5 + 3
    assert state.values["precision"] == pytest.approx(4 / 8)
    assert state.values["recall"] == pytest.approx(4 / 8)
    assert state.values["rr"] == pytest.approx(1 / 2)
    assert state.values["ap"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 8)


def test_flip_toggles_one_rank_and_back():
    state = BinaryState()
    state.flip(1)
    assert state.relevant == [True] + ARTICLE[1:]
    # The missed document is the one now retrieved at rank 1: R stays 6.
    assert state.missed == 1 - 1 == 0
    assert state.n_relevant == 6 + 0 == 6
    assert state.values["rr"] == 1.0
    assert state.values["ap"] == pytest.approx(metrics.average_precision(state.grades, 6))
    state.flip(1)
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    state.flip(12)
    assert state.relevant[-1] is True
    assert state.relevant[:-1] == ARTICLE[:-1]
    assert (state.missed, state.n_relevant) == (0, 6)


def test_flipping_rank_1_gives_the_issues_numbers_and_flipping_again_restores_them():
    state = BinaryState()
    state.flip(1)
    assert [rank for rank, r in enumerate(state.relevant, start=1) if r] == [1, 2, 3, 5, 8, 11]
    assert state.missed == 0
    assert state.n_relevant == 6
    values = state.values
    assert values["precision"] == pytest.approx(4 / 5)  # ranks 1, 2, 3, 5 in the top 5
    assert values["recall"] == pytest.approx(4 / 6)
    assert values["rr"] == pytest.approx(1 / 1)
    ap = (1 / 1 + 2 / 2 + 3 / 3 + 4 / 5 + 5 / 8 + 6 / 11) / 6
    assert values["ap"] == pytest.approx(ap)
    assert values["ap"] == pytest.approx(metrics.average_precision(state.grades, 6))
    assert {name: format_number(v) for name, v in values.items()} == {
        "precision": "0.80",
        "recall": "0.67",
        "rr": "1.00",
        "ap": format_number(ap),
    }
    state.flip(1)
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    assert state.values == BinaryState().values


def test_flipping_keeps_r_while_there_is_a_missed_result_to_bring_in():
    state = BinaryState(missed=3)  # R = 5 + 3 = 8
    for rank, missed in [(1, 2), (4, 1), (2, 2), (6, 1), (2, 0)]:
        state.flip(rank)
        assert state.missed == missed, f"after flipping rank {rank}"
        assert state.n_relevant == 8, f"after flipping rank {rank}"


def test_flipping_on_when_nothing_is_missed_grows_r_by_one():
    state = BinaryState(missed=0)
    assert state.n_relevant == 5
    state.flip(1)
    assert state.relevant == [True] + ARTICLE[1:]
    assert state.missed == 0
    assert state.n_relevant == 5 + 1
    assert state.values["recall"] == pytest.approx(4 / 6)
    state.flip(4)
    assert (state.missed, state.n_relevant) == (0, 7)
    # Turned off again, each result joins the missed: R stays at 7, it does not fall back to 5.
    state.flip(4)
    assert (state.missed, state.n_relevant) == (1, 7)


def test_flipping_off_when_twelve_are_missed_shrinks_r_by_one():
    state = BinaryState(missed=RESULT_COUNT)
    assert state.n_relevant == 5 + 12
    state.flip(2)  # relevant -> not relevant, but missed is already at its maximum
    assert state.relevant[1] is False
    assert state.missed == 12
    assert state.n_relevant == 4 + 12
    assert state.values["recall"] == pytest.approx(2 / 16)  # ranks 3 and 5 in the top 5
    # Turned relevant again, it comes from the missed: R stays 16.
    state.flip(2)
    assert (state.missed, state.n_relevant) == (11, 16)


def test_flipping_every_result_off_with_twelve_missed_leaves_r_at_twelve():
    state = BinaryState(relevant=[True] * 12, missed=12)
    assert state.n_relevant == 24
    for rank in range(1, 13):
        state.flip(rank)
        assert (state.missed, state.n_relevant) == (12, 24 - rank)
    assert state.relevant == [False] * 12


def test_flipping_every_result_off_from_the_article_moves_them_to_the_missed():
    state = BinaryState()
    for rank in (2, 3, 5, 8, 11):
        state.flip(rank)
    assert state.relevant == [False] * 12
    assert state.missed == 1 + 5
    assert state.n_relevant == 6
    assert all(v == 0 for v in state.values.values())


def test_flip_does_not_change_the_defaults_of_other_states():
    state = BinaryState()
    state.flip(1)
    assert BinaryState().relevant == ARTICLE
    assert BinaryState.param.relevant.default == ARTICLE


def test_flip_triggers_a_watcher_once():
    state = BinaryState()
    batches = []
    state.param.watch(lambda *events: batches.append(events), ["relevant", "missed"])
    state.flip(4)
    assert len(batches) == 1  # relevant and missed change in one batch
    events = {event.name: event for event in batches[0]}
    assert set(events) == {"relevant", "missed"}
    assert events["relevant"].old == ARTICLE
    assert events["relevant"].new[3] is True
    assert (events["missed"].old, events["missed"].new) == (1, 0)


@pytest.mark.parametrize("rank", [0, 13, -1])
def test_flip_refuses_a_rank_outside_the_list(rank):
    state = BinaryState()
    with pytest.raises(ValueError, match="rank"):
        state.flip(rank)
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}


def test_reset_returns_to_the_article():
    state = BinaryState(k=9, missed=4)
    state.flip(1)  # on: missed 4 -> 3
    state.flip(2)  # off: missed 3 -> 4
    state.flip(3)  # off: missed 4 -> 5
    assert state.to_dict() == {"relevant": [True, False, False] + ARTICLE[3:], "k": 9, "missed": 5, "chart": "by-k"}
    state.reset()
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    assert state.n_relevant == 6


def test_reset_does_not_share_the_default_list():
    state = BinaryState()
    state.flip(1)
    state.reset()
    assert state.relevant is not BinaryState.param.relevant.default
    try:
        state.relevant[0] = True  # an in-place edit, as a notebook user might do
        assert BinaryState().relevant == ARTICLE
        assert BinaryState.param.relevant.default == ARTICLE
        other = BinaryState(k=7)
        other.reset()
        assert other.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    finally:
        BinaryState.param.relevant.default[:] = ARTICLE  # undo the damage for the other tests


def test_n_relevant_counts_the_list_and_the_missed():
    assert BinaryState(relevant=[False] * 12, missed=0).n_relevant == 0
    assert BinaryState(relevant=[True] * 12, missed=12).n_relevant == 24
    assert BinaryState(missed=0).n_relevant == 5


def test_the_extremes_are_valid():
    for k in (1, RESULT_COUNT):
        for missed in (0, RESULT_COUNT):
            BinaryState(k=k, missed=missed)


@pytest.mark.parametrize("k", [0, 13, -5])
def test_k_outside_1_to_12_is_refused(k):
    state = BinaryState()
    with pytest.raises(ValueError):
        state.k = k
    with pytest.raises(ValueError):
        BinaryState(k=k)
    assert state.k == 5


@pytest.mark.parametrize("missed", [-1, 13])
def test_missed_outside_0_to_12_is_refused(missed):
    state = BinaryState()
    with pytest.raises(ValueError):
        state.missed = missed
    with pytest.raises(ValueError):
        BinaryState(missed=missed)
    assert state.missed == 1


@pytest.mark.parametrize("value", ["5", 5.0, None])
def test_k_and_missed_must_be_integers(value):
    state = BinaryState()
    with pytest.raises(ValueError):
        state.k = value
    with pytest.raises(ValueError):
        state.missed = value
    assert (state.k, state.missed) == (5, 1)


@pytest.mark.parametrize("relevant", [[True] * 11, [True] * 13, [], "x" * 12, None, tuple(ARTICLE)])
def test_relevant_of_the_wrong_length_or_type_is_refused(relevant):
    state = BinaryState()
    with pytest.raises(ValueError):
        state.relevant = relevant
    with pytest.raises(ValueError):
        state.update_from_dict({"relevant": relevant})
    assert state.relevant == ARTICLE


@pytest.mark.parametrize("relevant", [[1] * 12, [0] * 12, [None] * 12, ["yes"] * 12, ARTICLE[:11] + [1]])
def test_relevant_of_non_bools_is_refused_with_value_error(relevant):
    state = BinaryState()
    events = []
    state.param.watch(events.append, ["relevant", "k", "missed"])
    with pytest.raises(ValueError, match="relevant"):
        state.update_from_dict({"relevant": relevant, "k": 7})
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    assert events == []


def test_relevant_of_non_bools_is_refused():
    # Direct assignment goes through param alone, which reports a wrong item type as TypeError;
    # update_from_dict (what the figure uses) turns it into ValueError, tested above.
    state = BinaryState()
    with pytest.raises((ValueError, TypeError)):
        state.relevant = [1] * 12
    assert state.relevant == ARTICLE


@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("field", ["k", "missed"])
def test_bools_are_not_integers(field, value):
    state = BinaryState()
    with pytest.raises(ValueError, match=field):
        state.update_from_dict({field: value})
    with pytest.raises(ValueError, match=field):
        setattr(state, field, value)
    with pytest.raises(ValueError, match=field):
        BinaryState(**{field: value})
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}


def test_update_from_dict_sets_several_fields_at_once():
    state = BinaryState()
    events = []
    state.param.watch(lambda *e: events.append(e), ["relevant", "k", "missed"])
    state.update_from_dict({"relevant": [True] * 12, "k": 12, "missed": 0})
    assert state.to_dict() == {"relevant": [True] * 12, "k": 12, "missed": 0, "chart": "by-k"}
    assert len(events) == 1  # one batch, not three


def test_update_from_dict_with_a_subset_leaves_the_rest():
    state = BinaryState()
    state.update_from_dict({"k": 7})
    assert state.to_dict() == {"relevant": ARTICLE, "k": 7, "missed": 1, "chart": "by-k"}
    state.update_from_dict({})
    assert state.to_dict() == {"relevant": ARTICLE, "k": 7, "missed": 1, "chart": "by-k"}


@pytest.mark.parametrize(
    "bad",
    [
        {"relevant": [True] * 12, "k": 6, "missed": 13},
        {"relevant": [True] * 12, "k": 0, "missed": 2},
        {"relevant": [True] * 11, "k": 6, "missed": 2},
        {"k": 6, "missed": -1},
        {"k": 13, "missed": 2},
    ],
)
def test_update_from_dict_is_all_or_nothing(bad):
    state = BinaryState(k=3, missed=4)
    before = state.to_dict()
    events = []
    state.param.watch(events.append, ["relevant", "k", "missed"])
    with pytest.raises(ValueError):
        state.update_from_dict(bad)
    assert state.to_dict() == before
    assert events == []


@pytest.mark.parametrize("bad", [{"n": 3}, {"k": 6, "name": "x"}, {"relevant": ARTICLE, "K": 4}])
def test_update_from_dict_rejects_unknown_fields(bad):
    state = BinaryState()
    with pytest.raises(ValueError, match="unknown"):
        state.update_from_dict(bad)
    assert state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}


def test_to_dict_is_a_copy():
    state = BinaryState()
    data = state.to_dict()
    data["relevant"][0] = True
    assert state.relevant == ARTICLE


# -- the figure keeps state and view equal, in Python ---------------------------------------


def test_figure_starts_with_the_article_in_both_halves():
    figure = BinaryFigure()
    assert figure.state.to_dict() == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    assert figure.view.state == figure.state.to_dict()
    assert figure.view.default == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
    assert len(figure.view.titles) == RESULT_COUNT
    assert figure.__panel__() is figure.view


def test_figure_accepts_a_state_or_state_parameters():
    state = BinaryState(k=9)
    figure = BinaryFigure(state)
    assert figure.state is state
    assert figure.view.state["k"] == 9
    assert figure.view.default["k"] == 5  # reset still goes to the article
    assert BinaryFigure(missed=4).view.state["missed"] == 4


def test_view_follows_the_state():
    figure = BinaryFigure()
    figure.state.flip(1)
    assert figure.view.state == {"relevant": [True] + ARTICLE[1:], "k": 5, "missed": 0, "chart": "by-k"}
    figure.state.k = 11
    assert figure.view.state["k"] == 11
    figure.state.missed = 3
    assert figure.view.state == {"relevant": [True] + ARTICLE[1:], "k": 11, "missed": 3, "chart": "by-k"}
    figure.state.reset()
    assert figure.view.state == {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}


def test_a_valid_view_state_updates_the_state():
    figure = BinaryFigure()
    new = {"relevant": [True] * 6 + [False] * 6, "k": 2, "missed": 7, "chart": "precision-recall"}
    figure.view.state = new
    assert figure.state.to_dict() == new
    assert figure.state.n_relevant == 13
    assert figure.view.state == new


@pytest.mark.parametrize(
    "bad",
    [
        {"relevant": ARTICLE, "k": 0, "missed": 1},
        {"relevant": ARTICLE, "k": 13, "missed": 1},
        {"relevant": ARTICLE, "k": 5, "missed": -1},
        {"relevant": ARTICLE, "k": 5, "missed": 13},
        {"relevant": ARTICLE[:11], "k": 5, "missed": 1},
        {"relevant": ARTICLE, "k": 5.5, "missed": 1},
        {"relevant": [True] * 12, "k": 6, "missed": 13},  # valid parts must not leak in either
        {"relevant": ARTICLE, "k": 5, "missed": 1, "extra": 1},
    ],
)
def test_an_invalid_view_state_is_refused_and_the_view_reset(bad):
    figure = BinaryFigure(k=3)
    before = figure.state.to_dict()
    figure.view.state = bad
    assert figure.state.to_dict() == before
    assert figure.view.state == before


@pytest.mark.parametrize(
    "bad",
    [
        {"relevant": [1] * 12, "k": 5, "missed": 1},
        {"relevant": [None] * 12, "k": 5, "missed": 1},
        {"relevant": ARTICLE, "k": True, "missed": 1},
        {"relevant": ARTICLE, "k": 5, "missed": False},
    ],
)
def test_a_view_state_of_non_bools_or_bool_counts_is_refused_and_the_view_reset(bad):
    figure = BinaryFigure()
    before = figure.state.to_dict()
    figure.view.state = bad
    assert figure.state.to_dict() == before
    assert figure.view.state == before


# A real query's list, as the workbench makes it: x and y nobody judged.
REAL_QRELS = {"q": {"a": 1, "b": 0, "c": 2, "m": 1, "n": 0}}
REAL_RUN = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.0, "c": 1.0}}


def test_a_real_lists_unjudged_ranks_are_none_and_count_as_not_relevant_as_in_trec_eval():
    import pytrec_eval

    judged = REAL_QRELS["q"]
    ranked = sorted(REAL_RUN["q"], key=REAL_RUN["q"].get, reverse=True)
    relevant = [None if d not in judged else judged[d] >= 1 for d in ranked]
    n_relevant = sum(g >= 1 for g in judged.values())
    made = BinaryState.for_list(relevant, n_relevant - sum(r is True for r in relevant), k=4)
    state = made()
    assert state.relevant == [True, None, False, None, True]
    assert state.grades == [1, None, 0, None, 1]
    assert state.n_relevant == n_relevant
    expected = pytrec_eval.RelevanceEvaluator(REAL_QRELS, {"map", "recip_rank", "P.4", "recall.4"}).evaluate(REAL_RUN)
    values = state.values
    assert values["ap"] == pytest.approx(expected["q"]["map"], abs=1e-12)
    assert values["rr"] == pytest.approx(expected["q"]["recip_rank"], abs=1e-12)
    assert values["precision"] == pytest.approx(expected["q"]["P_4"], abs=1e-12)
    assert values["recall"] == pytest.approx(expected["q"]["recall_4"], abs=1e-12)
    assert made.limits()["relevant"] == {"length": 5, "unjudged": True}
    # A flip judges an unjudged rank: relevant, and R follows it (the missed count is data).
    state.flip(2)
    assert state.relevant[1] is True and state.n_relevant == n_relevant + 1


@pytest.mark.parametrize("flag", [None, 0, 1, "yes"])
def test_the_articles_list_takes_only_true_or_false(flag):
    with pytest.raises(ValueError, match="relevant"):
        BinaryState(relevant=[flag, *ARTICLE[1:]])
    assert BinaryState.limits()["relevant"] == {"length": RESULT_COUNT, "unjudged": False}


@pytest.mark.parametrize("flag", [0, 1, "?"])
def test_a_real_list_takes_true_false_or_none_only(flag):
    made = BinaryState.for_list([True, None, False], missed=0)
    with pytest.raises(ValueError, match="relevant at rank 2"):
        made(relevant=[True, flag, False])
