"""Against ranx, when it is installed: its Qrels and Run objects as input, its measures, its p-values.

ranx breaks score ties its own way, so these runs have none (trec_eval's tie order is
tested against pytrec_eval elsewhere). Importing ranx compiles its numba code the first
time (about a minute), and 20 s or so after that, hence the slow mark; one file, so that
one process pays for it.

Many runs (``many_runs``) are compared with ranx's ``compare`` where the methods are the
same: each pair's t-test and randomization test. ranx tests every pair of runs one at a
time, with no correction, and its Tukey test is scipy's, which treats runs as independent
groups (ours keeps the pairing by query): so the candidates' raw p-values are compared with
ranx's, and the adjusted ones with statsmodels' adjustment of ranx's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explainer.evaluation.compare import compare
from explainer.evaluation.many_runs import many_runs
from explainer.evaluation.measures import Measure, evaluate

from support.oracles import multitest

# ranx's numba code takes 20-70 s to load or compile: run with ./serve.sh test -m slow. It is
# imported by the first test that runs, not at collection, which every run (slow or not) pays.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ranx():
    return pytest.importorskip("ranx")


N_QUERIES = 60


def data(seed: int):
    rng = np.random.default_rng(seed)
    qrels, base, cand = {}, {}, {}
    for q in range(N_QUERIES):
        qid = f"q{q:02d}"
        docs = [f"d{i}" for i in rng.choice(300, size=40, replace=False)]
        qrels[qid] = {d: int(g) for d, g in zip(docs[:25], rng.choice([0, 1, 2, 3], size=25), strict=True)}
        quality = {d: qrels[qid].get(d, 0) for d in docs}
        base[qid] = {d: float(quality[d] + rng.normal(0, 1.5)) for d in docs[:30]}
        cand[qid] = {d: float(quality[d] + rng.normal(0.0, 1.2)) for d in docs[:30]}
    return qrels, base, cand


@pytest.fixture(scope="module")
def three(ranx):
    qrels, base, cand = data(11)
    return qrels, base, cand, ranx.Qrels(qrels), ranx.Run(base, name="base"), ranx.Run(cand, name="cand")


def test_ranx_objects_are_read_and_measured_alike(ranx, three):
    qrels, base, _, rq, rb, _ = three
    pairs = {
        "ndcg@10": Measure("ndcg", 10),
        "ndcg_burges@10": Measure("ndcg", 10, "exponential-judged"),
        "map": Measure("ap"),
        "mrr": Measure("rr"),
        "precision@5": Measure("precision", 5),
        "recall@10": Measure("recall", 10),
        "hit_rate@5": Measure("hit_rate", 5),
    }
    result = evaluate(rq, rb, list(pairs.values()))
    assert result.name == "base"
    assert result.qids == tuple(sorted(qrels))
    for ranx_name, measure in pairs.items():
        ranx.evaluate(rq, rb, ranx_name, make_comparable=True)
        per_query = rb.scores[ranx_name]
        for qid in result.qids:
            assert result.value(measure, qid) == pytest.approx(per_query[qid], abs=1e-9), (ranx_name, qid)


def test_p_values_agree_with_ranx_compare(ranx, three):
    _, _, _, rq, rb, rc = three
    measures = [Measure("ndcg", 10), Measure("ap")]
    a, b = evaluate(rq, rb, measures), evaluate(rq, rc, measures)
    ours = compare(a, b, n_permutations=20_000, seed=3)
    for stat_test in ("student", "fisher"):
        report = ranx.compare(
            rq, runs=[rb, rc], metrics=["ndcg@10", "map"], stat_test=stat_test, n_permutations=20_000, random_seed=3
        ).to_dict()
        for ranx_name, name in (("ndcg@10", "ndcg_cut_10"), ("map", "map")):
            theirs = report["base"]["comparisons"]["cand"][ranx_name]
            m = ours.measures[name]
            if stat_test == "student":
                assert m.t_p == pytest.approx(theirs, rel=1e-9)
            else:  # two Monte Carlo estimates of the same p-value
                # The binomial spread of the larger estimate: ranx reports 0 when no flip was as
                # extreme, and a spread computed from 0 would be 0 whatever the true p-value.
                p = max(theirs, m.randomization_p)
                spread = 4 * math.sqrt(2 * p * (1 - p) / 20_000) + 2 / 20_000
                assert m.randomization_p == pytest.approx(theirs, abs=spread), (name, m.randomization_p, theirs)
            wtl = report["cand"]["win_tie_loss"]["base"][ranx_name]
            assert (m.wins, m.ties, m.losses) == (wtl["W"], wtl["T"], wtl["L"])


# -- many runs -------------------------------------------------------------------------------------

NAMES = ("base", "one", "two", "three")
METRICS = {"ndcg@10": "ndcg_cut_10", "map": "map"}  # ranx's names, ours


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
