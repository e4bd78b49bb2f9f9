"""Figure 4, unjudged documents: its state in plain Python."""

import pytest

from explainer.figures.unjudged import ARTICLE_GRADES, UnjudgedState
from explainer.metrics import format_number as f

from support.expected import unjudged_values

UNJUDGED = (2, 3, 7)


DEFAULT_JUDGED = [r not in UNJUDGED for r in range(1, 11)]


def test_unjudged_results_count_as_not_relevant_until_a_judge_grades_them():
    state = UnjudgedState()
    assert state.values == pytest.approx(unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED))
    assert f(state.values["judged"]) == "0.70"
    state.reveal = True
    after = state.values
    assert after == pytest.approx(unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED, reveal=True))
    assert after["ndcg"] > unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED)["ndcg"]
    assert after["judged"] == 1.0


def test_a_condensed_list_leaves_unjudged_results_out():
    state = UnjudgedState(unjudged_as="condensed")
    assert state.values == pytest.approx(unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED, condensed=True))


@pytest.mark.parametrize(
    ("field", "value"),
    [("grades", [4] * 10), ("grades", [1] * 9), ("judged", [1] * 10), ("k", 11), ("k", True), ("unjudged_as", "skip")],
)
def test_bad_values_are_refused(field, value):
    with pytest.raises(ValueError):
        UnjudgedState().update_from_dict({field: value})
