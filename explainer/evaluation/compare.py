"""Two systems on the same queries: per-query differences, significance tests, and a ship gate.

``compare(baseline, candidate)`` takes two ``Evaluation``s (the same qrels and measures)
and gives, for each measure, the per-query differences ``candidate - baseline`` (sorted,
for a bar chart of deltas), wins, ties and losses, and three statistics, all from scipy:

- the paired t-test (``scipy.stats.ttest_rel``), two-sided;
- the paired randomization test (Fisher's, as Smucker, Allan and Carterette, CIKM 2007,
  recommend for IR): under the null hypothesis each query's two scores could have come
  from either system, so each difference keeps or flips its sign at random, two-sided,
  with ``n_permutations`` random flips from ``seed``; when 2^n flips are no more than
  ``n_permutations``, ``scipy.stats.permutation_test`` enumerates them all and the p-value
  is exact. A random test's p-value is (flips at least as extreme + 1) / (n_permutations + 1),
  scipy's formula, which never reports 0 for what it did not enumerate;
- a bootstrap confidence interval of the mean difference (``scipy.stats.bootstrap``, BCa
  by default, ``n_bootstrap`` resamples of queries from ``seed``).

The gate ships the candidate only when its mean difference on the gate's measure is at
least ``margin`` (and above 0) and the chosen test's p-value is below ``alpha``.

A query evaluated for one system and not the other (a run with no result for it) counts
0 for the system that lacks it, as trec_eval ``-c`` counts it; the comparison says how many.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from explainer.evaluation.measures import Evaluation, Measure

TESTS = ("randomization", "t-test")
"""The tests the gate can use: the paired randomization test, or the paired t-test."""

TIE = 1e-12
"""Differences smaller than this count as ties (the same list gives exactly the same value)."""


@dataclass(frozen=True, eq=False)
class MeasureComparison:
    """One measure, two systems, paired by query (``qids`` in trec_eval's order)."""

    measure: str
    label: str
    qids: tuple[str, ...]
    baseline: np.ndarray
    candidate: np.ndarray
    delta: np.ndarray
    wins: int
    ties: int
    losses: int
    t_statistic: float
    t_p: float
    randomization_p: float
    n_permutations: int
    exact: bool
    ci_low: float
    ci_high: float
    confidence: float
    n_bootstrap: int
    bootstrap_method: str
    seed: int

    @property
    def mean_baseline(self) -> float:
        return float(np.mean(self.baseline)) if len(self.baseline) else 0.0

    @property
    def mean_candidate(self) -> float:
        return float(np.mean(self.candidate)) if len(self.candidate) else 0.0

    @property
    def mean_delta(self) -> float:
        return float(np.mean(self.delta)) if len(self.delta) else 0.0

    def p(self, test: str) -> float:
        """The p-value of ``test`` (one of ``TESTS``)."""
        _check_test(test)
        return self.randomization_p if test == "randomization" else self.t_p

    def sorted_deltas(self) -> list[tuple[str, float]]:
        """``(qid, candidate - baseline)`` from the worst loss to the best win: a sorted bar chart's data.

        Equal differences keep trec_eval's query order.
        """
        order = np.argsort(self.delta, kind="stable")
        return [(self.qids[i], float(self.delta[i])) for i in order.tolist()]


@dataclass(frozen=True)
class Gate:
    """The verdict: ``ships`` when the mean difference is >= ``margin`` (and > 0) and ``p`` < ``alpha``."""

    measure: str
    margin: float
    alpha: float
    test: str
    delta: float
    p: float
    ships: bool

    @property
    def reason(self) -> str:
        """The verdict in one sentence, with the numbers it was made from."""
        test = "randomization test" if self.test == "randomization" else "t-test"
        beats = self.delta >= self.margin and self.delta > 0
        significant = self.p < self.alpha
        first = f"mean difference {self.delta:+.4f} {'>=' if beats else '<'} margin {self.margin:.4f}"
        if self.delta <= 0 and self.margin <= 0:
            first = f"mean difference {self.delta:+.4f} is not above 0"
        second = f"{test} p = {_p_text(self.p)} {'<' if significant else '>='} alpha {self.alpha:g}"
        verdict = "SHIPS" if self.ships else "DOES NOT SHIP"
        return f"{verdict} on {self.measure}: {first}; {second}"


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every measure's comparison, and the gate."""

    baseline_name: str
    candidate_name: str
    measures: dict[str, MeasureComparison]
    gate: Gate
    only_baseline: tuple[str, ...]
    only_candidate: tuple[str, ...]

    def lines(self) -> list[str]:
        """A plain-text report: one line per measure, then the gate (no document ids)."""
        out = [f"Comparison: {self.candidate_name} (candidate) against {self.baseline_name} (baseline)"]
        for qids, system in ((self.only_baseline, self.candidate_name), (self.only_candidate, self.baseline_name)):
            if qids:
                n = len(qids)
                out.append(
                    f"{n} {'query has' if n == 1 else 'queries have'} no result in {system}: "
                    "counted as 0 there, as trec_eval -c counts it"
                )
        any_m = next(iter(self.measures.values()))
        flips = "all sign flips (exact)" if any_m.exact else f"{any_m.n_permutations:,} random sign flips"
        out.append(
            f"{len(any_m.qids)} queries paired; randomization test: {flips}, seed {any_m.seed}; "
            f"{any_m.confidence:.0%} bootstrap CI: {any_m.bootstrap_method}, {any_m.n_bootstrap:,} resamples"
        )
        header = (
            f"{'measure':<22} {'baseline':>8} {'candidate':>9} {'diff':>8}  {'CI of diff':>17}  "
            f"{'wins':>4} {'ties':>4} {'losses':>6}  {'p (t-test)':>10} {'p (rand.)':>9}"
        )
        out += [header, "-" * len(header)]
        for m in self.measures.values():
            ci = f"[{m.ci_low:+.4f}, {m.ci_high:+.4f}]"
            out.append(
                f"{m.measure:<22} {m.mean_baseline:8.4f} {m.mean_candidate:9.4f} {m.mean_delta:+8.4f}  {ci:>17}  "
                f"{m.wins:4d} {m.ties:4d} {m.losses:6d}  {_p_text(m.t_p):>10} {_p_text(m.randomization_p):>9}"
            )
        out.append(self.gate.reason)
        return out


def _p_text(p: float) -> str:
    if p != p:
        return "n/a"
    return f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def _check_test(test) -> None:
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, TESTS))}, got {test!r}")


def paired_t_test(baseline: np.ndarray, candidate: np.ndarray) -> tuple[float, float]:
    """The two-sided paired t-test of ``candidate - baseline``: ``(t, p)`` from ``scipy.stats.ttest_rel``.

    When every difference is the same (within ``TIE``) the t statistic is undefined; then p is 1 if they
    are all 0 (nothing changed) and 0 otherwise (every query moved by the same amount).
    Fewer than two queries: ``(nan, nan)``.
    """
    from scipy import stats

    delta = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    if len(delta) < 2:
        return float("nan"), float("nan")
    if np.ptp(delta) <= TIE:
        mean = float(np.mean(delta))
        return (float("nan"), 1.0) if abs(mean) <= TIE else (float(np.sign(mean) * np.inf), 0.0)
    result = stats.ttest_rel(candidate, baseline)
    return float(result.statistic), float(result.pvalue)


def randomization_test(
    baseline: np.ndarray, candidate: np.ndarray, n_permutations: int = 10_000, seed: int = 0
) -> tuple[float, bool]:
    """The two-sided paired randomization test of the mean difference: ``(p, exact)``.

    Each query's two scores are swapped at random (the sign of its difference flipped), as
    ``scipy.stats.permutation_test`` with ``permutation_type="samples"`` does. When all 2^n
    swaps fit in ``n_permutations`` scipy enumerates them and p is exact. Otherwise
    ``n_permutations`` random flips from ``seed`` are drawn here, a batch of about a million
    signs at a time, and p = (flips at least as extreme + 1) / (n_permutations + 1), scipy's
    formula: scipy's vectorized call held every flip at once (800 MB for 10,000 queries, and
    two minutes). Fewer than one query: ``(nan, True)``.
    """
    from scipy import stats

    baseline = np.asarray(baseline, dtype=float)
    candidate = np.asarray(candidate, dtype=float)
    n = len(baseline)
    if n < 1:
        return float("nan"), True
    delta = candidate - baseline
    if not np.any(delta):
        return 1.0, True  # every swap gives the same mean difference, 0
    if 2**n <= n_permutations:

        def mean_difference(x, y, axis):
            return np.mean(x - y, axis=axis)

        result = stats.permutation_test(
            (candidate, baseline),
            mean_difference,
            permutation_type="samples",
            vectorized=True,
            n_resamples=n_permutations,
            alternative="two-sided",
            rng=np.random.default_rng(seed),
        )
        return float(result.pvalue), True
    rng = np.random.default_rng(seed)
    observed = abs(float(np.mean(delta)))
    # As scipy: a flip whose mean equals the observed one up to rounding counts as extreme.
    slack = observed * 1e-14
    batch = max(1, (1 << 20) // n)
    extreme = 0
    total = float(np.sum(delta))
    for start in range(0, n_permutations, batch):
        rows = min(batch, n_permutations - start)
        # One random bit per query (eight from each random byte): 1 keeps its sign, 0 flips it,
        # so the flipped sum is 2 * (the kept queries' sum) - (the sum of all).
        kept = np.unpackbits(np.frombuffer(rng.bytes(rows * -(-n // 8)), dtype=np.uint8)).reshape(rows, -1)[:, :n]
        means = (2 * (kept @ delta) - total) / n
        extreme += int(np.count_nonzero(np.abs(means) >= observed - slack))
    return (extreme + 1) / (n_permutations + 1), False


def bootstrap_interval(
    delta: np.ndarray, n_bootstrap: int = 10_000, confidence: float = 0.95, seed: int = 0, method: str = "BCa"
) -> tuple[float, float, str]:
    """A bootstrap confidence interval of the mean of ``delta``: ``(low, high, method used)``.

    ``scipy.stats.bootstrap`` resampling queries; BCa by default. When every difference is
    the same the interval is that value; when BCa cannot be computed (too few distinct
    values) the percentile interval is given instead, and the method says so.
    """
    from scipy import stats

    delta = np.asarray(delta, dtype=float)
    if len(delta) == 0:
        return float("nan"), float("nan"), method
    if np.ptp(delta) <= TIE:
        return float(np.mean(delta)), float(np.mean(delta)), "constant"
    for chosen in (method, "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.bootstrap(
                (delta,),
                np.mean,
                n_resamples=n_bootstrap,
                confidence_level=confidence,
                method=chosen,
                rng=np.random.default_rng(seed),
                # About a million values at a time: all at once held 800 MB for 10,000 queries.
                batch=max(1, (1 << 20) // len(delta)),
            )
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        if low == low and high == high:
            return low, high, chosen
    return float("nan"), float("nan"), method  # pragma: no cover - percentile always gives numbers


def compare(
    baseline: Evaluation,
    candidate: Evaluation,
    *,
    measure: str | Measure | None = None,
    margin: float = 0.0,
    alpha: float = 0.05,
    test: str = "randomization",
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Comparison:
    """Compare two evaluations of the same qrels query by query, and decide whether ``candidate`` ships.

    ``measure`` is the gate's measure (a name such as ``"ndcg_cut_10"``, a written form
    such as ``"ndcg@10"``, or a ``Measure``; default the first measure both evaluated);
    ``margin`` the smallest mean difference that ships; ``alpha`` the p-value it must be
    under; ``test`` which test's p-value the gate uses (``"randomization"`` or ``"t-test"``).
    """
    _check_test(test)
    for name, value, low in (("n_permutations", n_permutations, 1), ("n_bootstrap", n_bootstrap, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    shared = [m for m in baseline.measures if m in candidate.measures]
    if not shared:
        raise ValueError("the two evaluations share no measure: evaluate both with the same measures")
    gate_measure = _gate_measure(measure, shared)

    qids = tuple(sorted(set(baseline.qids) | set(candidate.qids), key=lambda q: q.encode("utf-8", "surrogateescape")))
    only_baseline = tuple(q for q in qids if q not in set(candidate.qids))
    only_candidate = tuple(q for q in qids if q not in set(baseline.qids))
    results = {}
    for m in shared:
        a = _aligned(baseline, m.name, qids)
        b = _aligned(candidate, m.name, qids)
        delta = b - a
        t, t_p = paired_t_test(a, b)
        p, exact = randomization_test(a, b, n_permutations, seed)
        low, high, method = bootstrap_interval(delta, n_bootstrap, confidence, seed)
        results[m.name] = MeasureComparison(
            measure=m.name,
            label=m.label,
            qids=qids,
            baseline=a,
            candidate=b,
            delta=delta,
            wins=int(np.sum(delta > TIE)),
            ties=int(np.sum(np.abs(delta) <= TIE)),
            losses=int(np.sum(delta < -TIE)),
            t_statistic=t,
            t_p=t_p,
            randomization_p=p,
            n_permutations=n_permutations,
            exact=exact,
            ci_low=low,
            ci_high=high,
            confidence=confidence,
            n_bootstrap=n_bootstrap,
            bootstrap_method=method,
            seed=seed,
        )
    chosen = results[gate_measure.name]
    p = chosen.p(test)
    delta = chosen.mean_delta
    gate = Gate(
        measure=gate_measure.name,
        margin=float(margin),
        alpha=float(alpha),
        test=test,
        delta=delta,
        p=p,
        ships=bool(delta >= margin and delta > 0 and p < alpha),
    )
    return Comparison(
        baseline_name=baseline.name,
        candidate_name=candidate.name,
        measures=results,
        gate=gate,
        only_baseline=only_baseline,
        only_candidate=only_candidate,
    )


def _gate_measure(measure, shared: list[Measure]) -> Measure:
    if measure is None:
        return shared[0]
    if isinstance(measure, Measure):
        found = measure
    else:
        by_name = {m.name: m for m in shared}
        found = by_name.get(measure) or Measure.parse(measure)
    if found not in shared:
        raise ValueError(
            f"the gate's measure {found.name} was not evaluated; evaluated: {', '.join(m.name for m in shared)}"
        )
    return found


def _aligned(evaluation: Evaluation, name: str, qids: tuple[str, ...]) -> np.ndarray:
    values = evaluation.values[name]
    where = {q: i for i, q in enumerate(evaluation.qids)}
    return np.array([values[where[q]] if q in where else 0.0 for q in qids], dtype=float)
