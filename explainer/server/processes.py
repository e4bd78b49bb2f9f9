"""The server processes of ``--num-procs``: forked, replaced when they die, stopped with their parent."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

from explainer.server.logs import log

# What stops the server processes of --num-procs, sent to their parent (Windows has no SIGHUP,
# nor --num-procs).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# The most server processes --num-procs replaces after they die by themselves (as Tornado's).
MAX_RESTARTS = 100


def fork_serving_processes(count: int) -> None:
    """Fork ``count`` server processes and return in each of them; the parent stays here until they
    have all stopped, then exits.

    Tornado's own fork_processes only waits in its parent: a signal to the parent alone (a
    service manager's SIGTERM, a kill) left its children serving the port, and Ctrl+C printed
    its KeyboardInterrupt traceback. This parent passes SIGINT, SIGTERM and SIGHUP on to every
    child as SIGTERM and exits quietly once they are gone; on Linux a child also stops when its
    parent dies any other way (PR_SET_PDEATHSIG), SIGKILL included. A child that dies by itself
    is replaced, as Tornado does.
    """
    parent = os.getpid()
    children: dict[int, int] = {}
    stopping = False

    def fork(number: int) -> bool:
        """Start server process ``number``; True in the new process."""
        pid = os.fork()
        if pid:
            children[pid] = number
            return False
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        _stop_with_parent(parent)
        return True

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    for number in range(count):
        if fork(number):
            return
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    restarts = 0
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        number = children.pop(pid, None)
        if number is None or stopping or os.waitstatus_to_exitcode(status) == 0:
            continue
        restarts += 1
        if restarts > MAX_RESTARTS:
            log.error("Server processes keep dying; stopping")
            stop(None, None)
            continue
        log.warning(
            "Server process %d (pid %d) ended with %d; starting another", number, pid, os.waitstatus_to_exitcode(status)
        )
        if fork(number):
            return
    sys.exit(0)


def _stop_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGTERM when its parent dies (Linux); elsewhere nothing."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (AttributeError, OSError, TypeError):
        return
    if os.getppid() != parent:  # it died before that took hold
        os._exit(0)
