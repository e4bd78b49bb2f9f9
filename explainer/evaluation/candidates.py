"""Several candidates against one baseline: the gate's one-sided p-values adjusted over them, Monte Carlo error included.

``adjusted_gates(comparisons, correction)`` takes ``compare``'s comparisons of each candidate
with one baseline and adjusts each gate measure's p-values over the candidates, by Holm's
step-down, Benjamini-Hochberg's step-up or not at all (``significance.adjust``).

A randomization test's p-value is an estimate with a Monte Carlo interval. Both corrections
are monotone in each p-value (raising one never lowers an adjusted one), so adjusting the
intervals' low ends together, and their high ends together, bounds each adjusted p-value
wherever the exact p-values lie in their intervals. A candidate is decided from that adjusted
interval: its measure ships when the interval's top is under alpha and does not when its
bottom is above. While an adjusted interval holds alpha, more permutations are drawn for its
candidate (the same stream, continued) against the candidate's current threshold: the raw
p-value under which its adjusted one is below alpha, the other candidates' as they stand.
Only when the adjusted interval still holds alpha at the cap is the candidate undecided.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from explainer.evaluation import significance as sig
from explainer.evaluation.compare import CORRECTION_NAMES, Comparison, MeasureVerdict, compare, gate_outcome


def candidate_gates(evaluations, table=None, correction: str = "holm", names=None, **options) -> tuple[Comparison, ...]:
    """Each candidate (``evaluations[1:]``) compared with the baseline (``evaluations[0]``), the gates adjusted.

    ``options`` are ``compare``'s (the gate's measures, question, margin, alpha, test and
    draws); with more than one candidate the gates are adjusted by ``correction``
    (``adjusted_gates``). ``table``: ``many_runs``' table of these runs against the baseline,
    whose rows ``compare`` reuses; ``names``: each run's name in the report.
    """
    evaluations = tuple(evaluations)
    out = []
    for i, candidate in enumerate(evaluations[1:], start=1):
        rows = None
        if table is not None and table.design == "baseline":  # its rows are compare's: made once
            rows = {m.name: table.pair(m.name, 0, i).comparison for m in table.measures}
        comparison = compare(evaluations[0], candidate, rows=rows, **options)
        if names is not None:
            comparison = replace(comparison, baseline_name=names[0], candidate_name=names[i])
        out.append(comparison)
    return adjusted_gates(out, correction)


def adjusted_gates(comparisons, correction: str = "holm") -> tuple[Comparison, ...]:
    """Several candidates' comparisons with one baseline, each gate measure's p-values adjusted over the candidates.

    ``correction`` is ``significance.adjust``'s (``"holm"``, ``"bh"``, ``"none"``). With Holm
    each candidate's "ships" keeps the chance of any false ship among them at most alpha;
    with any of them, exit 0 needs every candidate to ship, an intersection-union test. A
    candidate whose lower confidence bound is not above the gate's shift does not ship,
    whatever its p-value. A two-sided report, or one candidate, is returned as it is.
    """
    comparisons = tuple(comparisons)
    if correction not in CORRECTION_NAMES:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTION_NAMES))}, got {correction!r}")
    if len(comparisons) < 2 or comparisons[0].gate.question == "two-sided":
        return comparisons
    columns = [
        adjusted_measure(comparisons, [c.gate.verdicts[j] for c in comparisons], correction)
        for j in range(len(comparisons[0].gate.verdicts))
    ]
    out = []
    for i, c in enumerate(comparisons):
        verdicts = tuple(column[i] for column in columns)
        gate = replace(
            c.gate,
            verdicts=verdicts,
            outcome=gate_outcome(c.gate.question, verdicts),
            correction=correction,
            family=len(comparisons),
        )
        out.append(replace(c, gate=gate))
    return tuple(out)


def adjusted_measure(comparisons, verdicts: list[MeasureVerdict], correction: str) -> list[MeasureVerdict]:
    """One gate measure's verdicts (one a candidate) with their p-values adjusted and decided as the module says."""
    alpha = verdicts[0].alpha
    verdicts = list(verdicts)
    while True:
        p, low, high = (
            np.array([getattr(v, name) for v in verdicts], dtype=float) for name in ("p", "p_low", "p_high")
        )
        adjusted_low, adjusted_high = sig.adjust(low, correction), sig.adjust(high, correction)
        more = [
            i
            for i, (v, c) in enumerate(zip(verdicts, comparisons, strict=True))
            if holds(adjusted_low[i], adjusted_high[i], alpha) and can_draw_more(v, c)
        ]
        if not more:
            break
        for i in more:
            verdicts[i] = drawn_again(comparisons[i], verdicts[i], threshold(p, i, correction, alpha))
    adjusted = sig.adjust(p, correction)
    return [
        replace(
            v,
            p_adjusted=float(adjusted[i]),
            p_adjusted_low=float(adjusted_low[i]),
            p_adjusted_high=float(adjusted_high[i]),
            outcome=outcome(v, float(adjusted_low[i]), float(adjusted_high[i])),
        )
        for i, v in enumerate(verdicts)
    ]


def holds(low: float, high: float, alpha: float) -> bool:
    """Whether an adjusted p-value's Monte Carlo interval holds alpha (an exact p-value has no interval)."""
    return low < high and low <= alpha <= high


def can_draw_more(verdict: MeasureVerdict, comparison: Comparison) -> bool:
    """Whether the verdict's p-value is a Monte Carlo one whose permutations have not reached the gate's cap."""
    gate = comparison.gate
    return gate.test == "randomization" and not verdict.exact and verdict.n_permutations < gate.max_permutations


def threshold(p: np.ndarray, i: int, correction: str, alpha: float) -> float:
    """The raw p-value of candidate ``i`` under which its adjusted one is below alpha, the others' as in ``p``.

    Found by bisection: the adjusted p-value grows with the raw one (Holm: alpha over the
    candidates left at its rank; Benjamini-Hochberg: alpha times its rank over their number).
    """
    trial = np.array(p, dtype=float)
    below, above = 0.0, 1.0  # adjusted at 0 is 0, at 1 it is 1
    for _ in range(60):
        middle = (below + above) / 2
        trial[i] = middle
        if sig.adjust(trial, correction)[i] < alpha:
            below = middle
        else:
            above = middle
    return below


def drawn_again(comparison: Comparison, verdict: MeasureVerdict, level: float) -> MeasureVerdict:
    """The verdict's randomization test with at least twice its permutations, and more while its interval holds ``level``."""
    gate = comparison.gate
    flips = sig.randomization_test(
        comparison.measures[verdict.measure].delta,
        verdict.shift,
        verdict.alternative,
        gate.n_permutations,
        gate.seed,
        alpha=level,
        max_permutations=gate.max_permutations,
        min_permutations=2 * verdict.n_permutations,
    )
    return replace(verdict, p=flips.p, p_low=flips.p_low, p_high=flips.p_high, n_permutations=flips.n_permutations)


def outcome(verdict: MeasureVerdict, low: float, high: float) -> str:
    """A measure's outcome from its adjusted p-value's interval [low, high]: ships under alpha, undecided
    while the interval holds it, else does not ship; never ships when the lower bound is not above the shift."""
    if not verdict.low > verdict.shift:
        return "does not ship"
    if high < verdict.alpha:
        return "ships"
    return "undecided" if holds(low, high, verdict.alpha) else "does not ship"
