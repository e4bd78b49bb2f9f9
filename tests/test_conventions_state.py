"""The conventions figure's state in plain Python: every convention's number, the tools' rules, trec_eval."""

from __future__ import annotations

from math import log2

import pytest

from explainer import metrics
from explainer.catalog.conventions import BY_KEY, CONVENTIONS
from explainer.figures.conventions import (
    ARTICLE_MISSED_GRADES,
    DEFAULT_K,
    DISAGREEING_MISSED,
    MAX_K,
    MAX_MISSED,
    ConventionsFigure,
    ConventionsState,
    ndcg_by_convention,
    story_numbers,
)
from explainer.figures.ndcg import ARTICLE_GRADES
from explainer.metrics import format_number as fmt

from support.page import BAD_WORDS

ARTICLE = list(ARTICLE_GRADES)
IDENTITY = list(range(8))


# == the state, in plain Python ================================================================


def test_the_defaults_are_figure_2s_list_with_two_missed_documents_at_k_5():
    state = ConventionsState()
    assert state.to_dict() == {"grades": ARTICLE, "order": IDENTITY, "k": 5, "missed_grades": [3, 2]}
    assert (DEFAULT_K, list(ARTICLE_MISSED_GRADES)) == (5, [3, 2])
    assert state.judged == ARTICLE + [3, 2]
    assert state.n_relevant == 6 + 2


def test_each_convention_at_the_default_is_the_arithmetic_written_out():
    # The list's grades at ranks 1..5 are 1, 3, 0, 2, 0; all ten judged, best first: 3, 3, 3, 2, 2, 2, 1, 1, 0, 0.
    d = [1 / log2(r + 1) for r in range(1, 11)]
    linear_dcg = 1 * d[0] + 3 * d[1] + 2 * d[3]
    exp_dcg = 1 * d[0] + 7 * d[1] + 3 * d[3]
    expected = {
        "linear-judged": linear_dcg / (3 * d[0] + 3 * d[1] + 3 * d[2] + 2 * d[3] + 2 * d[4]),
        "exponential-judged": exp_dcg / (7 * d[0] + 7 * d[1] + 7 * d[2] + 3 * d[3] + 3 * d[4]),
        # Quepid's nDCG@10: the whole ideal order, not cut at k.
        "exponential-judged-uncut": exp_dcg / sum(g * d[i] for i, g in enumerate([7, 7, 7, 3, 3, 3, 1, 1, 0, 0])),
        # Ideal from the list's own grades 3, 3, 2, 2, 1.
        "linear-list": linear_dcg / (3 * d[0] + 3 * d[1] + 2 * d[2] + 2 * d[3] + 1 * d[4]),
        "exponential-list": exp_dcg / (7 * d[0] + 7 * d[1] + 3 * d[2] + 3 * d[3] + 1 * d[4]),
    }
    values = ConventionsState().values
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, abs=1e-12), key
    written = {key: fmt(values[key]) for key in expected}
    assert written == {
        "linear-judged": "0.47",
        "exponential-judged": "0.39",
        "exponential-judged-uncut": "0.35",
        "linear-list": "0.53",
        "exponential-list": "0.46",
    }
    # Five conventions, five different numbers for one list.
    assert len(set(written.values())) == 5
    assert fmt(values["recall"]) == "0.38" and values["hit_rate"] == 1.0


def elasticsearch_ndcg(ranked, k, judged):
    """Elasticsearch rank_eval's dcg with normalize: true (DiscountedCumulativeGain.java): a search
    of size k returns at most k hits; gain 2^rating - 1; the ideal is every rating of the request,
    best first, cut at the number of hits returned."""
    hits = ranked[:k]

    def dcg(ratings):
        return sum((2**g - 1) / log2(rank + 1) for rank, g in enumerate(ratings, start=1))

    ideal = sorted(judged, reverse=True)[: min(len(hits), len(judged))]
    return dcg(hits) / dcg(ideal) if dcg(ideal) else 0.0


def test_elasticsearch_is_the_exponential_judged_row_when_k_hits_come_back_and_not_past_the_lists_end():
    row = BY_KEY["exponential-judged"]
    assert any(name.startswith("Elasticsearch") and name.endswith("when k hits come back") for name in row.used_by)
    missed = [3, 3, 2, 2]
    for k in range(1, MAX_K + 1):
        state = ConventionsState(k=k, missed_grades=missed)
        es = elasticsearch_ndcg(state.ranked_grades, k, state.judged)
        if k <= len(state.ranked_grades):
            assert state.values["exponential-judged"] == pytest.approx(es, abs=1e-12), k
        else:  # eight hits: Elasticsearch cuts its ideal at 8, the row at k
            assert state.values["exponential-judged"] < es, k
    state = ConventionsState(k=10, missed_grades=missed)
    assert (
        fmt(state.values["exponential-judged"]),
        fmt(elasticsearch_ndcg(state.ranked_grades, 10, state.judged)),
    ) == (
        "0.46",
        "0.47",
    )


def test_quepids_scorers_are_named_with_k_standing_for_their_10():
    # Quepid's scorers fix k in their code (var k = 10 // @Rank); the table's rows are headed NDCG@k.
    quepid = [name for c in CONVENTIONS for name in c.used_by if name.startswith("Quepid")]
    assert quepid and all(name.endswith("its 10 set to k") for name in quepid)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 10])
@pytest.mark.parametrize("missed", [[], [3, 2], [1, 1, 1], [3, 3, 3, 3, 3, 3]])
def test_the_judged_ideal_rows_agree_with_trec_eval(k, missed):
    """The tool labels of the first two rows: trec_eval's ndcg_cut is the linear row; with grades relabelled
    as 2^g - 1 (the exponential gain), it is the exponential row. success is hit rate, recall is recall."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    shown = [2, 0, 3, 1, 0, 0, 1, 3]

    def trec(relabel):
        qrels = {
            "q": {
                **{f"r{i}": relabel(g) for i, g in enumerate(shown)},
                **{f"m{i}": relabel(g) for i, g in enumerate(missed)},
            }
        }
        run = {"q": {f"r{i}": float(100 - i) for i in range(len(shown))}}
        measures = {f"ndcg_cut.{k}", f"success.{k}", f"recall.{k}"}
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]

    linear = trec(lambda g: g)
    exponential = trec(lambda g: 2**g - 1)
    assert ndcg_by_convention(shown, k, missed, BY_KEY["linear-judged"]) == pytest.approx(
        linear[f"ndcg_cut_{k}"], abs=1e-4
    )
    assert ndcg_by_convention(shown, k, missed, BY_KEY["exponential-judged"]) == pytest.approx(
        exponential[f"ndcg_cut_{k}"], abs=1e-4
    )
    state = ConventionsState(grades=shown, k=k, missed_grades=missed)
    assert state.values["hit_rate"] == linear[f"success_{k}"]
    assert state.values["recall"] == pytest.approx(linear[f"recall_{k}"], abs=1e-4)


def test_k_runs_past_the_eight_results_to_10_but_a_real_querys_list_stops_at_its_length():
    assert ConventionsState.param.k.bounds == (1, MAX_K) == (1, 10)
    missed = [3, 3, 2, 2]
    state = ConventionsState(k=MAX_K, missed_grades=missed)
    ranked, judged = state.ranked_grades, state.judged
    # Past the list its DCG stops growing; the ideal of every judged document does not.
    assert metrics.dcg_at_k(ranked, 10, "linear") == metrics.dcg_at_k(ranked, 8, "linear")
    assert state.values["linear-judged"] == metrics.ndcg_at_k(ranked, 10, "linear", judged=judged)
    assert state.values["linear-judged"] < ConventionsState(k=8, missed_grades=missed).values["linear-judged"]
    made = ConventionsState.for_list([2, 0, 1], [3])
    assert made.param.k.bounds == (1, 3)


def test_a_cut_past_the_list_reorders_two_queries_because_only_one_ideal_still_grows():
    """The same eight results with four missed 2s or two missed 3s: by trec_eval's ndcg_cut the
    first is ahead at k = 3 and k = 8 and behind at k = 10. The list's DCG is the same for both and
    stops at rank 8; the first's ideal (ten relevant documents) grows past it, the second's (eight)
    does not. With the exponential gain the first stays ahead."""
    first, second = DISAGREEING_MISSED

    def ndcg(missed, k, key="linear-judged"):
        return ConventionsState(missed_grades=list(missed), k=k).values[key]

    ranked = ConventionsState().ranked_grades
    assert metrics.dcg_at_k(ranked, 10, "linear") == metrics.dcg_at_k(ranked, 8, "linear")
    assert sum(g >= 1 for g in ranked + list(first)) == 10 and sum(g >= 1 for g in ranked + list(second)) == 8
    assert ndcg(second, 10) == pytest.approx(ndcg(second, 8)) and ndcg(first, 10) < ndcg(first, 8)
    for k in (3, 8):
        assert fmt(ndcg(first, k)) > fmt(ndcg(second, k)), k
    assert fmt(ndcg(first, 10)) < fmt(ndcg(second, 10))
    assert ndcg(first, 10, "exponential-judged") > ndcg(second, 10, "exponential-judged")


def test_the_uncut_ideal_differs_from_the_cut_one_only_when_judged_documents_pass_k():
    state = ConventionsState(k=8, missed_grades=[])
    # Eight judged documents, k = 8: cutting the ideal at k drops nothing.
    assert state.values["exponential-judged-uncut"] == pytest.approx(state.values["exponential-judged"])
    # Two of the list's results are 0s: a ninth relevant document takes the three missed ones.
    state.missed_grades = [3, 1]
    assert state.values["exponential-judged-uncut"] == pytest.approx(state.values["exponential-judged"])
    state.missed_grades = [3, 1, 1]
    assert state.values["exponential-judged-uncut"] < state.values["exponential-judged"]


def test_every_convention_names_its_tools_and_a_known_gain():
    assert [c.key for c in CONVENTIONS] == list(BY_KEY)
    for c in CONVENTIONS:
        assert c.gain in metrics.GAINS and c.ideal in ("judged", "list") and c.used_by, c


def test_promote_set_grade_and_the_missed_steppers():
    state = ConventionsState()
    state.promote(6)
    assert state.order == [0, 1, 2, 3, 5, 4, 6, 7]
    state.promote(1)
    assert state.order == [0, 1, 2, 3, 5, 4, 6, 7]
    state.set_grade(5, 1)  # rank 5 now holds document 5
    assert state.grades == [1, 3, 0, 2, 0, 1, 1, 2]
    state.add_missed_grade(1)
    state.add_missed_grade(3)
    assert state.missed_grades == [3, 3, 2, 1]
    state.remove_missed_grade(3)
    assert state.missed_grades == [3, 2, 1]
    state.remove_missed_grade(3)
    with pytest.raises(ValueError, match="no missed document has grade 3"):
        state.remove_missed_grade(3)
    assert state.missed_grades == [2, 1]
    assert state.values["recall"] == metrics.recall_at_k(state.ranked_grades, 5, state.n_relevant)


@pytest.mark.parametrize("rank", [0, 9, -1, True, 2.0])
def test_promote_and_set_grade_refuse_a_rank_outside_the_list(rank):
    state = ConventionsState()
    with pytest.raises(ValueError, match="rank must be"):
        state.promote(rank)
    with pytest.raises(ValueError, match="rank must be"):
        state.set_grade(rank, 1)
    assert state.to_dict() == ConventionsState().to_dict()


@pytest.mark.parametrize(
    "values, message",
    [
        ({"missed_grades": [0]}, r"missed_grades\[0\] must be a grade from 1 to 3, got 0"),
        ({"missed_grades": [3, 4]}, r"missed_grades\[1\] must be a grade from 1 to 3, got 4"),
        ({"missed_grades": [True]}, "missed_grades"),
        ({"missed_grades": [1] * (MAX_MISSED + 1)}, "missed_grades"),
        ({"missed_grades": [1.5]}, "missed_grades"),
        ({"k": 0}, "k"),
        ({"k": MAX_K + 1}, "k"),
        ({"k": True}, "k"),
        ({"grades": [4, 3, 0, 2, 0, 3, 1, 2]}, "grades"),
        ({"grades": [1, 3, 0]}, "grades"),
        ({"order": [0, 0, 1, 2, 3, 4, 5, 6]}, "order"),
        ({"colour": "red"}, "unknown state field"),
    ],
    ids=repr,
)
def test_invalid_values_raise_value_error_naming_the_field_and_change_nothing(values, message):
    state = ConventionsState()
    with pytest.raises(ValueError, match=message):
        state.update_from_dict(values)
    assert state.to_dict() == ConventionsState().to_dict()


def test_update_from_dict_is_all_or_nothing():
    state = ConventionsState()
    with pytest.raises(ValueError):
        state.update_from_dict({"k": 3, "missed_grades": [9]})
    assert state.k == 5


def test_story_numbers_come_from_the_default_state():
    numbers = story_numbers()
    values = ConventionsState().values
    assert numbers["conventions_k"] == "5"
    assert numbers["conventions_missed"] == "3 and 2"
    assert (numbers["conventions_low"], numbers["conventions_high"]) == ("0.35", "0.53")
    assert numbers["conventions_trec"] == fmt(values["linear-judged"]) == "0.47"
    assert numbers["conventions_quepid"] == "0.35"
    assert (numbers["conventions_hits"], numbers["conventions_r"], numbers["conventions_recall"]) == ("3", "8", "0.38")
    assert numbers["conventions_hit_rate"] == "1.00"
    assert all(BAD_WORDS.search(v) is None for v in numbers.values())


def test_the_figure_keeps_the_view_equal_to_the_state():
    figure = ConventionsFigure()
    assert figure.view.state == figure.state.to_dict()
    assert [c["key"] for c in figure.view.conventions] == list(BY_KEY)
    figure.state.add_missed_grade(1)
    assert figure.view.state["missed_grades"] == [3, 2, 1]
    figure.view.state = {**figure.state.to_dict(), "missed_grades": [0]}
    assert figure.state.missed_grades == [3, 2, 1]
    assert figure.view.state == figure.state.to_dict()


# A real query's list, as the workbench makes it: x and y nobody judged; b, z and w judged 0.
REAL_QRELS = {"q": {"a": 2, "b": 0, "c": 1, "r": 3, "z": 0, "w": 0}}
REAL_RUN = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}


def test_a_real_lists_unjudged_documents_are_none_and_its_judged_documents_the_qrels():
    import pytrec_eval

    judged = REAL_QRELS["q"]
    ranked = sorted(REAL_RUN["q"], key=REAL_RUN["q"].get, reverse=True)
    outside = [g for d, g in judged.items() if d not in ranked]
    made = ConventionsState.for_list([judged.get(d) for d in ranked], outside, k=4)
    state = made()
    assert state.ranked_grades == [2, None, 0, None]
    # Every judged document, once: the list's judged ones and all those outside it, 0s included.
    assert sorted(state.judged) == sorted(judged.values())
    assert made.limits()["grades"]["unjudged"] is True
    assert made.limits()["missed_grades"]["min_grade"] == 0
    expected = pytrec_eval.RelevanceEvaluator(REAL_QRELS, {"ndcg_cut.4", "recall.4", "success.4"}).evaluate(REAL_RUN)
    values = state.values
    assert values["linear-judged"] == pytest.approx(expected["q"]["ndcg_cut_4"], abs=1e-12)
    assert values["recall"] == pytest.approx(expected["q"]["recall_4"], abs=1e-12)
    assert values["hit_rate"] == pytest.approx(expected["q"]["success_4"], abs=1e-12)
    # An unjudged document counts as grade 0 under every convention.
    as_zero = ConventionsState.for_list([judged.get(d, 0) for d in ranked], outside, k=4)().values
    assert values == pytest.approx(as_zero, abs=1e-12)


@pytest.mark.parametrize(
    "values",
    [{"grades": [1, None, 0, 2, 0, 3, 1, 2]}, {"missed_grades": [3, 0]}],
    ids=["unjudged", "missed-0"],
)
def test_the_articles_list_is_all_judged_and_its_missed_documents_relevant(values):
    with pytest.raises(ValueError):
        ConventionsState(**values)


def test_a_real_list_refuses_a_grade_that_is_neither_a_grade_nor_none():
    made = ConventionsState.for_list([1, None, 0], [0], k=2)
    with pytest.raises(ValueError, match=r"grades\[1\]"):
        made(grades=[1, "?", 0])
    with pytest.raises(ValueError, match=r"missed_grades\[0\]"):
        made(missed_grades=[None])
