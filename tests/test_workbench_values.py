"""The workbench's numbers in the browser (values.js) against trec_eval, with what-if changes.

Generated collections (tests/evaluation_cases.py) with two runs; for each query, what-if
judgments of some of its documents (new grades, and documents made unjudged) and a what-if
order of each run's top list. The expected values come from pytrec_eval run on the collection
with those changes written into the qrels and the run's scores; the conventions trec_eval has
no name for come from measures.py (itself checked against trec_eval). values.js runs in
Chromium, its bare import of the metrics module resolved by an import map, as on the page.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection

from explainer.evaluation import Measure, read_qrels, read_run
from explainer.evaluation.measures import NDCG_CONVENTIONS, ndcg_by_convention
from explainer.workbench import data as wb
from explainer.workbench.view import Workbench

ROOT = Path(__file__).resolve().parent.parent / "explainer"
DEPTH = 6
MEASURES = [Measure("precision", k) for k in (1, 3, 10)] + [Measure("recall", 5), Measure("recall", 100)]
MEASURES += [Measure("rr"), Measure("ap"), Measure("hit_rate", 3), Measure("judged", 5)]
MEASURES += [Measure("ndcg", k, c) for k in (3, 10) for c in NDCG_CONVENTIONS]
TREC = {"P_": "P_", "recall_": "recall_", "recip_rank": "recip_rank", "map": "map", "success_": "success_"}
TREC_MEASURES = {"P.1,3,10", "recall.5,100", "recip_rank", "map", "success.3", "ndcg_cut.3,10"}


def url(path: Path) -> str:
    return "data:text/javascript;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


@pytest.fixture(scope="module")
def values_page(browser):
    context = browser.new_context()
    page = context.new_page()
    imports = {"explainer/metrics": url(ROOT / "metrics.js")}
    page.set_content(f'<script type="importmap">{json.dumps({"imports": imports})}</script>')
    page.evaluate("async (u) => { window.values = await import(u); }", url(ROOT / "workbench" / "values.js"))
    yield page
    context.close()


def two_runs(seed: int):
    qrels, run = collection(seed)
    rng = np.random.default_rng(seed + 100)
    # The candidate: the same documents with new scores, so the two lists share documents.
    run2 = {q: {d: float(rng.integers(0, 8)) / 2 for d in docs} for q, docs in run.items()}
    return qrels, run, run2


def what_ifs(detail: dict, rng, level: int, runs: int) -> dict:
    docs = detail["docs"]
    judgments = {}
    for i in rng.choice(len(docs), size=min(len(docs), 4), replace=False).tolist() if docs else []:
        judgments[docs[i]] = None if rng.random() < 0.25 else int(rng.integers(0, 4))
    orders = []
    for r in range(runs):
        spec = detail["figures"][r]
        orders.append(rng.permutation(spec["depth"]).tolist() if spec and rng.random() < 0.7 else None)
    return {"judgments": judgments, "orders": orders}


def changed_collection(qrels, runs, qid, detail, what_if):
    """The collection with one query's what-if changes written in: new grades, new scores for a moved top list."""
    q = {**qrels, qid: dict(qrels.get(qid, {}))}
    for docid, grade in what_if["judgments"].items():
        if grade is None:
            q[qid].pop(docid, None)
        else:
            q[qid][docid] = grade
    if not q[qid]:
        del q[qid]
    changed = []
    for r, run in enumerate(runs):
        new = dict(run)
        order = what_if["orders"][r]
        if order is not None:
            ranked = [detail["docs"][i] for i in detail["runs"][r]["docs"]]
            top = [ranked[i] for i in order] + ranked[len(order) :]
            new[qid] = {d: float(len(top) - i) for i, d in enumerate(top)}  # distinct scores in the new order
        changed.append(new)
    return q, changed


def expected_values(qrels, run, qid, level) -> dict:
    """Each measure's value of one query: trec_eval's where it has the measure, else measures.py's."""
    if qid not in run or qid not in qrels:
        return {m.name: 0.0 for m in MEASURES}
    trec = pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, TREC_MEASURES, relevance_level=level)
    t = trec.evaluate({qid: run[qid]})[qid]
    # trec_eval's order: score descending, ties by docid descending, byte by byte.
    ranked = sorted(sorted(run[qid], key=lambda d: d.encode(), reverse=True), key=lambda d: -run[qid][d])
    judged = qrels[qid]
    grades = [None if judged.get(d) is None or judged[d] < 0 else judged[d] for d in ranked]
    pool = [g for g in judged.values() if g >= 0]
    out = {}
    for m in MEASURES:
        if m.key == "ndcg" and m.convention != "linear-judged":
            out[m.name] = ndcg_by_convention(grades, m.k, pool, m.convention)
        elif m.key == "judged":
            out[m.name] = sum(g is not None for g in grades[: m.k]) / m.k
        else:
            name = m.name.replace("hit_rate_", "success_")
            out[m.name] = t[name]
    return out


@pytest.mark.browser
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_values_with_what_if_changes_equal_trec_eval_on_the_changed_collection(values_page, seed, level):
    qrels, run, run2 = two_runs(seed)
    quick = {"n_permutations": 100, "n_bootstrap": 100}  # the statistics play no part here
    workbench = Workbench(
        qrels, run, run2, measures=MEASURES, relevance_level=level, figure_depth=DEPTH, compare_options=quick
    )
    table = workbench.view.table
    rng = np.random.default_rng(seed)
    cases = []
    for qid in workbench.evaluated.qids:
        detail = workbench.query_detail(qid)
        cases.append((qid, detail, {"judgments": {}, "orders": [None, None]}))
        cases.append((qid, detail, what_ifs(detail, rng, level, 2)))
    got = json.loads(
        values_page.evaluate(
            "([table, cases]) => JSON.stringify(JSON.parse(cases).map(([qid, detail, whatIf]) =>"
            " window.values.queryValuesWith(detail, whatIf, JSON.parse(table))))",
            [json.dumps(table), json.dumps(cases)],
        )
    )
    for (qid, detail, what_if), js in zip(cases, got, strict=True):
        q, runs = changed_collection(qrels, (run, run2), qid, detail, what_if)
        for r in range(2):
            expected = expected_values(q, runs[r], qid, level)
            for name, value in expected.items():
                assert js[r][name] == pytest.approx(value, abs=1e-12), (qid, r, name, what_if)
        if not what_if["judgments"] and not any(what_if["orders"]):
            i = table["qids"].index(qid)  # no change: the table's own values, from the evaluation core
            for r in range(2):
                for j, m in enumerate(table["measures"]):
                    assert js[r][m["name"]] == pytest.approx(table["runs"][r]["values"][j][i], abs=1e-12)


@pytest.mark.browser
def test_the_figure_states_made_in_the_page_equal_those_the_state_classes_made(values_page):
    evaluated = Workbench.golden().evaluated
    details = [wb.query_of(evaluated, qid) for qid in evaluated.qids]
    got = json.loads(
        values_page.evaluate(
            "(details) => JSON.stringify(JSON.parse(details).map((d) => [0, 1].map((r) =>"
            " window.values.figureStates(d, r, { judgments: {}, orders: [null, null] }, 10, 1))))",
            json.dumps(details),
        )
    )
    for detail, states in zip(details, got, strict=True):
        for r in range(2):
            assert states[r]["binary"] == detail["figures"][r]["binary"]["default"], detail["qid"]
            assert states[r]["conventions"] == detail["figures"][r]["conventions"]["default"], detail["qid"]


@pytest.mark.browser
def test_a_judgment_that_restores_the_qrels_grade_leaves_no_what_if(values_page):
    detail = {"docs": ["a", "b", "c"], "grades": [2, None, 0]}
    got = values_page.evaluate(
        """(d) => {
            const j = window.values.judged;
            return [
              j(d, {}, [[0, false]], "flag", 1),            // a relevant document judged not relevant: grade 0
              j(d, { a: 0 }, [[0, true]], "flag", 1),       // and back: the qrels' grade 2 again
              j(d, {}, [[1, true]], "flag", 2),             // unjudged judged relevant at level 2: grade 2
              j(d, { b: 3 }, [[1, 0]], "figure", 1),        // the figure shows unjudged as 0: back to unjudged
              j(d, {}, [[1, null]], "grade", 1),            // the lists' "unjudged" for an unjudged one: nothing
              j(d, {}, [[2, null]], "grade", 1),            // a judged document made unjudged
            ];
        }""",
        detail,
    )
    assert got == [{"a": 0}, {}, {"b": 2}, {}, {}, {"c": None}]


def test_golden_files_read_as_the_evaluation_reads_them():
    # The page's data are the evaluation core's: the same readers, no copy of the files.
    from explainer.evaluation import golden

    paths = golden.paths()
    assert read_run(paths["baseline"]).qids == golden_evaluated_qids()
    assert read_qrels(paths["qrels"]).n_queries == 100


def golden_evaluated_qids():
    return Workbench.golden().evaluated.qids
