"""A well-behaved reader of the workbench, clicking on a clock: the abuse tests run one beside each attack.

The workbench (/evaluate) is the one page that still sends clicks to Python (the story and the
figure pages are light pages with no session). ``python -m support.reader URL [COOKIE]`` (from tests/)
opens ``SESSIONS`` sessions of URL's /evaluate (a few readers), says "ready", changes their
k (between ``K_VALUES``) in turns from a "start" line to a "stop" line on stdin, then prints
what it saw as a JSON line. It runs in a process of its own, so that only the server's delays count
(tests/test_abuse.py explains the measure), and imports neither Panel nor the explainer: on a
busy 2-core machine that import took 5 to 50 s, which every attack's reader paid before its
first click.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, websocket_connect

from support.bokeh_client import answer_waiters, as_map, models_of

# The workbench takes ten changes a second from a page (``workbench/rate_limit.py``: as fast as an
# assessor holding a key down) and shows the others Python's state again, which costs the server
# more than a change: a well-behaved reader clicks each session at most this often...
SESSION_CLICK_EVERY_S = 0.125
# ... and reads in a few sessions, in turns, so that a click is sent every CLICK_EVERY_S seconds,
# open loop (on time even while earlier ones wait): a frozen server shows in every click it delays.
SESSIONS = 4
CLICK_EVERY_S = SESSION_CLICK_EVERY_S / SESSIONS
# No attack may hold the test longer than this (a server that froze for minutes fails, bounded).
ATTACK_LIMIT_S = 60.0
# The page the reader reads, and the two cutoffs it switches between (its k), as its reader would.
READER_PATH = "/evaluate"
K_VALUES = (10, 5)
# What the workbench's page sends of its state (``server/messages.py`` WORKBENCH_PAGE_FIELDS): the
# reader sends these, and its state in the server is compared on these alone.
PAGE_FIELDS = ("query", "run", "k")
# The "document ready" event a Panel page sends once it has its document (Panel holds Python's
# changes back until it comes). Written out here rather than imported (``server/messages.py``
# DOCUMENT_READY declares it, and tests/test_abuse.py checks that the two are equal): this process
# must start without importing the explainer or Panel.
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}
TOKEN = re.compile(r'"token":\s*"([^"]+)"')


def page_token(body: bytes) -> str:
    """The session token a served Panel page (the workbench's) hands BokehJS."""
    return TOKEN.search(body.decode()).group(1)


# -- Bokeh's protocol, spoken as BokehJS speaks it ---------------------------------------------


class Refused(Exception):
    """The server answered a message with an ERROR."""

    def __init__(self, content: dict[str, Any]):
        super().__init__(content.get("text"))
        self.content = content


class Closed(Exception):
    """The server closed the connection before answering."""


def as_dict(value: Any) -> Any:
    """A Bokeh-serialized map as a plain dict (lists and scalars as they are), all the way down."""
    if isinstance(value, dict) and value.get("type") == "map":
        return {key: as_dict(item) for key, item in value.get("entries", [])}
    if isinstance(value, dict):
        return {key: as_dict(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_dict(item) for item in value]
    return value


def state_change(model_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """The event a page sends when the reader changes its state."""
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": "state", "new": as_map(state)}


class Session:
    """A page's session, opened and driven as BokehJS does it, with no browser.

    It fetches the page (the server builds the session), connects the websocket with the
    page's token, pulls the document and says the document is ready, as a page does.
    ``connect`` again opens another connection to the same session (a reload's would).
    """

    def __init__(self, base_url: str, path: str = READER_PATH, cookie: str = ""):
        self.base_url, self.path = base_url, path
        self.headers = {"Cookie": cookie} if cookie else {}  # an access code's, on a server that asks for one
        self.token: str | None = None
        self.ws = None
        self.waiters: dict[str, asyncio.Future] = {}
        self.acked: asyncio.Event | None = None
        self.doc: dict[str, Any] = {}
        self.states: dict[str, dict[str, Any]] = {}  # a view's data model id -> its state
        self.reader: asyncio.Task | None = None
        self.messages: asyncio.Queue = asyncio.Queue()  # what Python sent the page's views (send_msg), as dicts
        self.pushed: list[dict[str, Any]] = []  # every event the server pushed, as it came

    async def open(self, timeout: float = 60.0) -> Session:
        page = await AsyncHTTPClient().fetch(self.base_url + self.path, headers=self.headers, request_timeout=timeout)
        self.token = page_token(page.body)
        await self.connect(timeout)
        self.doc = await self.pull(timeout)
        await self.request("PATCH-DOC", {"events": [DOCUMENT_READY]}, timeout)
        return self

    async def connect(self, timeout: float = 60.0) -> None:
        request = HTTPRequest(
            "ws" + self.base_url.removeprefix("http") + self.path.rstrip("/") + "/ws",
            headers={"Origin": self.base_url, **self.headers},
            connect_timeout=timeout,
            request_timeout=timeout,
        )
        self.ws = await websocket_connect(request, subprotocols=["bokeh", self.token], max_message_size=2**28)
        self.ws.protocol.stream.set_nodelay(True)
        self.acked = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read(self.ws))
        await asyncio.wait_for(self.acked.wait(), timeout)

    async def pull(self, timeout: float = 60.0) -> dict[str, Any]:
        """The session's document as the server holds it now; also notes each view's state."""
        _, reply = await self.request("PULL-DOC-REQ", {}, timeout)
        doc = reply["doc"]
        self.states = {
            model["id"]: as_dict(model["attributes"]["state"])
            for model in models_of(doc)
            if isinstance(model["attributes"].get("state"), dict) and model["attributes"]["state"].get("type") == "map"
        }
        return doc

    async def request(self, msgtype: str, content: Any, timeout: float = 30.0):
        """Send one message; its reply as (header, content), content None for an OK."""
        msgid = uuid.uuid4().hex
        reply = asyncio.get_running_loop().create_future()
        self.waiters[msgid] = reply
        try:
            await self.send_frames({"msgid": msgid, "msgtype": msgtype}, {}, content)
            return await asyncio.wait_for(reply, timeout)
        finally:
            self.waiters.pop(msgid, None)

    async def send_frames(self, *frames: Any) -> None:
        """Send frames as they are: dicts as JSON text, str as text, bytes as binary. All are queued at once."""
        try:
            writes = [
                self.ws.write_message(frame, binary=True)
                if isinstance(frame, bytes)
                else self.ws.write_message(frame if isinstance(frame, str) else json.dumps(frame))
                for frame in frames
            ]
            await asyncio.gather(*writes)
        except (WebSocketClosedError, StreamClosedError) as closed:
            raise Closed(repr(closed)) from None

    async def _read(self, ws) -> None:
        await answer_waiters(
            ws,
            self.acked,
            self.waiters,
            refused=lambda content: Refused(json.loads(content)),
            closed=lambda ws: Closed(f"closed: {ws.close_code} {ws.close_reason}"),
            pushed=self._pushed,
        )

    def _pushed(self, content: dict[str, Any]) -> None:
        self.pushed.extend(content.get("events", []))
        for event in content.get("events", []):
            if event.get("kind") == "MessageSent":
                self.messages.put_nowait(as_dict(event.get("msg_data")))

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code if self.ws is not None else None

    async def wait_closed(self, timeout: float) -> bool:
        """Whether the server closes this connection within ``timeout`` seconds."""
        try:
            await asyncio.wait_for(asyncio.shield(self.reader), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 10)
            except Exception:
                self.reader.cancel()


# -- the well-behaved reader -------------------------------------------------------------------


@dataclass
class Reader:
    """Readers of the workbench, one per session, who switch its k (``K_VALUES``) in turns, a click
    every ``CLICK_EVERY_S`` seconds, timing each click's OK. Each sends what the page sends: the
    state's query, run and k."""

    sessions: list[Session]
    sent: list[float] = field(default_factory=list)
    round_trips_ms: list[float | None] = field(default_factory=list)
    last_states: dict[int, dict[str, Any]] = field(default_factory=dict)  # by session, what it sent last
    failures: list[str] = field(default_factory=list)

    @staticmethod
    def model(session: Session) -> str:
        return next(iter(session.states))

    async def click(self) -> None:
        index = len(self.sent)
        n = index % len(self.sessions)
        session = self.sessions[n]
        held = session.states[self.model(session)]
        state = dict(self.last_states.get(n) or {key: held[key] for key in PAGE_FIELDS})
        state["k"] = K_VALUES[1] if state["k"] == K_VALUES[0] else K_VALUES[0]
        self.last_states[n] = state
        self.sent.append(time.perf_counter())
        self.round_trips_ms.append(None)
        try:
            await session.request("PATCH-DOC", {"events": [state_change(self.model(session), state)]}, ATTACK_LIMIT_S)
            self.round_trips_ms[index] = (time.perf_counter() - self.sent[index]) * 1000
        except (Refused, Closed, asyncio.TimeoutError) as error:
            self.failures.append(repr(error))

    async def click_until(self, stop: asyncio.Event) -> None:
        """Click on a fixed clock until ``stop`` is set; then wait (bounded) for the clicks in flight."""
        pending = []
        next_at = time.perf_counter()
        while not stop.is_set():
            pending.append(asyncio.ensure_future(self.click()))
            next_at += CLICK_EVERY_S
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, next_at - time.perf_counter()))
            except asyncio.TimeoutError:
                pass
        await asyncio.wait(pending, timeout=ATTACK_LIMIT_S)

    def summary(self, since: int = 0) -> dict[str, float]:
        """Median, p95 and max of the round trips from click ``since`` on; a click never answered counts
        as long as the test waited for it."""
        end = time.perf_counter()
        times = [
            ms if ms is not None else (end - sent) * 1000
            for sent, ms in zip(self.sent[since:], self.round_trips_ms[since:], strict=True)
        ]
        times.sort()
        return {
            "n": len(times),
            "median": statistics.median(times),
            "p95": times[max(0, int(round(0.95 * len(times))) - 1)],
            "max": times[-1],
        }


async def read_while_told(url: str, cookie: str = "") -> dict[str, Any]:
    """The reader's side, in a process of its own: open its sessions, say "ready", click from "start"
    to "stop" (lines on stdin), then report what it saw, and whether each session's state as the
    server holds it is what it sent last."""
    loop = asyncio.get_running_loop()
    lines = asyncio.Queue()
    threading.Thread(
        target=lambda: [loop.call_soon_threadsafe(lines.put_nowait, line) for line in sys.stdin], daemon=True
    ).start()
    reader = Reader(list(await asyncio.gather(*(Session(url, cookie=cookie).open() for _ in range(SESSIONS)))))
    for _ in range(2 * SESSIONS):  # warm up
        await reader.click()
        await asyncio.sleep(CLICK_EVERY_S)
    print("ready", flush=True)
    assert (await lines.get()).strip() == "start"
    since = len(reader.sent)
    stop = asyncio.Event()
    clicking = asyncio.ensure_future(reader.click_until(stop))
    assert (await lines.get()).strip() == "stop"
    stop.set()
    await clicking
    summary = reader.summary(since)
    # Each session's state as the server holds it, read over a second connection to the session once
    # the first has closed (a session takes one websocket at a time).
    kept = True
    for n, session in enumerate(reader.sessions):
        await session.close()
        check = Session(url, cookie=cookie)
        check.token = session.token
        await check.connect()
        await check.pull()
        held = check.states.get(reader.model(session), {})
        kept = kept and {key: held.get(key) for key in PAGE_FIELDS} == reader.last_states[n]
        await check.close()
    return {"summary": summary, "kept": kept, "failures": reader.failures}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(read_while_told(*sys.argv[1:3]))), flush=True)
