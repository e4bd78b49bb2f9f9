"""Against ranx, when it is installed: its Qrels and Run objects as input, its measures, its p-values.

ranx breaks score ties its own way, so these runs have none (trec_eval's tie order is
tested against pytrec_eval elsewhere). Importing ranx compiles its numba code the first
time (about a minute), and 20 s or so after that, hence the slow mark.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from explainer.evaluation.compare import compare
from explainer.evaluation.measures import Measure, evaluate

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
