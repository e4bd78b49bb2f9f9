"""Figure 5, which measure answers which question: its state and demos in plain Python."""

import pytest

from explainer.figures.which_measure import DEMOS, WhichMeasureState
from explainer.metrics import format_number as f


@pytest.mark.parametrize("key", list(DEMOS))
def test_each_demo_shows_two_lists_its_measure_scores_the_same_and_another_measure_tells_apart(key):
    state = WhichMeasureState()
    state.choose(key)
    a, b = state.values("a"), state.values("b")
    # Equal values, not values that round alike (the figure compares them so).
    assert a[key] == pytest.approx(b[key], rel=0, abs=1e-12), key
    assert any(f(a[other]) != f(b[other]) for other in a if other != key), key


def test_the_precision_demo_is_the_articles_example():
    state = WhichMeasureState()
    # A relevant result moved from rank 1 to rank 5 leaves P@5 unchanged.
    assert state.values("a")["precision"] == state.values("b")["precision"] == 3 / 5
    assert state.values("a")["rr"] == 1.0 and state.values("b")["rr"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("field", "value"), [("measure", "f1"), ("a", [1] * 7), ("a", [4] + [0] * 7), ("b", [True] * 8)]
)
def test_bad_values_are_refused(field, value):
    with pytest.raises(ValueError):
        WhichMeasureState().update_from_dict({field: value})


SYMBOLS = {"precision": "P@{k}", "recall": "R@{k}", "rr": "RR", "ap": "AP", "ndcg": "NDCG", "dcg": "DCG@{k}"}


@pytest.mark.parametrize("key", list(DEMOS))
def test_each_demo_names_every_measure_that_cannot_tell_its_two_lists_apart(key):
    """Honest verdicts: where a second measure also scores the lists alike, the sentence says so."""
    state = WhichMeasureState()
    state.choose(key)
    a, b = state.values("a"), state.values("b")
    alike = [m for m in a if a[m] == pytest.approx(b[m], rel=0, abs=1e-12)]
    assert key in alike
    for measure in alike:
        assert SYMBOLS[measure].format(k=DEMOS[key].k) in DEMOS[key].says, (key, measure)


@pytest.mark.parametrize("key", [key for key, demo in DEMOS.items() if "ndcg" in demo.shown])
def test_wherever_ndcg_appears_its_gain_and_ideal_are_stated(key):
    assert "2^g − 1" in DEMOS[key].note and "ideal order from the list's own grades" in DEMOS[key].note
