"""Comparing two systems: deltas, wins/ties/losses, the tests' p-values (against hand computations), and the gate."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from explainer.evaluation import significance as sig
from explainer.evaluation.compare import TESTS, compare
from explainer.evaluation.measures import evaluate

from support.oracles import stats


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


def test_the_tables_t_test_is_the_textbook_formula_two_sided():
    rng = np.random.default_rng(1)
    a = rng.random(30)
    b = a + rng.normal(0.05, 0.1, 30)
    d = b - a
    t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    p = 2 * stats.t.sf(abs(t), len(d) - 1)
    m = compare(*from_values(a, b)).measures["recip_rank"]
    assert m.t_statistic == pytest.approx(t, rel=1e-12)
    assert m.t_p == pytest.approx(p, rel=1e-9)
    assert m.d_z == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_the_tables_randomization_test_enumerates_every_sign_flip_when_they_fit():
    rng = np.random.default_rng(2)
    a = rng.random(10)
    b = a + rng.normal(0.1, 0.2, 10)
    d = b - a
    observed = abs(d.mean())
    flips = np.array(list(itertools.product((1, -1), repeat=10)))
    extreme = np.sum(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12)
    m = compare(*from_values(a, b), n_permutations=2**10).measures["recip_rank"]
    assert m.exact and m.n_permutations == 2**10
    assert m.randomization_p == pytest.approx(extreme / 2**10, abs=1e-12)


def from_values(a, b):
    """Two evaluations whose recip_rank of query i is a[i] and b[i]: the statistics' inputs, as they are."""
    qrels = {f"q{i:03d}": {"d": 1} for i in range(len(a))}
    base = evaluate(qrels, {q: {"d": 1.0} for q in qrels}, ["rr"])
    return [dataclasses.replace(base, values={"recip_rank": np.asarray(v, dtype=float)}) for v in (a, b)]


# -- the gate's three questions --------------------------------------------------------------


@pytest.mark.parametrize("margin", [0.0, 0.02, 0.05])
def test_superiority_tests_h0_difference_at_most_the_margin_one_sided(margin):
    rng = np.random.default_rng(12)
    a = rng.random(40)
    b = a + rng.normal(0.06, 0.1, 40)
    c = compare(*from_values(a, b), question="superiority", margin=margin, alpha=0.05, test="t-test")
    v = c.gate.verdicts[0]
    oracle = stats.ttest_rel(b, a + margin, alternative="greater")
    assert v.p == pytest.approx(oracle.pvalue, abs=1e-10)
    bound = stats.ttest_1samp(b - a, margin, alternative="greater").confidence_interval(0.95)
    assert (v.low, v.high) == (pytest.approx(bound.low, abs=1e-10), math.inf)
    assert c.gate.null == f"H0: difference <= {margin:+.4f}"
    assert c.gate.ships == (oracle.pvalue < 0.05) == (bound.low > margin)


def test_the_gate_ships_on_the_one_sided_p_where_the_two_sided_one_would_not():
    # A gain whose one-sided p is under alpha and whose two-sided p is not: only gains ship,
    # so the one-sided test is the one whose false-ship rate is alpha.
    rng = np.random.default_rng(13)
    a = rng.random(50)
    for shift in np.linspace(0.0, 0.05, 200):
        b = a + shift + rng.normal(0, 0.1, 50)
        one = stats.ttest_rel(b, a, alternative="greater").pvalue
        if 0.025 < one < 0.05:
            break
    else:  # pragma: no cover
        pytest.fail("no such case drawn")
    for test in ("t-test", "randomization"):
        c = compare(*from_values(a, b), margin=0.0, alpha=0.05, test=test)
        assert c.gate.outcome == "ships", c.gate.reason
        assert c.measures["recip_rank"].p(test) > 0.05  # the table's two-sided p
    assert c.gate.verdicts[0].p == pytest.approx(
        stats.permutation_test(
            (b - a,),
            np.mean,
            permutation_type="samples",
            alternative="greater",
            n_resamples=20_000,
            rng=np.random.default_rng(0),
        ).pvalue,
        abs=4 * math.sqrt(0.05 * 0.95 / 10_000),
    )


def test_superiority_by_a_margin_needs_the_bound_above_it_not_the_mean():
    wins = {f"q{i:02d}": 1 for i in range(12)} | {"q90": -1, "q91": 0}
    a, b = two_systems(wins)
    # mean difference (12 * 0.5 - 1/6) / 14 = 0.4167, above a margin of 0.4, but not shown above it
    c = compare(a, b, measure="rr", margin=0.4, alpha=0.05)
    assert c.gate.verdicts[0].mean == pytest.approx((12 * 0.5 - 1 / 6) / 14)
    assert c.gate.outcome == "does not ship", c.gate.reason
    assert c.gate.reason.startswith("DOES NOT SHIP on recip_rank: better by more than 0.4000 (superiority, H0: ")
    assert compare(a, b, measure="rr", margin=0.1, alpha=0.05).gate.ships
    assert not compare(a, b, measure="rr", margin=0.0, alpha=1e-9).gate.ships


def test_non_inferiority_ships_a_run_against_itself_and_not_a_loss_of_the_margin():
    rng = np.random.default_rng(14)
    a = rng.random(100)
    for test in TESTS:
        same = compare(*from_values(a, a), question="non-inferiority", margin=0.01, test=test)
        assert same.gate.outcome == "ships", same.gate.reason
        assert same.gate.null == "H0: difference <= -0.0100"
        assert "not worse by 0.0100 or more (non-inferiority" in same.gate.reason
        # Superiority of a copy is not shown: nothing changed.
        assert compare(*from_values(a, a), test=test).gate.outcome == "does not ship"
    worse = a - 0.01 + rng.normal(0, 0.05, 100)
    oracle = stats.ttest_rel(worse, a - 0.01, alternative="greater").pvalue
    c = compare(*from_values(a, worse), question="non-inferiority", margin=0.01, test="t-test")
    assert c.gate.verdicts[0].p == pytest.approx(oracle, abs=1e-10)
    assert c.gate.ships == (oracle < 0.05)


def test_the_two_sided_report_has_no_verdict():
    rng = np.random.default_rng(15)
    a = rng.random(30)
    b = a + rng.normal(0.05, 0.1, 30)
    c = compare(*from_values(a, b), question="two-sided", test="t-test", alpha=0.1)
    v = c.gate.verdicts[0]
    assert c.gate.outcome is None and not c.gate.ships and v.outcome is None
    assert v.p == pytest.approx(stats.ttest_rel(b, a).pvalue, abs=1e-10)
    interval = stats.ttest_rel(b, a).confidence_interval(0.9)
    assert (v.low, v.high) == (pytest.approx(interval.low, abs=1e-10), pytest.approx(interval.high, abs=1e-10))
    assert c.gate.reason.startswith("NO VERDICT on recip_rank: two-sided report (H0: difference = 0); ")
    with pytest.raises(ValueError, match="takes no margin"):
        compare(*from_values(a, b), question="two-sided", margin=0.01)
    with pytest.raises(ValueError, match="non-inferiority"):
        compare(*from_values(a, b), margin=-0.01)
    with pytest.raises(ValueError, match="question must be one of"):
        compare(*from_values(a, b), question="equivalence")


def test_several_gate_measures_ship_only_when_each_passes_an_intersection_union_test():
    wins = {f"q{i:02d}": 1 for i in range(12)} | {"q90": -1, "q91": 0}
    a, b = two_systems(wins)
    both = compare(a, b, measure=["rr", "P@1"], test="t-test")
    assert both.gate.measures == ("recip_rank", "P_1")
    assert [v.outcome for v in both.gate.verdicts] == ["ships", "ships"]
    assert both.gate.ships and "intersection-union test" in both.gate.reason
    # P@1 gains on 12 of 14 queries (+1 each) and loses on one (-1): mean 11/14; a margin of
    # 0.5 is shown exceeded for P@1, RR's gain of 0.4167 cannot exceed it: the gate does not ship.
    mixed = compare(a, b, measure=["rr", "P@1"], margin=0.5, test="t-test")
    assert [v.outcome for v in mixed.gate.verdicts] == ["does not ship", "ships"]
    assert mixed.gate.outcome == "does not ship"
    assert mixed.gate.measure == "recip_rank"  # the first, where the page opens


def test_a_randomization_test_that_cannot_tell_leaves_the_gate_undecided():
    rng = np.random.default_rng(16)
    a = rng.random(60)
    b = a + rng.normal(0.01, 0.1, 60)
    first = compare(*from_values(a, b), n_permutations=1000, seed=2).gate.verdicts[0]
    alpha = (first.p * 1001 - 1) / 1000  # b / N itself: its interval holds it however many are drawn
    stuck = compare(*from_values(a, b), n_permutations=1000, max_permutations=4000, seed=2, alpha=alpha)
    v = stuck.gate.verdicts[0]
    assert stuck.gate.outcome == "undecided" and v.n_permutations == 4000
    assert "UNDECIDED on recip_rank" in stuck.gate.reason
    assert "Monte Carlo interval" in stuck.gate.reason and "after 4,000 permutations" in stuck.gate.reason


def test_a_p_below_one_over_n_reads_so_in_the_reason():
    rng = np.random.default_rng(17)
    a = rng.random(200)
    c = compare(*from_values(a, a + 0.1 + rng.normal(0, 0.02, 200)))
    assert "randomization test p < 0.0001, under alpha 0.05" in c.gate.reason


def test_the_minimum_detectable_effect_is_the_golden_sets_t_test_power():
    rng = np.random.default_rng(18)
    a = rng.random(100)
    b = a + rng.normal(0.02, 0.15, 100)
    v = compare(*from_values(a, b), margin=0.01).gate.verdicts[0]
    sd = np.std(b - a, ddof=1)
    assert v.sd == pytest.approx(sd, rel=1e-12)
    # The t-test's power at the MDE is 0.8: the noncentral t's tail beyond the one-sided critical value.
    ncp = v.mde * math.sqrt(100) / sd
    assert stats.nct.sf(stats.t.isf(0.05, 99), 99, ncp) == pytest.approx(0.8, abs=1e-10)


def test_the_gate_measure_is_named_any_way_and_must_have_been_evaluated():
    a, b = two_systems({"q1": 1, "q2": 1})
    assert compare(a, b, measure="P@1").gate.measure == "P_1"
    assert compare(a, b, measure="P_1").gate.measure == "P_1"
    assert compare(a, b).gate.measure == "recip_rank"  # NDCG@10 was not evaluated: the first measure
    qrels = {"q1": {"d": 1}, "q2": {"d": 1}}
    runs = ({"q1": {"d": 1.0}, "q2": {"e": 1.0}}, {"q1": {"d": 1.0}, "q2": {"d": 1.0}})
    both = [evaluate(qrels, run, ["rr", "ndcg@10"]) for run in runs]
    assert compare(*both).gate.measure == "ndcg_cut_10"  # the default gate measure, wherever it is listed
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
        ours = sig.randomization_test(b - a, 0.0, "two-sided", n_permutations=20_000, seed=5)
        ours, exact = ours.p, ours.exact
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
