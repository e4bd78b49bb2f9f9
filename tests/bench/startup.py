"""How long ``relevance-explainer evaluate`` takes on a small file, start to exit, as a CI job runs it.

The command is started as a new process (the installed ``relevance-explainer`` script beside
this Python), on the golden set's qrels and baseline run (100 queries, 3,000 results), with
trec_eval's default measures, ``repeat`` times one after the other after one unmeasured run (so
that the files and Python's bytecode cache are warm, as in a CI job's second step).
Each time is the wall clock from ``Popen`` to exit. Goal: a median under 0.3 s on a quiet machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

STARTUP_GOAL_S = 0.3


def command() -> list[str]:
    """The installed script, or the module where the script is not installed (a checkout run with any Python)."""
    script = Path(sys.executable).with_name("relevance-explainer")
    return [str(script)] if script.exists() else [sys.executable, "-m", "explainer.cli"]


def measure_startup(repeat: int = 10) -> dict:
    """The command's wall time on the golden set, ``repeat`` times: each, and their median, in seconds."""
    from explainer.evaluation import golden

    paths = golden.paths()
    argv = [*command(), "evaluate", str(paths["qrels"]), str(paths["baseline"])]
    # Python's bytecode cache as a user's machine keeps it: where PYTHONDONTWRITEBYTECODE is set
    # (some sandboxes set it) every start would compile every module again, seconds of it.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(argv, check=True, capture_output=True, env=env)  # the page cache and the bytecode, warm
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - started)
    return {
        "command": " ".join(["relevance-explainer", *argv[len(command()) :]]),
        "seconds": [round(t, 4) for t in times],
        "median_s": round(statistics.median(times), 4),
        "load_average": round(os.getloadavg()[0], 2),
    }


if __name__ == "__main__":
    result = measure_startup()
    median = result["median_s"]
    verdict = "met" if median < STARTUP_GOAL_S else "NOT MET"
    print(
        f"{result['command']}: median {median:.3f} s of {len(result['seconds'])} (goal < {STARTUP_GOAL_S} s: {verdict})"
    )
    print(f"each: {', '.join(f'{t:.3f}' for t in result['seconds'])}; load average {result['load_average']}")
