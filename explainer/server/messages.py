"""The message filter: what the workbench page's websocket may send, checked before Bokeh sees it.

The workbench is the one Panel page (the story and the figure pages open no session). It sends
one document request, then PATCH-DOC messages: "document ready" once, its state (the open
query, run and k) per click, the pieces of uploaded files and what-if changes.
``page_events`` keeps exactly those events, rebuilt from their checked parts; ``PageMessages``
is the websocket handler's side of it (mixed into Bokeh's handler by ``websocket.py``).
"""

from __future__ import annotations

import asyncio
import collections
import copy
import time
from typing import Any, NamedTuple

from explainer.server.config import config_of
from explainer.server.limiters import Share
from explainer.server.logs import REFUSAL_LOG_EVERY_S, log, shorten

# How deep a figure's state nests (the queries figure's: a map of lists of lists).
MAX_STATE_DEPTH = 4
# The kinds of message an upload's pieces are (``workbench/upload.py``).
UPLOAD_MESSAGES = frozenset({"start", "chunk", "end"})
# The kinds of what-if change the workbench's page sends, one a message (``workbench/what_if.py``).
WHAT_IF_MESSAGES = frozenset({"judge", "move", "undo"})
# What the workbench's page sends of its state: the open query, the run and k (``workbench.js``).
# Its what-if judgments and moves are in its state too, but come from Python: a state that
# carries them, as large as a what-if of every query, is dropped before Panel compares it.
WORKBENCH_PAGE_FIELDS = frozenset({"query", "run", "k"})
# A message's header and metadata frames: a page's are some 60 bytes.
MAX_HEADER_CHARS = 4096
# The "document ready" event, as a Panel page sends it once it has its document (Panel holds
# Python's changes back until it comes): taken once.
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}


def session_gone(connection) -> bool:
    """Whether a Bokeh server connection has lost its session: Bokeh detaches it when the session is
    destroyed (a page that left as its session was made), and ``connection.session`` then fails an
    assertion, in a message's handling or in Bokeh's ``on_close``, each a traceback in the log."""
    return connection is not None and connection._session is None


def fits_a_page(content: str, max_message_bytes: int) -> bool:
    """Whether a message's content frame is one a page sends, by its length: at most
    ``max_message_bytes``, or, longer, one piece of an upload (one event, a ``data_event``).

    The workbench's websocket takes messages as long as an upload's piece (a MiB of a file as
    base64); read whole, one that long holding ten thousand small states took the server's
    thread some 250 ms. Counting its events is a scan at memchr's speed, before anything parses it.
    """
    if len(content) <= max_message_bytes:
        return True
    return content.count('"kind"') == 1 and '"data_event"' in content


class Refusal(Exception):
    """A websocket message no page sends: the connection is closed, with ``code`` as the reason."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(code)
        self.code, self.detail = code, detail


def is_plain(value: Any, depth: int = 0) -> bool:
    """Whether a value from the browser is plain data as Bokeh encodes it: numbers, strings, lists
    and maps with string keys, no deeper than ``MAX_STATE_DEPTH``. Bokeh would make a model of any
    class an ``{"type": "object", ...}`` names, or look up a ``{"id": ...}``; a state has neither."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if depth >= MAX_STATE_DEPTH:
        return False
    if isinstance(value, list):
        return all(is_plain(item, depth + 1) for item in value)
    return is_map(value) and all(
        isinstance(key, str) and is_plain(item, depth + 1) for key, item in value.get("entries", [])
    )


def is_map(value: Any) -> bool:
    """Whether a value is a map as Bokeh encodes one: ``{"type": "map", "entries": [[key, value], ...]}``."""
    return (
        isinstance(value, dict)
        and value.get("type") == "map"
        and set(value) <= {"type", "entries"}
        and isinstance(value.get("entries", []), list)
        and all(isinstance(entry, list) and len(entry) == 2 for entry in value.get("entries", []))
    )


def is_state(value: Any, fields: frozenset[str]) -> bool:
    """Whether a value can be a figure's state: a plain map of (some of) its fields."""
    return (
        is_map(value)
        and all(isinstance(key, str) and key in fields for key, _ in value.get("entries", []))
        and is_plain(value)
    )


def describe(event: Any) -> str:
    """A few words for an event a page never sends, for the log (never the event's content)."""
    if not isinstance(event, dict):
        return "not an event"
    kind = event.get("kind")
    kind = kind[:40] if isinstance(kind, str) else "no kind"
    if kind == "ModelChanged" and isinstance(event.get("attr"), str):
        return f"a change of {event['attr'][:40]!r}"
    return kind


class PageModels(NamedTuple):
    """What a page's document lets a browser change: figures' states, views that take uploads,
    and workbench views (which take what-if changes)."""

    states: dict[str, frozenset[str]]  # a figure's state model's id -> the state's fields
    uploads: frozenset[str]  # the ids of views that take uploads (their ``uploads`` is true)
    workbenches: frozenset[str] = frozenset()  # the ids of views with an ``uploads`` property at all


def page_models(document) -> PageModels:
    """The figures' state models in a session's document (their ids and their states' fields),
    its views that take uploads, and its workbench views."""
    from panel.models.esm import ReactiveESM

    states, uploads, workbenches = {}, set(), set()
    for model in document.models:
        data = getattr(model, "data", None) if isinstance(model, ReactiveESM) else None
        state = getattr(data, "state", None)
        if isinstance(state, dict):
            states[data.id] = frozenset(state)
            if getattr(data, "uploads", None) is not None:
                states[data.id] &= WORKBENCH_PAGE_FIELDS
                workbenches.add(model.id)
            if getattr(data, "uploads", False) is True:
                uploads.add(model.id)
    return PageModels(states, frozenset(uploads), frozenset(workbenches))


def page_events(content: Any, models: PageModels, ready_seen: bool) -> tuple[list, list[str]]:
    """The events of a PATCH-DOC's ``content`` that a page sends, rebuilt from their checked parts,
    and a description of each of the others (dropped).

    A page sends its figures' states, each a change of the ``state`` property of a figure's
    data model (``models.states`` maps their ids to their fields), "document ready" once
    (``ready_seen``: already), and, from a view that takes uploads (``models.uploads``), the
    pieces of a file (``upload_event``). Of several states for one figure only the last counts,
    as it would once applied; anything else (new roots, other properties or models, other
    events) is dropped. The returned events are built here, so nothing else of the message
    reaches Bokeh.
    """
    if not isinstance(content, dict) or not isinstance(content.get("events"), list):
        return [], ["a message without a list of events"]
    ready: list[dict] = []
    pieces: list[dict] = []
    last: dict[str, dict] = {}
    dropped: list[str] = []
    for event in content["events"]:
        if isinstance(event, dict) and event.get("kind") == "ModelChanged" and event.get("attr") == "state":
            model = event.get("model")
            model_id = model.get("id") if isinstance(model, dict) and len(model) == 1 else None
            fields = models.states.get(model_id) if isinstance(model_id, str) else None
            if fields is not None and is_state(event.get("new"), fields):
                last.pop(model_id, None)
                last[model_id] = {
                    "kind": "ModelChanged",
                    "model": {"id": model_id},
                    "attr": "state",
                    "new": event["new"],
                }
                continue
            dropped.append("a state that is not a figure's")
        elif event == DOCUMENT_READY and not (ready_seen or ready):
            ready.append(copy.deepcopy(DOCUMENT_READY))
        elif (piece := upload_event(event, models)) is not None:
            pieces.append(piece)
        else:
            dropped.append(describe(event))
    return ready + pieces + list(last.values()), dropped


def upload_event(event: Any, models: PageModels) -> dict | None:
    """A piece of an upload or a what-if change as Panel's ``model.send_msg`` sends it, rebuilt, or
    None for anything else: a "data_event" whose data is a plain map with a ``type`` of
    ``UPLOAD_MESSAGES`` from a view in ``models.uploads``, or of ``WHAT_IF_MESSAGES`` from one in
    ``models.workbenches`` (the workbench checks the rest: ``upload.Inbox``, ``what_if``)."""
    if not (
        isinstance(event, dict)
        and set(event) == {"kind", "msg_type", "msg_data"}
        and event["kind"] == "MessageSent"
        and event["msg_type"] == "bokeh_event"
    ):
        return None
    data = event["msg_data"]
    if not (isinstance(data, dict) and data.get("type") == "event" and data.get("name") == "data_event"):
        return None
    values = data.get("values")
    entries = dict(values["entries"]) if is_map(values) and len(values.get("entries", [])) == 2 else {}
    model, message = entries.get("model"), entries.get("data")
    model_id = model.get("id") if isinstance(model, dict) and len(model) == 1 else None
    if not (is_map(message) and is_plain(message)):
        return None
    kind = dict(message.get("entries", [])).get("type")
    if not (
        (kind in UPLOAD_MESSAGES and model_id in models.uploads)
        or (kind in WHAT_IF_MESSAGES and model_id in models.workbenches)
    ):
        return None
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {
            "type": "event",
            "name": "data_event",
            "values": {"type": "map", "entries": [["model", {"id": model_id}], ["data", message]]},
        },
    }


class PageMessages:
    """A websocket handler (mixed into Bokeh's) that takes from a browser only what a page sends.

    A page sends one PULL-DOC-REQ for its document, then PATCH-DOC messages: "document ready"
    once, and a figure's new state per click. The browser's side of every figure writes only its
    model's ``state`` (``kit.js``' ``bindState``), and nothing else in the page writes to the
    server. So, before Bokeh sees a message:

    - a binary frame, a message announcing binary buffers, a message that cannot be read, or
      one sent before the session is open closes the connection, logged in one short line;
    - a PATCH-DOC keeps only the events ``page_events`` accepts (the rest are dropped with one
      log line per connection, then at most one per ``REFUSAL_LOG_EVERY_S``), and an error reply
      says so; a second PULL-DOC-REQ, a PUSH-DOC (which would replace the whole document) and a
      SERVER-INFO-REQ (versions) get an error reply;
    - an error reply is a short code (``refused-event``, ``refused-state``, ``refused-message``),
      never Bokeh's traceback of the server's files.

    Tornado refuses a message over the page's ``ServerConfig.message_limit`` before reading it
    (close code 1009).
    """

    _frames = 0
    _pulled = False
    _ready_seen = False
    _closing = False
    _models: PageModels | None = None
    _dropped = 0
    _dropped_unlogged = 0
    _next_drop_log = 0.0
    _share: Share | None = None

    async def on_message(self, fragment: str | bytes) -> None:
        if self._closing:
            return
        if self._share is None:
            limits = config_of(self.application).limits
            self._share = Share(limits.message_share, limits.message_share_burst_s)
        wait = self._share.wait()
        if wait > 0:  # this connection has had its share of the thread: its next frame waits
            await self._pause(wait)
        try:
            message = await self._receive_checked(fragment)
            if message is None:
                return
            reply = await self._answer(message)
            await self.send_message(reply)
        except Refusal as refusal:
            self._refuse_connection(refusal.code, refusal.detail)
        except Exception as error:  # whatever a client sends must not reach the log whole
            self._refuse_connection("unreadable-message", repr(error))

    async def _pause(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def _receive_checked(self, fragment: str | bytes):
        """The message ``fragment`` completes, or None; a Refusal for what no page sends."""
        if self.receiver is None or self.connection is None or session_gone(self.connection):
            raise Refusal("not-open")  # not yet open, or its session is gone
        if not isinstance(fragment, str):
            raise Refusal("binary-frame")
        self._frames += 1
        # Before Bokeh parses it: a header or metadata frame is a few dozen bytes, a content frame
        # at most a page's message or one piece of an upload.
        if self._frames % 3 and len(fragment) > MAX_HEADER_CHARS:
            raise Refusal("too-long")
        if self._frames % 3 == 0 and not fits_a_page(fragment, config_of(self.application).limits.max_message_bytes):
            raise Refusal("too-long")
        message = await self.receiver.consume(fragment)
        if self._frames % 3:  # a message is three text frames: header, metadata, content
            return None
        if message is None:
            raise Refusal("binary-buffers")
        msgid = message.header.get("msgid")
        if not (isinstance(msgid, str) and 0 < len(msgid) <= 64):
            raise Refusal("bad-header")
        return message

    async def _answer(self, message):
        from bokeh.server.session import ServerSession

        kind = message.msgtype
        if kind == "PULL-DOC-REQ" and not self._pulled:
            self._pulled = True
            return await ServerSession.pull(message, self.connection)
        if kind != "PATCH-DOC":
            self._note_dropped(
                [f"a {shorten(kind, 40)} message" if kind != "PULL-DOC-REQ" else "a second PULL-DOC-REQ"]
            )
            return self._error(message, "refused-message")
        if self._models is None:
            self._models = page_models(self.connection.session.document)
        events, dropped = page_events(message.content, self._models, self._ready_seen)
        if dropped:
            self._note_dropped(dropped)
        if not events:
            return self._error(message, "refused-event")
        self._ready_seen = self._ready_seen or events[0]["kind"] == "MessageSent"
        message.content = {"events": events}
        # The patch is charged to this connection's share: the thread time of applying it, which
        # runs whatever the events set off in Python (a what-if change, a piece of an upload). It is
        # timed once the document's lock is free, so that no other work is counted while it waits.
        session = self.connection.session
        await session.with_document_locked(lambda: None)
        started = time.thread_time()
        try:
            await ServerSession.patch(message, self.connection)
        except Exception as error:  # Bokeh's or Panel's refusal of a value
            self._note_dropped([f"a state refused with {shorten(repr(error), 80)}"])
            return self._error(message, "refused-state")
        finally:
            self._share.charge(time.thread_time() - started)
        return self._error(message, "refused-event") if dropped else self.connection.ok(message)

    def _error(self, message, code: str):
        """An ERROR reply with ``code`` and nothing else (Bokeh's would carry the server's traceback)."""
        reply = self.connection.protocol.create("ERROR", message.header["msgid"], code)
        reply.content["traceback"] = None
        return reply

    def _note_dropped(self, what: list[str]) -> None:
        self._dropped += len(what)
        self._dropped_unlogged += len(what)
        now = time.monotonic()
        if now < self._next_drop_log:
            return
        counted = collections.Counter(what)
        listed = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counted.most_common(3))
        more = f" and {len(counted) - 3} other kinds" if len(counted) > 3 else ""
        log.warning(
            "Dropped %d event(s) from %s on %s that no page sends (%s%s); %d on this connection so far, "
            "logged at most every %.0f s",
            self._dropped_unlogged,
            self.request.remote_ip,
            self.request.path,
            listed,
            more,
            self._dropped,
            REFUSAL_LOG_EVERY_S,
        )
        self._dropped_unlogged = 0
        self._next_drop_log = now + REFUSAL_LOG_EVERY_S

    def _refuse_connection(self, code: str, detail: str = "") -> None:
        self._closing = True
        log.warning(
            "Closed the websocket of %s on %s: %s%s",
            self.request.remote_ip,
            self.request.path,
            code,
            f" ({shorten(detail)})" if detail else "",
        )
        self.close(1008, code)
