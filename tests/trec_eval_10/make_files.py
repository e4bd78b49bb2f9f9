"""Writes the collections the recorded trec_eval 10.0 outputs beside this file were made from (see README.md)."""

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from evaluation_cases import collection, qrels_text, run_text  # noqa: E402

for seed in (21, 22):
    qrels, run = collection(seed, n_queries=16)
    (HERE / f"c{seed}.qrels").write_text(qrels_text(qrels))
    (HERE / f"c{seed}.run").write_text(run_text({q: d for q, d in run.items() if d}, tag=f"run{seed}"))
