"""Python's garbage collections held off while sessions are made in a burst.

A full collection stops the server and walks every object the sessions hold: with some 300
sessions open, well over 100 ms, with every reader's click waiting. Making sessions allocates
enough to set one off every few seconds, so a class arriving at once (or a flood of pages) met
pause after pause. While sessions are being made one after another (``limiters.Turns``), the
collector waits; it runs again once no session is waiting to be made. Meanwhile the young
generations (objects made since the last collections, a few milliseconds to walk) are collected
every ``MOST_HELD_S``, so that a stream of new sessions keeps little cyclic garbage; the full
collection waits for the end of the stream. Reference counting frees everything else as usual.
"""

from __future__ import annotations

import gc
import time

MOST_HELD_S = 10.0
"""The longest the young generations wait while the collector is held: past it, they are collected."""


class HeldCollections:
    """``busy(True)`` when sessions start waiting to be made, ``busy(False)`` when none is left."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.since: float | None = None  # when this hold began, if the collector is held by it

    def busy(self, waiting: bool) -> None:
        if waiting and self.since is None and gc.isenabled():
            gc.disable()
            self.since = self.clock()
        elif waiting and self.since is not None and self.clock() - self.since > MOST_HELD_S:
            gc.collect(1)  # the young generations only: the old one is what takes long
            self.since = self.clock()
        elif not waiting and self.since is not None:
            self.since = None
            gc.enable()
