"""Generated collections for the evaluation tests: qrels and runs with every edge trec_eval treats specially.

``collection(seed)`` returns ``(qrels, run)`` in pytrec_eval's shape (``{qid: {docid: grade}}``
and ``{qid: {docid: score}}``). Across its queries there are: tied scores (few distinct
values, so trec_eval's docid tie-break decides ranks), unjudged results, judged relevant
documents the run missed, grades 0 to 3 and some negative ones, queries with judgments
but nothing relevant, queries in the run with no judgments, queries judged but absent
from the run, runs shorter than the cutoffs, and docids whose byte order differs from
their numeric order (``d9`` > ``d10``).
"""

from __future__ import annotations

import numpy as np


def collection(seed: int, n_queries: int = 40) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        qid = f"q{q}"
        kind = q % 8
        pool = [f"d{i}" for i in rng.choice(400, size=int(rng.integers(5, 60)), replace=False)]
        judged = pool[: int(rng.integers(1, len(pool)))]
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=len(judged))
        if kind == 1:  # judged, nothing relevant
            grades[:] = 0
        if kind == 2:  # some negative grades: in the pool, not judged
            grades[rng.random(len(judged)) < 0.3] = -1
        if kind != 3:  # kind 3: in the run only
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades, strict=True)}
        if kind == 4:  # judged, not in the run
            continue
        depth = int(rng.integers(0, len(pool) + 1)) if kind != 5 else int(rng.integers(1, 4))
        retrieved = list(rng.permutation(pool)[:depth])
        if kind == 6:  # everything tied
            scores = np.full(depth, 1.5)
        else:  # few distinct scores: ties everywhere
            scores = rng.integers(0, 6, size=depth) / 2.0
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


def run_text(run: dict, rng: np.random.Generator | None = None, tag: str = "sys") -> str:
    """The run as a trec_eval run file, lines shuffled (the rank column deliberately wrong)."""
    lines = [f"{q} Q0 {d} {i + 1} {s!r} {tag}" for q, docs in run.items() for i, (d, s) in enumerate(docs.items())]
    if rng is not None:
        lines = [lines[i] for i in rng.permutation(len(lines))]
    return "\n".join(lines) + "\n"


def qrels_text(qrels: dict) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
