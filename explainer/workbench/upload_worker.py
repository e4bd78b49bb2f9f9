"""An uploaded file read, evaluated and tabled in a process of its own, held to memory and CPU limits.

The server's thread answers every session's clicks; a file that is slow or large to read must
cost its own reader, never the class. So each upload is worked on in a worker process started
by a fork server (``multiprocessing``'s "forkserver": a clean process, started once, that
forks each worker; never a ``fork`` of the threaded server itself), at a lower priority than
the server (``NICE``), with ``CPU_LIMIT_S`` seconds of CPU (the kernel ends it past that) and
``MEMORY_LIMIT_BYTES`` of resident memory more than it started with (watched from the server
every ``WATCH_EVERY_S``: an address-space limit does not fit, since the worker inherits the fork
server's numpy and scipy, which reserve three times the memory they use). A worker that passes
either, or dies, ends alone, and its reader gets one line that says why. The fork server imports
what a worker runs (``PRELOAD``: the readers, the evaluation and scipy's statistics) once, so
that no upload waits for those imports; none of it is Panel's or Bokeh's. Only pyarrow, which
the readers' fast path takes for a large file, is imported by the worker that needs it (0.04 s).

The worker returns the file read (a ``Qrels``, a ``Run`` or texts), and, once the session has
judgments and a run, their evaluation with the queries table already as JSON text, so that
the server's thread only hands that text on (``Workbench``). A file the page says more files
follow (several runs dropped at once) is read only: the last one evaluates them all, once.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MEMORY_LIMIT_BYTES = 1 << 30
"""Resident memory a worker may add to what it started with: 1 GiB (a 64 MB run of 1.5 million
lines takes about a quarter of it to read and evaluate)."""

CPU_LIMIT_S = 60
"""CPU seconds a worker may use (reading and evaluating a 64 MB run takes under 10)."""

WALL_LIMIT_S = 180
"""Seconds a worker may take in all, waiting for the CPU included, before it is ended."""

WORKERS = 3
"""Uploads read at once in one server process (each client has at most ``upload_budget.PER_CLIENT``
in progress, so one machine's uploads leave a worker for another's)."""

NICE = 10
"""How much lower a worker's priority is than the server's: on two cores, clicks go first."""

WATCH_EVERY_S = 0.05
"""How often the server looks at a worker's memory."""

PROGRESS_EVERY_S = 0.25
"""A worker reports its progress at most this often."""


@dataclass
class Job:
    """One upload to work on: the file, the session's other files (read before), and how to evaluate."""

    slot: str
    name: str
    raw: bytes
    files: dict[str, tuple[str, Any]]
    measures: tuple
    relevance_level: int
    compare_options: dict = field(default_factory=dict)
    figure_depth: int = 30
    memory_limit: int = MEMORY_LIMIT_BYTES
    cpu_limit_s: int = CPU_LIMIT_S
    wall_limit_s: float = WALL_LIMIT_S
    evaluate: bool = True
    """False: the file is read only (more of the reader's files follow it), and evaluated with the last."""


@dataclass
class Outcome:
    """What a worker made of a job: the file read and, when the files are complete, their
    evaluation and table (JSON text); or ``lines`` that say why not, for the reader."""

    parsed: Any = None
    evaluated: Any = None
    table_text: str = ""
    lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.lines


def work(job: Job) -> Outcome:
    """The job done in this process (the worker's body; tests call it directly)."""
    from explainer.workbench import data
    from explainer.workbench.upload import UploadError, read_upload

    try:
        parsed = read_upload(job.slot, job.name, job.raw, _progress_to_parent())
        if not job.evaluate:
            return Outcome(parsed=parsed)
        files = data.with_file(job.files, job.slot, job.name, parsed)
        evaluated = data.evaluate_files(files, job.measures, job.relevance_level, **job.compare_options)
    except UploadError as error:
        return Outcome(lines=list(error.lines))
    except MemoryError:
        return Outcome(lines=[f"{job.name}: too large to read here; evaluate it from the command line"])
    except ValueError as error:  # the files do not go together (no shared query, ...)
        return Outcome(lines=[str(error)])
    if evaluated is None:
        return Outcome(parsed=parsed)
    table = data.page_table(evaluated, job.figure_depth)
    return Outcome(parsed=parsed, evaluated=evaluated, table_text=json.dumps(table, separators=(",", ":")))


# -- the worker's side ---------------------------------------------------------------------------

_conn = None  # the worker's end of its pipe, for progress reports


def _progress_to_parent() -> Callable[[int, int], None] | None:
    if _conn is None:
        return None
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S:
            last[0] = now
            _conn.send(("progress", done, total))

    return progress


def _worker_main(conn, job: Job) -> None:
    """The worker process: lower priority, a CPU limit, the job, its outcome sent back."""
    global _conn
    _conn = conn
    os.nice(NICE)
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (spent + job.cpu_limit_s, spent + job.cpu_limit_s + 5))
    try:
        outcome = work(job)
    except Exception:  # never a traceback, nor a reader's data, in the server's log
        outcome = Outcome(lines=[f"{job.name} could not be used."])
    conn.send(("done", outcome))
    conn.close()


# -- the server's side ---------------------------------------------------------------------------

# What the fork server imports before it forks a worker (0.85 to 1.1 s of CPU on an idle machine).
PRELOAD = ("explainer.workbench.upload_worker", "explainer.workbench.upload", "explainer.workbench.data", "scipy.stats")

_context_lock = threading.Lock()
_context = None


def _fork_server():
    """The process's fork server, started on the first upload, with the readers already imported."""
    global _context
    with _context_lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(list(PRELOAD))
            _context = context
        return _context


def warm() -> None:
    """Start the fork server now, in the background: it imports the readers in a process of its own
    (seconds on a busy machine), so that a page's first upload does not wait for that."""
    import multiprocessing.forkserver

    _fork_server()
    multiprocessing.forkserver.ensure_running()


def resident_bytes(pid: int) -> int | None:
    """A process's resident memory in bytes (Linux's /proc), or None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except (OSError, IndexError, ValueError):
        return None


def run_job(job: Job, progress: Callable[[int, int], None] | None = None) -> Outcome:
    """Work on ``job`` in a worker process and wait for it (call this off the server's thread).

    ``progress(done, total)`` gets the worker's reports; the job's bytes are let go once the
    worker has them. The worker is ended when its resident
    memory grows by more than the job's ``memory_limit``, after its ``wall_limit_s``, or when the
    kernel ends it for its CPU (``cpu_limit_s``); the outcome then says so in one line.
    """
    context = _fork_server()
    ours, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_worker_main, args=(theirs, job), daemon=True)
    process.start()
    theirs.close()
    job.raw = b""  # the worker has its copy: the server lets go of its own
    started = time.monotonic()
    base = None
    ended = None
    outcome = None
    try:
        while outcome is None:
            if ours.poll(WATCH_EVERY_S):
                try:
                    message = ours.recv()
                except EOFError:  # the worker died before it answered
                    break
                if message[0] == "progress" and progress is not None:
                    progress(message[1], message[2])
                elif message[0] == "done":
                    outcome = message[1]
                continue
            resident = resident_bytes(process.pid)
            if resident is not None:
                base = resident if base is None else base
                if resident - base > job.memory_limit:
                    ended = f"needs more than the {job.memory_limit >> 20:,} MB of memory a file may take here"
                    break
            if time.monotonic() - started > job.wall_limit_s:
                ended = f"took more than the {job.wall_limit_s:.0f} s a file may take here"
                break
            if not process.is_alive() and not ours.poll(0):
                break
    finally:
        if process.is_alive() and outcome is None:
            process.kill()
        process.join(10)
        ours.close()
    if outcome is not None:
        return outcome
    if ended is None:
        code = process.exitcode
        ended = (
            f"took more than the {job.cpu_limit_s} s of computing a file may take here"
            if code in (-signal.SIGXCPU, -signal.SIGKILL)
            else "could not be read here"
        )
    return Outcome(lines=[f"{job.name}: {ended}; evaluate it from the command line (relevance-explainer evaluate)"])
