"""Four runs of one collection, and each pair of them alone, as the workbench's data, for workbench_pair.test.mjs.

Generated collections (tests/evaluation_cases.py): a run and three others that retrieve some
documents of their own (each query's pool is shared, the depth and the scores differ). For each
pair of runs, ``drill_down.query_of`` of the two runs alone is what the page must show when a reader
picks them among the four (pair.js sees them in the four runs' detail).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for evaluation_cases

from evaluation_cases import collection  # noqa: E402

from explainer.evaluation import read_qrels, read_run  # noqa: E402
from explainer.workbench import data as wb  # noqa: E402
from explainer.workbench import drill_down  # noqa: E402

QUICK = {"n_permutations": 200, "n_bootstrap": 200}


def four_runs(seed: int):
    qrels, run = collection(seed)
    rng = np.random.default_rng(seed + 200)
    judged = {q: list(docs) for q, docs in qrels.items()}
    runs = [run]
    for _ in range(3):
        other = {}
        for q, docs in run.items():
            pool = list(docs) + judged.get(q, [])
            kept = [d for d in dict.fromkeys(pool) if rng.random() < 0.6]
            other[q] = {d: float(rng.integers(0, 8)) / 2 for d in kept}
        runs.append(other)
    return qrels, runs


def main() -> None:
    out = []
    for seed, level in ((1, 1), (2, 2)):
        qrels, runs = four_runs(seed)
        q = read_qrels(qrels)
        read = [read_run(r, name=f"sys{i}") for i, r in enumerate(runs)]
        full = wb.evaluate_loaded(wb.Loaded(q, tuple(read), relevance_level=level), **QUICK)
        table = wb.page_table(full)
        pairs = []
        for i, j in itertools.combinations(range(4), 2):
            alone = wb.evaluate_loaded(wb.Loaded(q, (read[i], read[j]), relevance_level=level), **QUICK)
            pairs.append(
                {
                    "pair": [i, j],
                    "table": wb.page_table(alone),
                    "details": {qid: drill_down.query_of(alone, qid) for qid in alone.qids},
                }
            )
        out.append(
            {
                "level": level,
                "table": table,
                "details": {qid: drill_down.query_of(full, qid) for qid in full.qids},
                "pairs": pairs,
            }
        )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
