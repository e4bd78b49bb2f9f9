"""A page in a class without a browser: it fetches a served page for its channel token, opens
/channel and speaks the class's JSON messages (explainer/classroom/messages.py), as class.js does.

The class tests and the benchmark's simulated students use it; it imports nothing of the
explainer, so that a process of many students starts fast.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from typing import Any

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

TOKEN = re.compile(r'"token":"([^"]+)"')


def token_in(page: str) -> str:
    """The channel token a served page carries (class.js's config)."""
    return TOKEN.search(page).group(1)


class Closed(Exception):
    """The server closed the channel: ``code`` and ``reason`` as it gave them."""

    def __init__(self, code, reason):
        super().__init__(f"closed {code} {reason}")
        self.code, self.reason = code, reason


class ClassClient:
    """One page's channel: ``await ClassClient(base).join()`` fetches ``path``, opens the channel and
    says hello; ``receive(kind)`` waits for the next message of that type (keeping the others)."""

    def __init__(
        self, base: str, path: str = "/binary", cookie: str = "", origin: str | None = None, forwarded_for: str = ""
    ):
        self.base, self.path, self.cookie = base, path, cookie
        # As a phone of its own behind a --trusted-proxy: the address the proxy names it by.
        self.forwarded = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
        self.origin = origin if origin is not None else base
        self.student = secrets.token_hex(16)
        self.token: str | None = None
        self.ws = None
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.seen: list[dict] = []
        self.arrived: dict[int, float] = {}  # index in seen -> time.perf_counter() it arrived
        self.reader: asyncio.Task | None = None

    async def fetch_token(self) -> str:
        headers = {**self.forwarded, **({"Cookie": self.cookie} if self.cookie else {})}
        page = await AsyncHTTPClient().fetch(self.base + self.path, headers=headers, request_timeout=60)
        self.token = token_in(page.body.decode())
        return self.token

    async def connect(self, timeout: float = 30.0) -> None:
        headers = {"Origin": self.origin, **self.forwarded}
        if self.cookie:
            headers["Cookie"] = self.cookie
        url = "ws" + self.base.removeprefix("http") + "/channel"
        request = HTTPRequest(url, headers=headers, connect_timeout=timeout, request_timeout=timeout)
        self.ws = await websocket_connect(request, max_message_size=2**24)
        self.ws.protocol.stream.set_nodelay(True)
        self.reader = asyncio.ensure_future(self._read())

    async def join(self, timeout: float = 30.0) -> dict:
        """Fetch the page (unless a token is set), open the channel, say hello; the welcome."""
        if self.token is None:
            await self.fetch_token()
        await self.connect(timeout)
        await self.send({"type": "hello", "token": self.token, "student": self.student})
        return await self.receive("welcome", timeout)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.write_message(json.dumps({"v": 1, **message}))

    async def send_text(self, text: str | bytes) -> None:
        await self.ws.write_message(text, binary=isinstance(text, bytes))

    async def _read(self) -> None:
        while True:
            text = await self.ws.read_message()
            if text is None:
                await self.inbox.put(Closed(self.ws.close_code, self.ws.close_reason))
                return
            message = json.loads(text)
            self.arrived[len(self.seen)] = time.perf_counter()
            self.seen.append(message)
            await self.inbox.put(message)

    async def receive(self, kind: str, timeout: float = 30.0) -> dict:
        """The next message of type ``kind`` (the others it passes are kept in ``seen``); Closed if the channel closes first."""
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.inbox.get(), max(0.0, deadline - time.monotonic()))
            if isinstance(message, Closed):
                raise message
            if message["type"] == kind:
                return message

    async def closed(self, timeout: float = 30.0) -> Closed:
        """Wait for the server to close the channel; the code and reason it gave."""
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.inbox.get(), max(0.0, deadline - time.monotonic()))
            if isinstance(message, Closed):
                return message

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()


async def status_of(url: str, cookie: str = "", body: str | None = None, headers: dict | None = None):
    """(status, headers, text) of a GET (or a POST of ``body``), redirects not followed."""
    sent = {**(headers or {}), **({"Cookie": cookie} if cookie else {})}
    request = HTTPRequest(
        url,
        method="POST" if body is not None else "GET",
        body=body,
        headers=sent,
        follow_redirects=False,
        request_timeout=30,
    )
    try:
        response = await AsyncHTTPClient().fetch(request, raise_error=False)
    except HTTPClientError as error:
        response = error.response
    return response.code, response.headers, response.body.decode("utf-8", "replace") if response.body else ""
