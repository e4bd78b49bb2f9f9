"""Two systems on the same queries: per-query differences, significance tests, and a ship gate.

``compare(baseline, candidate)`` takes two ``Evaluation``s (the same qrels and measures)
and gives, for each measure, the per-query differences ``candidate - baseline`` (sorted,
for a bar chart of deltas), wins, ties and losses, the standardized effect d_z, and, from
``significance``, the two-sided paired t-test and randomization test (H0: no difference)
and a bootstrap confidence interval of the mean difference.

The gate answers one of three questions on one or more gate measures, each with a one-sided
test where the decision is one-sided (``significance.t_test`` or ``randomization_test``):

- ``"superiority"`` by ``margin`` M: ships when the candidate is better by more than M.
  H0: difference <= M; ships when the test rejects at ``alpha`` and the matching
  (1 - alpha) lower confidence bound is above M.
- ``"non-inferiority"`` within ``margin`` M: ships unless the candidate is worse by M or
  more. H0: difference <= -M; ships when the test rejects and the lower bound is above -M.
- ``"two-sided"``: a report with no verdict, the two-sided test of H0: difference = 0 and
  its (1 - alpha) interval.

With several gate measures the candidate ships only when each measure's own test passes at
alpha: an intersection-union test, whose chance of shipping when any measure's H0 holds is
at most alpha with no correction. A randomization test whose p-value's Monte Carlo interval
still holds alpha when its permutations reach their cap leaves the verdict ``undecided``.

A query evaluated for one system and not the other (a run with no result for it) counts
0 for the system that lacks it, as trec_eval ``-c`` counts it; the comparison says how many.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from explainer.evaluation import significance as sig
from explainer.evaluation.measures import Evaluation, Measure
from explainer.evaluation.significance import POWER, format_p, format_p_adjusted

TESTS = ("randomization", "t-test")
"""The tests the gate can use: the paired randomization test, or the paired t-test."""

QUESTIONS = ("superiority", "non-inferiority", "two-sided")
"""What the gate tests: better by more than the margin, not worse by the margin or more, or a report."""

OUTCOMES = ("ships", "does not ship", "undecided")
"""A verdict's outcomes (a two-sided report has none)."""

CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "no correction"}
"""The corrections of the gate's p-values over several candidates, as a verdict names them."""

DEFAULT_GATE_MEASURE = "ndcg@10"
"""The gate's measure when none is named (the command line's and the page's): the measure BEIR chose to
compare systems; when it was not evaluated, the first measure both runs were."""


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

    @property
    def d_z(self) -> float:
        """The standardized paired effect: the mean difference over the differences' standard deviation."""
        return sig.standardized_effect(self.delta)

    def p(self, test: str) -> float:
        """The two-sided p-value of ``test`` (one of ``TESTS``)."""
        _check_test(test)
        return self.randomization_p if test == "randomization" else self.t_p

    def sorted_deltas(self) -> list[tuple[str, float]]:
        """``(qid, candidate - baseline)`` from the worst loss to the best win: a sorted bar chart's data.

        Equal differences keep trec_eval's query order.
        """
        order = np.argsort(self.delta, kind="stable")
        return [(self.qids[i], float(self.delta[i])) for i in order.tolist()]


@dataclass(frozen=True)
class MeasureVerdict:
    """One gate measure's answer to the gate's question: its interval first, then its test.

    ``low`` and ``high`` are the (1 - alpha) confidence bound or interval that matches the
    test (a lower bound, ``high`` +inf, for the one-sided questions): the t-test's own for
    the t-test, the bootstrap's (``interval_method``) for the randomization test. ``p_low``
    and ``p_high`` are a Monte Carlo p-value's own interval (``p`` twice when exact or a
    t-test). ``outcome`` is None for a two-sided report. ``alternative`` is the tests' side:
    ``"greater"`` for the one-sided questions. ``p_adjusted`` and its Monte Carlo interval
    ``p_adjusted_low`` and ``p_adjusted_high`` are set when the p-value was adjusted over
    several candidates (``candidates.adjusted_gates``).
    """

    measure: str
    shift: float
    mean: float
    low: float
    high: float
    interval_method: str
    p: float
    p_low: float
    p_high: float
    n_permutations: int | None
    exact: bool
    outcome: str | None
    n: int
    sd: float
    alpha: float
    alternative: str
    p_adjusted: float | None = None
    p_adjusted_low: float | None = None
    p_adjusted_high: float | None = None

    @property
    def mde(self) -> float:
        """The smallest true gain beyond ``shift`` that the t-test at alpha finds with power ``POWER``."""
        return sig.minimum_detectable_effect(self.n, self.sd, self.alpha, POWER, self.alternative)

    def p_text(self) -> str:
        """The p-value for a reader (``< 0.0001`` when no random pattern was as extreme)."""
        return format_p(self.p, None if self.exact else self.n_permutations)

    def p_adjusted_text(self) -> str:
        """The adjusted p-value for a reader, as ``p_text`` (``""`` when not adjusted)."""
        if self.p_adjusted is None:
            return ""
        return format_p_adjusted(self.p_adjusted, self.p, None if self.exact else self.n_permutations)


@dataclass(frozen=True)
class Gate:
    """The verdict: the gate's ``question``, its null hypothesis, each gate measure's test, the ``outcome``."""

    question: str
    margin: float
    alpha: float
    test: str
    verdicts: tuple[MeasureVerdict, ...]
    outcome: str | None
    correction: str | None = None
    family: int = 1
    """With several candidates: the correction of each gate measure's p-values over the ``family`` candidates."""
    n_permutations: int = 10_000
    max_permutations: int = 100_000
    seed: int = 0
    """The randomization test's first count of permutations, its cap and its seed: a test asked again
    against an adjusted level (``candidates.adjusted_gates``) draws the same stream."""

    @property
    def measure(self) -> str:
        """The first gate measure (the page opens on it)."""
        return self.verdicts[0].measure

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(v.measure for v in self.verdicts)

    @property
    def ships(self) -> bool:
        return self.outcome == "ships"

    @property
    def shift(self) -> float:
        """The difference H0 is tested against: the margin, minus it for non-inferiority, 0 for a report."""
        return {"superiority": self.margin, "non-inferiority": -self.margin, "two-sided": 0.0}[self.question]

    @property
    def null(self) -> str:
        """The null hypothesis, of each gate measure's mean difference candidate - baseline."""
        if self.question == "two-sided":
            return "H0: difference = 0"
        return f"H0: difference <= {self.shift:+.4f}"

    @property
    def reason(self) -> str:
        """The verdict in one line a CI job can print: outcome, question, H0, then each measure's numbers."""
        head = {"ships": "SHIPS", "does not ship": "DOES NOT SHIP", "undecided": "UNDECIDED", None: "NO VERDICT"}
        question = {
            "superiority": f"better by more than {self.margin:.4f} (superiority, {self.null})",
            "non-inferiority": f"not worse by {self.margin:.4f} or more (non-inferiority, {self.null})",
            "two-sided": f"two-sided report ({self.null})",
        }[self.question]
        parts = [f"{head[self.outcome]} on {', '.join(self.measures)}: {question}"]
        level = f"{1 - self.alpha:.0%}"
        test = "randomization test" if self.test == "randomization" else "t-test"
        for v in self.verdicts:
            if self.question == "two-sided":
                interval = f"{level} interval [{v.low:+.4f}, {v.high:+.4f}]"
                p = f"{test} {_p_is(v.p_text())}"
            else:
                above = v.low > v.shift
                interval = f"{level} lower bound {v.low:+.4f} {'>' if above else '<='} {v.shift:+.4f}"
                if v.p_adjusted is None:
                    under = v.p < self.alpha
                    p = f"{test} {_p_is(v.p_text())}, {'under' if under else 'not under'} alpha {self.alpha:g}"
                else:
                    under = v.p_adjusted < self.alpha
                    p = (
                        f"{test} {_p_is(v.p_text())}, adjusted over {self.family} candidates by "
                        f"{CORRECTION_NAMES[self.correction]} {_p_is(v.p_adjusted_text())}, "
                        f"{'under' if under else 'not under'} alpha {self.alpha:g}"
                    )
            if v.outcome == "undecided":
                adjusted = v.p_adjusted_low is not None
                low, high = (v.p_adjusted_low, v.p_adjusted_high) if adjusted else (v.p_low, v.p_high)
                p += (
                    f", its {sig.P_CONFIDENCE:.0%} Monte Carlo interval{' adjusted' if adjusted else ''} "
                    f"[{low:.4f}, {high:.4f}] still holds alpha after {v.n_permutations:,} permutations"
                )
            named = f"{v.measure}: " if len(self.verdicts) > 1 else ""
            parts.append(f"{named}mean difference {v.mean:+.4f}, {interval}, {p}")
        if len(self.verdicts) > 1 and self.question != "two-sided":
            parts.append(
                "each measure's own test at alpha must pass (an intersection-union test: "
                "the false-ship rate stays at most alpha, no correction needed)"
            )
        return "; ".join(parts)


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every measure's comparison, and the gate."""

    baseline_name: str
    candidate_name: str
    measures: dict[str, MeasureComparison]
    gate: Gate
    only_baseline: tuple[str, ...]
    only_candidate: tuple[str, ...]

    def to_dict(self) -> dict:
        """The comparison as plain data, the ``comparison`` of ``evaluate --format json`` (``plain``)."""
        from explainer.evaluation.plain import comparison_dict

        return comparison_dict(self)

    def to_frame(self):
        """A pandas DataFrame of the comparison's table: a row per measure (index ``measure``)."""
        from explainer.evaluation.plain import comparison_frame

        return comparison_frame(self)

    def effects(self) -> list:
        """Each gate measure's ``effects.Effect``: its difference, d_z, wins, ties and losses, and the power of
        the gate's own test (the one-sided t-test of H0 at the gate's shift, or the two-sided one).

        With several candidates whose p-values Holm or Benjamini-Hochberg adjust, the power is at
        alpha over the number of candidates: a p-value under that ships under either correction,
        whatever the others' (it is Bonferroni's level, which both improve on), so the power of
        each candidate is at least this; at alpha itself it would be the power of a test the gate
        does not make."""
        from explainer.evaluation.effects import effect

        gate = self.gate
        alternative = "two-sided" if gate.question == "two-sided" else "greater"
        alpha, note = gate.alpha, ""
        if gate.family > 1 and gate.correction in ("holm", "bh"):
            alpha = gate.alpha / gate.family
            note = (
                f"; alpha {gate.alpha:g} over the {gate.family} candidates, the strictest level "
                f"{CORRECTION_NAMES[gate.correction]} holds one to, so the power is at least this"
            )
        return [
            effect(self.measures[v.measure], alpha=alpha, shift=v.shift, alternative=alternative, alpha_note=note)
            for v in gate.verdicts
        ]

    def effect_lines(self, detect: float | None = None) -> list[str]:
        """Each gate measure's effect and power in sentences (``Effect.lines``); with ``detect``, the queries
        a true difference that large needs."""
        return [line for e in self.effects() for line in e.lines(detect if e.mde == e.mde else None)]

    def lines(self, detect: float | None = None) -> list[str]:
        """A plain-text report: one line per measure, then each gate measure's effect and power
        (``effect_lines``), then the gate (no document ids)."""
        out = [f"Comparison: {self.candidate_name} (candidate) against {self.baseline_name} (baseline)"]
        for qids, system in ((self.only_baseline, self.candidate_name), (self.only_candidate, self.baseline_name)):
            if qids:
                out.append(no_result_line(len(qids), system))
        any_m = next(iter(self.measures.values()))
        flips = "all sign flips (exact)" if any_m.exact else f"{any_m.n_permutations:,} random sign flips"
        out.append(
            f"{len(any_m.qids)} queries paired; randomization test: {flips}, seed {any_m.seed}; "
            f"{any_m.confidence:.0%} bootstrap CI: {any_m.bootstrap_method}, {any_m.n_bootstrap:,} resamples; "
            "p-values two-sided (H0: no difference)"
        )
        header = (
            f"{'measure':<22} {'baseline':>8} {'candidate':>9} {'diff':>8}  {'CI of diff':>17}  {'d_z':>6}  "
            f"{'wins':>4} {'ties':>4} {'losses':>6}  {'p (t-test)':>10} {'p (rand.)':>9}"
        )
        out += [header, "-" * len(header)]
        for m in self.measures.values():
            ci = f"[{m.ci_low:+.4f}, {m.ci_high:+.4f}]"
            d_z = "n/a" if m.d_z != m.d_z else f"{m.d_z:+.2f}"
            random_p = format_p(m.randomization_p, None if m.exact else m.n_permutations)
            out.append(
                f"{m.measure:<22} {m.mean_baseline:8.4f} {m.mean_candidate:9.4f} {m.mean_delta:+8.4f}  {ci:>17}  "
                f"{d_z:>6}  {m.wins:4d} {m.ties:4d} {m.losses:6d}  {format_p(m.t_p):>10} {random_p:>9}"
            )
        out += self.effect_lines(detect)
        out.append(self.gate.reason)
        return out


def no_result_line(n: int, system: str) -> str:
    """What a comparison does with the ``n`` queries another run has and ``system`` has no result for."""
    return f"{n} {'query has' if n == 1 else 'queries have'} no result in {system}: counted as 0 there, as trec_eval -c counts it"


def check_settings(alpha: float, n_permutations: int, n_bootstrap: int, confidence: float) -> None:
    """Raise ``ValueError`` naming the first setting out of range (alpha and confidence in (0, 1), counts >= 1 and 2)."""
    for name, value, low in (("n_permutations", n_permutations, 1), ("n_bootstrap", n_bootstrap, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")


def _p_is(text: str) -> str:
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _check_test(test) -> None:
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, TESTS))}, got {test!r}")


def compare(
    baseline: Evaluation,
    candidate: Evaluation,
    *,
    measure=None,
    question: str = "superiority",
    margin: float = 0.0,
    alpha: float = 0.05,
    test: str = "randomization",
    n_permutations: int = 10_000,
    max_permutations: int | None = None,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    rows: dict[str, MeasureComparison] | None = None,
) -> Comparison:
    """Compare two evaluations of the same qrels query by query, and answer the gate's question.

    ``measure`` is the gate's measure, or a list of them (a name such as ``"ndcg_cut_10"``,
    a written form such as ``"ndcg@10"``, or a ``Measure``; default ``DEFAULT_GATE_MEASURE``
    when both evaluated it, else the first measure both evaluated); ``question`` one of ``QUESTIONS``; ``margin`` M >= 0 in the measure's
    units (superiority: ships when better by more than M; non-inferiority: ships unless
    worse by M or more); ``alpha`` the significance level of each gate measure's test;
    ``test`` which test the gate uses (``"randomization"`` or ``"t-test"``). The
    randomization test draws ``n_permutations`` sign patterns, and more, up to
    ``max_permutations`` (default 10 x), while its p-value's interval holds alpha.
    ``confidence`` is the level of the table's two-sided bootstrap intervals. ``rows``: each
    measure's row already made with these settings (``many_runs``' pair of these two runs),
    used when it pairs the same queries, so that the table is not computed twice; the
    measures it lacks are computed.
    """
    _check_test(test)
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {', '.join(map(repr, QUESTIONS))}, got {question!r}")
    check_settings(alpha, n_permutations, n_bootstrap, confidence)
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(
            f"the margin must be a number >= 0 in the measure's units, got {margin!r} "
            "(to ship unless the candidate is worse by M, ask the non-inferiority question with margin M)"
        )
    if question == "two-sided" and margin:
        raise ValueError("a two-sided report tests a difference of 0: it takes no margin")
    # relstring (average "none") is text, with no mean to compare
    shared = [m for m in baseline.measures if m in candidate.measures and m.family.average != "none"]
    if not shared:
        raise ValueError("the two evaluations share no measure: evaluate both with the same measures")
    gate_measures = _gate_measures(measure, shared)

    qids = paired_qids((baseline, candidate))
    only_baseline = tuple(q for q in qids if q not in set(candidate.qids))
    only_candidate = tuple(q for q in qids if q not in set(baseline.qids))
    rows = {name: row for name, row in (rows or {}).items() if row.qids == qids}
    results = {
        m.name: rows.get(m.name)
        or measure_comparison(
            m,
            qids,
            aligned(baseline, m.name, qids),
            aligned(candidate, m.name, qids),
            n_permutations=n_permutations,
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            seed=seed,
        )
        for m in shared
    }
    verdicts = tuple(
        decide(
            results[m.name].delta,
            question,
            margin,
            alpha,
            test,
            n_permutations,
            max_permutations,
            n_bootstrap,
            seed,
            measure=m.name,
        )
        for m in gate_measures
    )
    gate = Gate(
        question=question,
        margin=float(margin),
        alpha=float(alpha),
        test=test,
        verdicts=verdicts,
        outcome=gate_outcome(question, verdicts),
        n_permutations=n_permutations,
        max_permutations=10 * n_permutations if max_permutations is None else max(max_permutations, n_permutations),
        seed=seed,
    )
    return Comparison(
        baseline_name=baseline.name,
        candidate_name=candidate.name,
        measures=results,
        gate=gate,
        only_baseline=only_baseline,
        only_candidate=only_candidate,
    )


def gate_outcome(question: str, verdicts) -> str | None:
    """The gate's outcome from its measures': none for a report; ships only when every measure ships."""
    if question == "two-sided":
        return None
    if any(v.outcome == "does not ship" for v in verdicts):
        return "does not ship"
    if any(v.outcome == "undecided" for v in verdicts):
        return "undecided"
    return "ships"


def measure_comparison(
    measure: Measure,
    qids: tuple[str, ...],
    baseline: np.ndarray,
    candidate: np.ndarray,
    *,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    interval: tuple[float, float, str] | None = None,
) -> MeasureComparison:
    """One measure's comparison from two systems' values aligned on ``qids``: the table's row, H0 no difference.

    The two-sided paired t-test and randomization test, the bootstrap interval of the mean
    difference ``candidate - baseline`` (``significance.bootstrap_interval``'s, unless
    ``interval`` gives it, made by ``bootstrap_intervals`` with many others), wins, ties and
    losses (``compare`` makes one per measure; ``many_runs`` one per pair of runs).
    """
    delta = candidate - baseline
    t = sig.t_test(delta, 0.0, "two-sided", confidence)
    flips = sig.randomization_test(delta, 0.0, "two-sided", n_permutations, seed)
    low, high, method = interval or sig.bootstrap_interval(delta, n_bootstrap, confidence, seed)
    wins, ties, losses = sig.wins_ties_losses(delta)
    return MeasureComparison(
        measure=measure.name,
        label=measure.label,
        qids=qids,
        baseline=baseline,
        candidate=candidate,
        delta=delta,
        wins=wins,
        ties=ties,
        losses=losses,
        t_statistic=t.t,
        t_p=t.p,
        randomization_p=flips.p,
        n_permutations=flips.n_permutations,
        exact=flips.exact,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        n_bootstrap=n_bootstrap,
        bootstrap_method=method,
        seed=seed,
    )


def decide(
    delta,
    question: str = "superiority",
    margin: float = 0.0,
    alpha: float = 0.05,
    test: str = "t-test",
    n_permutations: int = 10_000,
    max_permutations: int | None = None,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    measure: str = "",
) -> MeasureVerdict:
    """One measure's answer to ``question`` from its per-query differences (``compare`` asks it of each gate measure).

    The null hypothesis is ``Gate.null``'s: difference <= margin (superiority), <= -margin
    (non-inferiority), = 0 (two-sided, no outcome). Ships when the one-sided test rejects
    at ``alpha`` and the matching lower bound is above the shift; ``undecided`` when the
    randomization test's p-value interval still holds alpha at its cap.
    """
    _check_test(test)
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {', '.join(map(repr, QUESTIONS))}, got {question!r}")
    delta = np.asarray(delta, dtype=float)
    shift = {"superiority": margin, "non-inferiority": -margin, "two-sided": 0.0}[question]
    alternative = "two-sided" if question == "two-sided" else "greater"
    t = sig.t_test(delta, shift, alternative, confidence=1 - alpha)
    if test == "t-test":
        low, high, method = t.low, t.high, "t"
        p, p_low, p_high, drawn, exact, undecided = t.p, t.p, t.p, None, True, False
    else:
        flips = sig.randomization_test(
            delta, shift, alternative, n_permutations, seed, alpha=alpha, max_permutations=max_permutations
        )
        low, high, method = sig.bootstrap_interval(delta, n_bootstrap, 1 - alpha, seed, alternative=alternative)
        method = f"bootstrap {method}"
        p, p_low, p_high, drawn, exact, undecided = (
            flips.p,
            flips.p_low,
            flips.p_high,
            flips.n_permutations,
            flips.exact,
            flips.undecided,
        )
    if question == "two-sided":
        outcome = None
    elif not (low > shift) or (not undecided and not p < alpha):
        outcome = "does not ship"
    elif undecided:
        outcome = "undecided"
    else:
        outcome = "ships"
    return MeasureVerdict(
        measure=measure,
        shift=float(shift),
        mean=t.mean,
        low=float(low),
        high=float(high),
        interval_method=method,
        p=float(p),
        p_low=float(p_low),
        p_high=float(p_high),
        n_permutations=drawn,
        exact=exact,
        outcome=outcome,
        n=t.n,
        sd=t.sd,
        alpha=float(alpha),
        alternative=alternative,
    )


def _gate_measures(measure, shared: list[Measure]) -> tuple[Measure, ...]:
    if measure is None:
        default = Measure.parse(DEFAULT_GATE_MEASURE)
        return (default if default in shared else shared[0],)
    chosen = [measure] if isinstance(measure, (str, Measure)) else list(measure)
    if not chosen:
        raise ValueError("give at least one gate measure")
    by_name = {m.name: m for m in shared}
    found = []
    for one in chosen:
        m = one if isinstance(one, Measure) else by_name.get(one) or Measure.parse(one)
        if m not in shared:
            raise ValueError(
                f"the gate's measure {m.name} was not evaluated; evaluated: {', '.join(x.name for x in shared)}"
            )
        if m not in found:
            found.append(m)
    return tuple(found)


def paired_qids(evaluations) -> tuple[str, ...]:
    """Every query any of ``evaluations`` has, in trec_eval's order (by bytes): the queries a comparison pairs."""
    found = set().union(*(e.qids for e in evaluations))
    return tuple(sorted(found, key=lambda q: q.encode("utf-8", "surrogateescape")))


def aligned(evaluation: Evaluation, name: str, qids: tuple[str, ...]) -> np.ndarray:
    """``evaluation``'s values of measure ``name`` on ``qids``, 0 for a query it has no result for (trec_eval -c)."""
    values = evaluation.values[name]
    where = {q: i for i, q in enumerate(evaluation.qids)}
    return np.array([values[where[q]] if q in where else 0.0 for q in qids], dtype=float)
