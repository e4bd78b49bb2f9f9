"""Memory release: the C heap's free pages handed back to the system once sessions (and class channels) stop ending."""

from __future__ import annotations

import ctypes
import weakref


def _c_malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):
        return None


# Hands the C heap's free pages back to the system. It only helps a server whose Python objects
# live on that heap: ``relevance-explainer serve`` runs with PYTHONMALLOC=malloc for this (cli.py).
MALLOC_TRIM = _c_malloc_trim()
# Sessions tend to end in waves (a class leaving): the memory goes back once none has ended for
# this long, after Panel has collected their garbage (5 s after the last one ends). Trimming takes
# some 30 ms with a hundred sessions' worth of freed memory.
RELEASE_AFTER_S = 10.0
_release_timers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a server's IO loop: its pending release


def release_memory_soon(session_context) -> None:
    """Give the memory of ended sessions (or closed class channels) back to the system, once they
    stop ending for a while (a Bokeh session-destroyed callback, which passes its context, or a
    channel's close)."""
    from tornado.ioloop import IOLoop

    if MALLOC_TRIM is None:
        return
    loop = IOLoop.current()
    if loop in _release_timers:
        loop.remove_timeout(_release_timers[loop])

    def release() -> None:
        del _release_timers[loop]
        MALLOC_TRIM(0)

    _release_timers[loop] = loop.call_later(RELEASE_AFTER_S, release)
