"""The gate over several candidates: each p-value's Monte Carlo interval adjusted by its ends, and decided from that.

The oracle is statsmodels' ``multipletests`` applied to the ends of the raw p-values'
intervals (both corrections are monotone in each p-value), and the raw intervals are
``significance.randomization_test``'s own, drawn alone with the same seed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from explainer.evaluation import significance as sig
from explainer.evaluation.candidates import adjusted_gates, threshold
from explainer.evaluation.compare import compare
from explainer.evaluation.many_runs import gate_outcome
from explainer.evaluation.measures import evaluate

from support.oracles import multitest

CORRECTIONS = [("holm", "holm"), ("bh", "fdr_bh")]

N = 50
_rng = np.random.default_rng(30)
BASE = _rng.random(N)
NOISE = _rng.normal(0, 0.1, N)  # a candidate's differences: this noise moved up by a chosen gain
NULL = _rng.normal(0, 0.1, N)  # a candidate no better than the baseline (one-sided p about 0.25)


def candidates(*deltas, seed: int = 0):
    """``compare``'s comparison of each candidate (baseline + delta, recip_rank) with one baseline, at 10,000 permutations."""
    qrels = {f"q{i:03d}": {"d": 1} for i in range(N)}
    base = evaluate(qrels, {q: {"d": 1.0} for q in qrels}, ["rr"])

    def run(values):
        return dataclasses.replace(base, values={"recip_rank": np.asarray(values, dtype=float)})

    return [compare(run(BASE), run(BASE + d), n_permutations=10_000, n_bootstrap=500, seed=seed) for d in deltas]


def statsmodels_ends(verdicts, method):
    low = multitest.multipletests([v.p_low for v in verdicts], method=method)[1]
    high = multitest.multipletests([v.p_high for v in verdicts], method=method)[1]
    return low, high


@pytest.mark.parametrize(("ours", "theirs"), CORRECTIONS)
def test_a_candidate_whose_adjusted_interval_holds_alpha_draws_more_against_its_threshold_then_ships(
    ours, theirs, monkeypatch
):
    # Gain 0.034: one-sided p about 0.023. With one other candidate (p about 0.25) it is tested at
    # 0.025 under either correction, and 10,000 permutations cannot tell it from 0.025.
    first = sig.randomization_test(NOISE + 0.034, 0.0, "greater", 10_000, seed=0)
    assert not first.p_low <= 0.05 <= first.p_high  # alone, 10,000 permutations decided
    assert first.p_low < 0.025 < first.p_high  # but not against the level the correction uses
    compared = candidates(NOISE + 0.034, NULL)
    asked = []
    drawing = sig.randomization_test
    monkeypatch.setattr(sig, "randomization_test", lambda *a, **k: asked.append(k["alpha"]) or drawing(*a, **k))
    gates = adjusted_gates(compared, ours)
    monkeypatch.undo()
    v = gates[0].gate.verdicts[0]
    assert v.n_permutations > 10_000
    # The draws went on against 0.025 in one go, not a doubling at a time against alpha.
    assert asked == [pytest.approx(0.025, abs=1e-12)]
    # Drawn alone with the same seed to that count: the same p-value and interval.
    alone = sig.randomization_test(NOISE + 0.034, 0.0, "greater", 10_000, seed=0, min_permutations=v.n_permutations)
    assert (v.p, v.p_low, v.p_high) == (alone.p, alone.p_low, alone.p_high)
    low, high = statsmodels_ends([g.gate.verdicts[0] for g in gates], theirs)
    assert [g.gate.verdicts[0].p_adjusted_low for g in gates] == pytest.approx(low.tolist(), abs=1e-12)
    assert [g.gate.verdicts[0].p_adjusted_high for g in gates] == pytest.approx(high.tolist(), abs=1e-12)
    assert high[0] < 0.05 and gates[0].gate.outcome == "ships"
    assert low[1] > 0.05 and gates[1].gate.outcome == "does not ship"


@pytest.mark.parametrize(("ours", "theirs"), CORRECTIONS)
def test_a_candidate_whose_adjusted_interval_holds_alpha_at_the_cap_is_undecided_where_it_shipped(ours, theirs):
    # Gain 0.033, seed 1: 10,000 permutations put the adjusted p at 0.046 (it shipped on that), and
    # 100,000 still cannot tell it from alpha.
    first = sig.randomization_test(NOISE + 0.033, 0.0, "greater", 10_000, seed=1)
    assert 2 * first.p < 0.05 and first.p_high < 0.05
    gates = adjusted_gates(candidates(NOISE + 0.033, NULL, seed=1), ours)
    v = gates[0].gate.verdicts[0]
    assert v.n_permutations == 100_000  # the cap: 10 x the first count
    low, high = statsmodels_ends([g.gate.verdicts[0] for g in gates], theirs)
    assert (v.p_adjusted_low, v.p_adjusted_high) == (
        pytest.approx(low[0], abs=1e-12),
        pytest.approx(high[0], abs=1e-12),
    )
    assert low[0] <= 0.05 <= high[0]
    assert gates[0].gate.outcome == "undecided"
    assert f"interval adjusted [{low[0]:.4f}, {high[0]:.4f}] still holds alpha after 100,000 permutations" in (
        gates[0].gate.reason
    )


@pytest.mark.parametrize(("ours", "theirs"), CORRECTIONS)
def test_a_candidate_undecided_alone_is_decided_once_its_interval_is_adjusted(ours, theirs):
    # Gain 0.0283: one-sided p about 0.05, undecided alone at 100,000 permutations; beside two
    # candidates no better than the baseline its adjusted p is about three times that.
    alone = candidates(NOISE + 0.0283)[0]
    assert alone.gate.outcome == "undecided"
    gates = adjusted_gates(candidates(NOISE + 0.0283, NULL, NULL[::-1]), ours)
    low, _ = statsmodels_ends([g.gate.verdicts[0] for g in gates], theirs)
    assert low[0] > 0.05
    assert gates[0].gate.verdicts[0].p_adjusted_low == pytest.approx(low[0], abs=1e-12)
    assert [g.gate.outcome for g in gates] == ["does not ship"] * 3 and gate_outcome(gates) == "does not ship"


@pytest.mark.parametrize(
    ("correction", "rank", "expected"), [("holm", 0, 0.05 / 3), ("holm", 1, 0.05 / 2), ("bh", 1, 0.05)]
)
def test_a_candidates_threshold_is_the_level_its_correction_tests_it_at(correction, rank, expected):
    # Three raw p-values; Holm tests the smallest at alpha/3 and the next at alpha/2 once the first
    # rejects; Benjamini-Hochberg rejects the middle one with the largest when that is under alpha.
    p = np.array([0.001, 0.02, 0.04])
    assert threshold(p, rank, correction, 0.05) == pytest.approx(expected, abs=1e-12)


def test_one_candidate_or_a_two_sided_report_is_left_as_it_is():
    (one,) = candidates(NOISE + 0.05)
    assert adjusted_gates([one], "holm") == (one,)
    with pytest.raises(ValueError, match="correction must be one of"):
        adjusted_gates([one, one], "bonferroni")


@pytest.mark.parametrize(("ours", "theirs"), CORRECTIONS)
def test_an_adjusted_p_from_ps_no_permutation_matched_reads_as_a_bound(ours, theirs):
    # Three candidates far above the baseline and one no better: no permutation of 10,000 is as
    # extreme as the three, so each raw p is 1 / 10,001 and reads "< 0.0001"; adjusted, it is a
    # multiple of that estimate, and so a bound too, never a value.
    gates = adjusted_gates(candidates(NOISE + 0.2, NOISE + 0.3, NOISE + 0.4, NULL), ours)
    verdicts = [g.gate.verdicts[0] for g in gates]
    assert [v.p for v in verdicts[:3]] == [1 / 10_001] * 3
    adjusted = multitest.multipletests([v.p for v in verdicts], method=theirs)[1]
    assert [v.p_adjusted for v in verdicts] == pytest.approx(adjusted.tolist(), abs=1e-12)
    # Holm: the smallest raw p times the four candidates (ties share it); BH: times 4 / 3.
    factor = {"holm": 4, "bh": 4 / 3}[ours]
    assert adjusted[0] == pytest.approx(factor / 10_001, abs=1e-15)
    expected = f"< {factor / 10_000:.4g}"
    assert [v.p_text() for v in verdicts[:3]] == ["< 0.0001"] * 3
    assert [v.p_adjusted_text() for v in verdicts[:3]] == [expected] * 3
    assert verdicts[3].p_adjusted_text() == sig.format_p(adjusted[3])  # a p a permutation matched is a value


def test_an_adjusted_p_reads_as_a_bound_only_from_a_raw_p_no_permutation_matched():
    assert sig.format_p_adjusted(4 / 10_001, 1 / 10_001, 10_000) == "< 0.0004"
    assert sig.format_p_adjusted(3 * 0.0123, 0.0123, 10_000) == "0.0369"
    assert sig.format_p_adjusted(4e-5, 1e-5) == "4.0e-05"  # a t-test's or an exact test's p is what it is
    assert sig.format_p_adjusted(1.0, 1 / 10_001, 3) == "1.0000"  # adjusted to 1: nothing left to bound
