"""Speed of comparing many runs: ten runs of 100 queries, five measures, 10,000 permutations and bootstrap resamples.

    .venv/bin/python tests/bench/many_runs_bench.py [--repeat 5] [--resamples 10000]

Generates a qrels file's judgments and ten runs (deterministically), evaluates them once
(not timed), then times ``many_runs`` REPEAT times for each design, in this process: the
nine candidates against the baseline (Holm's correction, each pair's randomization test,
t-test and bootstrap interval of the difference, and each cell's bootstrap interval), and
all 45 pairs (the randomised Tukey HSD over each measure's query-by-run matrix, and each
cell's interval). ``./serve.sh bench`` runs it too, as rows of its table.
Goals (medians): under 2 s against the baseline, under 10 s for all pairs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from explainer.evaluation.many_runs import many_runs
from explainer.evaluation.measures import DEFAULT_MEASURES, evaluate

BASELINE_S = 2.0
ALL_PAIRS_S = 10.0
N_RUNS, N_QUERIES, DEPTH = 10, 100, 100


def generate(n_runs: int = N_RUNS, n_queries: int = N_QUERIES, depth: int = DEPTH, seed: int = 3):
    """``n_runs`` evaluations of one qrels with five measures: runs of ``depth`` results, each a little better."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, [{} for _ in range(n_runs)]
    for q in range(n_queries):
        qid = f"q{q:03d}"
        docs = [f"d{i}" for i in rng.choice(5000, size=depth + 20, replace=False)]
        grades = rng.choice([0, 0, 1, 1, 2, 3], size=40)
        qrels[qid] = dict(zip(docs[:40], grades.tolist(), strict=True))
        quality = np.array([qrels[qid].get(d, 0) for d in docs], dtype=float)
        for j, run in enumerate(runs):
            scores = quality * (0.5 + 0.05 * j) + rng.normal(0, 1.0, len(docs))
            top = np.argsort(-scores)[:depth]
            run[qid] = {docs[i]: float(scores[i]) for i in top}
    return [evaluate(qrels, run, DEFAULT_MEASURES) for run in runs]


def measure(repeat: int = 5, resamples: int = 10_000) -> dict:
    """Median seconds of ``many_runs`` against the baseline and over all pairs, ``repeat`` times each, in turns."""
    evaluations = generate()
    settings = {"n_permutations": resamples, "n_bootstrap": resamples}
    designs = ("baseline", "all-pairs")
    for design in designs:  # untimed: the first call imports scipy.stats (seconds on a busy machine)
        many_runs(evaluations, design, n_permutations=10, n_bootstrap=10)
    wall: dict[str, list[float]] = {design: [] for design in designs}
    cpu: dict[str, list[float]] = {design: [] for design in designs}
    for _ in range(repeat):
        for design in designs:  # in turns, so both meet the same moments of a shared machine
            started, started_cpu = time.perf_counter(), time.process_time()
            many_runs(evaluations, design, **settings)
            wall[design].append(time.perf_counter() - started)
            cpu[design].append(time.process_time() - started_cpu)
    return {
        "runs": N_RUNS,
        "queries": N_QUERIES,
        "measures": len(DEFAULT_MEASURES),
        "resamples": resamples,
        "repeat": repeat,
        **{
            f"{design}_s": {
                "median": statistics.median(wall[design]),
                "runs": wall[design],
                "cpu_median": statistics.median(cpu[design]),
            }
            for design in designs
        },
    }


def rows(result: dict) -> list[dict]:
    """The benchmark table's rows: each design's median against its goal (``bench.rows_table``'s shape)."""
    setup = (
        f"{result['runs']} runs x {result['queries']} queries, {result['measures']} measures, "
        f"{result['resamples']:,} permutations and resamples, median of {result['repeat']}"
    )
    out = []
    for key, label, limit in (
        ("baseline_s", f"Many runs: {result['runs'] - 1} candidates against the baseline", BASELINE_S),
        ("all-pairs_s", f"Many runs: all {result['runs'] * (result['runs'] - 1) // 2} pairs (Tukey HSD)", ALL_PAIRS_S),
    ):
        median = result[key]["median"]
        out.append(
            {
                # The process's CPU time too: on a shared machine the wall time waits for other work.
                "measure": f"{label} ({setup}; CPU {result[key]['cpu_median']:.2f} s)",
                "median": None,
                "p95": None,
                "value": round(median, 2),
                "unit": "s",
                "goal": f"< {limit:g} s",
                "met": median < limit,
            }
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    result = measure(args.repeat, args.resamples)
    for row in rows(result):
        print(f"{row['measure']}: {row['value']} s (goal {row['goal']}: {'met' if row['met'] else 'NOT MET'})")
    for design in ("baseline", "all-pairs"):
        part = result[f"{design}_s"]
        print(f"  {design}: " + ", ".join(f"{t:.2f}" for t in part["runs"]) + f" s; CPU {part['cpu_median']:.2f} s")


if __name__ == "__main__":
    main()
