"""Sessions without a browser: Bokeh's protocol over a websocket, spoken as BokehJS speaks it.

The benchmark and the load tests open many sessions of a served figure this way: the server
does the same work per session as for a browser, without a hundred Chromium pages fighting it
for two cores.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import statistics
import threading
import time
import uuid
from typing import Any


def page_call(body: bytes) -> tuple[str, dict]:
    """The session token and the "document ready" event a served page hands connection.js.

    Read from a light page rather than imported (``explainer.export.DOCUMENT_READY`` declares it):
    a client then sends exactly what the page's script sends, and the attack tests' reader process,
    which must start fast, imports nothing of the explainer or Panel for one."""
    text = body.decode()
    token = re.search(r'"token":\s*"([^"]+)"', text).group(1)
    ready_at = re.search(r'"ready":\s*', text)
    if ready_at is None:  # a Panel page: BokehJS sends the same event, which export.py declares
        from explainer.export import DOCUMENT_READY

        return token, DOCUMENT_READY
    return token, json.JSONDecoder().raw_decode(text, ready_at.end())[0]


async def answer_waiters(ws, acked, waiters, refused=ConnectionError, closed=None, pushed=None) -> None:
    """Read whole messages (header, metadata, content, buffers) and hand replies to their waiters.

    ``refused(content)`` is the exception an ERROR reply raises in its waiter; ``closed(ws)`` the one
    every waiter left gets when the websocket closes; ``pushed(content)`` gets each PATCH-DOC the
    server sends of its own (a change made in Python, a message to the page)."""
    while True:
        frame = await ws.read_message()
        if frame is None:
            break
        header = json.loads(frame)
        metadata = await ws.read_message()
        content = await ws.read_message()
        for _ in range(2 * header.get("num_buffers", 0)):
            await ws.read_message()
        if metadata is None or content is None:
            break
        if header["msgtype"] == "ACK":
            acked.set()
        waiter = waiters.get(header.get("reqid"))
        if pushed is not None and header["msgtype"] == "PATCH-DOC" and not header.get("reqid"):
            pushed(json.loads(content))
        if waiter and not waiter.done():
            if header["msgtype"] == "ERROR":
                waiter.set_exception(refused(content))
            else:
                waiter.set_result((header, json.loads(content) if header["msgtype"] != "OK" else None))
    for waiter in waiters.values():
        if not waiter.done():
            waiter.set_exception(closed(ws) if closed else ConnectionError("websocket closed"))


def as_map(value: Any) -> Any:
    """A plain dict as Bokeh serializes it."""
    if isinstance(value, dict):
        return {"type": "map", "entries": [[key, as_map(item)] for key, item in value.items()]}
    if isinstance(value, list):
        return [as_map(item) for item in value]
    return value


def summarize(samples: list[float]) -> dict[str, float | int | None]:
    """Count, median, 95th percentile (linear interpolation), min and max of ``samples``."""
    if not samples:
        return {"n": 0, "median": None, "p95": None, "min": None, "max": None}
    ordered = sorted(samples)
    position = 0.95 * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    p95 = ordered[low] + (ordered[high] - ordered[low]) * (position - low)
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 3),
        "p95": round(p95, 3),
        "min": round(ordered[0], 3),
        "max": round(ordered[-1], 3),
    }


def models_of(node: Any):
    """Every serialized Bokeh model object in a PULL-DOC-REPLY's document, depth first."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "attributes" in node:
            yield node
        for value in node.values():
            yield from models_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from models_of(value)


def _decode_map(value: Any) -> dict[str, Any]:
    return dict(value["entries"]) if isinstance(value, dict) and value.get("type") == "map" else value


class BokehClient:
    """One session of figure 1, opened and clicked as BokehJS does it, with no browser.

    It fetches the page (the server builds the session's document), connects the
    websocket with the page's token, pulls the document, sends the browser's start-up
    messages, and then, per click, a PATCH-DOC of the figure's new state, waiting for the
    server's OK. A row flips as BinaryState.flip has it (binary.js is its twin).
    """

    def __init__(self, base_url: str, path: str = "/binary"):
        self.base_url = base_url
        self.path = path
        self.ws = None
        self.waiters: dict[str, asyncio.Future] = {}
        self.acked = asyncio.Event()
        self.state_model: str | None = None
        self.state: dict[str, Any] = {}
        self.ack_ms: list[float] = []
        self.failures = 0
        self._reader: asyncio.Task | None = None

    async def open(self, timeout: float = 120.0) -> None:
        """Open the session as a browser would, up to the figure being ready for clicks."""
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        page = await AsyncHTTPClient().fetch(self.base_url + self.path, request_timeout=timeout)
        token, self.ready = page_call(page.body)
        request = HTTPRequest(
            "ws" + self.base_url.removeprefix("http") + self.path + "/ws",
            headers={"Origin": self.base_url},
            connect_timeout=timeout,
            request_timeout=timeout,
        )
        self.ws = await websocket_connect(request, subprotocols=["bokeh", token], max_message_size=2**28)
        # Like a browser's: small frames leave at once rather than after the previous one's ACK.
        self.ws.protocol.stream.set_nodelay(True)
        self._reader = asyncio.ensure_future(self._read())
        await asyncio.wait_for(self.acked.wait(), timeout)
        _, reply = await self.send("PULL-DOC-REQ", {}, timeout)
        models = list(models_of(reply["doc"]))
        # The figure's data model: the one holding `state` (with the relevance of each row).
        view = next(m for m in models if "relevant" in _decode_map(m["attributes"].get("state", {})))
        self.state_model = view["id"]
        self.state = _decode_map(view["attributes"]["state"])
        await self.send("PATCH-DOC", {"events": [self.ready]}, timeout)

    @staticmethod
    def _change(model: str, attr: str, new: Any) -> dict[str, Any]:
        return {"events": [{"kind": "ModelChanged", "model": {"id": model}, "attr": attr, "new": new}]}

    async def click(self, rank: int, timeout: float = 30.0) -> None:
        """Flip the row at ``rank`` (1-based) and send the new state; record the time to the OK."""
        # Imported here, not above: the abuse tests' reader (support/reader.py) takes this
        # module's protocol pieces and must not wait for Panel's import.
        from explainer.figures.binary import BinaryState

        flipped = BinaryState(**self.state)
        flipped.flip(rank)
        self.state = flipped.to_dict()
        entries = [[name, value] for name, value in self.state.items()]
        start = time.perf_counter()
        try:
            change = self._change(self.state_model, "state", {"type": "map", "entries": entries})
            await self.send("PATCH-DOC", change, timeout)
            self.ack_ms.append((time.perf_counter() - start) * 1000)
        except (asyncio.TimeoutError, ConnectionError):
            self.failures += 1

    async def send(self, msgtype: str, content: dict, timeout: float = 30.0):
        """Send one message and wait for the reply to it: its (header, content), content None for an OK."""
        msgid = uuid.uuid4().hex
        reply = asyncio.get_running_loop().create_future()
        self.waiters[msgid] = reply
        frames = ({"msgid": msgid, "msgtype": msgtype}, {}, content)
        # All three frames are queued before any await, so messages sent concurrently never interleave.
        writes = [self.ws.write_message(json.dumps(frame, separators=(",", ":"))) for frame in frames]
        try:
            await asyncio.gather(*writes)
            return await asyncio.wait_for(reply, timeout)
        finally:
            self.waiters.pop(msgid, None)

    async def _read(self) -> None:
        await answer_waiters(self.ws, self.acked, self.waiters)

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 10)
            except (asyncio.TimeoutError, ConnectionError):
                self._reader.cancel()


class SessionPool:
    """Browserless sessions of one server, run by an asyncio loop in a thread of this process."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.clients: list[BokehClient] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bench-sessions", daemon=True)
        self.thread.start()
        self._stop: asyncio.Event | None = None
        self._clicking: list[asyncio.Future] = []

    def _run(self, coroutine, timeout: float):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def open(self, count: int, timeout: float = 600.0) -> None:
        """Open ``count`` more sessions, a few at a time as a class arriving would."""

        async def open_all():
            gate = asyncio.Semaphore(4)

            async def one():
                async with gate:
                    client = BokehClient(self.base_url)
                    await client.open()
                    self.clients.append(client)

            await asyncio.gather(*(one() for _ in range(count)))

        self._run(open_all(), timeout)

    def start_clicking(self, interval: float, seed: int = 7) -> None:
        """Every session clicks a random row, then pauses 0.5 to 1.5 times ``interval``, until stopped."""

        async def start():
            self._stop = asyncio.Event()
            for i, client in enumerate(self.clients):
                loop = self._click_loop(client, interval, random.Random(seed + i))
                self._clicking.append(asyncio.ensure_future(loop))

        self._run(start(), 30)

    async def _click_loop(
        self, client: BokehClient, interval: float, rng: random.Random, limit_s: float = 1800
    ) -> None:
        deadline = time.monotonic() + limit_s  # a bound in case nobody stops it
        await asyncio.sleep(rng.uniform(0, interval))  # spread the sessions' clicks over time
        while not self._stop.is_set() and time.monotonic() < deadline:
            await client.click(rng.randint(1, len(client.state["relevant"])))
            try:
                await asyncio.wait_for(self._stop.wait(), rng.uniform(0.5, 1.5) * interval)
            except asyncio.TimeoutError:
                pass

    def stop_clicking(self) -> dict[str, Any]:
        """Stop the clicks; returns the server's OK times and failures seen by these sessions."""

        async def stop():
            self._stop.set()
            await asyncio.gather(*self._clicking, return_exceptions=True)
            self._clicking = []

        self._run(stop(), 60)
        acks = [ms for client in self.clients for ms in client.ack_ms]
        return {"clicks": len(acks), "ack_ms": summarize(acks), "failures": sum(c.failures for c in self.clients)}

    def close_all(self) -> None:
        """Close every session's websocket (the server then expires the sessions)."""

        async def close():
            await asyncio.gather(*(client.close() for client in self.clients), return_exceptions=True)

        self._run(close(), 120)
        self.clients = []

    def shutdown(self) -> None:
        """Close what is open and stop the thread."""
        if self.clients:
            self.close_all()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
