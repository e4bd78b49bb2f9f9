"""Uploads read in a worker process held to memory and CPU limits: a bad file ends its worker, never the server."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from explainer.evaluation import DEFAULT_MEASURES
from explainer.workbench.upload_worker import PRELOAD, Job, Outcome, resident_bytes, run_job, work

QRELS = b"q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n"
RUN = b"q1 Q0 b 1 3.0 t\nq1 Q0 a 2 2.0 t\nq2 Q0 c 1 1.0 t\n"


def job(slot: str, raw: bytes, files: dict | None = None, **limits) -> Job:
    return Job(slot, f"my.{slot}", raw, files or {}, DEFAULT_MEASURES, 1, {}, 30, **limits)


def test_a_file_is_read_and_once_the_files_are_complete_evaluated_and_tabled():
    qrels = work(job("qrels", QRELS))
    assert qrels.ok and qrels.evaluated is None and qrels.parsed.to_dict() == {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}
    done = work(job("baseline", RUN, {"qrels": ("my.qrels", qrels.parsed)}))
    assert done.ok and done.evaluated.qids == ("q1", "q2")
    table = json.loads(done.table_text)
    assert table["qids"] == ["q1", "q2"]
    names = [m["name"] for m in table["measures"]]
    # AP by hand: q1's relevant document at rank 2 (1/2), q2's at rank 1 (1).
    assert table["runs"][0]["values"][names.index("map")] == [0.5, 1.0]
    assert table["runs"][0]["means"][names.index("map")] == 0.75


def test_the_fork_server_imports_what_a_worker_runs_and_nothing_of_panel_bokeh_or_the_figures():
    """Each worker is forked from the fork server with its imports done: what evaluating an upload
    needs (scipy's statistics too), and not Panel, Bokeh or a figure, which a worker never uses
    (importing Panel takes about 1.1 s of CPU). In a new process: the preload, then a worker's
    jobs (judgments, a baseline, a candidate compared with it), then what was imported."""
    script = f"""
import sys
for name in {list(PRELOAD)!r}:
    __import__(name)
preloaded = set(sys.modules)
from explainer.evaluation import DEFAULT_MEASURES
from explainer.workbench.data import with_file
from explainer.workbench.upload_worker import Job, work
files = {{}}
for slot, raw in (("qrels", {QRELS!r}), ("baseline", {RUN!r}), ("candidate", {RUN!r})):
    done = work(Job(slot, "my." + slot, raw, files, DEFAULT_MEASURES, 1, {{}}, 30))
    assert done.ok, done.lines
    files = with_file(files, slot, "my." + slot, done.parsed)
assert done.evaluated.comparison is not None
print(" ".join(sorted(preloaded)))
print(" ".join(sorted(set(sys.modules) - preloaded)))
"""
    preloaded, after = (
        line.split()
        for line in subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    )
    assert {"explainer.workbench.data", "explainer.workbench.upload", "scipy.stats"} <= set(preloaded)
    unwanted = [
        m for m in preloaded + after if m.split(".")[0] in ("panel", "bokeh") or m.startswith("explainer.figures")
    ]
    assert unwanted == []
    # The jobs themselves import next to nothing: no scipy, statsmodels or pandas of their own.
    assert [m for m in after if m.split(".")[0] in ("scipy", "statsmodels", "pandas")] == []


def test_a_worker_reads_in_a_process_of_its_own_and_says_what_was_wrong_in_lines():
    outcome = run_job(job("qrels", gzip.compress(gzip.compress(QRELS))))
    assert outcome.lines == [
        "my.qrels: is gzip inside gzip; only one layer is unpacked: gunzip it once, then read the result"
    ]
    assert run_job(job("qrels", QRELS)).parsed.to_dict()["q2"] == {"c": 1}


def test_a_file_that_needs_more_memory_than_a_worker_may_have_ends_the_worker_alone():
    big = b"".join(b"q%d Q0 doc-%d 1 1.0 t\n" % (q, d) for q in range(2_000) for d in range(200))
    outcome = run_job(job("baseline", big, memory_limit=16 << 20))
    assert outcome.lines == [
        "my.baseline: needs more than the 16 MB of memory a file may take here; "
        "evaluate it from the command line (relevance-explainer evaluate)"
    ]
    assert resident_bytes(os.getpid()) is not None  # this process (the server's part) goes on


@pytest.mark.slow  # it spends the second of CPU it tests, and the second RLIMIT_CPU may add: some 3 s
def test_a_file_that_takes_more_cpu_than_a_worker_may_have_ends_the_worker_alone():
    # Double spaces: not the compiled fast path. 6 million lines take some 5 s of CPU here, well
    # past the limit: 1 s, plus up to 1 s more, since RLIMIT_CPU counts whole seconds from the
    # worker's start. (2 million lines took 1.2 to 1.8 s, and the test passed or failed by luck.)
    one_query = b"".join(b"QID  Q0  doc-%d  1  1.0  t\n" % d for d in range(400))
    big = b"".join(one_query.replace(b"QID", b"q%d" % q) for q in range(15_000))
    outcome = run_job(job("baseline", big, cpu_limit_s=1, memory_limit=8 << 30))
    assert outcome.lines == [
        "my.baseline: took more than the 1 s of computing a file may take here; "
        "evaluate it from the command line (relevance-explainer evaluate)"
    ]


def test_an_outcome_without_lines_is_ok():
    assert Outcome().ok and not Outcome(lines=["x"]).ok
