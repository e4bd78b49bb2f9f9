"""Bokeh's protocol over a websocket, spoken as BokehJS speaks it, without a browser: the pieces.

The workbench's page is the one Panel page served; the abuse tests' reader (``reader.py``), the
attacks and the benchmark speak to its session with these: the page's token, whole messages
read and handed to their waiters, Bokeh's encoding of maps, the models of a document, and the
summary of a series of times.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any


def page_call(body: bytes) -> tuple[str, dict]:
    """The session token a served Panel page (the workbench's) hands BokehJS, and the "document ready"
    event BokehJS sends once it has the document (``explainer.server.messages`` declares it).

    (The story and the figure pages are light pages with no session: they carry no token.)"""
    from explainer.server.messages import DOCUMENT_READY

    token = re.search(r'"token":\s*"([^"]+)"', body.decode()).group(1)
    return token, DOCUMENT_READY


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
