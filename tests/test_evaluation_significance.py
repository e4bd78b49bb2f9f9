"""The statistics under the gate, each against an independent oracle (scipy, statsmodels) or hand arithmetic."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from explainer.evaluation import significance as sig

from support.oracles import multitest, stats
from support.oracles import statsmodels_power as smpower

EXACT = 1e-10  # the same method on the same data: the numbers must agree to this


def differences(seed: int, n: int, shift: float = 0.03, sd: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, a + rng.normal(shift, sd, n)


# -- the t-test ------------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("shift", [0.0, 0.05, -0.01])
def test_the_t_test_against_a_shift_is_scipys_ttest_rel_with_its_interval(alternative, shift):
    a, b = differences(1, 40)
    ours = sig.t_test(b - a, shift, alternative, confidence=0.9)
    theirs = stats.ttest_rel(b, a + shift, alternative=alternative)
    assert ours.t == pytest.approx(theirs.statistic, abs=EXACT)
    assert ours.p == pytest.approx(theirs.pvalue, abs=EXACT)
    # The test of d - shift's interval, moved back by shift: the interval of the mean difference.
    interval = stats.ttest_1samp(b - a, shift, alternative=alternative).confidence_interval(0.9)
    assert (ours.low, ours.high) == (pytest.approx(interval.low, abs=EXACT), pytest.approx(interval.high, abs=EXACT))


def test_the_one_sided_t_test_rejects_exactly_when_its_bound_is_above_the_shift():
    a, b = differences(2, 30)
    d = b - a
    for shift in np.linspace(-0.05, 0.1, 31):
        result = sig.t_test(d, shift, "greater", confidence=0.95)
        assert (result.p < 0.05) == (result.low > shift)
        assert result.high == math.inf


def test_the_t_test_of_constant_differences():
    d = np.full(5, 0.1)
    assert sig.t_test(d, 0.0, "greater").p == 0.0
    assert sig.t_test(d, 0.1, "greater").p == 1.0
    assert sig.t_test(d, 0.2, "greater").p == 1.0
    assert sig.t_test(d, 0.2, "less").p == 0.0
    assert sig.t_test(np.zeros(4), 0.0, "two-sided").p == 1.0
    assert (sig.t_test(d).low, sig.t_test(d).high) == (0.1, math.inf)
    assert math.isnan(sig.t_test(d[:1]).p)


# -- the randomization test --------------------------------------------------------------------


def scipys_sign_flip(d, shift, alternative, n_resamples, seed=0):
    return stats.permutation_test(
        (d - shift,),
        np.mean,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative=alternative,
        rng=np.random.default_rng(seed),
    )


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("shift", [0.0, 0.05])
def test_the_exact_randomization_test_is_scipys_enumeration(alternative, shift):
    a, b = differences(3, 12)
    d = b - a
    ours = sig.randomization_test(d, shift, alternative, n_permutations=2**12)
    theirs = scipys_sign_flip(d, shift, alternative, 2**12)
    assert ours.exact and ours.n_permutations == 2**12
    assert ours.p == pytest.approx(theirs.pvalue, abs=EXACT)
    assert ours.p_low == ours.p_high == ours.p


def test_ties_do_not_count_against_the_budget_and_tied_sums_count_as_extreme():
    # Twelve queries, eight of which moved: 2^8 patterns, not 2^12. The differences are
    # multiples of 1/8, so many patterns' sums equal the observed one exactly.
    d = np.array([0.25, 0.125, 0.125, -0.125, 0.375, 0.25, -0.25, 0.125] + [0.0] * 4)
    ours = sig.randomization_test(d, 0.0, "greater", n_permutations=256)
    assert ours.exact and ours.n_permutations == 256 and ours.n_nonzero == 8
    # scipy enumerates all 2^12 (the 4 zeros multiply every count by 16 alike): the same share.
    theirs = scipys_sign_flip(d, 0.0, "greater", 2**12)
    assert ours.p == pytest.approx(theirs.pvalue, abs=EXACT)
    # In plain Python: the patterns whose signed sum reaches the observed sum, 1.0.
    nonzero = [x for x in d if x]
    extreme = sum(
        sum(s * x for s, x in zip(signs, nonzero, strict=True)) >= sum(nonzero) - 1e-12
        for signs in itertools.product((1, -1), repeat=8)
    )
    assert ours.extreme == extreme


def test_the_monte_carlo_p_is_b_plus_one_over_n_plus_one_with_a_clopper_pearson_interval():
    a, b = differences(4, 60, shift=0.01)
    ours = sig.randomization_test(b - a, 0.0, "greater", n_permutations=5000, seed=9)
    assert not ours.exact and ours.n_permutations == 5000
    assert ours.p == (ours.extreme + 1) / 5001
    interval = stats.binomtest(ours.extreme, 5000).proportion_ci(confidence_level=0.99, method="exact")
    assert (ours.p_low, ours.p_high) == (
        pytest.approx(interval.low, abs=EXACT),
        pytest.approx(interval.high, abs=EXACT),
    )
    # A Monte Carlo estimate of the exact test's p: scipy's own draws land in the same interval's reach.
    theirs = scipys_sign_flip(b - a, 0.0, "greater", 20_000, seed=1).pvalue
    spread = 4 * math.sqrt(theirs * (1 - theirs) * (1 / 5000 + 1 / 20_000)) + 2 / 5000
    assert ours.p == pytest.approx(theirs, abs=spread)
    # The same seed draws the same patterns.
    assert sig.randomization_test(b - a, 0.0, "greater", n_permutations=5000, seed=9) == ours


def test_a_p_below_one_over_n_reads_as_below_it():
    a, b = differences(5, 200, shift=0.1, sd=0.05)
    result = sig.randomization_test(b - a, 0.0, "greater", n_permutations=10_000)
    assert result.extreme == 0 and result.p == 1 / 10_001
    assert result.p_text() == "< 0.0001"
    assert sig.format_p(0.01234, 10_000) == "0.0123"
    assert sig.format_p(1 / 2**20) == "9.5e-07"  # an exact p is what it is


def test_more_permutations_are_drawn_while_ps_interval_contains_alpha_then_undecided():
    a, b = differences(6, 80, shift=0.0)
    d = b - a
    # alpha at the p-value itself: its interval contains alpha however many are drawn.
    first = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1)
    alpha = first.extreme / 2000
    stuck = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1, alpha=alpha, max_permutations=16_000)
    assert stuck.undecided and stuck.n_permutations == 16_000
    assert stuck.p_low <= alpha <= stuck.p_high
    # The first 2000 patterns are the ones drawn alone: the stream goes on, not over.
    assert stuck.extreme >= first.extreme
    # An alpha far from p: nothing more is drawn.
    clear = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1, alpha=1e-6)
    assert not clear.undecided and clear.n_permutations == 2000 and clear.p_low > 1e-6


def test_a_test_asked_again_with_a_floor_goes_on_with_the_same_stream():
    a, b = differences(6, 80, shift=0.0)
    d = b - a
    first = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1)
    alpha = first.extreme / 2000  # its interval holds alpha: the count doubles to the cap
    to_cap = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1, alpha=alpha, max_permutations=8000)
    # No alpha, a floor of 8000: the same 8000 patterns, so the same count of extreme ones.
    floored = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1, min_permutations=8000)
    assert floored.n_permutations == to_cap.n_permutations == 8000
    assert floored.extreme == to_cap.extreme and not floored.undecided
    # The floor stops at the cap (10 x the first count unless given).
    capped = sig.randomization_test(d, 0.0, "greater", n_permutations=2000, seed=1, min_permutations=10**9)
    assert capped.n_permutations == 20_000


def test_enough_permutations_leave_alpha_out_of_the_interval():
    a, b = differences(10, 18, shift=0.05)
    d = b - a
    exact = sig.randomization_test(d, 0.0, "greater", n_permutations=2**18)
    assert exact.exact
    alpha = exact.p * 1.3  # close: a thousand patterns cannot tell, more can
    result = sig.randomization_test(d, 0.0, "greater", n_permutations=1000, seed=3, alpha=alpha, max_permutations=10**6)
    assert not result.undecided and result.n_permutations > 1000
    assert not result.p_low <= alpha <= result.p_high


# -- multiple comparisons ----------------------------------------------------------------------


@pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_are_statsmodels_multipletests(ours, theirs):
    rng = np.random.default_rng(8)
    for p in (rng.random(9) ** 3, np.array([0.01, 0.04, 0.03, 0.04, 0.2, 0.005]), np.array([0.5])):
        expected = multitest.multipletests(p, method=theirs)[1]
        assert sig.adjust(p, ours) == pytest.approx(expected, abs=EXACT)


def test_holms_step_down_by_hand():
    # Sorted 0.01, 0.02, 0.03, 0.04 of four tests: 4 * 0.01, 3 * 0.02, 2 * 0.03, 1 * 0.04, each at
    # least the one before: 0.04, 0.06, 0.06, 0.06.
    assert sig.adjust([0.03, 0.01, 0.04, 0.02], "holm").tolist() == pytest.approx([0.06, 0.04, 0.06, 0.06])
    # BH: 4/1 * 0.01, 4/2 * 0.02, 4/3 * 0.03, 4/4 * 0.04, each at most the one after: 0.04 all.
    assert sig.adjust([0.03, 0.01, 0.04, 0.02], "bh").tolist() == pytest.approx([0.04] * 4)
    assert sig.adjust([0.03, float("nan"), 0.01], "holm")[[0, 2]].tolist() == pytest.approx([0.03, 0.02])
    assert sig.adjust([0.3, 0.01], "none").tolist() == [0.3, 0.01]


# -- the randomised Tukey HSD ------------------------------------------------------------------


def test_the_randomised_tukey_hsd_by_hand():
    # Two queries, three runs A B C: 3! x 3! = 36 arrangements. Means: A (0 + 0) / 2 = 0,
    # B (1 + 0) / 2 = 0.5, C (2 + 3) / 2 = 2.5. Query 2's 3 lands on the run whose query-1
    # score is v (0, 1 or 2, a third of the arrangements each); that run's sum is v + 3, the
    # largest, and the smallest is the least of the other two query-1 scores: the largest
    # difference of sums is 3 - 1 = 2, 4 - 0 = 4 or 5 - 0 = 5, of means 1, 2 or 2.5.
    # A-B (0.5): every arrangement reaches it, p = 1; B-C (2): two thirds; A-C (2.5): one third.
    result = sig.randomized_tukey_hsd([[0, 1, 2], [0, 0, 3]], n_permutations=36)
    assert result.exact and result.n_permutations == 36
    assert result.means.tolist() == [0, 0.5, 2.5]
    expected = [[1, 1, 1 / 3], [1, 1, 2 / 3], [1 / 3, 2 / 3, 1]]
    assert result.p.ravel().tolist() == pytest.approx(np.ravel(expected).tolist(), abs=EXACT)


def test_with_two_runs_the_tukey_hsd_is_the_two_sided_randomization_test():
    a, b = differences(9, 11)
    tukey = sig.randomized_tukey_hsd(np.column_stack([a, b]), n_permutations=2**11)
    flips = sig.randomization_test(b - a, 0.0, "two-sided", n_permutations=2**11)
    assert tukey.exact and tukey.p[0, 1] == pytest.approx(flips.p, abs=EXACT)


def test_the_tukey_hsd_keeps_the_pairing_by_query():
    rng = np.random.default_rng(10)
    scores = rng.random((30, 4)) * 0.3 + np.array([0.0, 0.02, 0.08, 0.1])
    result = sig.randomized_tukey_hsd(scores, n_permutations=3000, seed=4)
    # Easy and hard queries (a constant added to a query's row) change nothing.
    harder = sig.randomized_tukey_hsd(scores + rng.random((30, 1)) * 5, n_permutations=3000, seed=4)
    assert harder.p == pytest.approx(result.p, abs=EXACT)
    assert np.array_equal(result.p, result.p.T)
    # Renaming the runs renames the p-values (exactly: five queries, 3!^5 = 7776 arrangements).
    small = scores[:5, :3]
    exact = sig.randomized_tukey_hsd(small, n_permutations=7776)
    order = [2, 0, 1]
    renamed = sig.randomized_tukey_hsd(small[:, order], n_permutations=7776)
    assert exact.exact and renamed.exact
    assert renamed.p == pytest.approx(exact.p[np.ix_(order, order)], abs=EXACT)
    # A larger difference of means never has a larger p-value.
    diffs = np.abs(result.means[:, None] - result.means[None, :])[np.triu_indices(4, 1)]
    ps = result.p[np.triu_indices(4, 1)]
    assert all(ps[i] >= ps[j] for i in range(6) for j in range(6) if diffs[i] < diffs[j])


# -- effect sizes -------------------------------------------------------------------------------


def test_effect_sizes():
    d = np.array([0.1, 0.3, -0.1, 0.0, 0.2])
    # mean 0.1; deviations 0, 0.2, -0.2, -0.1, 0.1: variance (0.04 + 0.04 + 0.01 + 0.01) / 4 = 0.025
    assert sig.standardized_effect(d) == pytest.approx(0.1 / math.sqrt(0.025), abs=EXACT)
    assert sig.wins_ties_losses(d) == (3, 1, 1)
    assert math.isnan(sig.standardized_effect(np.full(3, 0.2)))


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_the_bootstrap_interval_is_scipys(alternative):
    a, b = differences(11, 300)
    d = b - a
    low, high, method = sig.bootstrap_interval(d, n_bootstrap=3000, confidence=0.9, seed=2, alternative=alternative)
    assert method == "BCa"
    theirs = stats.bootstrap(
        (d,), np.mean, n_resamples=3000, confidence_level=0.9, alternative=alternative, rng=np.random.default_rng(2)
    ).confidence_interval
    assert (low, high) == (pytest.approx(theirs.low, abs=EXACT), pytest.approx(theirs.high, abs=EXACT))
    assert sig.bootstrap_interval(np.zeros(3)) == (0.0, 0.0, "constant")


def test_many_bootstrap_intervals_are_each_rows_own_scipy_interval():
    rng = np.random.default_rng(12)
    samples = np.vstack([rng.random(40), rng.normal(0.1, 0.3, 40), np.full(40, 0.25), rng.random(40) ** 3])
    found = sig.bootstrap_intervals(samples, n_bootstrap=2000, confidence=0.9, seed=3)
    assert found[2] == (0.25, 0.25, "constant")
    for row, (low, high, method) in zip(samples[[0, 1, 3]], [found[0], found[1], found[3]], strict=True):
        theirs = stats.bootstrap(
            (row,), np.mean, n_resamples=2000, confidence_level=0.9, rng=np.random.default_rng(3)
        ).confidence_interval
        assert (low, high, method) == (
            pytest.approx(theirs.low, abs=EXACT),
            pytest.approx(theirs.high, abs=EXACT),
            "BCa",
        )


def test_the_monte_carlo_tukey_hsd_never_lists_the_runs_orders(monkeypatch):
    # Ten runs have 3.6 million orders: listing them took a minute and gigabytes before any draw.
    def listing(*args):
        raise AssertionError("the runs' orders were listed for a Monte Carlo test")

    monkeypatch.setattr(sig.itertools, "permutations", listing)
    scores = np.random.default_rng(13).random((20, 10))
    result = sig.randomized_tukey_hsd(scores, n_permutations=200)
    assert not result.exact and result.p.shape == (10, 10)


# -- power --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("alternative", "theirs"), [("greater", "larger"), ("two-sided", "two-sided")])
def test_power_is_statsmodels_ttestpower(alternative, theirs):
    solver = smpower.TTestPower()
    for effect, n, sd, alpha in ((0.02, 100, 0.12, 0.05), (0.05, 30, 0.2, 0.01), (0.1, 8, 0.1, 0.1)):
        expected = solver.power(effect_size=effect / sd, nobs=n, alpha=alpha, alternative=theirs)
        assert sig.power(effect, n, sd, alpha, alternative) == pytest.approx(expected, abs=EXACT)


@pytest.mark.parametrize(("alternative", "theirs"), [("greater", "larger"), ("two-sided", "two-sided")])
def test_the_minimum_detectable_effect_reaches_the_power_statsmodels_gives_it(alternative, theirs):
    solver = smpower.TTestPower()
    n, sd = 100, 0.13
    mde = sig.minimum_detectable_effect(n, sd, alpha=0.05, target_power=0.8, alternative=alternative)
    # At our MDE statsmodels' power is 0.8 to the digit; its own root-finder's answer is close to ours.
    assert solver.power(effect_size=mde / sd, nobs=n, alpha=0.05, alternative=theirs) == pytest.approx(0.8, abs=EXACT)
    solved = solver.solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8, alternative=theirs)
    assert mde / sd == pytest.approx(solved, rel=1e-5)  # statsmodels stops its root-finder sooner
    # The normal approximation, (z_alpha + z_power) sd / sqrt(n), is a little smaller than the t's.
    z = stats.norm.isf(0.05 if alternative == "greater" else 0.025) + stats.norm.isf(0.2)
    assert z * sd / 10 < mde < 1.02 * z * sd / 10


@pytest.mark.parametrize(("alternative", "theirs"), [("greater", "larger"), ("two-sided", "two-sided")])
def test_every_query_counts_detectable_effect_reaches_the_power_statsmodels_gives_it(alternative, theirs):
    solver = smpower.TTestPower()
    n, effect = sig.detectable_effects(0.05, 0.8, alternative)
    # Every count from 2 to 2,000, then steps of about 1% (none over 1.1%) to a million.
    assert n[:1999].tolist() == list(range(2, 2001)) and n[-1] == 1_000_000
    assert np.all(np.diff(n[1998:]) / n[1998:-1] < 0.011) and np.all(np.diff(effect) < 0)
    for i in (1, 8, 98, 997, 1998, 2100, n.size - 1):  # 3, 10, 100, 999, 2,000 queries, a sparse one, a million
        at = solver.power(effect_size=effect[i], nobs=n[i], alpha=0.05, alternative=theirs)
        assert at == pytest.approx(0.8, abs=EXACT), n[i]
    # n = 2 (one degree of freedom) is past statsmodels' solver; ours is the scalar root's.
    assert effect[0] == pytest.approx(sig.minimum_detectable_effect(2, 1.0, 0.05, 0.8, alternative), rel=1e-12)
    assert not effect.flags.writeable  # one table per process, shared by every page


def test_queries_needed_is_the_first_n_whose_power_reaches_the_target():
    solver = smpower.TTestPower()
    effect, sd = 0.02, 0.12
    n = sig.queries_needed(effect, sd, alpha=0.05, target_power=0.8)
    assert solver.power(effect_size=effect / sd, nobs=n, alpha=0.05, alternative="larger") >= 0.8
    assert solver.power(effect_size=effect / sd, nobs=n - 1, alpha=0.05, alternative="larger") < 0.8
    assert n == math.ceil(
        solver.solve_power(effect_size=effect / sd, nobs=None, alpha=0.05, power=0.8, alternative="larger")
    )
    # The MDE of n queries is at most the effect, and of n - 1 above it.
    assert sig.minimum_detectable_effect(n, sd) <= effect < sig.minimum_detectable_effect(n - 1, sd)
