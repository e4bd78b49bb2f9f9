"""How often a page may change the workbench: a token bucket, about as fast as an assessor grading by keyboard."""

from __future__ import annotations

import time
from collections.abc import Callable

PER_SECOND = 10.0
"""Changes a connection may send each second, on average: a grade a key press, held down."""

BURST = 20
"""Changes it may send at once after a pause (a few flips and a move in one gesture)."""


class RateLimit:
    """A token bucket: ``allow()`` is true while the sender keeps under ``per_second`` on average,
    with ``burst`` in hand. A refused change is not applied, but the page is shown Python's state
    again, which costs the server's thread a few milliseconds: what bounds a flood is the
    connection's share of that thread (``server.limiters.Share``)."""

    def __init__(self, per_second: float = PER_SECOND, burst: int = BURST, clock: Callable[[], float] = time.monotonic):
        self.per_second, self.burst, self.clock = per_second, burst, clock
        self.tokens = float(burst)
        self.last = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.per_second)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
