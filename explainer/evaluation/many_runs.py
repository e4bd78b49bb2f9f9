"""Many runs on the same queries: each candidate against the baseline, or every pair, in one table of runs by measures.

``many_runs(evaluations)`` takes one ``Evaluation`` per run (the same qrels and measures),
the first the baseline. For each measure it pairs the runs by query in a query-by-run
matrix (every query any run has; a run with no result for a query counts 0 there, as
trec_eval ``-c`` counts it), then tests:

- each candidate against the baseline (``design="baseline"``, the default): ``compare``'s
  row for each pair (the mean difference and its bootstrap interval, d_z, wins, ties and
  losses, the two-sided paired t-test and randomization test, H0: no difference), the
  chosen test's p-values adjusted over the candidates of each measure by ``correction``:
  ``"holm"`` (the default: the chance of any false "significant" among them at most
  alpha), ``"bh"`` (Benjamini-Hochberg: the expected share of false ones among the
  significant at most alpha) or ``"none"``;
- or every pair (``design="all-pairs"``): the randomised Tukey HSD over the matrix
  (``significance.randomized_tukey_hsd``), which permutes the runs' labels within each
  query, so the pairing by query is kept, and holds the family-wise error rate over all
  pairs of a measure at alpha; its p-values are adjusted by construction;
- or each run against the next (``design="neighbours"``), adjusted as against the baseline:
  a sweep's settings in order (``sweep``).

Each run gets a letter (``a`` the baseline, then ``b``, ``c``, ...). Each cell of the
table, a run and a measure, has the run's mean, its bootstrap interval, and the letters of
the runs it is significantly better than (adjusted p below alpha and the higher mean), as
papers mark them with superscripts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explainer.evaluation import significance as sig
from explainer.evaluation.compare import (
    OUTCOMES,
    TESTS,
    MeasureComparison,
    aligned,
    check_settings,
    measure_comparison,
    no_result_line,
    paired_qids,
)
from explainer.evaluation.measures import Evaluation, Measure
from explainer.evaluation.significance import format_p, format_p_adjusted

DESIGNS = ("baseline", "all-pairs", "neighbours")
"""Which pairs are tested: each candidate with the baseline, every pair, or each run with the next (a sweep)."""

TUKEY = "tukey-hsd"
"""The correction of every pair: the randomised Tukey HSD, whose p-values hold the family-wise error rate."""

CORRECTION_TEXT = {
    "holm": "Holm's step-down (the family-wise error rate at most alpha)",
    "bh": "Benjamini-Hochberg (the false discovery rate at most alpha)",
    "none": "no correction",
    TUKEY: "the randomised Tukey HSD (the family-wise error rate over all pairs at most alpha)",
}
"""Each correction in words, as the report names it."""


def plain(value: float) -> float | None:
    """A number as JSON takes it: a Python float, None for nan and the infinities."""
    value = float(value)
    return value if math.isfinite(value) else None


def letter(index: int) -> str:
    """Run ``index``'s letter (from 0): a, b, ..., z, then aa, ab, ..., as spreadsheet columns."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


def gate_outcome(candidates) -> str | None:
    """Candidates' verdicts (``compare``'s comparisons with one baseline) as one: ships when every one
    ships, does not ship when any does not, else undecided when any is; None for a two-sided report."""
    outcomes = {c.gate.outcome for c in candidates}
    for outcome in ("does not ship", "undecided", None):
        if outcome in outcomes:
            return outcome
    return "ships"


def gate_summary(candidates) -> str:
    """Candidates' verdicts in one line, by their letters (the baseline is ``a``): which ship, and so the outcome."""
    by = {o: [letter(i) for i, c in enumerate(candidates, start=1) if c.gate.outcome == o] for o in OUTCOMES}
    head = {
        "ships": "SHIPS: every candidate ships",
        "does not ship": "DOES NOT SHIP: not every candidate ships",
        "undecided": "UNDECIDED: no candidate fails, but not every one is decided",
        None: "NO VERDICT: a two-sided report",
    }[gate_outcome(candidates)]
    said = [f"{o} {', '.join(by[o])}" for o in OUTCOMES if by[o]]
    return f"{head} ({'; '.join(said)})" if said else head


@dataclass(frozen=True)
class Cell:
    """One run's mean of one measure, its bootstrap interval, and the runs (by index) it is significantly better than."""

    mean: float
    low: float
    high: float
    interval_method: str
    beats: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class PairTest:
    """Runs ``first`` and ``second`` (indices) on one measure: the mean difference ``second - first`` and its test.

    ``p`` is the test's two-sided p-value (H0: no difference), ``p_adjusted`` the same after
    the correction; for the Tukey HSD both are its p-value, already adjusted over all pairs.
    ``comparison`` is ``compare``'s full row (interval of the difference, d_z, wins, ties,
    losses, both tests), given for the pairs tested one at a time, None for the Tukey HSD.
    """

    measure: str
    first: int
    second: int
    mean_difference: float
    p: float
    p_adjusted: float
    comparison: MeasureComparison | None

    def significant(self, alpha: float) -> bool:
        """Whether the adjusted p-value is below ``alpha`` (and the two means differ)."""
        return self.p_adjusted < alpha and abs(self.mean_difference) > sig.TIE

    def better(self, alpha: float) -> int | None:
        """The index of the run significantly better, or None when the two cannot be told apart at ``alpha``."""
        if not self.significant(alpha):
            return None
        return self.second if self.mean_difference > 0 else self.first


@dataclass(frozen=True, eq=False)
class ManyRuns:
    """Every run's cells and the pairs tested, for each measure (keyed by the measure's name).

    ``scores[name]`` is the query-by-run matrix (rows ``qids``, columns the runs);
    ``cells[name][i]`` run i's cell; ``pairs[name]`` the pairs tested, in order: by
    ``design``, each candidate with the baseline (``"baseline"``), every pair i < j
    (``"all-pairs"``), or each run with the next (``"neighbours"``, a sweep's settings in
    order). ``missing[i]`` are the queries run
    i has no result for (counted 0). ``test`` is the p-value's test (``"randomization"``
    or ``"t-test"``; the Tukey HSD is a randomization test), ``correction`` one of
    ``significance.CORRECTIONS`` or ``TUKEY``.
    """

    names: tuple[str, ...]
    measures: tuple[Measure, ...]
    qids: tuple[str, ...]
    scores: dict[str, np.ndarray]
    missing: tuple[tuple[str, ...], ...]
    design: str
    test: str
    correction: str
    alpha: float
    confidence: float
    n_permutations: int
    n_bootstrap: int
    seed: int
    exact: bool
    cells: dict[str, tuple[Cell, ...]]
    pairs: dict[str, tuple[PairTest, ...]]

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(letter(i) for i in range(len(self.names)))

    def pair(self, measure: str, first: int, second: int) -> PairTest:
        """The test of runs ``first`` and ``second`` on ``measure`` (either order); KeyError when it was not tested."""
        for p in self.pairs[measure]:
            if {p.first, p.second} == {first, second}:
                return p
        raise KeyError((measure, first, second))

    def marks(self, measure: str, run: int) -> str:
        """The letters of the runs ``run`` is significantly better than on ``measure`` (``""`` for none)."""
        return "".join(letter(i) for i in self.cells[measure][run].beats)

    def lines(self) -> list[str]:
        """A plain-text report: the runs, how they were tested, the table of runs by measures, then each pair."""
        out = [
            "Runs: "
            + "; ".join(
                f"{letter(i)} = {name}{' (baseline)' if i == 0 and self.design == 'baseline' else ''}"
                for i, name in enumerate(self.names)
            )
        ]
        out += self.missing_lines(self.letters)
        out.append(self.method())
        any_cell = self.cells[self.measures[0].name][0]
        out.append(
            f"Each cell: the run's mean, its {self.confidence:.0%} bootstrap interval ({any_cell.interval_method}, "
            f"{self.n_bootstrap:,} resamples), then the letters of the runs it is better than "
            f"(adjusted p < {self.alpha:g})"
        )
        width = max(len(f"{letter(i)} {name}") for i, name in enumerate(self.names))
        cells = {
            m.name: [
                f"{c.mean:.4f} [{c.low:.4f}, {c.high:.4f}] {self.marks(m.name, i)}".rstrip()
                for i, c in enumerate(self.cells[m.name])
            ]
            for m in self.measures
        }
        widths = {name: max(len(name), *(len(text) for text in texts)) for name, texts in cells.items()}
        header = f"{'run':<{width}}  " + "  ".join(f"{name:<{widths[name]}}" for name in cells)
        out += [header.rstrip(), "-" * len(header.rstrip())]
        for i, name in enumerate(self.names):
            row = f"{f'{letter(i)} {name}':<{width}}  " + "  ".join(
                f"{texts[i]:<{widths[key]}}" for key, texts in cells.items()
            )
            out.append(row.rstrip())
        for m in self.measures:
            out += self._pair_lines(m)
        return out

    def as_dict(self) -> dict:
        """Every number of the report as plain data (JSON-ready): the runs, the method, each measure's cells and pairs."""
        letters = self.letters
        return {
            "design": self.design,
            "test": self.test,
            "correction": self.correction,
            "method": self.method(),
            "alpha": self.alpha,
            "confidence": self.confidence,
            "permutations": self.n_permutations,
            "resamples": self.n_bootstrap,
            "seed": self.seed,
            "exact": self.exact,
            "queries": len(self.qids),
            "runs": [
                {"letter": letters[i], "name": name, "no_result": list(self.missing[i])}
                for i, name in enumerate(self.names)
            ],
            "measures": [
                {
                    "measure": m.name,
                    "label": m.label,
                    "cells": [
                        {
                            "run": letters[i],
                            "mean": plain(c.mean),
                            "interval": {"low": plain(c.low), "high": plain(c.high), "method": c.interval_method},
                            "better_than": [letters[j] for j in c.beats],
                        }
                        for i, c in enumerate(self.cells[m.name])
                    ],
                    "pairs": [self._pair_dict(p) for p in self.pairs[m.name]],
                }
                for m in self.measures
            ],
        }

    def _pair_dict(self, p: PairTest) -> dict:
        out = {
            "first": letter(p.first),
            "second": letter(p.second),
            "mean_difference": plain(p.mean_difference),
            "p": plain(p.p),
            "p_adjusted": plain(p.p_adjusted),
            "significant": p.significant(self.alpha),
        }
        c = p.comparison
        if c is not None:
            out.update(
                interval={"low": plain(c.ci_low), "high": plain(c.ci_high), "method": c.bootstrap_method},
                d_z=plain(c.d_z),
                wins=c.wins,
                ties=c.ties,
                losses=c.losses,
                p_values={"t-test": plain(c.t_p), "randomization": plain(c.randomization_p)},
            )
        return out

    def missing_lines(self, labels: Sequence[str]) -> list[str]:
        """A line for each run with queries it has no result for, named by ``labels``."""
        return [no_result_line(len(qids), label) for label, qids in zip(labels, self.missing, strict=True) if qids]

    def method(self) -> str:
        """How the pairs were tested and corrected, in one sentence."""
        n = len(self.names)
        if self.design == "all-pairs":
            draws = "every arrangement (exact)" if self.exact else f"{self.n_permutations:,} random arrangements"
            return (
                f"{len(self.qids)} queries paired; all {n * (n - 1) // 2} pairs of {n} runs: the randomised Tukey HSD "
                f"over the query-by-run matrix ({draws} of the runs' labels within each query, seed {self.seed}), "
                "two-sided (H0: no difference), which holds the family-wise error rate over all pairs of a measure "
                f"at alpha {self.alpha:g}"
            )
        if self.test == "randomization":
            draws = "all sign flips (exact)" if self.exact else f"{self.n_permutations:,} random sign flips"
            test = f"the paired randomization test ({draws}, seed {self.seed})"
        else:
            test = "the paired t-test"
        if self.design == "baseline":
            tested, family = f"each of {n - 1} candidates against the baseline a", f"the {n - 1} candidates"
        else:
            tested, family = f"each of {n} runs against the next", f"the {n - 1} neighbouring pairs"
        return (
            f"{len(self.qids)} queries paired; {tested}: {test}, two-sided (H0: no difference); "
            f"p-values adjusted over {family} of each measure by {CORRECTION_TEXT[self.correction]}"
        )

    def _pair_lines(self, measure: Measure) -> list[str]:
        name = measure.name
        pairs = self.pairs[name]
        if self.design == "all-pairs":
            out = [f"{name}: every pair, mean difference (second - first), p (Tukey HSD)"]
            for p in pairs:
                text = format_p(p.p_adjusted, None if self.exact else self.n_permutations)
                mark = " *" if p.significant(self.alpha) else ""
                out.append(f"  {letter(p.second)} - {letter(p.first)}  {p.mean_difference:+.4f}  p {text}{mark}")
            return out
        correction = {"holm": "Holm", "bh": "BH", "none": "none"}[self.correction]
        test = "rand." if self.test == "randomization" else "t-test"
        header = (
            f"  {'pair':<7} {'diff':>8}  {'CI of diff':>17}  {'d_z':>6}  {'wins':>4} {'ties':>4} {'losses':>6}  "
            f"{f'p ({test})':>10}  {f'p ({correction})':>10}"
        )
        out = [f"{name}: mean difference (second - first), * adjusted p < {self.alpha:g}", header]
        for p in pairs:
            c = p.comparison
            ci = f"[{c.ci_low:+.4f}, {c.ci_high:+.4f}]"
            d_z = "n/a" if c.d_z != c.d_z else f"{c.d_z:+.2f}"
            draws = None if c.exact or self.test != "randomization" else c.n_permutations
            mark = " *" if p.significant(self.alpha) else ""
            pair = f"{letter(p.second)} - {letter(p.first)}"
            out.append(
                f"  {pair:<7} {p.mean_difference:+8.4f}  {ci:>17}  {d_z:>6}  {c.wins:4d} {c.ties:4d} "
                f"{c.losses:6d}  {format_p(p.p, draws):>10}  {format_p_adjusted(p.p_adjusted, p.p, draws):>10}{mark}"
            )
        return out


def many_runs(
    evaluations: Sequence[Evaluation],
    design: str = "baseline",
    *,
    correction: str | None = None,
    test: str = "randomization",
    alpha: float = 0.05,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> ManyRuns:
    """Compare many runs, paired by query: which pairs is ``design``, one of ``DESIGNS``.

    ``"baseline"`` (default): each candidate against the baseline (the first), p-values
    adjusted by ``correction``, ``"holm"`` (default), ``"bh"`` or ``"none"``;
    ``"all-pairs"``: every pair by the randomised Tukey HSD (a correction given with it is
    refused: the HSD makes its own); ``"neighbours"``: each run against the next, adjusted
    as for the baseline (a sweep's settings in order). ``test``: whose p-value the pairs
    tested one at a time use (``"randomization"`` or ``"t-test"``). ``alpha``: the
    significance level of the marks; ``confidence``: of the bootstrap intervals.
    """
    evaluations = tuple(evaluations)
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(map(repr, DESIGNS))}, got {design!r}")
    if len(evaluations) < 2:
        raise ValueError("many runs need at least two evaluations: a baseline and a candidate")
    check_settings(alpha, n_permutations, n_bootstrap, confidence)
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(map(repr, TESTS))}, got {test!r}")
    if design == "all-pairs":
        if correction not in (None, TUKEY):
            raise ValueError(
                "every pair is tested with the randomised Tukey HSD, which holds the family-wise error "
                f"rate itself: it takes no correction, got {correction!r}"
            )
        if test != "randomization":
            raise ValueError("every pair is tested with the randomised Tukey HSD, a randomization test, not a t-test")
        correction = TUKEY
    else:
        correction = "holm" if correction is None else correction
        if correction not in sig.CORRECTIONS:
            raise ValueError(f"correction must be one of {', '.join(map(repr, sig.CORRECTIONS))}, got {correction!r}")
    measures = shared_measures(evaluations)
    qids = paired_qids(evaluations)
    if not qids:
        raise ValueError("the runs have no evaluated query to pair")
    missing = tuple(tuple(q for q in qids if q not in set(e.qids)) for e in evaluations)
    scores = {m.name: np.column_stack([aligned(e, m.name, qids) for e in evaluations]) for m in measures}
    settings = {"n_permutations": n_permutations, "n_bootstrap": n_bootstrap, "confidence": confidence, "seed": seed}
    k = len(evaluations)
    tested = [(0, i) for i in range(1, k)] if design == "baseline" else [(i, i + 1) for i in range(k - 1)]
    pairs, exact = {}, True
    for m in measures:
        if design == "all-pairs":
            pairs[m.name], exact = tukey_pairs(m, scores[m.name], n_permutations, seed)
        else:
            pairs[m.name] = pair_tests(m, qids, scores[m.name], tested, test, correction, **settings)
            exact = exact and all(p.comparison.exact for p in pairs[m.name])
    cells = {m.name: run_cells(scores[m.name], pairs[m.name], alpha, n_bootstrap, confidence, seed) for m in measures}
    return ManyRuns(
        names=tuple(e.name for e in evaluations),
        measures=measures,
        qids=qids,
        scores=scores,
        missing=missing,
        design=design,
        test=test,
        correction=correction,
        alpha=float(alpha),
        confidence=float(confidence),
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        seed=seed,
        exact=exact,
        cells=cells,
        pairs=pairs,
    )


def shared_measures(evaluations: Sequence[Evaluation]) -> tuple[Measure, ...]:
    """The measures every evaluation has, in the first one's order; ``ValueError`` when there is none."""
    found = tuple(
        m
        for m in evaluations[0].measures
        if m.family.average != "none" and all(m in e.measures for e in evaluations[1:])  # relstring is text
    )
    if not found:
        raise ValueError("the evaluations share no measure: evaluate every run with the same measures")
    return found


def pair_tests(
    measure: Measure,
    qids: tuple[str, ...],
    scores: np.ndarray,
    tested: Sequence[tuple[int, int]],
    test: str,
    correction: str,
    **settings,
) -> tuple[PairTest, ...]:
    """``compare``'s row for each pair ``(first, second)`` of columns of ``scores``, ``test``'s p-values adjusted together.

    ``settings`` are ``measure_comparison``'s (``n_permutations``, ``n_bootstrap``,
    ``confidence``, ``seed``).
    """
    # Every pair's interval in one resampling (by the same draws of queries each would get alone).
    intervals = sig.bootstrap_intervals(
        np.array([scores[:, j] - scores[:, i] for i, j in tested]),
        settings["n_bootstrap"],
        settings["confidence"],
        settings["seed"],
    )
    rows = [
        measure_comparison(measure, qids, scores[:, i], scores[:, j], **settings, interval=interval)
        for (i, j), interval in zip(tested, intervals, strict=True)
    ]
    raw = np.array([row.p(test) for row in rows], dtype=float)
    adjusted = sig.adjust(raw, correction)
    return tuple(
        PairTest(measure.name, i, j, row.mean_delta, float(p), float(q), row)
        for (i, j), row, p, q in zip(tested, rows, raw, adjusted, strict=True)
    )


def tukey_pairs(
    measure: Measure, scores: np.ndarray, n_permutations: int, seed: int
) -> tuple[tuple[PairTest, ...], bool]:
    """Every pair i < j of ``scores``' columns by the randomised Tukey HSD; and whether it enumerated every arrangement."""
    hsd = sig.randomized_tukey_hsd(scores, n_permutations, seed)
    k = scores.shape[1]
    pairs = tuple(
        PairTest(measure.name, i, j, float(hsd.means[j] - hsd.means[i]), float(hsd.p[i, j]), float(hsd.p[i, j]), None)
        for i in range(k)
        for j in range(i + 1, k)
    )
    return pairs, hsd.exact


def run_cells(
    scores: np.ndarray, pairs: Sequence[PairTest], alpha: float, n_bootstrap: int, confidence: float, seed: int
) -> tuple[Cell, ...]:
    """Each run's (column's) mean, its bootstrap interval, and the runs it is significantly better than in ``pairs``."""
    beaten: list[list[int]] = [[] for _ in range(scores.shape[1])]
    for p in pairs:
        winner = p.better(alpha)
        if winner is not None:
            beaten[winner].append(p.first if winner == p.second else p.second)
    intervals = sig.bootstrap_intervals(scores.T, n_bootstrap, confidence, seed)
    return tuple(
        Cell(float(np.mean(scores[:, i])), low, high, method, tuple(sorted(beaten[i])))
        for i, (low, high, method) in enumerate(intervals)
    )
