"""A sweep: runs that differ in one parameter, ordered by its setting, the best marked, and tested against its neighbours.

``sweep(evaluations, "weight")`` reads each run's setting from the text ``weight=0.3`` in
its name (the run's tag or file name) or in the texts ``sources`` gives for it (the
command line passes each run's file path), orders the runs by it, and compares each
setting with the next one (``many_runs``' ``"neighbours"`` design: the paired test's
p-values adjusted over the neighbouring pairs of each measure, Holm's by default). For each
measure it gives each setting's mean and bootstrap interval, the best setting (the highest
mean; the lowest setting among equal means), and whether the best can be told apart from
the settings on either side of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from explainer.evaluation.many_runs import ManyRuns, PairTest, many_runs, plain
from explainer.evaluation.measures import Evaluation
from explainer.evaluation.significance import format_p_adjusted

PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
"""What a parameter's name may be: a letter or underscore, then letters, digits, ``_``, ``.`` or ``-``."""

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


def parameter_values(parameter: str, text: str) -> list[float]:
    """Every number written as ``parameter=NUMBER`` in ``text`` (``weight=0.3`` in ``hybrid_weight=0.3.run``).

    The name must stand on its own: ``weight=`` does not match inside ``bm25weight=``.
    """
    check_parameter(parameter)
    pattern = rf"(?<![A-Za-z0-9]){re.escape(parameter)}=({_NUMBER})"
    return [float(found) for found in re.findall(pattern, text)]


def check_parameter(parameter: str) -> None:
    """``ValueError`` unless ``parameter`` is a name ``PARAMETER`` accepts."""
    if not isinstance(parameter, str) or not PARAMETER.fullmatch(parameter):
        raise ValueError(
            f"a sweep's parameter is a name of letters, digits, '_', '.' or '-' (as weight in weight=0.3), "
            f"got {parameter!r}"
        )


def setting_of(parameter: str, texts: Sequence[str]) -> float:
    """The one setting of ``parameter`` that ``texts`` (a run's name, its file) write; ``ValueError`` for none or two."""
    found = sorted({value for text in texts for value in parameter_values(parameter, text)})
    if not found:
        raise ValueError(
            f"run {texts[0]!r} names no setting of {parameter} (as {parameter}=0.3 in its file name or run tag)"
        )
    if len(found) > 1:
        written = " and ".join(f"{parameter}={value:g}" for value in found)
        raise ValueError(f"run {texts[0]!r} names two settings of {parameter}: {written}")
    return found[0]


def named_parameter(texts: Sequence[Sequence[str]]) -> str | None:
    """The parameter every run names one setting of, no two runs the same (``texts[i]``: run i's name, its file...).

    The first such name in the order the first run writes them, a written name before the
    parts after its dots, dashes or underscores (``bm25.weight=0.3`` names ``bm25.weight``,
    then ``weight``), or None when there is none: how a page that is not told the parameter
    finds a sweep among its runs.
    """
    found = []
    for text in texts[0] if texts else ():
        for name in re.findall(rf"(?<![A-Za-z0-9])({PARAMETER.pattern})=(?:{_NUMBER})", text):
            parts = re.split(r"(?<=[._-])(?=[A-Za-z_])", name)
            for i in range(len(parts)):
                if "".join(parts[i:]) not in found:
                    found.append("".join(parts[i:]))
    for name in found:
        try:
            values = [setting_of(name, run) for run in texts]
        except ValueError:
            continue
        if len(set(values)) == len(values):
            return name
    return None


@dataclass(frozen=True, eq=False)
class Sweep:
    """The runs in the order of ``parameter``'s ``values``; ``runs`` compares each with the next.

    ``order[i]`` is the position, in the evaluations as given, of the i-th setting.
    """

    parameter: str
    values: tuple[float, ...]
    order: tuple[int, ...]
    runs: ManyRuns

    def best(self, measure: str) -> int:
        """The position (in setting order) of the highest mean on ``measure``; the lowest setting among equal means."""
        means = np.array([c.mean for c in self.runs.cells[measure]])
        return int(np.flatnonzero(means == means.max())[0])

    def neighbours(self, measure: str, position: int) -> tuple[PairTest, ...]:
        """The tests of setting ``position`` with the settings just below and just above it (one at either end)."""
        return tuple(p for p in self.runs.pairs[measure] if position in (p.first, p.second))

    def lines(self) -> list[str]:
        """A plain-text report: how it was tested, then per measure each setting, the best, and its neighbours."""
        runs = self.runs
        out = [
            f"Sweep of {self.parameter} over {len(self.values)} settings, in order of {self.parameter}: "
            + runs.method()
        ]
        out += runs.missing_lines(runs.names)
        any_cell = runs.cells[runs.measures[0].name][0]
        out.append(
            f"Means with their {runs.confidence:.0%} bootstrap intervals ({any_cell.interval_method}, "
            f"{runs.n_bootstrap:,} resamples); each step: the difference from the setting before, its adjusted "
            f"p-value, * below alpha {runs.alpha:g}"
        )
        draws = None if runs.exact or runs.test != "randomization" else runs.n_permutations
        width = max(len(self.parameter), *(len(f"{v:g}") for v in self.values))
        name_width = max(len(name) for name in runs.names)
        for m in runs.measures:
            best = self.best(m.name)
            out.append(f"{m.name}:")
            for i, (value, name) in enumerate(zip(self.values, runs.names, strict=True)):
                c = runs.cells[m.name][i]
                row = f"  {f'{value:g}':>{width}}  {name:<{name_width}}  {c.mean:.4f} [{c.low:.4f}, {c.high:.4f}]"
                row += "  best" if i == best else "      "
                if i:
                    step = runs.pairs[m.name][i - 1]
                    mark = " *" if step.significant(runs.alpha) else ""
                    row += f"  {step.mean_difference:+.4f}  p {format_p_adjusted(step.p_adjusted, step.p, draws)}{mark}"
                out.append(row.rstrip())
            out.append("  " + self.verdict(m.name))
        return out

    def as_dict(self, runs: bool = True) -> dict:
        """The sweep as plain data (JSON-ready): the settings in order, each measure's best, its mean, its
        tests with its neighbours and the verdict; with ``runs``, the runs' own report (``ManyRuns.as_dict``)."""
        out = {
            "parameter": self.parameter,
            "settings": [{"value": v, "run": name} for v, name in zip(self.values, self.runs.names, strict=True)],
            "measures": [self._measure_dict(m.name) for m in self.runs.measures],
        }
        if runs:
            out["runs"] = self.runs.as_dict()
        return out

    def _measure_dict(self, measure: str) -> dict:
        best = self.best(measure)
        neighbours = []
        for p in self.neighbours(measure, best):
            other = p.first if p.second == best else p.second
            neighbours.append(
                {
                    "value": self.values[other],
                    "run": self.runs.names[other],
                    "difference": plain(self.runs.cells[measure][best].mean - self.runs.cells[measure][other].mean),
                    "p": plain(p.p),
                    "p_adjusted": plain(p.p_adjusted),
                    "distinguishable": p.significant(self.runs.alpha),
                }
            )
        return {
            "measure": measure,
            "best": self.values[best],
            "best_run": self.runs.names[best],
            "mean": plain(self.runs.cells[measure][best].mean),
            "neighbours": neighbours,
            "verdict": self.verdict(measure),
        }

    def verdict(self, measure: str) -> str:
        """Whether the best setting on ``measure`` can be told from its neighbours, in one sentence."""
        runs = self.runs
        best = self.best(measure)
        told, untold = [], []
        for p in self.neighbours(measure, best):
            other = p.first if p.second == best else p.second
            draws = None if runs.exact or runs.test != "randomization" else runs.n_permutations
            text = f"{self.parameter}={self.values[other]:g} (adjusted p {format_p_adjusted(p.p_adjusted, p.p, draws)})"
            (told if p.significant(runs.alpha) else untold).append(text)
        head = f"best: {self.parameter}={self.values[best]:g}, mean {runs.cells[measure][best].mean:.4f}"
        if not told:
            return f"{head}; not distinguishable from {' or '.join(untold)} at alpha {runs.alpha:g}"
        if not untold:
            return f"{head}; better than {' and '.join(told)} at alpha {runs.alpha:g}"
        return f"{head}; better than {told[0]}, not distinguishable from {untold[0]} at alpha {runs.alpha:g}"


def sweep(
    evaluations: Sequence[Evaluation],
    parameter: str,
    sources: Sequence[str | Sequence[str]] | None = None,
    **settings,
) -> Sweep:
    """Order ``evaluations`` by their setting of ``parameter`` and test each against the next.

    Each run's setting is read from its name and from ``sources[i]`` (a text, or several: a
    file path, say); exactly one number must be written as ``parameter=NUMBER`` among them,
    and no two runs may share a setting. ``settings`` are ``many_runs``' (``correction``,
    ``test``, ``alpha``, ``n_permutations``, ``n_bootstrap``, ``confidence``, ``seed``).
    """
    check_parameter(parameter)
    evaluations = tuple(evaluations)
    if len(evaluations) < 2:
        raise ValueError("a sweep needs at least two runs")
    if sources is None:
        sources = [()] * len(evaluations)
    if len(sources) != len(evaluations):
        raise ValueError(f"sources must give one entry a run: {len(sources)} for {len(evaluations)} runs")
    values = []
    for evaluation, extra in zip(evaluations, sources, strict=True):
        texts = [evaluation.name, *([extra] if isinstance(extra, str) else extra)]
        values.append(setting_of(parameter, texts))
    order = sorted(range(len(values)), key=lambda i: values[i])
    for a, b in zip(order, order[1:], strict=False):
        if values[a] == values[b]:
            raise ValueError(
                f"runs {evaluations[a].name!r} and {evaluations[b].name!r} both have {parameter}={values[a]:g}"
            )
    runs = many_runs([evaluations[i] for i in order], "neighbours", **settings)
    return Sweep(parameter, tuple(values[i] for i in order), tuple(order), runs)
