"""One query of the workbench in full, for its drill-down: the runs' lists, their grades, and the figures' states.

``query_of`` numbers the query's documents once, gives each run's ranked list and each
document's grade, the judged documents no run retrieved, and for each run the states of figure 1
and of the conventions figure, made by the figures' own state classes
(``BinaryState.for_list``, ``ConventionsState.for_list``); ``conventions_for_page`` gives the
conventions figure's rows, the evaluation's convention first. Both are kept apart from ``data``,
which evaluates and tables what the readers read: the upload workers import ``data`` and never
the figures (and with them Panel and Bokeh).
"""

from __future__ import annotations

from explainer.catalog import conventions
from explainer.catalog.conventions import DEFAULT_CONVENTION
from explainer.figures.binary import BinaryState
from explainer.figures.conventions import ConventionsState, ConventionsView
from explainer.workbench.data import DEFAULT_K, FIGURE_DEPTH, Evaluated, max_grade


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
    rows = ConventionsView.param.conventions.default
    return sorted(rows, key=lambda row: row["key"] != convention)
