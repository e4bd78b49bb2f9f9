"""The workbench without a browser: the figures' state classes made for a real list, what the page
receives for a query, and the states the page may send (checked against the data)."""

from __future__ import annotations

import pytest
import pytrec_eval

from explainer.evaluation import golden
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.conventions import ConventionsState
from explainer.workbench import Workbench, drill_down
from explainer.workbench import data as wb
from explainer.workbench.view import MAX_WHATIF_QUERIES, golden_evaluated

APPROX = dict(abs=1e-12)


@pytest.fixture(scope="module")
def evaluated():
    return golden_evaluated()


@pytest.fixture(scope="module")
def trec():
    topics, documents, qrels, baseline, candidate = golden.load()
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels.to_dict(), {"map", "recip_rank", "P.10", "recall.10", "ndcg_cut.10", "success.10"}
    )
    return [evaluator.evaluate(run.to_dict()) for run in (baseline, candidate)]


def test_a_state_class_made_for_a_list_takes_its_length_and_missed_count_from_the_list():
    made = BinaryState.for_list([False, True, True] + [False] * 27, missed=4, k=10)
    assert made.limits() == {
        "relevant": {"length": 30, "unjudged": True},
        "k": {"min": 1, "max": 30},
        "missed": {"min": 4, "max": 4},
        "chart": {"options": ["by-k", "precision-recall"]},
    }
    state = made()
    assert state.k == 10 and state.n_relevant == 2 + 4
    # R follows a flip: the missed documents are data, so a flip is a judgment.
    state.flip(30)
    assert (state.missed, state.n_relevant) == (4, 7)
    with pytest.raises(ValueError):
        state.update_from_dict({"missed": 3})
    # The teaching class is untouched.
    assert BinaryState.limits()["relevant"] == {"length": 12, "unjudged": False} and BinaryState().missed == 1


def test_a_figure_given_a_state_of_a_list_class_uses_that_class_for_its_limits_and_its_reset():
    made = BinaryState.for_list([True] * 20, missed=0, k=3)
    figure = BinaryFigure(state=made(k=7))
    assert figure.view.limits == made.limits()
    assert figure.view.default == {"relevant": [True] * 20, "k": 3, "missed": 0, "chart": "by-k"}
    assert figure.view.state["k"] == 7


def test_the_conventions_state_made_for_a_list_fixes_the_judged_documents_outside_it():
    made = ConventionsState.for_list([3, 0, 2, 1, 0, 4], [2, 4], k=5, highest=4)
    assert made.limits()["missed_grades"] == {"length": 2, "min_grade": 0, "max_grade": 4, "unjudged": False}
    assert made().missed_grades == [4, 2]  # best first
    # trec_eval's ndcg_cut_5: DCG of 3, 0, 2, 1, 0 over the ideal 4, 4, 3, 2, 2.
    dcg = 3 / 1 + 2 / 2 + 1 / 2.321928094887362
    ideal = 4 / 1 + 4 / 1.584962500721156 + 3 / 2 + 2 / 2.321928094887362 + 2 / 2.584962500721156
    assert made().values["linear-judged"] == pytest.approx(dcg / ideal, **APPROX)


@pytest.mark.parametrize("run", [0, 1])
def test_the_figures_of_every_golden_query_show_trec_evals_numbers(evaluated, trec, run):
    # The golden runs have 30 results, all shown: figure 1's AP and RR are trec_eval's map and
    # recip_rank, its P@10 and R@10 trec_eval's, and the conventions figure's first row, recall
    # and hit rate at k = 10 trec_eval's ndcg_cut_10, recall_10 and success_10 (as the page says).
    for qid in evaluated.qids:
        detail = drill_down.query_of(evaluated, qid)
        spec = detail["figures"][run]
        assert spec["depth"] == len(detail["runs"][run]["docs"]) == 30
        binary = _state(BinaryState, spec["binary"]["default"])
        values = binary.values
        expected = trec[run][qid]
        assert values["ap"] == pytest.approx(expected["map"], **APPROX), qid
        assert values["rr"] == pytest.approx(expected["recip_rank"], **APPROX), qid
        assert values["precision"] == pytest.approx(expected["P_10"], **APPROX), qid
        assert values["recall"] == pytest.approx(expected["recall_10"], **APPROX), qid
        conventions = _state(ConventionsState, spec["conventions"]["default"])
        assert conventions.values["linear-judged"] == pytest.approx(expected["ndcg_cut_10"], **APPROX), qid
        assert conventions.values["recall"] == pytest.approx(expected["recall_10"], **APPROX), qid
        assert conventions.values["hit_rate"] == pytest.approx(expected["success_10"], **APPROX), qid


def _state(base, values):
    """A state of the class made for these values (the page gets the class's limits and this default)."""
    if base is BinaryState:
        made = BinaryState.for_list(values["relevant"], values["missed"], values["k"])
    else:
        made = ConventionsState.for_list(
            [values["grades"][i] for i in values["order"]], values["missed_grades"], values["k"], 3
        )
    return made(**values)


def test_a_query_in_full_numbers_each_document_once_and_marks_the_unjudged(evaluated):
    detail = drill_down.query_of(evaluated, "g001")
    assert len(detail["docs"]) == len(set(detail["docs"]))
    judged = evaluated.loaded.qrels.to_dict()["g001"]
    for docid, grade in zip(detail["docs"], detail["grades"], strict=True):
        assert grade == judged.get(docid)  # None where nobody judged it
    retrieved = {detail["docs"][i] for run in detail["runs"] for i in run["docs"]}
    missed = {d for d, g in judged.items() if g >= 1 and d not in retrieved}
    assert detail["n_missed"] == len(missed) and missed <= set(detail["docs"])
    assert any(g is None for g in detail["grades"])


def test_the_table_has_every_query_with_the_evaluations_values_and_means(evaluated):
    table = wb.table_of(evaluated)
    assert table["qids"] == list(evaluated.qids) and len(table["qids"]) == 100
    assert table["texts"][0] == "cracked bracket"
    names = [m["name"] for m in table["measures"]]
    assert names == ["P_10", "recall_100", "recip_rank", "map", "ndcg_cut_10"]
    for r, run in enumerate(table["runs"]):
        for j, name in enumerate(names):
            assert run["values"][j] == evaluated.evaluations[r].values[name].tolist()
    assert table["comparison"]["gate"]["measure"] == "ndcg_cut_10"


@pytest.fixture
def workbench():
    return Workbench.golden()


def sent(workbench, **changes):
    """The page sends a state: returns the state Python keeps."""
    workbench.view.state = {**workbench.state.to_dict(), **changes}
    return workbench.state.to_dict()


def test_opening_a_query_sends_that_query_in_full(workbench):
    sent(workbench, query="g042")
    assert workbench.view.detail["qid"] == "g042"
    assert workbench.view.detail == drill_down.query_of(workbench.evaluated, "g042")


def changed(workbench, **message):
    """The page sends one what-if change: returns the state Python keeps."""
    workbench.view._handle_msg(message)
    return workbench.state.to_dict()


def test_what_if_changes_of_known_documents_are_kept_one_a_message(workbench):
    docid = drill_down.query_of(workbench.evaluated, "g002")["docs"][5]
    changed(workbench, type="judge", qid="g002", docid=docid, grade=3)
    kept = changed(workbench, type="move", qid="g002", run=0, order=list(range(30))[::-1])
    assert kept["judgments"] == {"g002": {docid: 3}} and kept["orders"]["g002"][0][0] == 29
    assert kept["orders"]["g002"][1] is None
    kept = changed(workbench, type="judge", qid="g002", docid=docid, grade="qrels")
    assert kept["judgments"] == {}
    kept = changed(workbench, type="move", qid="g002", run=0, order=list(range(30)))  # the run's own order
    assert kept["orders"] == {}


def test_a_judgment_equal_to_the_qrels_grade_is_no_change(workbench):
    detail = drill_down.query_of(workbench.evaluated, "g002")
    judged = next(i for i, g in enumerate(detail["grades"]) if g is not None)
    unjudged = next(i for i, g in enumerate(detail["grades"]) if g is None)
    assert (
        changed(workbench, type="judge", qid="g002", docid=detail["docs"][judged], grade=detail["grades"][judged])[
            "judgments"
        ]
        == {}
    )
    assert changed(workbench, type="judge", qid="g002", docid=detail["docs"][unjudged], grade=None)["judgments"] == {}


def test_undo_takes_back_every_change_of_one_query(workbench):
    a, b = (drill_down.query_of(workbench.evaluated, q)["docs"][0] for q in ("g002", "g003"))
    changed(workbench, type="judge", qid="g002", docid=a, grade=0)
    changed(workbench, type="move", qid="g002", run=1, order=[1, 0, *range(2, 30)])
    changed(workbench, type="judge", qid="g003", docid=b, grade=0)
    kept = changed(workbench, type="undo", qid="g002")
    assert kept["judgments"] == {"g003": {b: 0}} and kept["orders"] == {}


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "judge", "qid": "no-such-query", "docid": "x", "grade": 1},
        {"type": "judge", "qid": "g002", "docid": "not-a-document-of-g002", "grade": 1},
        {"type": "judge", "qid": "g002", "docid": "DWG-0000-000", "grade": 1},
        {"type": "judge", "qid": "g002", "docid": 7, "grade": 1},
        {"type": "judge", "qid": "g002", "docid": "FIRST", "grade": 4},
        {"type": "judge", "qid": "g002", "docid": "FIRST", "grade": -1},
        {"type": "judge", "qid": "g002", "docid": "FIRST", "grade": True},
        {"type": "judge", "qid": "g002", "docid": "FIRST", "grade": 1.5},
        {"type": "move", "qid": "g002", "run": 0, "order": [0, 0, *range(2, 30)]},
        {"type": "move", "qid": "g002", "run": 0, "order": list(range(29))},
        {"type": "move", "qid": "g002", "run": 0, "order": list(range(31))},
        {"type": "move", "qid": "g002", "run": 2, "order": None},
        {"type": "move", "qid": "g002", "run": 0, "order": "reversed"},
        {"type": "undo", "qid": 42},
    ],
)
def test_a_what_if_change_that_is_not_this_datas_is_refused_and_the_page_shown_the_kept_state(workbench, bad):
    if bad.get("docid") == "FIRST":
        bad = {**bad, "docid": drill_down.query_of(workbench.evaluated, "g002")["docs"][0]}
    before = workbench.state.to_dict()
    assert changed(workbench, **bad) == before
    assert workbench.view.state == before
    assert workbench.view.status["kind"] == "error" and workbench.view.status["lines"][0].startswith(
        "That change was not kept"
    )


def test_what_if_changes_are_kept_for_at_most_so_many_queries(workbench):
    qids = workbench.evaluated.qids
    reversed_top = list(range(30))[::-1]
    for qid in qids[: MAX_WHATIF_QUERIES + 1]:
        workbench._rate.tokens = 1  # one change a query, slower than the rate limit
        changed(workbench, type="move", qid=qid, run=0, order=reversed_top)
    assert list(workbench.state.orders) == list(qids[:MAX_WHATIF_QUERIES])
    assert workbench.view.status["lines"] == [
        f"That change was not kept: what-if changes are kept for {MAX_WHATIF_QUERIES} queries at most: undo one first."
    ]


def test_a_flood_of_what_if_changes_is_cut_to_the_rate_an_assessor_grades_at(workbench):
    from explainer.workbench.rate_limit import BURST, PER_SECOND, RateLimit

    now = [0.0]
    workbench._rate = RateLimit(clock=lambda: now[0])
    detail = drill_down.query_of(workbench.evaluated, "g002")
    docs = [d for d, g in zip(detail["docs"], detail["grades"], strict=True) if g != 3]
    assert len(docs) > BURST + PER_SECOND
    for docid in docs:  # all at one instant: the burst is kept, the rest refused
        changed(workbench, type="judge", qid="g002", docid=docid, grade=3)
    assert len(workbench.state.judgments["g002"]) == BURST
    assert workbench.view.status["lines"] == ["That change was not kept: more than 10 changes a second: slow down."]
    now[0] += 1.0  # a second later, ten more
    for docid in docs[BURST:]:
        changed(workbench, type="judge", qid="g002", docid=docid, grade=3)
    assert len(workbench.state.judgments["g002"]) == BURST + PER_SECOND


@pytest.mark.parametrize(
    "bad",
    [
        {"query": "no-such-query"},
        {"query": 42},
        {"judgments": {"g002": {"g002-doc": 1}}},
        {"orders": {"g002": [list(range(30)), None]}},
        {"judgments": "g002"},
        {"run": 2},
        {"k": 0},
    ],
)
def test_a_state_that_is_not_this_datas_or_that_carries_what_if_changes_is_refused(workbench, bad):
    """What-if changes come one a message; a state that changes them is refused whole."""
    before = workbench.state.to_dict()
    kept = sent(workbench, **bad)
    assert kept == before
    assert workbench.view.state == before
