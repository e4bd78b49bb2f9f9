"""What trec_eval says of the workbench's queries with what-if changes, as JSON for workbench_values.test.mjs.

Generated collections (tests/evaluation_cases.py) with two runs; for each query, what-if
judgments of some of its documents (new grades, and documents made unjudged) and a what-if
order of each run's top list. The expected values come from pytrec_eval run on the collection
with those changes written into the qrels and the run's scores; the conventions trec_eval has
no name for come from measures.py (itself checked against trec_eval). Also the golden set's
queries in full with the figure states drill_down.py made for them with the figures' state classes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytrec_eval

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for evaluation_cases

from evaluation_cases import collection  # noqa: E402

from explainer.evaluation import Measure  # noqa: E402
from explainer.evaluation.measures import NDCG_CONVENTIONS, ndcg_by_convention  # noqa: E402
from explainer.workbench import drill_down  # noqa: E402
from explainer.workbench.view import Workbench  # noqa: E402

DEPTH = 6
MEASURES = [Measure("precision", k) for k in (1, 3, 10)] + [Measure("recall", 5), Measure("recall", 100)]
MEASURES += [Measure("rr"), Measure("ap"), Measure("hit_rate", 3), Measure("judged", 5)]
MEASURES += [Measure("ndcg", k, c) for k in (3, 10) for c in NDCG_CONVENTIONS]
TREC_MEASURES = {"P.1,3,10", "recall.5,100", "recip_rank", "map", "success.3", "ndcg_cut.3,10"}


def two_runs(seed: int):
    qrels, run = collection(seed)
    rng = np.random.default_rng(seed + 100)
    # The candidate: the same documents with new scores, so the two lists share documents.
    run2 = {q: {d: float(rng.integers(0, 8)) / 2 for d in docs} for q, docs in run.items()}
    return qrels, run, run2


def what_ifs(detail: dict, rng, runs: int) -> dict:
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
            # ir_measures' Judged@k: the judged share of the results shown, min(k, returned) of them.
            shown = min(m.k, len(grades))
            out[m.name] = sum(g is not None for g in grades[:shown]) / shown if shown else 0.0
        else:
            out[m.name] = t[m.name.replace("hit_rate_", "success_")]
    return out


def collections() -> list[dict]:
    """Per seed and relevance level: the workbench's table and each query with and without what-ifs."""
    out = []
    for seed in range(4):
        for level in (1, 2):
            qrels, run, run2 = two_runs(seed)
            quick = {"n_permutations": 100, "n_bootstrap": 100}  # the statistics play no part here
            workbench = Workbench(
                qrels, run, run2, measures=MEASURES, relevance_level=level, figure_depth=DEPTH, compare_options=quick
            )
            rng = np.random.default_rng(seed)
            cases = []
            for qid in workbench.evaluated.qids:
                detail = workbench.query_detail(qid)
                for what_if in ({"judgments": {}, "orders": [None, None]}, what_ifs(detail, rng, 2)):
                    q, runs = changed_collection(qrels, (run, run2), qid, detail, what_if)
                    expected = [expected_values(q, runs[r], qid, level) for r in range(2)]
                    cases.append({"qid": qid, "detail": detail, "whatIf": what_if, "expected": expected})
            out.append({"seed": seed, "level": level, "table": workbench.view.table, "cases": cases})
    return out


def golden() -> list[dict]:
    """The golden set's queries in full, each with the figure states drill_down.py made for its two runs."""
    evaluated = Workbench.golden().evaluated
    return [drill_down.query_of(evaluated, qid) for qid in evaluated.qids]


def main() -> None:
    json.dump({"collections": collections(), "golden": golden()}, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
