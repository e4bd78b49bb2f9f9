"""Many runs against ranx's ``compare``, where the methods are the same: each pair's t-test and randomization test.

ranx tests every pair of runs one at a time, with no correction, and its Tukey test is
scipy's, which treats runs as independent groups (ours keeps the pairing by query): so the
candidates' raw p-values are compared with ranx's, and the adjusted ones with statsmodels'
adjustment of ranx's. Importing ranx loads its numba code (20-70 s), hence the slow mark.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explainer.evaluation.many_runs import many_runs
from explainer.evaluation.measures import Measure, evaluate

pytestmark = pytest.mark.slow

multitest = pytest.importorskip("statsmodels.stats.multitest")

N_QUERIES = 60
NAMES = ("base", "one", "two", "three")
METRICS = {"ndcg@10": "ndcg_cut_10", "map": "map"}  # ranx's names, ours


@pytest.fixture(scope="module")
def ranx():
    return pytest.importorskip("ranx")


@pytest.fixture(scope="module")
def four(ranx):
    """Four runs of 60 queries with no tied scores (ranx breaks ties its own way), each noisier or not."""
    rng = np.random.default_rng(21)
    qrels, runs = {}, {name: {} for name in NAMES}
    for q in range(N_QUERIES):
        qid = f"q{q:02d}"
        docs = [f"d{i}" for i in rng.choice(300, size=40, replace=False)]
        qrels[qid] = {d: int(g) for d, g in zip(docs[:25], rng.choice([0, 1, 2, 3], size=25), strict=True)}
        quality = {d: qrels[qid].get(d, 0) for d in docs}
        for name, noise in zip(NAMES, (1.5, 1.2, 1.5, 2.0), strict=True):
            runs[name][qid] = {d: float(quality[d] + rng.normal(0, noise)) for d in docs[:30]}
    rq = ranx.Qrels(qrels)
    ranx_runs = [ranx.Run(runs[name], name=name) for name in NAMES]
    measures = [Measure("ndcg", 10), Measure("ap")]
    return rq, ranx_runs, [evaluate(rq, run, measures) for run in ranx_runs]


def test_each_candidates_t_test_is_ranxs_and_holm_adjusts_ranxs_p_values(ranx, four):
    rq, ranx_runs, evaluations = four
    report = ranx.compare(rq, runs=ranx_runs, metrics=list(METRICS), stat_test="student").to_dict()
    raw = many_runs(evaluations, test="t-test", correction="none", n_bootstrap=200)
    holm = many_runs(evaluations, test="t-test", correction="holm", n_bootstrap=200)
    for ranx_name, name in METRICS.items():
        theirs = [report["base"]["comparisons"][candidate][ranx_name] for candidate in NAMES[1:]]
        assert [p.p for p in raw.pairs[name]] == pytest.approx(theirs, rel=1e-9)
        assert [p.p_adjusted for p in raw.pairs[name]] == pytest.approx(theirs, rel=1e-9)
        adjusted = multitest.multipletests(theirs, method="holm")[1]
        assert [p.p_adjusted for p in holm.pairs[name]] == pytest.approx(list(adjusted), rel=1e-9)
        for j, candidate in enumerate(NAMES[1:], start=1):
            wtl = report[candidate]["win_tie_loss"]["base"][ranx_name]
            c = raw.pair(name, 0, j).comparison
            assert (c.wins, c.ties, c.losses) == (wtl["W"], wtl["T"], wtl["L"])


def test_each_candidates_randomization_test_agrees_with_ranxs_fisher_test(ranx, four):
    rq, ranx_runs, evaluations = four
    n = 20_000
    report = ranx.compare(
        rq, runs=ranx_runs, metrics=list(METRICS), stat_test="fisher", n_permutations=n, random_seed=3
    ).to_dict()
    ours = many_runs(evaluations, correction="none", n_permutations=n, n_bootstrap=200, seed=3)
    for ranx_name, name in METRICS.items():
        for j, candidate in enumerate(NAMES[1:], start=1):
            theirs = report["base"]["comparisons"][candidate][ranx_name]
            mine = ours.pair(name, 0, j).p
            # Two Monte Carlo estimates of one p-value: within four binomial spreads of the larger.
            p = max(theirs, mine)
            assert mine == pytest.approx(theirs, abs=4 * math.sqrt(2 * p * (1 - p) / n) + 2 / n), (name, candidate)
