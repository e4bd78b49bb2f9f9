"""Figure 3's state in plain Python: presets, per-query values, mean and median, validation."""

import pytest

from explainer import metrics
from explainer.figures.queries import DEPTH, QueriesState
from explainer.metrics import format_number as f


def test_the_default_is_three_queries_with_first_hits_at_1_3_and_10():
    state = QueriesState()
    assert state.a == [[1], [3], [10]] and state.b == [] and state.measure == "rr"
    assert state.per_query("a") == pytest.approx([1 / 1, 1 / 3, 1 / 10])
    summary = state.summary("a")
    assert summary["mean"] == pytest.approx((1 + 1 / 3 + 1 / 10) / 3)
    assert f(summary["mean"]) == "0.48"
    assert summary["median"] == pytest.approx(1 / 3)


def test_the_consistency_preset_gives_the_lessons_numbers():
    state = QueriesState()
    state.apply_preset("consistency")
    a, b = state.summary("a"), state.summary("b")
    assert a["mean"] == pytest.approx((1 + 1 + 4 * (1 / 20)) / 6)
    assert (f(a["mean"]), f(b["mean"])) == ("0.37", "0.50")
    assert a["median"] == pytest.approx(1 / 20) and b["median"] == pytest.approx(1 / 2)


def test_map_averages_each_querys_average_precision():
    state = QueriesState(a=[[1, 3], [2], []], measure="ap")
    assert state.per_query("a") == pytest.approx([(1 / 1 + 2 / 3) / 2, 1 / 2, 0.0])
    assert state.summary("a")["mean"] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2 + 0) / 3)
    assert state.summary("a")["median"] == pytest.approx(1 / 2)


def test_median_of_an_even_count_is_the_mean_of_the_middle_two():
    assert metrics.median([0.1, 1.0, 0.5, 0.2]) == pytest.approx((0.2 + 0.5) / 2)
    assert metrics.median([]) == 0.0


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("a", [], "a must have 1 to 8 queries"),
        ("a", [[1]] * 9, "a must have 1 to 8 queries"),
        ("a", [[0]], "a query 1 must list distinct relevant ranks from 1 to 20"),
        ("a", [[DEPTH + 1]], "relevant ranks from 1 to 20"),
        ("a", [[2, 2]], "distinct"),
        ("b", [[True]], "b query 1"),
        ("measure", "ndcg", "measure"),
    ],
)
def test_bad_values_are_refused_with_a_clear_message(field, value, message):
    with pytest.raises(ValueError, match=message):
        QueriesState(**{field: value})


def test_an_unknown_preset_is_refused():
    with pytest.raises(ValueError, match="preset must be one of three, consistency"):
        QueriesState().apply_preset("best")
