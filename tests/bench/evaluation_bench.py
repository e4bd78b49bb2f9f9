"""Speed and memory of evaluating a large run: explainer.evaluation beside pytrec_eval (and ranx if installed).

    .venv/bin/python tests/bench/evaluation_bench.py [--queries 10000] [--depth 1000] [--repeat 3] [--no-ranx]
        [--all-trec] [--trec-eval PATH]

Generates, once, into a temporary directory (deleted afterwards) a run of QUERIES x DEPTH
lines (10 million by default) and 400,000 qrels lines, then times each tool in its own
subprocess, one after the other, REPEAT times: read both files and compute P@10, recall@100,
RR, AP and NDCG@10 for every query and their means. Each subprocess reports its wall time
and its peak resident memory (ru_maxrss), and its means, which must agree between tools.
Prints one table: medians, and the ratio to pytrec_eval measured in the same run.
Goal: at most half of pytrec_eval's time, at most 1 GB resident.

With ``--all-trec``, each tool computes every measure of trec_eval's ``-m all_trec`` it has
instead (pytrec_eval's trec_eval 9.0.8 has all but unj, rbp and rbp_resid; ranx is left out),
and the same five means are compared. ``--trec-eval PATH`` adds trec_eval's own binary (built
from its public source; it is on neither Debian nor PyPI), timed as a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

MEASURES = ("P@10", "recall@100", "RR", "AP", "NDCG@10")


def generate(directory: str, n_queries: int, depth: int, qrels_lines: int, seed: int = 7) -> tuple[str, str]:
    """A run file (scores with some ties) and a qrels file whose judged documents are partly in the run."""
    rng = np.random.default_rng(seed)
    run_path = os.path.join(directory, "run.txt")
    qrels_path = os.path.join(directory, "qrels.txt")
    per_query = qrels_lines // n_queries
    collection = 5_000_000
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for start in range(0, n_queries, 250):
            run_lines, qrels_part = [], []
            for q in range(start, min(start + 250, n_queries)):
                qid = f"q{q:05d}"
                docs = rng.choice(collection, size=depth + per_query, replace=False)
                scores = np.sort(np.round(rng.gamma(2.0, 3.0, depth), 3))[::-1]  # rounded: some ties
                run_lines.extend(
                    f"{qid} Q0 D{d:07d} {i + 1} {s:.3f} bench\n"
                    for i, (d, s) in enumerate(zip(docs[:depth].tolist(), scores.tolist(), strict=True))
                )
                # judged: some of the run's documents (more near the top), and some it missed
                in_run = np.unique(
                    np.concatenate([rng.choice(50, 15, replace=False), rng.choice(depth, 10, replace=False)])
                )
                judged = np.concatenate([docs[in_run], docs[depth : depth + per_query - len(in_run)]])
                grades = rng.choice([0, 0, 1, 1, 2, 3], size=len(judged))
                qrels_part.extend(
                    f"{qid} 0 D{d:07d} {g}\n" for d, g in zip(judged.tolist(), grades.tolist(), strict=True)
                )
            run.writelines(run_lines)
            qrels.writelines(qrels_part)
    return qrels_path, run_path


TREC_NAMES = ("P_10", "recall_100", "recip_rank", "map", "ndcg_cut_10")
"""The five measures' names as trec_eval prints them."""


def child(tool: str, qrels_path: str, run_path: str, all_trec: bool = False) -> None:
    """Load both files and evaluate, as one would with ``tool``; print seconds, peak RSS and the means as JSON."""
    start = time.perf_counter()
    rss_of = resource.RUSAGE_SELF
    if tool == "explainer":
        from explainer.catalog import names
        from explainer.evaluation import evaluate, read_qrels, read_run
        from explainer.evaluation.measures import Measure

        asked = ["P@10", "recall@100", "rr", "ap", "ndcg@10"]
        if all_trec:
            asked = [Measure.named(n) for n in names.parse("all_trec")]
        result = evaluate(read_qrels(qrels_path), read_run(run_path), asked)
        means = [result.means[n] for n in TREC_NAMES]
    elif tool == "pytrec_eval":
        import pytrec_eval

        with open(qrels_path) as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(run_path) as f:
            run = pytrec_eval.parse_run(f)
        asked = {"P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10"}
        if all_trec:
            asked = set(pytrec_eval.supported_measures) - {"runid"}
        results = pytrec_eval.RelevanceEvaluator(qrels, asked).evaluate(run)
        means = [float(np.mean([r[n] for r in results.values()])) for n in TREC_NAMES]
    elif tool.startswith("trec_eval="):
        out = subprocess.run(
            [
                tool.removeprefix("trec_eval="),
                *(
                    ["-m", "all_trec"]
                    if all_trec
                    else [f"-m{m}" for m in ("P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10")]
                ),
                qrels_path,
                run_path,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        found = {
            line.split()[0]: float(line.split()[2])
            for line in out.stdout.splitlines()
            if line.split()[1] == "all" and line.split()[0] in TREC_NAMES
        }
        means = [found[n] for n in TREC_NAMES]
        rss_of = resource.RUSAGE_CHILDREN
    elif tool == "ranx":
        from ranx import Qrels, Run, evaluate

        qrels = Qrels.from_file(qrels_path, kind="trec")
        run = Run.from_file(run_path, kind="trec")
        names = ["precision@10", "recall@100", "mrr", "map", "ndcg@10"]
        scores = evaluate(qrels, run, names)
        means = [float(scores[n]) for n in names]
    else:
        raise SystemExit(f"unknown tool {tool}")
    seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(rss_of).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss_mb, "means": means}))


def measure(tool: str, qrels_path: str, run_path: str, all_trec: bool = False) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", tool, qrels_path, run_path, *(["--all-trec"] if all_trec else [])],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--qrels-lines", type=int, default=400_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out (it takes minutes)")
    parser.add_argument(
        "--all-trec", action="store_true", help="every measure of trec_eval's -m all_trec each tool has"
    )
    parser.add_argument("--trec-eval", metavar="PATH", help="trec_eval's binary, timed beside the others")
    parser.add_argument("--child", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, all_trec=args.all_trec)
        return

    tools = ["explainer", "pytrec_eval"]
    if args.trec_eval:
        tools.append(f"trec_eval={args.trec_eval}")
    if not args.no_ranx and not args.all_trec:
        try:
            import ranx  # noqa: F401

            tools.append("ranx")
        except ImportError:
            print("ranx is not installed: left out", file=sys.stderr)
    with tempfile.TemporaryDirectory() as directory:
        t = time.perf_counter()
        qrels_path, run_path = generate(directory, args.queries, args.depth, args.qrels_lines)
        sizes = {p: os.path.getsize(p) / 1e6 for p in (qrels_path, run_path)}
        print(
            f"Generated {args.queries * args.depth:,} run lines ({sizes[run_path]:.0f} MB) and "
            f"{args.qrels_lines:,} qrels lines ({sizes[qrels_path]:.0f} MB) in {time.perf_counter() - t:.0f} s",
            file=sys.stderr,
        )
        runs: dict[str, list[dict]] = {tool: [] for tool in tools}
        for round_ in range(args.repeat):
            for tool in tools:  # interleaved, so that every tool meets the same moments of a shared machine
                if tool == "ranx" and round_ > 0 and args.repeat > 1 and os.environ.get("BENCH_RANX_ONCE"):
                    continue
                runs[tool].append(measure(tool, qrels_path, run_path, args.all_trec))
                print(f"  round {round_ + 1} {tool.split('=')[0]}: {runs[tool][-1]['seconds']:.1f} s", file=sys.stderr)

    reference = statistics.median(r["seconds"] for r in runs["pytrec_eval"])
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Python {platform.python_version()}"
    )
    print(
        f"Load 1 qrels file ({args.qrels_lines:,} lines) and 1 run ({args.queries:,} queries x {args.depth:,} results),"
    )
    asked = "every measure of -m all_trec each tool has" if args.all_trec else ", ".join(MEASURES)
    print(f"evaluate {asked} per query and their means; medians of {args.repeat} runs, each tool in its own process")
    print()
    header = f"{'tool':<14}{'time (s)':>10}  {'runs (s)':>30}{'peak RSS (MB)':>15}{'x pytrec_eval':>15}  goal"
    print(header)
    print("-" * (len(header) + 30))
    for tool, results in runs.items():
        seconds = statistics.median(r["seconds"] for r in results)
        rss = statistics.median(r["rss_mb"] for r in results)
        each = ", ".join(f"{r['seconds']:.1f}" for r in results)
        goal = ""
        if tool == "explainer":
            met_time = seconds <= reference / 2
            met_rss = rss <= 1024
            goal = f"time <= 0.5x: {'met' if met_time else 'NOT MET'}; RSS <= 1 GB: {'met' if met_rss else 'NOT MET'}"
        print(f"{tool.split('=')[0]:<14}{seconds:>10.1f}  {each:>30}{rss:>15.0f}{seconds / reference:>14.2f}x  {goal}")
    print()
    print("Means (must agree):")
    for tool, results in runs.items():
        print(
            f"  {tool.split('=')[0]:<12} "
            + "  ".join(f"{name} {value:.6f}" for name, value in zip(MEASURES, results[0]["means"], strict=True))
        )
    ours = np.array(runs["explainer"][0]["means"])
    for tool in tools[1:]:
        theirs = np.array(runs[tool][0]["means"])
        printed = tool.startswith("trec_eval=")  # trec_eval's means as it prints them: four decimals
        if not np.allclose(ours, theirs, rtol=0, atol=5e-5 if printed else 1e-9):
            print(f"  DISAGREE with {tool}: largest difference {np.abs(ours - theirs).max():.2e}")


if __name__ == "__main__":
    main()
