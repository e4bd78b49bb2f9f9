"""What uploads may hold at once in one server process: one file per session, a few per client, and a budget of bytes.

A file is held in the server's memory from its first piece until its worker has read it
(``upload_worker.py``). Each upload reserves its announced size when it starts and gives it
back when it is read, refused, abandoned or its page closes; an upload whose pieces stop
coming for ``STALL_S`` seconds is abandoned. So, in one server process:

- a session sends one file at a time (the page queues the rest);
- a client (one network address; see README "Serving safely") has at most ``PER_CLIENT``
  uploads in progress, so that one machine cannot take every worker;
- at most ``BYTES_IN_FLIGHT`` bytes of files are held at once, so that unfinished uploads
  cannot pin the server's memory. Under ``--num-procs N`` each process has its own budget,
  N times this in all;
- a client's pieces are taken at ``PIECE_BYTES_PER_S`` on average (``Pace``): taking a piece
  costs the thread that answers every click some 10 to 20 ms a MiB (the more on a slower or
  busier machine), and a client sending as fast as it can would keep that thread busy for
  everyone. The answer to a piece waits until the client is back under its rate; the page
  sends the next piece only once answered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

BYTES_IN_FLIGHT = 256 << 20
"""Bytes of uploaded files one server process holds at once: four of the largest (64 MB)."""

PER_CLIENT = 3
"""Uploads one client may have in progress at once: a team of three behind one address."""

STALL_S = 30.0
"""An upload whose next piece has not come for this long is abandoned (a piece is a MiB)."""


PIECE_BYTES_PER_S = 8 << 20
"""Bytes of pieces one client's uploads are taken at, on average: 8 MiB a second (a 64 MB file in
eight seconds; a school's Wi-Fi rarely sends faster): a sixth of the server's thread where a MiB
costs 21 ms, as on a slow 2-core machine (16 MiB a second took a third of its thread)."""

PIECE_BURST_BYTES = 4 << 20
"""Bytes a client may send at once before the pace holds it: files of up to 4 MiB never wait."""


class BudgetRefused(ValueError):
    """An upload the budget has no room for, with the line the reader reads."""


class Ticket:
    """One upload's place in the budget: its session, its client and its bytes, until released."""

    def __init__(self, budget: UploadBudget, session: object, client: str, size: int, now: float):
        self.budget, self.session, self.client, self.size = budget, session, client, size
        self.last_seen = now
        self.reading = False  # its worker has it: no longer waiting for pieces
        self.released = False

    def touch(self) -> None:
        """A piece arrived."""
        self.last_seen = self.budget.clock()

    def stalled(self, now: float) -> bool:
        return not self.reading and now - self.last_seen > self.budget.stall_s

    def release(self) -> None:
        self.budget.release(self)


class UploadBudget:
    """The uploads one server process holds (see the module's opening)."""

    def __init__(
        self,
        bytes_in_flight: int = BYTES_IN_FLIGHT,
        per_client: int = PER_CLIENT,
        stall_s: float = STALL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.bytes_in_flight, self.per_client, self.stall_s, self.clock = bytes_in_flight, per_client, stall_s, clock
        self._lock = threading.Lock()
        self._held: list[Ticket] = []

    def reserve(self, session: object, client: str, size: int) -> Ticket:
        """A ticket for an upload of ``size`` bytes; ``BudgetRefused`` when there is no room for it."""
        with self._lock:
            now = self.clock()
            for ticket in [t for t in self._held if t.stalled(now)]:
                self._drop(ticket)
            if any(t.session is session for t in self._held):
                raise BudgetRefused("one file at a time: wait until the file before it has been read")
            if sum(t.client == client for t in self._held) >= self.per_client:
                raise BudgetRefused(
                    f"{self.per_client} uploads from your network address are in progress: try again once one is read"
                )
            if self.held_bytes + size > self.bytes_in_flight:
                raise BudgetRefused("the server is busy reading other uploads: try again in a minute")
            ticket = Ticket(self, session, client, size, now)
            self._held.append(ticket)
            return ticket

    def release(self, ticket: Ticket) -> None:
        with self._lock:
            self._drop(ticket)

    def _drop(self, ticket: Ticket) -> None:
        ticket.released = True
        if ticket in self._held:
            self._held.remove(ticket)

    @property
    def held_bytes(self) -> int:
        return sum(t.size for t in self._held)

    @property
    def held(self) -> int:
        return len(self._held)


class Pace:
    """Each client's pieces held to ``bytes_per_s`` on average, ``burst_bytes`` in hand: a token
    bucket of bytes per client. ``wait`` says how long the answer to a piece should wait."""

    def __init__(
        self,
        bytes_per_s: float = PIECE_BYTES_PER_S,
        burst_bytes: float = PIECE_BURST_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.bytes_per_s, self.burst_bytes, self.clock = bytes_per_s, burst_bytes, clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (bytes in hand, when)

    def wait(self, client: str, n_bytes: int) -> float:
        """Seconds the answer to ``client``'s piece of ``n_bytes`` waits (0 while under its rate)."""
        with self._lock:
            now = self.clock()
            in_hand, then = self._buckets.get(client, (self.burst_bytes, now))
            in_hand = min(self.burst_bytes, in_hand + (now - then) * self.bytes_per_s) - n_bytes
            self._buckets[client] = (in_hand, now)
            if len(self._buckets) > 1000:  # forget the clients whose buckets are full again
                full_for = self.burst_bytes / self.bytes_per_s
                self._buckets = {c: b for c, b in self._buckets.items() if now - b[1] < full_for or c == client}
            return max(0.0, -in_hand / self.bytes_per_s)


BUDGET = UploadBudget()
"""This server process's budget (each process of ``--num-procs`` has its own)."""

PACE = Pace()
"""This server process's pace of pieces per client."""
