"""metrics.py against trec_eval (through pytrec_eval) on generated ranked lists.

Each generated case (tests/metric_cases.py) becomes one query: the ranked list
is the run, with distinct descending scores so trec_eval's order is the list's
order, and every judged document (the list's judged ones and those it missed)
is in the qrels. Unjudged documents are in the run but not in the qrels.

trec_eval quirks this file handles explicitly (checked with pytrec_eval 0.5,
i.e. trec_eval 9.0.x):

- A query whose qrels hold judged documents but none relevant (all grade 0) IS
  evaluated: it appears in the results with num_rel 0 and every measure 0
  (recall, map and ndcg_cut do not divide by zero; they report 0). The
  comparison for those cases is meaningful for the conventions "recall, AP
  and NDCG are 0 when nothing is relevant", and we also check num_rel and
  num_ret to prove trec_eval really evaluated the query rather than skipping it.
- A query with NO judged document at all (empty qrels for it) is silently
  dropped: it is missing from pytrec_eval's results. Python reports 0 for
  every measure there, which is what trec_eval -c would give a missing query
  ("contributes 0"); those cases assert the omission and the zeros.
- An empty run for a query that has qrels is evaluated (num_ret 0, zeros).
- Cutoffs are free: pytrec_eval accepts any list such as "P.1,2,3,7,13".
- ndcg_cut uses the qrels grade itself as the gain (linear). The exponential
  gain 2^g - 1 is compared by relabelling grades 1, 2, 3 as 1, 3, 7.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from metric_cases import KINDS, generated_cases

from explainer.metrics import (
    average_precision,
    gain_value,
    hit_rate_at_k,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

N_CASES = 400
SEED = 20240611
CASES = generated_cases(N_CASES, SEED)

FIXED_CUTOFFS = (1, 2, 3, 5, 10, 20)
QID = "q"


def cutoffs(case) -> list[int]:
    return sorted({*FIXED_CUTOFFS, case["k"]})


def qrels_and_run(case, relabel=lambda g: g):
    """One query: the list's documents r0, r1, ... ranked by descending score, missed ones o0, o1, ..."""
    judged = {f"r{i}": int(relabel(g)) for i, g in enumerate(case["grades"]) if g is not None}
    judged.update({f"o{j}": int(relabel(g)) for j, g in enumerate(case["outside"])})
    n = len(case["grades"])
    run = {QID: {f"r{i}": float(n - i) for i in range(n)}}
    qrels = {QID: judged} if judged else {}
    return qrels, run


def trec_eval(case, relabel=lambda g: g) -> dict | None:
    """pytrec_eval's measures for the case's query, or None when trec_eval left it out."""
    qrels, run = qrels_and_run(case, relabel)
    cuts = ",".join(map(str, cutoffs(case)))
    measures = {
        f"P.{cuts}",
        f"recall.{cuts}",
        f"map_cut.{cuts}",
        f"success.{cuts}",
        f"ndcg_cut.{cuts}",
        "recip_rank",
        "map",
        "num_rel",
        "num_ret",
        "num_rel_ret",
    }
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    return results.get(QID)


def exponential(grade: int) -> int:
    """The qrels label whose linear gain is the exponential gain of ``grade``: 0, 1, 3, 7."""
    return int(gain_value(grade, "exponential"))


APPROX = dict(abs=1e-9)


def test_the_generated_cases_cover_every_edge():
    kinds = {kind: [c for c in CASES if c["kind"] == kind] for kind in KINDS}
    assert all(len(found) >= 40 for found in kinds.values()), {k: len(v) for k, v in kinds.items()}
    assert sum(None in c["grades"] for c in CASES) >= 100, "unjudged documents in the list"
    assert sum(any(g >= 1 for g in c["outside"]) for c in CASES) >= 100, "relevant documents the list missed"
    assert sum(c["k"] > len(c["grades"]) for c in CASES) >= 100, "k beyond the list"
    assert sum(c["n_relevant"] == 0 and bool(c["judged"]) for c in CASES) >= 40, "judged, nothing relevant"
    assert sum(not c["judged"] for c in CASES) >= 40, "nothing judged"
    assert sum(not c["grades"] for c in CASES) >= 40, "empty lists"
    assert {g for c in CASES for g in c["judged"]} == {0, 1, 2, 3}
    for c in CASES:
        assert c["judged"] == [g for g in c["grades"] if g is not None] + c["outside"]
        assert c["n_relevant"] == sum(g >= 1 for g in c["judged"])


def test_the_generator_is_reproducible_and_depends_on_the_seed():
    assert generated_cases(N_CASES, SEED) == CASES
    assert generated_cases(N_CASES, SEED + 1) != CASES


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_metrics_match_trec_eval(case):
    grades, judged, n_relevant = case["grades"], case["judged"], case["n_relevant"]
    trec = trec_eval(case)

    if not judged:
        # trec_eval drops a query with no qrels at all; Python scores it 0 throughout.
        assert trec is None
        for k in cutoffs(case):
            assert precision_at_k(grades, k) == 0.0
            assert recall_at_k(grades, k, n_relevant) == 0.0
            assert average_precision(grades, n_relevant, k) == 0.0
            assert hit_rate_at_k(grades, k) == 0.0
            assert ndcg_at_k(grades, k, "linear", judged=judged) == 0.0
            assert ndcg_at_k(grades, k, "exponential", judged=judged) == 0.0
        assert reciprocal_rank(grades) == 0.0
        assert average_precision(grades, n_relevant) == 0.0
        return

    # trec_eval evaluated this query, with the same counts as ours.
    assert trec is not None
    assert trec["num_rel"] == n_relevant
    assert trec["num_ret"] == len(grades)
    assert trec["num_rel_ret"] == sum(g is not None and g >= 1 for g in grades)

    assert reciprocal_rank(grades) == pytest.approx(trec["recip_rank"], **APPROX)
    assert average_precision(grades, n_relevant) == pytest.approx(trec["map"], **APPROX)
    for k in cutoffs(case):
        assert precision_at_k(grades, k) == pytest.approx(trec[f"P_{k}"], **APPROX), k
        assert recall_at_k(grades, k, n_relevant) == pytest.approx(trec[f"recall_{k}"], **APPROX), k
        assert average_precision(grades, n_relevant, k=k) == pytest.approx(trec[f"map_cut_{k}"], **APPROX), k
        assert hit_rate_at_k(grades, k) == pytest.approx(trec[f"success_{k}"], **APPROX), k
        assert ndcg_at_k(grades, k, "linear", judged=judged) == pytest.approx(trec[f"ndcg_cut_{k}"], **APPROX), k

    trec_exp = trec_eval(case, relabel=exponential)
    for k in cutoffs(case):
        assert ndcg_at_k(grades, k, "exponential", judged=judged) == pytest.approx(
            trec_exp[f"ndcg_cut_{k}"], **APPROX
        ), k


def test_no_relevant_queries_are_evaluated_by_trec_eval_not_skipped():
    """The special case made explicit: judged but all grade 0 gives a result of zeros, not a gap."""
    case = next(c for c in CASES if c["kind"] == "no_relevant" and len(c["grades"]) >= 3)
    trec = trec_eval(case)
    assert trec is not None
    assert trec["num_rel"] == 0
    assert trec["num_ret"] == len(case["grades"])
    assert trec["map"] == 0.0 and trec["recip_rank"] == 0.0
    assert all(trec[f"{m}_{k}"] == 0.0 for m in ("P", "recall", "ndcg_cut", "map_cut") for k in cutoffs(case))


def test_all_queries_at_once_give_trec_eval_mean_map_and_mrr():
    """MAP and MRR over every query trec_eval evaluates, from one qrels and one run."""
    qrels, run = {}, {}
    evaluated = []
    for case in CASES:
        q, r = qrels_and_run(case)
        if q:  # the queries trec_eval keeps: those with qrels
            qrels[case["id"]] = q[QID]
            run[case["id"]] = r[QID]
            evaluated.append(case)
    results = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank"}).evaluate(run)
    assert set(results) == {c["id"] for c in evaluated}
    trec_map = float(np.mean([results[c["id"]]["map"] for c in evaluated]))
    trec_mrr = float(np.mean([results[c["id"]]["recip_rank"] for c in evaluated]))
    ours_map = mean_average_precision([c["grades"] for c in evaluated], [c["n_relevant"] for c in evaluated])
    ours_mrr = mean_reciprocal_rank([c["grades"] for c in evaluated])
    assert ours_map == pytest.approx(trec_map, **APPROX)
    assert ours_mrr == pytest.approx(trec_mrr, **APPROX)
    assert 0.05 < ours_map < 0.95 and 0.05 < ours_mrr < 0.95  # not a degenerate all-0 or all-1 set
