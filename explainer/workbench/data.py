"""What the workbench shows, as plain data for the browser: the queries table, and one query in full.

Nothing here draws. ``Loaded`` holds what a reader gave (qrels, one or two runs, the topics'
texts, the documents' titles); ``table_of`` evaluates it with ``explainer.evaluation`` (every
number of the table, the means and the statistics come from there: the per-query measures as
trec_eval computes them, the statistics from scipy) and ``query_of`` gives one query's two ranked lists, their grades, the judged documents
they missed, and the states of figure 1 and of the conventions figure for each list, made by
the figures' own state classes (``BinaryState.for_list``, ``ConventionsState.for_list``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explainer.catalog import conventions
from explainer.catalog.conventions import DEFAULT_CONVENTION
from explainer.evaluation import DEFAULT_MEASURES, Comparison, Evaluation, Measure, Qrels, Run, compare, evaluate
from explainer.figures.binary import BinaryState
from explainer.figures.conventions import ConventionsState
from explainer.figures.ndcg import MAX_GRADE

FIGURE_DEPTH = 30
"""The figures show a run's top 30 results (all of them for the golden set's runs of 30)."""

DEFAULT_K = 10
"""The figures' cutoff when a query opens: the k of P@10 and NDCG@10."""

ROLES = ("baseline", "candidate")


@dataclass(frozen=True, eq=False)
class Loaded:
    """What the reader gave: judgments, one run or two (baseline first), and optional texts.

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
        if not 1 <= len(self.runs) <= 2:
            raise ValueError(f"give one run or two (a baseline and a candidate), got {len(self.runs)}")


@dataclass(frozen=True, eq=False)
class Evaluated:
    """``Loaded`` evaluated: one ``Evaluation`` per run, and the ``Comparison`` of two."""

    loaded: Loaded
    evaluations: tuple[Evaluation, ...]
    comparison: Comparison | None

    @property
    def qids(self) -> tuple[str, ...]:
        """Every query of the table: evaluated for either run, in trec_eval's order."""
        if self.comparison is not None:
            return next(iter(self.comparison.measures.values())).qids
        return self.evaluations[0].qids

    def values(self, run: int, name: str) -> np.ndarray:
        """Run ``run``'s value of measure ``name`` for each query of ``qids`` (0 where it has no result)."""
        if self.comparison is not None:
            chosen = self.comparison.measures[name]
            return chosen.baseline if run == 0 else chosen.candidate
        return self.evaluations[0].values[name]


def evaluate_loaded(loaded: Loaded, **compare_options: Any) -> Evaluated:
    """Evaluate each run against the qrels, and compare two (``compare_options`` go to ``compare``)."""
    evaluations = tuple(
        evaluate(loaded.qrels, run, loaded.measures, relevance_level=loaded.relevance_level) for run in loaded.runs
    )
    if not any(evaluation.qids for evaluation in evaluations):
        raise ValueError(
            "no query is in both the qrels and the run: check that they are for the same queries "
            "(the first field of each line is the query's id)"
        )
    comparison = compare(*evaluations, **compare_options) if len(evaluations) == 2 else None
    return Evaluated(loaded, evaluations, comparison)


def evaluate_files(
    files: dict[str, tuple[str, Any]], measures: tuple[Measure, ...], relevance_level: int, **compare_options: Any
) -> Evaluated | None:
    """The uploaded ``files`` (by slot: ``(name, what was read)``) evaluated, or None until they
    hold judgments and a baseline; ``ValueError`` when they do not go together."""
    if "qrels" not in files or "baseline" not in files:
        return None
    loaded = Loaded(
        qrels=files["qrels"][1],
        runs=tuple(files[slot][1] for slot in ROLES if slot in files),
        topics=files.get("topics", (None, {}))[1],
        documents=files.get("documents", (None, {}))[1],
        measures=measures,
        relevance_level=relevance_level,
    )
    return evaluate_loaded(loaded, **compare_options)


def max_grade(qrels: Qrels) -> int:
    """The highest grade the figures offer: the qrels' highest, and at least figure 2's 3."""
    return max(MAX_GRADE, int(qrels.grade.max()) if len(qrels.grade) else 0)


def _measure(m: Measure) -> dict:
    return {"name": m.name, "label": m.label, "key": m.key, "k": m.k, "convention": m.convention}


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def table_of(evaluated: Evaluated, figure_depth: int = FIGURE_DEPTH) -> dict:
    """The queries table and everything above it: per-query values, means, statistics, the gate."""
    loaded = evaluated.loaded
    qids = evaluated.qids
    # relstring (average "none") is text: the table's columns are numbers
    measures = [_measure(m) for m in evaluated.evaluations[0].measures if m.family.average != "none"]
    runs = []
    for i, evaluation in enumerate(evaluated.evaluations):
        evaluated_here = set(evaluation.qids)
        runs.append(
            {
                "name": evaluation.name,
                "role": ROLES[i] if len(evaluated.evaluations) == 2 else "run",
                "source": evaluation.run.source,
                "values": [evaluated.values(i, m["name"]).tolist() for m in measures],
                "present": [q in evaluated_here for q in qids],
                "summary": evaluation.summary.lines(),
            }
        )
    comparison = None
    if evaluated.comparison is not None:
        c = evaluated.comparison
        comparison = {
            "measures": {
                name: {
                    "wins": m.wins,
                    "ties": m.ties,
                    "losses": m.losses,
                    "t_p": _finite(m.t_p),
                    "randomization_p": _finite(m.randomization_p),
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
    return {
        "qids": list(qids),
        "texts": [loaded.topics.get(q, "") for q in qids] if loaded.topics else [],
        "measures": measures,
        "runs": runs,
        "comparison": comparison,
        "relevance_level": loaded.relevance_level,
        "max_grade": max_grade(loaded.qrels),
        "figure_depth": figure_depth,
        "qrels_source": loaded.qrels.source,
        "titles": bool(loaded.documents),
    }


def page_table(evaluated: Evaluated, figure_depth: int = FIGURE_DEPTH) -> dict:
    """``table_of`` with what the page adds to draw it: the conventions and each run's means."""
    table = table_of(evaluated, figure_depth)
    table["conventions"] = {c.key: {"gain": c.gain, "ideal": c.ideal, "cut": c.cut} for c in conventions.CONVENTIONS}
    for run in table["runs"]:
        run["means"] = [float(np.mean(v)) if len(v) else 0.0 for v in run["values"]]
    return table


def query_of(evaluated: Evaluated, qid: str, figure_depth: int = FIGURE_DEPTH, k: int = DEFAULT_K) -> dict:
    """One query in full: each run's ranked list, the grades, the judged relevant documents no
    run retrieved, and for each run the states of figure 1 and of the conventions figure.

    Documents are numbered once for the query (``docs``): first the runs' results, then the
    judged documents of grade 1 or more that neither run retrieved (NDCG's ideal takes them all).
    ``grades[i]`` is document i's qrels grade, None when nobody judged it (a negative grade
    counts as none, as in trec_eval). A document is relevant when its grade reaches the
    relevance level (``n_missed``, figure 1, and recall and hit rate in the conventions figure).
    """
    loaded = evaluated.loaded
    qrels = loaded.qrels
    level = loaded.relevance_level
    try:
        q = qrels.index(qid)
        a, b = int(qrels.offsets[q]), int(qrels.offsets[q + 1])
        judged = dict(zip(qrels.docids(a, b), qrels.grade[a:b].tolist(), strict=True))
    except KeyError:
        judged = {}
    number: dict[str, int] = {}
    docs: list[str] = []

    def doc_number(docid: str) -> int:
        if docid not in number:
            number[docid] = len(docs)
            docs.append(docid)
        return number[docid]

    lists = []
    for run in loaded.runs:
        try:
            r = run.index(qid)
            a, b = int(run.offsets[r]), int(run.offsets[r + 1])
            lists.append((run.docids(a, b), run.score[a:b].tolist(), True))
        except KeyError:
            lists.append(([], [], False))
    runs = [
        {"docs": [doc_number(d) for d in ids], "scores": scores, "present": present} for ids, scores, present in lists
    ]
    retrieved = set(number)
    missed = sorted(((d, g) for d, g in judged.items() if g >= 1 and d not in retrieved), key=lambda x: (-x[1], x[0]))
    for docid, _ in missed:
        doc_number(docid)
    grades = [_grade(judged.get(d)) for d in docs]
    highest = max_grade(qrels)
    n_relevant = sum(1 for g in judged.values() if g >= level)
    figures = []
    for entry in runs:
        order = entry["docs"]
        depth = min(figure_depth, len(order))
        if not depth:
            figures.append(None)
            continue
        top = [grades[i] for i in order[:depth]]
        shown = {docs[i] for i in order[:depth]}
        # Every judged document outside the figures' list, from the qrels, those graded 0 too: the
        # conventions figure counts the query's judged documents, as its ideal takes them all.
        outside = sorted((g for d, g in judged.items() if g >= 0 and d not in shown), reverse=True)
        relevant = [None if g is None else g >= level for g in top]
        binary = BinaryState.for_list(relevant, n_relevant - sum(r is True for r in relevant), k)
        graded = ConventionsState.for_list(top, outside, k, highest, relevance_level=level)
        figures.append(
            {
                "depth": depth,
                "binary": {"default": binary().to_dict(), "limits": binary.limits()},
                "conventions": {"default": graded().to_dict(), "limits": graded.limits()},
            }
        )
    return {
        "qid": qid,
        "text": loaded.topics.get(qid, ""),
        "docs": docs,
        "titles": [loaded.documents.get(d, "") for d in docs] if loaded.documents else [],
        "grades": grades,
        "runs": runs,
        "n_missed": sum(1 for _, g in missed if g >= level),
        "judged_not_relevant_outside": sum(1 for d, g in judged.items() if 0 <= g < level and d not in retrieved),
        # The judged documents that ``docs`` leaves out (graded 0, retrieved by neither run): with
        # the graded ones of ``docs``, the query's qrels lines of a grade of 0 or more.
        "judged_not_listed": sum(1 for d, g in judged.items() if g >= 0 and d not in number),
        "figures": figures,
    }


def _grade(value: int | None) -> int | None:
    return None if value is None or value < 0 else int(value)


def conventions_for_page(convention: str = DEFAULT_CONVENTION) -> list[dict]:
    """The conventions figure's rows, the evaluation's convention first (the figure opens on it)."""
    if convention not in conventions.BY_KEY:
        raise ValueError(f"convention must be one of {', '.join(conventions.BY_KEY)}, got {convention!r}")
    from explainer.figures.conventions import ConventionsView

    rows = ConventionsView.param.conventions.default
    return sorted(rows, key=lambda row: row["key"] != convention)


__all__ = [
    "DEFAULT_K",
    "FIGURE_DEPTH",
    "Evaluated",
    "Loaded",
    "evaluate_files",
    "evaluate_loaded",
    "page_table",
    "query_of",
    "table_of",
]
