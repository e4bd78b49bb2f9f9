"""What the workbench shows, as plain data for the browser: the queries table and its statistics.

Nothing here draws. ``Loaded`` holds what a reader gave (qrels, one run or up to ``MAX_RUNS``,
the topics' texts, the documents' titles); ``table_of`` evaluates it with ``explainer.evaluation``
(every number of the table, the means and the statistics come from there: the per-query measures
as trec_eval computes them, the statistics from scipy; with more than two runs the table of runs
by measures of ``many_runs``, each candidate's gate of ``candidates`` and a sweep of ``sweep``).
One query in full, with the figures' states for it, is ``drill_down``'s: this module imports
no figure, so the upload workers that import it do not load Panel or Bokeh.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explainer.catalog import conventions
from explainer.catalog.grades import MAX_GRADE
from explainer.evaluation import (
    DEFAULT_MEASURES,
    Comparison,
    Evaluation,
    ManyRuns,
    Measure,
    Qrels,
    Run,
    Sweep,
    evaluate,
)
from explainer.evaluation.candidates import candidate_gates
from explainer.evaluation.compare import CORRECTION_NAMES, aligned, no_result_line, paired_qids
from explainer.evaluation.many_runs import gate_summary, letter, many_runs
from explainer.evaluation.run_names import distinct_names
from explainer.evaluation.significance import detectable_effects, format_p, format_p_adjusted
from explainer.evaluation.sweep import named_parameter, sweep

FIGURE_DEPTH = 30
"""The figures show a run's top 30 results (all of them for the golden set's runs of 30)."""

DEFAULT_K = 10
"""The figures' cutoff when a query opens: the k of P@10 and NDCG@10."""

ROLES = ("baseline", "candidate")

MAX_RUNS = 10
"""The most runs a page takes: a baseline and nine candidates (the command line takes any number)."""

MANY_RUNS_SETTINGS = ("test", "alpha", "n_permutations", "n_bootstrap", "confidence", "seed")
"""The gate's settings (``compare``'s options) that the table of runs by measures takes too."""


@dataclass(frozen=True, eq=False)
class Loaded:
    """What the reader gave: judgments, one run or up to ``MAX_RUNS`` (baseline first), and optional texts.

    ``topics`` maps a qid to the query's text and ``documents`` a docid to a title; either
    may be empty. ``sources`` names each file as the reader named it (for the page's notes).
    """

    qrels: Qrels
    runs: tuple[Run, ...]
    topics: dict[str, str] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    measures: tuple[Measure, ...] = DEFAULT_MEASURES
    relevance_level: int = 1

    def __post_init__(self):
        if not 1 <= len(self.runs) <= MAX_RUNS:
            raise ValueError(
                f"give one run to {MAX_RUNS} (a baseline, then the candidates), got {len(self.runs)}; "
                "compare more from the command line (relevance-explainer evaluate)"
            )


@dataclass(frozen=True, eq=False)
class Evaluated:
    """``Loaded`` evaluated: one ``Evaluation`` per run, each candidate's ``Comparison`` with the baseline
    (its gate adjusted over the candidates when there are several), and with more than two runs the
    table of runs by measures (``many``) and, when the runs name a parameter's settings, its ``sweep``."""

    loaded: Loaded
    evaluations: tuple[Evaluation, ...]
    candidates: tuple[Comparison, ...] = ()
    many: ManyRuns | None = None
    sweep: Sweep | None = None

    @property
    def comparison(self) -> Comparison | None:
        """The comparison of two runs (None for one run, or more than two: see ``candidates``)."""
        return self.candidates[0] if len(self.evaluations) == 2 else None

    @property
    def qids(self) -> tuple[str, ...]:
        """Every query of the table: evaluated for any run, in trec_eval's order."""
        if len(self.evaluations) > 1:
            return paired_qids(self.evaluations)
        return self.evaluations[0].qids

    def values(self, run: int, name: str) -> np.ndarray:
        """Run ``run``'s value of measure ``name`` for each query of ``qids`` (0 where it has no result)."""
        if len(self.evaluations) > 1:
            return aligned(self.evaluations[run], name, self.qids)
        return self.evaluations[0].values[name]


def evaluate_loaded(loaded: Loaded, **options: Any) -> Evaluated:
    """Evaluate each run against the qrels, then compare them (``compared``, which takes ``options``)."""
    evaluations = tuple(
        evaluate(loaded.qrels, run, loaded.measures, relevance_level=loaded.relevance_level) for run in loaded.runs
    )
    if not any(evaluation.qids for evaluation in evaluations):
        raise ValueError(
            "no query is in both the qrels and the run: check that they are for the same queries "
            "(the first field of each line is the query's id)"
        )
    return compared(loaded, evaluations, **options)


def compared(
    loaded: Loaded, evaluations: tuple[Evaluation, ...], correction: str = "holm", **compare_options: Any
) -> Evaluated:
    """The runs' evaluations compared: each candidate with the baseline (``compare_options`` go to
    ``compare``); with more than two runs, also the table of runs by measures and a sweep when the
    runs name a parameter, their p-values and the gates adjusted over the candidates by ``correction``."""
    if len(evaluations) == 1:
        return Evaluated(loaded, evaluations)
    table = swept = None
    names = None
    if len(evaluations) > 2:
        names = distinct_names([e.name for e in evaluations], [run.source for run in loaded.runs])
        settings = {key: value for key, value in compare_options.items() if key in MANY_RUNS_SETTINGS}
        # The table's cells are means of the per-query values: of the measures whose all line is one.
        tabled = tuple(
            replace(e, measures=tuple(m for m in e.measures if m.family.average == "mean")) for e in evaluations
        )
        table = replace(many_runs(tabled, "baseline", correction=correction, **settings), names=names)
        sources = [[e.name, run.source] for e, run in zip(evaluations, loaded.runs, strict=True)]
        if parameter := named_parameter(sources):
            swept = sweep(tabled, parameter, sources=sources, correction=correction, **settings)
            swept = replace(swept, runs=replace(swept.runs, names=tuple(names[i] for i in swept.order)))
    candidates = candidate_gates(evaluations, table, correction, names, **compare_options)
    return Evaluated(loaded, evaluations, candidates, table, swept)


def evaluate_files(
    files: dict[str, Any], measures: tuple[Measure, ...], relevance_level: int, **compare_options: Any
) -> Evaluated | None:
    """The uploaded ``files`` (``with_file``'s) evaluated, or None until they hold judgments and a
    baseline; ``ValueError`` when they do not go together."""
    if "qrels" not in files or "baseline" not in files:
        return None
    loaded = Loaded(
        qrels=files["qrels"][1],
        runs=(files["baseline"][1], *(run for _, run in files.get("candidate", ()))),
        topics=files.get("topics", (None, {}))[1],
        documents=files.get("documents", (None, {}))[1],
        measures=measures,
        relevance_level=relevance_level,
    )
    return evaluate_loaded(loaded, **compare_options)


def with_file(files: dict[str, Any], slot: str, name: str, parsed: Any) -> dict[str, Any]:
    """The uploaded files with one more (a new dict): ``files[slot]`` is ``(name, what was read)``,
    except ``files["candidate"]``, a tuple of them, the candidates in the order they came.

    A candidate is added after the others, or takes the place of the one of the same file name
    (a reader sends a file again once it is mended); any other slot holds one file, the last sent.
    """
    if slot != "candidate":
        return {**files, slot: (name, parsed)}
    held = list(files.get("candidate", ()))
    same = [i for i, (held_name, _) in enumerate(held) if held_name == name]
    if same:
        held[same[0]] = (name, parsed)
    else:
        held.append((name, parsed))
    return {**files, "candidate": tuple(held)}


def runs_held(files: dict[str, Any]) -> int:
    """How many runs the uploaded files hold: the baseline and the candidates."""
    return int("baseline" in files) + len(files.get("candidate", ()))


def max_grade(qrels: Qrels) -> int:
    """The highest grade the figures offer: the qrels' highest, and at least figure 2's 3."""
    return max(MAX_GRADE, int(qrels.grade.max()) if len(qrels.grade) else 0)


def _measure(m: Measure) -> dict:
    return {"name": m.name, "label": m.label, "key": m.key, "k": m.k, "convention": m.convention}


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def table_of(evaluated: Evaluated, figure_depth: int = FIGURE_DEPTH) -> dict:
    """The queries table and everything above it: per-query values, means, statistics, the gate.

    Two runs: ``comparison``, the candidate's with the baseline. More: ``comparisons``, each
    candidate's, and ``many``, the table of runs by measures (``runs_table``).
    """
    loaded = evaluated.loaded
    qids = evaluated.qids
    n_runs = len(evaluated.evaluations)
    names = evaluated.many.names if evaluated.many is not None else [e.name for e in evaluated.evaluations]
    # relstring (average "none") is text: the table's columns are numbers
    measures = [_measure(m) for m in evaluated.evaluations[0].measures if m.family.average != "none"]
    runs = []
    detectable = {}  # the power's tables the comparisons' effects name (``_effects``)
    for i, evaluation in enumerate(evaluated.evaluations):
        evaluated_here = set(evaluation.qids)
        runs.append(
            {
                "name": names[i],
                "role": _role(i, n_runs),
                "letter": letter(i),
                "source": evaluation.run.source,
                "values": [evaluated.values(i, m["name"]).tolist() for m in measures],
                "present": [q in evaluated_here for q in qids],
                "summary": evaluation.summary.lines(),
                # Its own summary skips a judged query it has no result for, as trec_eval does; the
                # page's table, means and comparison count it 0, as trec_eval -c does: said so.
                "no_result": no_result_line(missing, "this run")
                if (missing := len(qids) - len(evaluated_here))
                else "",
            }
        )
    return {
        "qids": list(qids),
        "texts": [loaded.topics.get(q, "") for q in qids] if loaded.topics else [],
        "measures": measures,
        "runs": runs,
        "comparison": None if evaluated.comparison is None else _comparison(evaluated.comparison, detectable),
        "comparisons": [_comparison(c, detectable) for c in evaluated.candidates] if n_runs > 2 else [],
        "detectable": detectable,
        "many": runs_table(evaluated) if n_runs > 2 else None,
        "relevance_level": loaded.relevance_level,
        "max_grade": max_grade(loaded.qrels),
        "figure_depth": figure_depth,
        "qrels_source": loaded.qrels.source,
        "titles": bool(loaded.documents),
    }


def _role(i: int, n_runs: int) -> str:
    """A run's role as the page names it: the run, the baseline or the candidate; with more, ``run c``."""
    if n_runs == 1:
        return "run"
    if n_runs == 2 or i == 0:
        return ROLES[min(i, 1)]
    return f"run {letter(i)}"


def _comparison(c: Comparison, detectable: dict) -> dict:
    return {
        "effects": _effects(c, detectable),
        "measures": {
            name: {
                "wins": m.wins,
                "ties": m.ties,
                "losses": m.losses,
                "t_p": _finite(m.t_p),
                "randomization_p": _finite(m.randomization_p),
                # As the command line prints them: "< 0.0001" where no permutation of 10,000 matched.
                "t_p_text": format_p(m.t_p),
                "randomization_p_text": format_p(m.randomization_p, None if m.exact else m.n_permutations),
                "exact": m.exact,
                "n_permutations": m.n_permutations,
                "ci_low": _finite(m.ci_low),
                "ci_high": _finite(m.ci_high),
                "confidence": m.confidence,
                "bootstrap_method": m.bootstrap_method,
            }
            for name, m in c.measures.items()
        },
        "gate": {
            "measure": c.gate.measure,
            "question": c.gate.question,
            "null": c.gate.null,
            "outcome": c.gate.outcome,
            "margin": c.gate.margin,
            "alpha": c.gate.alpha,
            "test": c.gate.test,
            "ships": c.gate.ships,
            "reason": c.gate.reason,
        },
    }


def _effects(c: Comparison, detectable: dict) -> list[dict]:
    """Each gate measure's effect and power (``Comparison.effects``): its numbers, its sentences, and
    the name of the table in ``detectable`` with which the page finds the queries a difference needs.

    The table (``significance.detectable_effects``) depends only on the power's alpha and sides, so
    the candidates of one page share it: ``detectable[name]`` is its query counts ``n`` and the
    minimum detectable effect of each in standard deviations, ``effect`` (12 significant digits).
    """
    out = []
    for e in c.effects():
        item = {**e.as_dict(), "label": e.label, "alternative": e.alternative, "lines": e.lines()}
        if e.mde == e.mde:
            name = f"{e.alpha!r} {e.alternative} {e.power!r}"
            if name not in detectable:
                n, effect = detectable_effects(e.alpha, e.power, e.alternative)
                detectable[name] = {"n": n.tolist(), "effect": [float(f"{x:.12g}") for x in effect]}
            item["detectable"] = name
        out.append(item)
    return out


def runs_table(evaluated: Evaluated) -> dict:
    """More than two runs as the page shows them above the pair it compares: the table of runs by
    measures (``ManyRuns``: each run's mean, its interval and the letters of the runs it is better
    than), the gate over the candidates, and the sweep when the runs name a parameter."""
    table = evaluated.many
    candidates = evaluated.candidates
    gate = candidates[0].gate
    any_cell = table.cells[table.measures[0].name][0]
    out = {
        "method": table.method(),
        "cells": (
            f"Each cell: the run's mean with the letters of the runs it is better than (adjusted p < {table.alpha:g}), "
            f"and under it its {table.confidence:.0%} bootstrap interval ({any_cell.interval_method}, "
            f"{table.n_bootstrap:,} resamples)."
        ),
        "measures": [
            {
                "name": m.name,
                "label": m.label,
                "cells": [
                    {"mean": c.mean, "low": _finite(c.low), "high": _finite(c.high), "beats": table.marks(m.name, i)}
                    for i, c in enumerate(table.cells[m.name])
                ],
            }
            for m in table.measures
        ],
        "gate": {
            "summary": gate_summary(candidates),
            "correction": CORRECTION_NAMES[gate.correction] if gate.correction else None,
            "outcomes": [None, *(c.gate.outcome for c in candidates)],
        },
        "sweep": None,
    }
    swept = evaluated.sweep
    if swept is not None:
        runs = swept.runs
        draws = None if runs.exact or runs.test != "randomization" else runs.n_permutations
        out["sweep"] = {
            "parameter": swept.parameter,
            "method": runs.method(),
            "values": list(swept.values),
            "order": list(swept.order),
            "measures": {
                m.name: {
                    "cells": [
                        {"mean": c.mean, "low": _finite(c.low), "high": _finite(c.high)} for c in runs.cells[m.name]
                    ],
                    "best": swept.best(m.name),
                    "steps": [
                        {
                            "difference": step.mean_difference,
                            "p": format_p_adjusted(step.p_adjusted, step.p, draws),
                            "significant": step.significant(runs.alpha),
                        }
                        for step in runs.pairs[m.name]
                    ],
                    "verdict": swept.verdict(m.name),
                }
                for m in runs.measures
            },
        }
    return out


def page_table(evaluated: Evaluated, figure_depth: int = FIGURE_DEPTH) -> dict:
    """``table_of`` with what the page adds to draw it: the conventions and each run's means."""
    table = table_of(evaluated, figure_depth)
    table["conventions"] = {c.key: {"gain": c.gain, "ideal": c.ideal, "cut": c.cut} for c in conventions.CONVENTIONS}
    for run in table["runs"]:
        run["means"] = [float(np.mean(v)) if len(v) else 0.0 for v in run["values"]]
    return table


__all__ = [
    "DEFAULT_K",
    "FIGURE_DEPTH",
    "Evaluated",
    "Loaded",
    "evaluate_files",
    "evaluate_loaded",
    "page_table",
    "table_of",
]
