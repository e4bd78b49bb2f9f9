"""Comparing two systems: deltas, wins/ties/losses, the tests' p-values (against hand computations), and the gate."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from explainer.evaluation.compare import (
    bootstrap_interval,
    compare,
    paired_t_test,
    randomization_test,
)
from explainer.evaluation.measures import evaluate


def two_systems(deltas_by_query: dict[str, int]):
    """Two evaluations of one qrels: per query, the baseline finds its relevant doc at rank 2; the
    candidate at rank 2 - d (d = 1: rank 1, a win of RR 0.5; d = -1: rank 3, a loss; d = 0: a tie)."""
    qrels = {q: {"rel": 1} for q in deltas_by_query}
    base, cand = {}, {}
    for q, d in deltas_by_query.items():
        base[q] = {"x": 3.0, "rel": 2.0, "y": 1.0}
        cand[q] = {"x": 3.0, "rel": {1: 4.0, 0: 2.0, -1: 0.5}[d], "y": 1.0}
    return evaluate(qrels, base, ["rr", "P@1"]), evaluate(qrels, cand, ["rr", "P@1"])


def test_deltas_wins_ties_losses_and_their_order():
    a, b = two_systems({"q1": 1, "q2": 0, "q3": -1, "q4": 1})
    c = compare(a, b, measure="rr")
    m = c.measures["recip_rank"]
    assert m.qids == ("q1", "q2", "q3", "q4")
    assert m.delta.tolist() == [1 - 1 / 2, 0.0, 1 / 3 - 1 / 2, 1 - 1 / 2]
    assert (m.wins, m.ties, m.losses) == (2, 1, 1)
    assert m.sorted_deltas() == [("q3", 1 / 3 - 1 / 2), ("q2", 0.0), ("q1", 0.5), ("q4", 0.5)]
    assert m.mean_delta == pytest.approx((0.5 + 0 - 1 / 6 + 0.5) / 4)


def test_the_t_test_is_the_textbook_formula():
    rng = np.random.default_rng(1)
    a = rng.random(30)
    b = a + rng.normal(0.05, 0.1, 30)
    d = b - a
    t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    p = 2 * stats.t.sf(abs(t), len(d) - 1)
    got_t, got_p = paired_t_test(a, b)
    assert got_t == pytest.approx(t, rel=1e-12)
    assert got_p == pytest.approx(p, rel=1e-9)


def test_the_randomization_test_enumerates_every_sign_flip_when_they_fit():
    rng = np.random.default_rng(2)
    a = rng.random(10)
    b = a + rng.normal(0.1, 0.2, 10)
    d = b - a
    observed = abs(d.mean())
    flips = np.array(list(itertools.product((1, -1), repeat=10)))
    extreme = np.sum(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12)
    p, exact = randomization_test(a, b, n_permutations=2**10)
    assert exact
    assert p == pytest.approx(extreme / 2**10, abs=1e-12)


def test_the_random_randomization_test_is_near_the_exact_one_and_repeatable():
    rng = np.random.default_rng(3)
    a = rng.random(14)
    b = a + rng.normal(0.05, 0.2, 14)
    exact, is_exact = randomization_test(a, b, n_permutations=2**14)
    assert is_exact
    approx, is_exact = randomization_test(a, b, n_permutations=4000, seed=7)
    assert not is_exact
    assert approx == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 4000) + 1 / 4000)
    assert randomization_test(a, b, n_permutations=4000, seed=7)[0] == approx
    assert randomization_test(a, b, n_permutations=4000, seed=8)[0] != approx


def test_the_bootstrap_interval_is_scipys_and_near_the_normal_one():
    rng = np.random.default_rng(4)
    d = rng.normal(0.03, 0.1, 400)
    low, high, method = bootstrap_interval(d, n_bootstrap=4000, confidence=0.95, seed=1)
    assert method == "BCa"
    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
    assert low == pytest.approx(d.mean() - half, abs=0.003)
    assert high == pytest.approx(d.mean() + half, abs=0.003)
    direct = stats.bootstrap((d,), np.mean, n_resamples=4000, rng=np.random.default_rng(1)).confidence_interval
    assert (low, high) == (pytest.approx(direct.low), pytest.approx(direct.high))


def test_degenerate_differences():
    same = np.array([0.2, 0.5, 0.7])
    assert paired_t_test(same, same)[1] == 1.0
    assert randomization_test(same, same) == (1.0, True)
    assert bootstrap_interval(same - same) == (0.0, 0.0, "constant")
    assert paired_t_test(same, same + 0.1) == (math.inf, 0.0)
    assert math.isnan(paired_t_test(same[:1], same[:1] + 0.1)[1])


def test_the_gate_needs_the_margin_and_the_p_value():
    wins = {f"q{i:02d}": 1 for i in range(12)} | {"q90": -1, "q91": 0}
    a, b = two_systems(wins)
    shipped = compare(a, b, measure="rr", margin=0.1, alpha=0.05)
    assert shipped.gate.ships, shipped.gate.reason
    assert shipped.gate.reason.startswith("SHIPS on recip_rank: mean difference +0.")
    too_little = compare(a, b, measure="rr", margin=0.5, alpha=0.05)
    assert not too_little.gate.ships and "< margin 0.5000" in too_little.gate.reason
    too_strict = compare(a, b, measure="rr", margin=0.0, alpha=1e-9)
    assert not too_strict.gate.ships and ">= alpha 1e-09" in too_strict.gate.reason
    # the t-test's p-value when the reader picks it
    by_t = compare(a, b, measure="rr", test="t-test")
    assert by_t.gate.p == by_t.measures["recip_rank"].t_p
    assert compare(a, b, measure="rr").gate.p == shipped.measures["recip_rank"].randomization_p
    # a worse candidate never ships, whatever alpha and margin
    worse = compare(b, a, measure="rr", margin=-1.0, alpha=0.99)
    assert not worse.gate.ships


def test_the_gate_measure_is_named_any_way_and_must_have_been_evaluated():
    a, b = two_systems({"q1": 1, "q2": 1})
    assert compare(a, b, measure="P@1").gate.measure == "P_1"
    assert compare(a, b, measure="P_1").gate.measure == "P_1"
    assert compare(a, b).gate.measure == "recip_rank"  # the first measure
    with pytest.raises(ValueError, match="was not evaluated"):
        compare(a, b, measure="ndcg@10")
    with pytest.raises(ValueError, match="test must be one of"):
        compare(a, b, test="wilcoxon")


def test_a_query_one_run_lacks_counts_zero_there():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    a = evaluate(qrels, {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, ["rr"])
    b = evaluate(qrels, {"q1": {"a": 1.0}}, ["rr"])
    c = compare(a, b)
    assert c.measures["recip_rank"].candidate.tolist() == [1.0, 0.0]
    assert c.only_baseline == ("q2",)
    assert "1 query has no result in run: counted as 0 there" in "\n".join(c.lines())


@pytest.mark.slow  # thousands of resamplings by both: 8 s
def test_the_random_randomization_test_agrees_with_scipys_within_their_spread():
    # Drawn here in batches, not by scipy: the two are Monte Carlo estimates of one p-value.
    rng = np.random.default_rng(11)
    for n, shift in ((40, 0.02), (300, 0.01), (2000, 0.003)):
        a = rng.random(n)
        b = a + rng.normal(shift, 0.1, n)
        ours, exact = randomization_test(a, b, n_permutations=20_000, seed=5)
        theirs = stats.permutation_test(
            (b, a),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=20_000,
            rng=np.random.default_rng(5),
        ).pvalue
        p = max(ours, theirs)
        assert not exact
        assert ours == pytest.approx(theirs, abs=4 * math.sqrt(2 * p * (1 - p) / 20_000) + 2 / 20_000), (
            n,
            ours,
            theirs,
        )
