"""Significance tests, effect sizes and power for per-query differences: pure functions over numpy arrays.

Every test here takes ``delta``, the per-query differences candidate - baseline of one
measure (paired by query), or a query-by-run matrix for the randomised Tukey HSD. A
``shift`` m tests the differences against m instead of 0: the one-sided test of
H0: mean difference <= m is what a gate that ships "better by more than m" needs.
``alternative`` says which way the test looks, as scipy names it: ``"greater"`` (H0:
mean difference <= shift), ``"less"`` (H0: mean difference >= shift) or ``"two-sided"``
(H0: mean difference = shift).

- ``t_test``: the paired t-test and its matching confidence bound or interval;
- ``randomization_test``: the paired randomization (sign-flip) test, exact when every sign
  pattern fits in the budget, else Monte Carlo with p's own interval, drawing more
  permutations while that interval contains alpha;
- ``adjust``: Holm's or Benjamini-Hochberg's adjusted p-values, or none;
- ``randomized_tukey_hsd``: all pairs of many runs, run labels permuted within each query;
- ``bootstrap_interval`` (``bootstrap_intervals`` for many at once), ``standardized_effect``,
  ``wins_ties_losses``: effect sizes;
- ``power``, ``minimum_detectable_effect``, ``queries_needed``: the paired t-test's power;
  ``detectable_effects``: the minimum detectable effect of every query count, for a page.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np

ALTERNATIVES = ("greater", "less", "two-sided")
"""Which way a test looks: H0 is mean <= shift, mean >= shift, or mean = shift."""

CORRECTIONS = ("holm", "bh", "none")
"""Multiple-comparison corrections: Holm's step-down (the default), Benjamini-Hochberg's, none."""

TIE = 1e-12
"""Differences smaller than this count as ties (the same list gives exactly the same value)."""

POWER = 0.8
"""The power of the minimum detectable effect: the chance a true gain that large is found."""

P_CONFIDENCE = 0.99
"""The confidence of a Monte Carlo p-value's own interval (Clopper-Pearson)."""

_BATCH = 1 << 20  # values held at once while resampling: about 8 MB


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(map(repr, ALTERNATIVES))}, got {alternative!r}")


# -- the paired t-test ------------------------------------------------------------------------


@dataclass(frozen=True)
class TTest:
    """A paired t-test of the mean difference against ``shift``, with its matching bound or interval.

    ``low`` and ``high`` are the ``confidence`` interval that matches the test: for
    ``"greater"`` a lower bound (``high`` is +inf), for ``"less"`` an upper bound, for
    ``"two-sided"`` both; at ``confidence = 1 - alpha`` the test rejects exactly when
    ``shift`` lies outside it.
    """

    mean: float
    shift: float
    alternative: str
    n: int
    sd: float
    t: float
    df: int
    p: float
    low: float
    high: float
    confidence: float


def t_test(delta, shift: float = 0.0, alternative: str = "greater", confidence: float = 0.95) -> TTest:
    """The paired t-test of ``delta`` against ``shift`` (Student's, n - 1 degrees of freedom).

    Null hypothesis, by ``alternative``: ``"greater"`` H0: mean difference <= shift (one-sided);
    ``"less"`` H0: mean difference >= shift (one-sided); ``"two-sided"`` H0: mean difference = shift.
    When every difference is the same (within ``TIE``) t is undefined: p is 0 when that
    value lies strictly on the alternative's side of ``shift`` and 1 otherwise, and the
    interval is that value. Fewer than two queries: p and the interval are nan.
    """
    from scipy import stats

    _check_alternative(alternative)
    delta = np.asarray(delta, dtype=float)
    n = len(delta)
    mean = float(np.mean(delta)) if n else float("nan")
    nan = float("nan")
    if n < 2:
        return TTest(mean, shift, alternative, n, nan, nan, max(n - 1, 0), nan, nan, nan, confidence)
    df = n - 1
    if np.ptp(delta) <= TIE:
        gap = mean - shift
        side = 0.0 if abs(gap) <= TIE else math.copysign(1.0, gap)
        rejects = {"greater": side > 0, "less": side < 0, "two-sided": side != 0}[alternative]
        low = -math.inf if alternative == "less" else mean
        high = math.inf if alternative == "greater" else mean
        return TTest(
            mean, shift, alternative, n, 0.0, side * math.inf, df, 0.0 if rejects else 1.0, low, high, confidence
        )
    sd = float(np.std(delta, ddof=1))
    se = sd / math.sqrt(n)
    t = (mean - shift) / se
    if alternative == "greater":
        p = float(stats.t.sf(t, df))
        low, high = mean - float(stats.t.isf(1 - confidence, df)) * se, math.inf
    elif alternative == "less":
        p = float(stats.t.cdf(t, df))
        low, high = -math.inf, mean + float(stats.t.isf(1 - confidence, df)) * se
    else:
        p = float(min(1.0, 2 * stats.t.sf(abs(t), df)))
        half = float(stats.t.isf((1 - confidence) / 2, df)) * se
        low, high = mean - half, mean + half
    return TTest(mean, shift, alternative, n, sd, float(t), df, p, low, high, confidence)


# -- the paired randomization test ------------------------------------------------------------


@dataclass(frozen=True)
class RandomizationTest:
    """A paired randomization (sign-flip) test of the mean difference against ``shift``.

    ``exact``: every sign pattern of the ``n_nonzero`` differences that are not ties was
    enumerated (``n_permutations`` = 2^n_nonzero) and ``p`` is ``extreme / n_permutations``.
    Otherwise ``n_permutations`` random patterns were drawn and ``p = (extreme + 1) /
    (n_permutations + 1)``, which never reports 0 for a pattern not drawn; ``p_low`` and
    ``p_high`` are then the ``p_confidence`` Clopper-Pearson interval of ``extreme /
    n_permutations``, the Monte Carlo estimate of the exact p-value (for an exact test
    both are ``p``). ``undecided``: an alpha was given and p's interval still contained it
    when the permutations reached their cap.
    """

    mean: float
    shift: float
    alternative: str
    p: float
    exact: bool
    n_permutations: int
    extreme: int
    n_nonzero: int
    p_low: float
    p_high: float
    p_confidence: float
    seed: int
    undecided: bool = False

    def p_text(self) -> str:
        """``p`` for a reader: ``"< 0.0001"`` when a Monte Carlo p is below 1/N (no pattern was as extreme)."""
        return format_p(self.p, None if self.exact else self.n_permutations)


def format_p(p: float, n_permutations: int | None = None) -> str:
    """A p-value in four decimals; a Monte Carlo p below ``1 / n_permutations`` reads ``"< 1/N"`` (``"< 0.0001"``).

    With N random permutations the smallest p the test can give is 1 / (N + 1): it says
    that p is below 1/N, not what p is.
    """
    if p != p:
        return "n/a"
    if n_permutations and p < 1 / n_permutations:
        return f"< {1 / n_permutations:.4g}"
    return f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def format_p_adjusted(p_adjusted: float, p: float, n_permutations: int | None = None) -> str:
    """An adjusted p-value as ``format_p`` reads one; adjusted from a Monte Carlo p below ``1 / N``, a bound.

    A raw p that no random pattern matched reads ``"< 1/N"`` (its estimate is 1 / (N + 1)):
    Holm or Benjamini-Hochberg multiply that estimate, so the adjusted value is as much a bound
    as the raw one, and reads ``"< "`` the same multiple of 1/N (``"< 0.0004"`` for Holm's 4 x
    1 / 10,001 with 10,000 permutations), never as a value.
    """
    if p_adjusted != p_adjusted or not n_permutations or p >= 1 / n_permutations:
        return format_p(p_adjusted, n_permutations)
    bound = p_adjusted * (n_permutations + 1) / n_permutations
    return format_p(p_adjusted, n_permutations) if bound >= 1 else f"< {bound:.4g}"


def clopper_pearson(extreme: int, n: int, confidence: float = P_CONFIDENCE) -> tuple[float, float]:
    """The Clopper-Pearson ("exact") interval of a binomial proportion ``extreme / n``."""
    from scipy import stats

    tail = (1 - confidence) / 2
    low = 0.0 if extreme == 0 else float(stats.beta.ppf(tail, extreme, n - extreme + 1))
    high = 1.0 if extreme == n else float(stats.beta.ppf(1 - tail, extreme + 1, n - extreme))
    return low, high


def randomization_test(
    delta,
    shift: float = 0.0,
    alternative: str = "greater",
    n_permutations: int = 10_000,
    seed: int = 0,
    alpha: float | None = None,
    max_permutations: int | None = None,
    p_confidence: float = P_CONFIDENCE,
    min_permutations: int = 0,
) -> RandomizationTest:
    """The paired randomization test of ``delta - shift``: each query's sign is kept or flipped at random.

    Null hypothesis, by ``alternative`` (Fisher's sharp null, each difference minus ``shift``
    as likely positive as negative): ``"greater"`` H0: mean difference <= shift
    (one-sided); ``"less"`` H0: mean difference >= shift (one-sided); ``"two-sided"``
    H0: mean difference = shift. The statistic is the mean of the signed differences.

    Exact when 2^n_nonzero <= ``n_permutations`` (ties with ``shift`` flip to themselves, so
    only the other differences' patterns count): every pattern is enumerated. Otherwise
    ``n_permutations`` random patterns from ``seed``; when ``alpha`` is given and p's
    ``p_confidence`` Clopper-Pearson interval contains it, the count of patterns doubles
    (the same stream of patterns, continued) until the interval leaves alpha or reaches
    ``max_permutations`` (default 10 x ``n_permutations``), where the test is ``undecided``.
    ``min_permutations``: the count doubles at least until it reaches this (within the cap),
    whatever the interval: a test asked again against another level (an adjusted one,
    ``candidates.adjusted_gates``) goes on from where it stopped, as the stream is the same.
    A pattern whose mean equals the observed one up to rounding counts as extreme.
    """
    _check_alternative(alternative)
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, int) or n_permutations < 1:
        raise ValueError(f"n_permutations must be an integer >= 1, got {n_permutations!r}")
    cap = 10 * n_permutations if max_permutations is None else max(max_permutations, n_permutations)
    x = np.asarray(delta, dtype=float) - shift
    mean = float(np.mean(x)) + shift if len(x) else float("nan")
    nonzero = x[np.abs(x) > TIE]
    k = len(nonzero)
    if len(x) == 0:
        nan = float("nan")
        return RandomizationTest(mean, shift, alternative, nan, True, 0, 0, 0, nan, nan, p_confidence, seed)
    total = float(np.sum(nonzero))
    # Rounding of sums over different orders: far below any real difference between two patterns.
    slack = 1e-12 * float(np.sum(np.abs(nonzero)))

    def count(kept: np.ndarray) -> int:
        # kept[r, i] = 1 keeps difference i's sign in pattern r, 0 flips it: its signed sum is
        # 2 * (the kept differences' sum) - (the sum of all).
        sums = 2 * (kept @ nonzero) - total
        if alternative == "greater":
            return int(np.count_nonzero(sums >= total - slack))
        if alternative == "less":
            return int(np.count_nonzero(sums <= total + slack))
        return int(np.count_nonzero(np.abs(sums) >= abs(total) - slack))

    if 2**k <= n_permutations:
        extreme = 0
        rows = max(1, _BATCH // max(k, 1))
        for start in range(0, 2**k, rows):
            codes = np.arange(start, min(start + rows, 2**k), dtype=np.int64)
            extreme += count(((codes[:, None] >> np.arange(k)) & 1).astype(float))
        p = extreme / 2**k
        return RandomizationTest(mean, shift, alternative, p, True, 2**k, extreme, k, p, p, p_confidence, seed)

    rng = np.random.default_rng(seed)
    rows = max(1, _BATCH // k)

    def draw(n: int) -> int:
        found = 0
        for start in range(0, n, rows):
            size = min(rows, n - start)
            # One random bit per difference, eight from each random byte.
            bits = np.unpackbits(np.frombuffer(rng.bytes(size * -(-k // 8)), dtype=np.uint8)).reshape(size, -1)
            found += count(bits[:, :k].astype(float))
        return found

    drawn, extreme = n_permutations, draw(n_permutations)
    low, high = clopper_pearson(extreme, drawn, p_confidence)
    while drawn < cap and (drawn < min_permutations or (alpha is not None and low <= alpha <= high)):
        more = min(drawn, cap - drawn)
        extreme += draw(more)
        drawn += more
        low, high = clopper_pearson(extreme, drawn, p_confidence)
    undecided = alpha is not None and low <= alpha <= high
    p = (extreme + 1) / (drawn + 1)
    return RandomizationTest(
        mean, shift, alternative, p, False, drawn, extreme, k, low, high, p_confidence, seed, undecided
    )


# -- many comparisons -------------------------------------------------------------------------


def adjust(p, method: str = "holm") -> np.ndarray:
    """Adjusted p-values for a family of tests, in the input's order; nan stays nan and is not counted.

    ``"holm"``: Holm's step-down, which keeps the chance of any false rejection (the
    family-wise error rate) at most alpha, for any dependence between the tests. ``"bh"``:
    Benjamini-Hochberg's step-up, which keeps the expected share of false rejections among
    the rejections (the false discovery rate) at most alpha, for independent or positively
    dependent tests. ``"none"``: the p-values as they are.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"method must be one of {', '.join(map(repr, CORRECTIONS))}, got {method!r}")
    p = np.asarray(p, dtype=float)
    out = p.copy()
    finite = np.flatnonzero(~np.isnan(p))
    m = len(finite)
    if method == "none" or m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    ranked = p[order]
    if method == "holm":
        # The i-th smallest (from 0) is tested at alpha / (m - i); a step-down stops at the first
        # that fails, so an adjusted p is never below the one before it.
        scaled = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:
        # The i-th smallest (from 1) is tested at alpha * i / m; a step-up rejects everything below
        # the largest that passes, so an adjusted p is never above the one after it.
        scaled = np.minimum.accumulate((m / np.arange(1, m + 1) * ranked)[::-1])[::-1]
    out[order] = np.minimum(scaled, 1.0)
    return out


@dataclass(frozen=True)
class TukeyHSD:
    """All pairs of runs compared at once: ``p[i, j]`` for runs i and j (1 on the diagonal).

    ``exact``: every arrangement of run labels within each query was enumerated and
    ``p[i, j]`` is the share of arrangements whose largest difference of run means reached
    ``|means[i] - means[j]|``; otherwise ``n_permutations`` random arrangements and
    ``(count + 1) / (n_permutations + 1)``.
    """

    means: np.ndarray
    p: np.ndarray
    exact: bool
    n_permutations: int
    seed: int


def randomized_tukey_hsd(scores, n_permutations: int = 10_000, seed: int = 0) -> TukeyHSD:
    """The randomised Tukey HSD over a query-by-run matrix (Carterette 2012): every pair of runs at once.

    Null hypothesis: within each query the run labels are exchangeable (no run differs
    from any other), tested two-sided for each pair. Each arrangement permutes the runs'
    scores within each query (so the pairing by query is kept, unlike a Tukey test that
    treats runs as independent groups) and records the largest difference between two run
    means; a pair's p-value is the share of arrangements whose largest difference reaches
    the pair's observed one, which holds the family-wise error rate at alpha for all pairs.
    Exact when (runs!)^queries arrangements fit in ``n_permutations``.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] < 2:
        raise ValueError("scores must be a queries-by-runs matrix with at least two runs")
    n, k = scores.shape
    means = scores.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    slack = 1e-12 * float(np.mean(np.abs(scores))) if n else 0.0
    orders = math.factorial(k)
    # (k!)^n arrangements in all: compared by logarithm first, since the power can have a million
    # digits, and the k! orders listed only when every arrangement is enumerated (10 runs: 3.6 million).
    exact = n * math.log(orders) <= math.log(n_permutations) + 1e-9 and orders**n <= n_permutations

    def tally(ranges: np.ndarray) -> np.ndarray:
        return np.count_nonzero(ranges[:, None, None] >= observed[None] - slack, axis=0)

    if exact:
        perms = np.array(list(itertools.permutations(range(k))))
        arrangements = orders**n
        counts = np.zeros((k, k), dtype=np.int64)
        rows = max(1, _BATCH // max(n * k, 1))
        combos = itertools.product(range(len(perms)), repeat=n)
        while chunk := list(itertools.islice(combos, rows)):
            choice = perms[np.array(chunk)]  # (rows, n, k): each query's arrangement of run labels
            sums = np.take_along_axis(np.broadcast_to(scores, choice.shape), choice, axis=2).sum(axis=1)
            counts += tally(np.ptp(sums, axis=1) / n)
        p = counts / arrangements
        np.fill_diagonal(p, 1.0)
        return TukeyHSD(means, p, True, arrangements, seed)
    rng = np.random.default_rng(seed)
    counts = np.zeros((k, k), dtype=np.int64)
    rows = max(1, _BATCH // (n * k))
    for start in range(0, n_permutations, rows):
        size = min(rows, n_permutations - start)
        order = np.argsort(rng.random((size, n, k)), axis=2)
        shuffled = np.take_along_axis(np.broadcast_to(scores, order.shape), order, axis=2)
        counts += tally(np.ptp(shuffled.mean(axis=1), axis=1))
    p = (counts + 1) / (n_permutations + 1)
    np.fill_diagonal(p, 1.0)
    return TukeyHSD(means, p, False, n_permutations, seed)


# -- effect sizes -----------------------------------------------------------------------------


def bootstrap_interval(
    delta,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    method: str = "BCa",
    alternative: str = "two-sided",
) -> tuple[float, float, str]:
    """A bootstrap confidence interval of the mean of ``delta``: ``(low, high, method used)``.

    ``scipy.stats.bootstrap`` resampling queries; BCa by default. ``alternative="greater"``
    gives a lower bound (high is +inf), ``"less"`` an upper bound. When every difference is
    the same the interval is that value; when BCa cannot be computed (too few distinct
    values) the percentile interval is given instead, and the method says so.
    """
    return bootstrap_intervals(
        np.asarray(delta, dtype=float)[None], n_bootstrap, confidence, seed, method, alternative
    )[0]


def bootstrap_intervals(
    samples,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    method: str = "BCa",
    alternative: str = "two-sided",
) -> list[tuple[float, float, str]]:
    """``bootstrap_interval`` of each row of ``samples`` (rows of one length), in one resampling.

    The rows are resampled together, by the same draws of queries (the same ones one row
    alone would get from ``seed``, as scipy draws them), so many runs' or pairs' intervals
    cost one draw: each row's interval is its own bootstrap interval all the same.
    """
    from scipy import stats

    _check_alternative(alternative)
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 2:
        raise ValueError("samples must be a matrix: one row a sample")
    found: list[tuple[float, float, str] | None] = [None] * len(samples)
    if samples.shape[1] == 0:
        return [(float("nan"), float("nan"), method)] * len(samples)
    for i in np.flatnonzero(np.ptp(samples, axis=1) <= TIE).tolist():
        mean = float(np.mean(samples[i]))
        found[i] = (
            -math.inf if alternative == "less" else mean,
            math.inf if alternative == "greater" else mean,
            "constant",
        )
    for chosen in (method, "percentile"):
        rows = [i for i, done in enumerate(found) if done is None]
        if not rows:
            break
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.bootstrap(
                (samples[rows],),
                np.mean,
                n_resamples=n_bootstrap,
                confidence_level=confidence,
                method=chosen,
                alternative=alternative,
                axis=-1,
                rng=np.random.default_rng(seed),
                # About a million values at a time: all at once held 800 MB for 10,000 queries.
                batch=max(1, _BATCH // samples[rows].size),
            )
        lows = np.atleast_1d(result.confidence_interval.low)
        highs = np.atleast_1d(result.confidence_interval.high)
        for i, low, high in zip(rows, lows.tolist(), highs.tolist(), strict=True):
            if low == low and high == high:
                found[i] = (float(low), float(high), chosen)
    return [done or (float("nan"), float("nan"), method) for done in found]


def standardized_effect(delta) -> float:
    """The standardized paired effect d_z: the mean difference over the differences' standard deviation (n - 1).

    It has no units, so it can be compared across measures; the mean difference in the
    measure's own units says more about what a reader gains. nan with fewer than two
    queries or when every difference is the same.
    """
    delta = np.asarray(delta, dtype=float)
    if len(delta) < 2 or np.ptp(delta) <= TIE:
        return float("nan")
    return float(np.mean(delta) / np.std(delta, ddof=1))


def wins_ties_losses(delta) -> tuple[int, int, int]:
    """How many queries the candidate won, tied (within ``TIE``) and lost."""
    delta = np.asarray(delta, dtype=float)
    return int(np.sum(delta > TIE)), int(np.sum(np.abs(delta) <= TIE)), int(np.sum(delta < -TIE))


# -- power ------------------------------------------------------------------------------------

ASSUMPTIONS = (
    "Power is the paired t-test's, from the noncentral t: it assumes the queries are a random "
    "sample of the queries that matter, their differences independent and close to normal, with "
    "the standard deviation measured on this set."
)
"""The assumptions under ``power``, ``minimum_detectable_effect`` and ``queries_needed``, in one sentence."""


def power(effect: float, n: int, sd: float, alpha: float = 0.05, alternative: str = "greater") -> float:
    """The chance that the paired t-test at ``alpha`` rejects when the true mean difference exceeds H0's by ``effect``.

    ``n`` queries whose differences have standard deviation ``sd``; ``alternative`` as in
    ``t_test`` (one-sided ``"greater"``: H0 mean difference <= shift, the true one is shift +
    effect). The noncentral t with n - 1 degrees of freedom and noncentrality
    effect * sqrt(n) / sd (Webber, Moffat and Zobel, CIKM 2008; Sakai's topic set size design).
    """
    from scipy import stats

    _check_alternative(alternative)
    if n < 2 or not sd > 0:
        return float("nan")
    df, ncp = n - 1, effect * math.sqrt(n) / sd
    if alternative == "greater":
        return float(stats.nct.sf(stats.t.isf(alpha, df), df, ncp))
    if alternative == "less":
        return float(stats.nct.cdf(stats.t.ppf(alpha, df), df, ncp))
    crit = stats.t.isf(alpha / 2, df)
    upper, lower = stats.nct.sf(crit, df, ncp), stats.nct.cdf(-crit, df, ncp)
    # The wrong-way tail is below 1e-19 where scipy's nct gives nan for it (df 1, ncp 8): 0.
    return float(upper + np.nan_to_num(lower, nan=0.0) if ncp >= 0 else np.nan_to_num(upper, nan=0.0) + lower)


def minimum_detectable_effect(
    n: int, sd: float, alpha: float = 0.05, target_power: float = 0.8, alternative: str = "greater"
) -> float:
    """The smallest true gain (beyond H0's shift) that a paired t-test on ``n`` queries detects with ``target_power``.

    In the measure's units: a gain this large is found significant at ``alpha`` that often
    (one-sided ``"greater"`` by default, as the gate's decision is; for ``"two-sided"`` the
    size of a difference either way). nan with fewer than two queries or ``sd`` 0.
    """
    from scipy import optimize

    _check_alternative(alternative)
    if n < 2 or not sd > 0:
        return float("nan")
    sign = -1.0 if alternative == "less" else 1.0

    def short(effect: float) -> float:
        return power(sign * effect, n, sd, alpha, alternative) - target_power

    high = sd
    while short(high) < 0:
        high *= 2
    return float(optimize.brentq(short, 0.0, high, xtol=1e-15, rtol=4 * np.finfo(float).eps))


DENSE_QUERIES = 2_000
"""``detectable_effects`` gives every query count up to this one, then one every 1% or so."""

MOST_QUERIES = 1_000_000
"""The largest query count ``detectable_effects`` gives."""


def _detectable_counts() -> np.ndarray:
    sparse = np.unique(np.round(np.geomspace(DENSE_QUERIES, MOST_QUERIES, 626)).astype(int))
    return np.concatenate([np.arange(2, DENSE_QUERIES), sparse])


@functools.lru_cache(maxsize=8)
def detectable_effects(
    alpha: float = 0.05, target_power: float = POWER, alternative: str = "greater"
) -> tuple[np.ndarray, np.ndarray]:
    """For query counts ``n`` (every count from 2 to ``DENSE_QUERIES``, then about one every 1% up to
    ``MOST_QUERIES``): the minimum detectable effect in standard deviations of the differences.

    ``(n, e)``: the paired t-test at ``alpha`` on ``n[i]`` queries finds a true effect of
    ``e[i]`` times the differences' standard deviation with ``target_power`` (``"greater"``:
    beyond H0's shift; ``"two-sided"``: either way); that is ``minimum_detectable_effect(n, 1)``
    for every count at once, so that a page without Python can find the queries a difference
    needs (the fewest ``n`` whose ``e`` is at most the difference over the standard deviation,
    exact where every count is given). Both arrays are read-only; computed once per arguments
    (some 0.4 s).
    """
    from scipy import stats

    if alternative not in ("greater", "two-sided"):
        raise ValueError(f"alternative must be 'greater' or 'two-sided', got {alternative!r}")
    n = _detectable_counts()
    df, root = n - 1.0, np.sqrt(n)
    crit = stats.t.isf(alpha / (2 if alternative == "two-sided" else 1), df)

    def found(effect):
        chance = stats.nct.sf(crit, df, effect * root)
        if alternative == "greater":
            return chance
        # The wrong-way tail of a positive effect: below 1e-19 where scipy's nct.cdf gives nan (df 3, ncp 32).
        return chance + np.nan_to_num(stats.nct.cdf(-crit, df, effect * root), nan=0.0)

    low, high = np.zeros(n.size), np.ones(n.size)
    while (short := found(high) < target_power).any():  # a top each count reaches (n = 2 at alpha 1e-6: 10^5 sd)
        high = np.where(short, high * 2, high)
    for _ in range(64):  # bisection: each step halves every interval, 64 reach a double's precision
        middle = (low + high) / 2
        enough = found(middle) >= target_power
        high, low = np.where(enough, middle, high), np.where(enough, low, middle)
    n.flags.writeable = high.flags.writeable = False
    return n, high


def queries_needed(
    effect: float, sd: float, alpha: float = 0.05, target_power: float = 0.8, alternative: str = "greater"
) -> int:
    """The fewest queries (at least 2) with which a paired t-test detects a true gain ``effect`` with ``target_power``.

    ``sd`` is the standard deviation of the per-query differences (from a pilot set such as
    this one); ``alternative`` as in ``power``.
    """
    _check_alternative(alternative)
    if not sd > 0 or effect == 0:
        raise ValueError("queries_needed needs a standard deviation above 0 and an effect other than 0")
    sign = -1.0 if alternative == "less" else 1.0
    effect = sign * abs(effect)
    enough = 2
    while power(effect, enough, sd, alpha, alternative) < target_power:
        enough *= 2
    fewest = max(2, enough // 2)
    while fewest < enough:  # power grows with n: bisect for the first n that reaches the target
        middle = (fewest + enough) // 2
        if power(effect, middle, sd, alpha, alternative) >= target_power:
            enough = middle
        else:
            fewest = middle + 1
    return enough
