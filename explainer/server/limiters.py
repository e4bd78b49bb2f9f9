"""Per-client limiters: how often a client may do something, and how many of a thing it may hold at once.

A client is what ``clients.client_of`` says. Each limiter lives in one server process (under
``--num-procs N`` the kernel hands a client's connections to any of the N, so a client may get
up to N times as much); its memory is bounded by forgetting the clients that are back to nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

# Past this many clients remembered, those back at their full allowance are forgotten.
FORGET_PAST = 10_000


class RateLimit:
    """A token bucket per client: ``burst`` at once, then ``per_second`` more each second.

    ``allow(client)`` takes one if there is one. The bucket refills continuously, so a client
    that pauses gets its burst back in ``burst / per_second`` seconds."""

    def __init__(self, burst: int, per_second: float, clock: Callable[[], float] = time.monotonic):
        self.burst, self.per_second, self.clock = burst, per_second, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, when counted)

    def available(self, client: str) -> float:
        """How many the client may take now."""
        if client not in self._buckets:
            return float(self.burst)
        tokens, when = self._buckets[client]
        return min(float(self.burst), tokens + (self.clock() - when) * self.per_second)

    def allow(self, client: str) -> bool:
        """Take one for ``client``; False (and nothing taken) when it has none left."""
        tokens = self.available(client)
        if tokens < 1:
            return False
        if len(self._buckets) >= FORGET_PAST:
            self._forget_the_full()
        self._buckets[client] = (tokens - 1, self.clock())
        return True

    def give_back(self, client: str) -> None:
        """Return one taken for ``client`` (a try that turned out not to count)."""
        if client in self._buckets:
            self._buckets[client] = (min(float(self.burst), self.available(client) + 1), self.clock())

    def wait(self, client: str) -> float:
        """The seconds until ``client`` may take one again (0 when it may now)."""
        return max(0.0, (1 - self.available(client)) / self.per_second)

    def _forget_the_full(self) -> None:
        for client in [c for c in self._buckets if self.available(c) >= self.burst]:
            del self._buckets[client]


class CountLimit:
    """At most ``most`` things held at once per client (open websockets): ``take`` one, ``give_back`` it."""

    def __init__(self, most: int):
        self.most = most
        self._held: dict[str, int] = {}

    def held(self, client: str) -> int:
        return self._held.get(client, 0)

    def take(self, client: str) -> bool:
        """One more for ``client``; False (nothing taken) when it holds ``most`` already."""
        held = self.held(client)
        if held >= self.most:
            return False
        self._held[client] = held + 1
        return True

    def give_back(self, client: str) -> None:
        held = self.held(client) - 1
        if held > 0:
            self._held[client] = held
        else:
            self._held.pop(client, None)


class Share:
    """One connection's share of the server's thread: ``charge`` each message the thread time it
    took, and ``wait()`` says how long the next must wait so that, once ``burst_s`` of work is
    spent, the connection keeps the thread busy at most ``fraction`` of the time.

    The wait is the connection's alone: Tornado reads a websocket's next message only once the
    handler is done with the last, so a client that sends faster than its share is served more
    slowly, at no cost to the others, and nothing it sent is lost."""

    def __init__(self, fraction: float, burst_s: float, clock: Callable[[], float] = time.monotonic):
        self.fraction, self.burst_s, self.clock = fraction, burst_s, clock
        self.owed = 0.0  # seconds of work not yet paid back by the time since
        self.when = clock()

    def _settle(self) -> None:
        now = self.clock()
        self.owed = max(0.0, self.owed - (now - self.when) * self.fraction)
        self.when = now

    def charge(self, seconds: float) -> None:
        self._settle()
        self.owed += max(0.0, seconds)

    def wait(self) -> float:
        """The seconds the next message must wait (0 while the connection is within its share)."""
        self._settle()
        return max(0.0, (self.owed - self.burst_s) / self.fraction)


class Turns:
    """One at a time, with a gap between: ``async with turns.turn(): ...`` for work that holds the
    server's one thread (making a session), so that the clicks waiting meanwhile are answered between
    two of them rather than after all of them. The gap is ``gap_s``, or as long as the turn took
    times ``(1 - share) / share`` when that is longer: a flood of such work keeps the thread busy
    ``share`` of the time at most, on a slow machine as on a fast one. ``busy`` is told True as each
    turn starts and False once no turn is waiting."""

    def __init__(
        self,
        gap_s: float,
        share: float = 1.0,
        clock: Callable[[], float] = time.perf_counter,
        busy: Callable[[bool], None] | None = None,
    ):
        self.gap_s, self.share, self.clock, self.busy = gap_s, share, clock, busy
        self._lock: asyncio.Lock | None = None
        self._waiting = 0

    def gap(self, took_s: float) -> float:
        """The gap after a turn that took ``took_s`` seconds."""
        return max(self.gap_s, took_s * (1 - self.share) / self.share)

    @contextlib.asynccontextmanager
    async def turn(self):
        if self._lock is None:
            self._lock = asyncio.Lock()
        self._waiting += 1
        try:
            async with self._lock:
                if self.busy is not None:
                    self.busy(True)
                started = self.clock()
                try:
                    yield
                finally:
                    await asyncio.sleep(self.gap(self.clock() - started))
        finally:
            self._waiting -= 1
            if self.busy is not None and self._waiting == 0:
                self.busy(False)
