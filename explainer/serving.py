"""Serving the pages: what the server accepts, sends and keeps, so that a class can use it safely.

``serve_pages`` starts Panel's server on the explainer's pages; the rest are the pieces it puts
in place of Panel's and Bokeh's defaults (see README "Serving safely").
"""

from __future__ import annotations

import collections
import copy
import ctypes
import functools
import ipaddress
import logging
import os
import signal
import socket
import sys
import time
import weakref
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

# How the server lets go of the session of a page that is gone (closed, crashed, or on a laptop
# that was shut), so that its memory is freed; see README "Serving safely".
SESSION_OPTIONS = {
    # A new session waits this long for its page's websocket, and a closed page's session this
    # long before it is freed: long enough for a slow device to load the page's scripts.
    "unused_session_lifetime_milliseconds": 15_000,
    # How often the server looks for such sessions (Bokeh's default is every 17 s).
    "check_unused_sessions_milliseconds": 2_000,
    # Ping each websocket and close it when no answer comes back in time: a page that vanished
    # without closing its connection would otherwise hold its session until the OS gives up on
    # the connection, a quarter of an hour or more later. Generous, because a pong waits behind
    # the clicks already queued on its connection: a busy server must not drop live pages.
    "websocket_ping_interval": 60,
    "websocket_ping_timeout": 60,
}


# What the server takes from a browser (README "Serving safely"). Anything longer, or slower,
# is refused before the server spends time on it: one client must never stall the class.
#
# A request's first line may be as long as any URL a browser sends (Chromium's limit is 2 MB),
# so that an oversized link reaches the page handler, which redirects it to a notice. Its header
# fields after that line are what a browser sends, a dozen or two, mostly the site's cookies;
# the most of them is refused with a 431, and more bytes of them close the connection unanswered
# (Tornado's way with headers over its limit).
MAX_REQUEST_LINE = 2 * 1024 * 1024
MAX_HEADER_BYTES = 32 * 1024
MAX_HEADER_COUNT = 100
MAX_REQUEST_HEADERS = MAX_REQUEST_LINE + MAX_HEADER_BYTES
# The time a client has to send a request's headers (and that an idle kept-alive connection is
# kept): a client that sends them a byte at a time is dropped, and its memory with it.
HEADER_TIMEOUT_S = 10.0
# No page sends a request body.
MAX_BODY_BYTES = 16 * 1024
BODY_TIMEOUT_S = 10.0
# Tornado's HTTPServer options that hold a request to the limits above.
HTTP_SERVER_OPTIONS = {
    "max_header_size": MAX_REQUEST_HEADERS,
    "idle_connection_timeout": HEADER_TIMEOUT_S,
    "max_body_size": MAX_BODY_BYTES,
    "body_timeout": BODY_TIMEOUT_S,
}
# A page's websocket messages: its document request, "document ready", and one figure state per
# click. The largest is a state; the queries figure's with eight queries of twenty ranks for
# each system, about 1.3 KB, is the largest a figure holds (tests/test_abuse.py measures each
# figure's). A longer message closes the connection before it is read.
MAX_MESSAGE_BYTES = 32 * 1024
# The workbench's page also sends the files a reader uploads, one piece a message
# (``workbench/upload.py``): a MiB as base64, 1,398,104 characters. Its websocket alone takes
# messages this long, and only its view (a model whose ``uploads`` is true) may send pieces.
UPLOAD_PAGE = "/evaluate"
MAX_UPLOAD_MESSAGE_BYTES = 2 * 1024 * 1024
UPLOAD_MESSAGES = frozenset({"start", "chunk", "end"})


def message_limit(route: str) -> int:
    """The longest websocket message the page at ``route`` may send (Tornado closes a longer one, 1009, unread)."""
    return MAX_UPLOAD_MESSAGE_BYTES if route == UPLOAD_PAGE else MAX_MESSAGE_BYTES


# What the server logs of one message, at most (Bokeh would log a refused message whole).
MAX_LOG_CHARS = 500
# A connection that keeps sending what no page sends is logged once, then at most this often.
REFUSAL_LOG_EVERY_S = 60.0


def serve_pages(
    port: int,
    address: str,
    allow_origins: list[str],
    show: bool = False,
    threaded: bool = False,
    prefix: str = "",
    num_procs: int = 1,
    routes: dict | None = None,
    access_code: str | None = None,
    class_address: str = "",
):
    """Start Panel's server on the explainer's pages; returns the server (running in a thread if ``threaded``).

    With ``access_code``, a page opens only for a browser that gave the code (``ACCESS``).
    With ``class_address`` (the address students open, README "Serving for a class"), each figure
    page's presenter view can show it as a QR code; pages get that address and nothing else.

    ``routes`` adds or replaces pages by route, each a function that builds a fresh page (the
    evaluate command serves its files' workbench at /evaluate this way).

    Only the pages are served (no admin page, no autoreload, no static directories, no
    /components/ files, no autoload.js), websockets are accepted only from this host and from
    ``allow_origins``, a browser's requests and messages are held to what a page sends (the
    limits above), and the session of a page that is gone is freed within ``SESSION_OPTIONS``' times.
    """
    import panel as pn
    from tornado.web import ErrorHandler

    from explainer.pages import ROUTES, TITLES, set_class_address

    use_explainer_handlers()
    use_explainer_http_server()
    _shorten_long_log_messages()
    ACCESS.require(access_code)
    set_class_address(class_address)
    served = {**ROUTES, **(routes or {})}
    LIGHT_ROUTES.clear()
    LIGHT_ROUTES.update(route for route in ROUTES if route not in (routes or {}) and route != UPLOAD_PAGE)
    if not threaded:  # the server has the process to itself (a test's server does not)
        _freeze_what_every_session_shares(served)
    origins = {f"{host}:{port}" for host in ("localhost", "127.0.0.1", address)} | set(allow_origins)
    return pn.serve(
        {route: _session_of(build) for route, build in served.items()},
        port=port,
        address=address,
        websocket_origin=sorted(origins),
        show=show,
        title=TITLES,
        autoreload=False,
        # No Panel Location model: the pages keep their state in the URL themselves (kit.js), and a
        # session made by its websocket (under --num-procs) would otherwise have the page send it
        # the address, a message the server would have to take for no use.
        location=False,
        threaded=threaded,
        prefix=prefix,
        num_procs=num_procs,
        start=True,
        # Panel's /components/<module>/... route imports any module a URL names; no page uses it.
        extra_patterns=[(r"/components/.*", ErrorHandler, {"status_code": 404})],
        http_server_kwargs=dict(HTTP_SERVER_OPTIONS),  # a copy: Bokeh adds its own to the dict it is given
        websocket_max_message_size=MAX_MESSAGE_BYTES,
        # A session's token sits in its page's HTML, where the page's scripts can read it: Bokeh
        # copies every request header and cookie into it unless told which (an empty list: none).
        include_headers=[],
        include_cookies=[],
        # Tornado names itself and its version in a Server header on every response.
        transforms=[_no_server_header()],
        **SESSION_OPTIONS,
    )


def _freeze_what_every_session_shares(routes) -> None:
    """Build each page once, then leave everything alive so far out of Python's garbage collections.

    A full collection walks every tracked object, and the modules, classes and caches of Panel,
    Bokeh and the explainer are some 130,000 of them: 70 ms more of a stopped server, with every
    reader's click waiting, in each full collection (with a hundred sessions opening, those took
    145 and 189 ms; 59 and 97 ms frozen). Frozen objects are skipped; the objects of sessions are
    collected as before. Building the pages first does the imports and fills the caches that a
    first reader's page would otherwise set off.
    """
    import gc

    for build in routes.values():
        build()
    for route in LIGHT_ROUTES:
        light_page(route)
    gc.collect()
    gc.freeze()


def _session_of(build):
    """``build`` as a served page: with a notice when the connection drops, and only local stylesheets."""

    def session():
        import panel as pn
        from panel.io.resources import LOCAL_DIST
        from panel.io.state import state

        from explainer.export import DISCONNECT_NOTICE
        from explainer.pages import PAGE_TEMPLATE

        doc = state.curdoc
        doc.template = PAGE_TEMPLATE
        # Inside a session, Panel's config applies to that session alone.
        # No browser-info model: it would send the reader's time zone, language and WebGL
        # support in seven messages per page load (and probe WebGL), which no figure uses.
        pn.config.browser_info = False
        pn.config.notifications = True
        pn.config.disconnect_notification = DISCONNECT_NOTICE
        doc.on_session_destroyed(_forget_notification_area)
        doc.on_session_destroyed(_release_memory_soon)
        # Panel points its stylesheets at this server only for a session made by a page request;
        # one made by its websocket (under --num-procs, on another process) would load them from its CDN.
        request = doc.session_context.request
        if request is not None and request.path.endswith("/ws"):
            doc._template_variables["dist_url"] = f"{state.rel_path}/{LOCAL_DIST}" if state.rel_path else LOCAL_DIST
        return build()

    return session


def _forget_notification_area(session_context) -> None:
    """Let go of an ended session's notification area, which Panel 1.9 keeps, and with it the whole page."""
    from panel.io.notifications import NotificationAreaBase
    from panel.io.state import state

    doc = session_context._document
    for ref, (area, _, view_doc, _) in list(state._views.items()):
        if view_doc is doc and isinstance(area, NotificationAreaBase):
            del state._views[ref]
            area._documents.pop(doc, None)


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


def _release_memory_soon(session_context) -> None:
    """Give the memory of ended sessions back to the system, once sessions stop ending for a while."""
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


# The one event a page sends besides its figures' states, once, when its document is ready.
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}
# How deep a figure's state nests (the queries figure's: a map of lists of lists).
MAX_STATE_DEPTH = 4


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
        elif (piece := upload_event(event, models.uploads)) is not None:
            pieces.append(piece)
        else:
            dropped.append(describe(event))
    return ready + pieces + list(last.values()), dropped


def upload_event(event: Any, uploads: frozenset[str]) -> dict | None:
    """A piece of an upload as Panel's ``model.send_msg`` sends it, rebuilt, or None for anything else:
    a "data_event" of a view in ``uploads`` whose data is a plain map with a ``type`` of
    ``UPLOAD_MESSAGES`` (the workbench checks the rest: ``upload.Inbox``)."""
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
    if model_id not in uploads or not (is_map(message) and is_plain(message)):
        return None
    if dict(message.get("entries", [])).get("type") not in UPLOAD_MESSAGES:
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


class PageModels(NamedTuple):
    """What a page's document lets a browser change: figures' states and views that take uploads."""

    states: dict[str, frozenset[str]]  # a figure's state model's id -> the state's fields
    uploads: frozenset[str]  # the ids of views that take uploads (their ``uploads`` is true)


def page_models(document) -> PageModels:
    """The figures' state models in a session's document (their ids and their states' fields),
    and its views that take uploads."""
    from panel.models.esm import ReactiveESM

    states, uploads = {}, set()
    for model in document.models:
        data = getattr(model, "data", None) if isinstance(model, ReactiveESM) else None
        state = getattr(data, "state", None)
        if isinstance(state, dict):
            states[data.id] = frozenset(state)
            if getattr(data, "uploads", False) is True:
                uploads.add(model.id)
    return PageModels(states, frozenset(uploads))


# A served light page's document request (connection.js): it needs only its figures' state models.
LIGHT_PULL = {"states": True}


def states_reply(request_id: str, document):
    """A PULL-DOC-REPLY to ``LIGHT_PULL``: a document whose roots are the figures' state models, in
    page order, each with its id and state and nothing else. A light page needs no more, and the
    whole document (every figure's module, stylesheets and data) took 37 ms of the server and
    160 kB for a figure page, 97 ms and 1 MB for the story."""
    from bokeh.core.serialization import Serializer
    from bokeh.protocol.messages.pull_doc_reply import pull_doc_reply
    from panel.models.esm import ReactiveESM

    found = []

    def walk(model) -> None:
        data = getattr(model, "data", None) if isinstance(model, ReactiveESM) else None
        if isinstance(getattr(data, "state", None), dict):
            found.append(data)
        for child in getattr(model, "children", None) or []:
            walk(child)

    for root in document.roots:
        walk(root)
    roots = [
        {
            "type": "object",
            "name": type(data).__name__,
            "id": data.id,
            "attributes": {"state": Serializer().serialize(data.state).content},
        }
        for data in found
    ]
    return pull_doc_reply(pull_doc_reply.create_header(request_id=request_id), {}, {"doc": {"roots": roots}})


def shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


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

    Tornado refuses a message over ``MAX_MESSAGE_BYTES`` (on the workbench's page,
    ``MAX_UPLOAD_MESSAGE_BYTES``) before reading it (close code 1009).
    """

    _frames = 0
    _pulled = False
    _ready_seen = False
    _closing = False
    _models: PageModels | None = None
    _dropped = 0
    _dropped_unlogged = 0
    _next_drop_log = 0.0

    async def on_message(self, fragment: str | bytes) -> None:
        if self._closing:
            return
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

    async def _receive_checked(self, fragment: str | bytes):
        """The message ``fragment`` completes, or None; a Refusal for what no page sends."""
        if self.receiver is None or self.connection is None:
            raise Refusal("not-open")
        if not isinstance(fragment, str):
            raise Refusal("binary-frame")
        self._frames += 1
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
            if message.content == LIGHT_PULL:
                return states_reply(message.header["msgid"], self.connection.session.document)
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
        try:
            await ServerSession.patch(message, self.connection)
        except Exception as error:  # Bokeh's or Panel's refusal of a value
            self._note_dropped([f"a state refused with {shorten(repr(error), 80)}"])
            return self._error(message, "refused-state")
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


class AccessCode:
    """An optional access code: with one, a page (and its websocket) opens only for a browser that gave it.

    The code is asked for once, in a form of its own (never in a URL, which logs and browser
    histories keep); a right one sets a cookie holding an HMAC of the code under a key made at
    start-up, valid until the server stops. A wrong one waits a second before the form comes
    back. Scripts and stylesheets stay public: they are Bokeh's and Panel's own.
    """

    COOKIE = "explainer-access"

    def __init__(self):
        self.key = b""
        self.digest: str | None = None

    def require(self, code: str | None) -> None:
        import hashlib
        import hmac
        import secrets

        self.key = secrets.token_bytes(32)
        self.digest = hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest() if code else None

    def _digest_of(self, code: str) -> str:
        import hashlib
        import hmac

        return hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest()

    def allows(self, handler) -> bool:
        import hmac

        if self.digest is None:
            return True
        given = handler.get_cookie(self.COOKIE) or ""
        return hmac.compare_digest(given.encode("ascii", "replace"), self.digest.encode("ascii"))

    def ask(self, handler, wrong: bool = False) -> None:
        from html import escape

        handler.set_status(403 if wrong else 401)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.set_header("Cache-Control", "no-store")
        note = "<p role='alert'>That is not the code. Ask the person who started the server.</p>" if wrong else ""
        handler.finish(ACCESS_PAGE.format(note=note, action=escape(handler.request.path, quote=True)))

    async def check(self, handler) -> None:
        import asyncio
        import hmac

        if self.digest is None:
            return handler.redirect(handler.request.path, status=303)
        code = handler.get_body_argument("code", default="")[:200].strip()
        if not hmac.compare_digest(self._digest_of(code).encode("ascii"), self.digest.encode("ascii")):
            await asyncio.sleep(1.0)  # a guesser gets one try a second
            return self.ask(handler, wrong=True)
        handler.set_cookie(self.COOKIE, self.digest, httponly=True, samesite="Strict", path="/")
        handler.redirect(handler.request.path, status=303)


ACCESS = AccessCode()

# The form that asks for the access code: no script, nothing fetched.
ACCESS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Access code</title>
<style>body{{font:16px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color-scheme:light dark}}
input,button{{font:inherit;padding:.4em .6em}}</style></head><body>
<h1>This explainer asks for an access code</h1>{note}
<form method="post" action="{action}"><label>Access code <input name="code" autocomplete="off" autofocus required></label>
<button type="submit">Open</button></form></body></html>
"""


def page_redirect(path: str, query: str, route: str) -> str | None:
    """Where a request for the page at ``route`` (asked for as ``path`` and ``query``) is sent
    instead, or None to serve it: a query longer than ``MAX_QUERY_LENGTH`` is left out (with
    ``#ignored-query=<length>`` for the figure's notice), a trailing slash goes, and a "?" inside
    the query is escaped. Redirects are relative, so that they hold behind a proxy that rewrites the path."""
    from explainer.figures.base import MAX_QUERY_LENGTH

    if len(query) > MAX_QUERY_LENGTH:
        return f"./{path.rsplit('/', 1)[-1]}#ignored-query={len(query)}"
    if path.endswith("/") and route != "/":
        # /binary/ would look for its scripts under /binary/static/: the page is /binary.
        page = path.rstrip("/").rsplit("/", 1)[-1]
        return f"../{page}{'?' if query else ''}{query}"
    if "?" in query:
        # Panel fails on a second "?" (a 500); the same query with it escaped, as a browser would
        # send a "?" inside a value. (The README's /which-measure lists use "?".)
        return f"./{path.rsplit('/', 1)[-1]}?{query.replace('?', '%3F')}"
    return None


# The routes served as light pages (``light_page``): the story's and the figures'. A route that
# ``serve_pages`` is given in place of one of them (and the workbench) is a Panel page.
LIGHT_ROUTES: set[str] = set()


@functools.cache
def _light_page(route: str, class_address: str) -> str | None:
    from explainer.export import served_page

    return served_page(route, class_address)


def light_page(route: str) -> str | None:
    """The light page served at ``route`` (with its token to fill in), or None for a Panel page.

    A figure is drawn and computed by explainer.js, as in an exported page, and connection.js
    links it to its Python session: the browser evaluates none of Bokeh's and Panel's 2.9 MB,
    and the page works before its session is made (README "Serving safely").
    """
    from explainer.pages import class_address

    return _light_page(route, class_address()) if route in LIGHT_ROUTES else None


def light_page_token(app, application, request) -> str:
    """A new session's token for a light page: what Bokeh's page handler puts in one, with none of
    the request's headers, cookies or arguments (``include_headers=[]``, ``include_cookies=[]``; the
    page reads its own URL). ``app`` is Bokeh's Tornado application (its secret key and token
    settings), ``application`` the page's Bokeh application."""
    from bokeh.util.token import generate_jwt_token, generate_session_id

    session_id = generate_session_id(secret_key=app.secret_key, signed=app.sign_sessions)
    payload = {"headers": {}, "cookies": {}, "arguments": {}}
    payload.update(application.process_request(request))
    return generate_jwt_token(
        session_id,
        secret_key=app.secret_key,
        signed=app.sign_sessions,
        expiration=app.session_token_expiration,
        extra_payload=payload,
    )


def use_explainer_handlers() -> None:
    """Put our page and websocket handlers in Bokeh's per-app URL patterns, in place of Panel's.

    The page handler redirects three kinds of address Panel cannot serve well: a query longer
    than ``MAX_QUERY_LENGTH`` (to the page without it, with ``#ignored-query=<length>`` for the
    figure's notice), a trailing slash, and a "?" inside the query. The websocket handler
    extends Panel's in two ways:

    - It sends frames at once (TCP_NODELAY). Bokeh's handler leaves Nagle's algorithm on, so a
      click's small message can wait for the previous one's delayed ACK (about 40 ms on Linux).
    - It accepts a page this server sent, at whatever address the reader typed: a classroom's
      LAN address or the laptop's name, which no list made at start-up can know. Such a page's
      origin is the host it asked for. Tornado 6.6 accepts these before asking the handler;
      older Tornado versions (the only ones on Python 3.10) leave it to this check. Any other
      origin must be in the allowed list (this host's own names and ``--allow-origin``).
    - It takes from the page only what a page sends (``PageMessages``), before Bokeh applies it.
    - A handshake no page makes (no session token, one that does not read) is closed with the
      code ``bad-handshake`` and one short log line, not a traceback.

    Bokeh's autoload.js route is left out: no page uses it, and it answers any site's script
    request (``Access-Control-Allow-Origin: *``) with a session token.
    """
    from bokeh.protocol.exceptions import ProtocolError
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import DocHandler, WSHandler
    from tornado.web import HTTPError

    class ExplainerDocHandler(DocHandler):
        async def get(self, *args, **kwargs):
            if not ACCESS.allows(self):
                return ACCESS.ask(self)
            redirect = page_redirect(self.request.path, self.request.query, self.application_context.url)
            if redirect is not None:
                return self.redirect(redirect, status=303)
            if (page := light_page(self.application_context.url)) is not None:
                return self._send_light_page(page)
            return await super().get(*args, **kwargs)

        def _send_light_page(self, page: str) -> None:
            """The page with a new session's token; the session is made when its websocket opens
            (as Bokeh makes one for a page whose session is gone), while the page is already working."""
            from explainer.export import SESSION_TOKEN

            token = light_page_token(self.application, self.application_context.application, self.request)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")  # a token is for one page load
            self.write(page.replace(SESSION_TOKEN, token))

        async def post(self, *args, **kwargs):
            # The access code's form: a right code sets its cookie and reloads the page.
            return await ACCESS.check(self)

    class ExplainerWSHandler(PageMessages, WSHandler):
        @property
        def max_message_size(self) -> int:
            # Read by Tornado when the connection opens: the workbench's page sends file pieces.
            return message_limit(self.application_context.url)

        def prepare(self):
            if not ACCESS.allows(self):
                raise HTTPError(403)
            return super().prepare()

        def check_origin(self, origin: str) -> bool:
            if is_allowed_origin(origin, self.request.host, self.application.websocket_origins):
                return True
            origin_host = urlsplit(origin).netloc.lower() if "://" in origin else origin
            # Bokeh's own message names an option this command does not have.
            log.warning(
                "Refusing websocket connection from Origin %r: its page is not at this server's address "
                "(the request was sent to host %r); if that page is yours, allow it with --allow-origin %s",
                shorten(origin, 100),
                shorten(self.request.host, 100),
                shorten(origin_host, 100) if origin_host and origin_host != "null" else "HOST[:PORT]",
            )
            return False

        def open(self, *args, **kwargs):
            self.set_nodelay(True)
            try:
                return super().open(*args, **kwargs)
            except (ProtocolError, ValueError, KeyError, TypeError) as refused:
                # A handshake no page makes (no "bokeh" subprotocol, a token that does not read):
                # Bokeh raises, and Tornado would log a whole traceback for each one.
                self._refuse_connection("bad-handshake", f"{type(refused).__name__}: {refused}")
                return None

    ours = {WSHandler: ExplainerWSHandler, DocHandler: ExplainerDocHandler}
    per_app_patterns[:] = [
        (pattern, ours.get(handler, handler)) for pattern, handler in per_app_patterns if pattern != r"/autoload.js"
    ]
    use_explainer_static_files()


# -- HTTP: requests held to what a browser sends, and the processes of --num-procs ----------------


def use_explainer_http_server() -> None:
    """Have Bokeh's server listen with ``ExplainerHTTPServer`` (Bokeh makes its HTTPServer by this name)."""
    import bokeh.server.server

    bokeh.server.server.HTTPServer = explainer_http_server()


@functools.cache
def explainer_http_server():
    """Tornado's HTTPServer as the explainer serves:

    - Each connection finds the end of a request's headers in the bytes that came since it last
      looked (``RequestStream``). Tornado searches its whole buffer again each time bytes arrive:
      with the long request lines the explainer lets in, 50 ms a time, so a client that sent such a
      line a byte at a time held every reader.
    - A request with more than ``MAX_HEADER_COUNT`` header fields gets a 431 before any handler
      sees it (Panel and Bokeh match each header against a list: 40,000 of them took 35 s).
    - ``--num-procs``: see ``fork_serving_processes``.
    """
    from tornado import httputil
    from tornado.httpserver import HTTPServer
    from tornado.iostream import IOStream, UnsatisfiableReadError

    class RequestStream(IOStream):
        """A connection that looks for the end of a request's headers only in the bytes that came
        since it last looked, at memchr's speed (Tornado's regular expression reads 40 MB/s),
        and closes as soon as the header fields after the request line pass ``MAX_HEADER_BYTES``,
        as Tornado closes a connection whose headers pass its own limit."""

        _scan = None  # the HeaderScan of the request being read

        def read_until_regex(self, regex, max_bytes=None):
            self._scan = HeaderScan()
            return super().read_until_regex(regex, max_bytes)

        def _find_read_pos(self):
            regex = self._read_regex
            if regex is None or regex.pattern != HEADER_END or not self._read_buffer_size:
                return super()._find_read_pos()
            size = self._read_buffer_size
            try:
                end = self._scan.end_in(self._read_buffer, size)
            except HeaderFieldsTooLong as error:
                raise UnsatisfiableReadError(str(error)) from None
            self._check_max_bytes(regex, end or size)
            return end

    class HeaderCount(httputil.HTTPMessageDelegate):
        """Answers a request with too many header fields with a 431, in place of the application."""

        def __init__(self, delegate, connection):
            self.delegate, self.connection, self.refused = delegate, connection, False

        def headers_received(self, start_line, headers):
            if not too_many_header_fields(headers):
                return self.delegate.headers_received(start_line, headers)
            self.refused = True
            reason = "Request Header Fields Too Large"
            body = f"{reason}: at most {MAX_HEADER_COUNT} header fields\n".encode()
            self.connection.write_headers(
                httputil.ResponseStartLine("HTTP/1.1", 431, reason),
                httputil.HTTPHeaders({"Content-Type": "text/plain", "Content-Length": str(len(body))}),
                body,
            )
            self.connection.finish()
            return None

        def data_received(self, chunk):
            return None if self.refused else self.delegate.data_received(chunk)

        def finish(self):
            if not self.refused:
                self.delegate.finish()

        def on_connection_close(self):
            if not self.refused:
                self.delegate.on_connection_close()

    class ExplainerHTTPServer(HTTPServer):
        def handle_stream(self, stream, address):
            if type(stream) is IOStream:  # a plain TCP connection, not yet read from
                stream.__class__ = RequestStream
            return super().handle_stream(stream, address)

        header_count = HeaderCount  # what every request goes through first

        def start_request(self, server_conn, request_conn):
            return self.header_count(super().start_request(server_conn, request_conn), request_conn)

        def start(self, num_processes: int | None = 1, max_restarts: int | None = None) -> None:
            if num_processes != 1:
                fork_serving_processes(num_processes or os.cpu_count() or 1)
            super().start(1)

    return ExplainerHTTPServer


def too_many_header_fields(headers) -> bool:
    """Whether a request's headers (Tornado's ``HTTPHeaders``) have more than ``MAX_HEADER_COUNT`` fields."""
    return sum(1 for _ in headers.get_all()) > MAX_HEADER_COUNT


# What Tornado reads a request's headers up to (tornado.http1connection).
HEADER_END = b"\r?\n\r?\n"


class HeaderFieldsTooLong(ValueError):
    """A request whose header fields after its request line pass ``MAX_HEADER_BYTES``."""


class HeaderScan:
    """The search for the end of one request's headers in its connection's growing buffer
    (``find_header_end``, resumed where it stopped), which refuses header fields longer than
    ``MAX_HEADER_BYTES`` (counted from the end of the request line, which may be far longer)."""

    def __init__(self):
        self.scanned = 0  # no header end starts before this
        self.line_end = -1  # where the request line ends, once known

    def end_in(self, buffer: bytes | bytearray, size: int) -> int | None:
        """Where the headers end in ``buffer[:size]``, or None while they have not ended."""
        end, self.scanned, self.line_end = find_header_end(buffer, size, self.scanned, self.line_end)
        fields = (end or size) - self.line_end if self.line_end >= 0 else 0
        if fields > MAX_HEADER_BYTES:
            raise HeaderFieldsTooLong(f"header fields longer than {MAX_HEADER_BYTES} bytes")
        return end


def find_header_end(
    buffer: bytes | bytearray, size: int, start: int = 0, line_end: int = -1
) -> tuple[int | None, int, int]:
    """Where a request's headers end in ``buffer[:size]``, as Tornado's ``HEADER_END`` search finds
    it (just after the first blank line), found at memchr's speed and resumably: ``start`` (no
    header end begins before it) and ``line_end`` (the end of the request line, after at most one
    blank line, or -1 while unknown) come from the previous call on the same growing buffer.
    Returns the end or None, and the ``start`` and ``line_end`` for the next call.
    """
    while (newline := buffer.find(b"\n", start, size)) >= 0:
        if size - newline < 3 and buffer[newline + 1 : size] in (b"", b"\r"):
            return None, newline, line_end  # undecided until more bytes come
        if line_end < 0 and (newline > 1 or buffer[:newline].strip(b"\r")):
            line_end = newline
        if buffer[newline + 1] == 10:
            return newline + 2, newline + 2, line_end
        if buffer[newline + 1 : newline + 3] == b"\r\n":
            return newline + 3, newline + 3, line_end
        start = newline + 1
    return None, size, line_end


# What stops the server processes of --num-procs, sent to their parent (Windows has no SIGHUP,
# nor --num-procs).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
# The most server processes --num-procs replaces after they die by themselves (as Tornado's).
MAX_RESTARTS = 100


def fork_serving_processes(count: int) -> None:
    """Fork ``count`` server processes and return in each of them; the parent stays here until they
    have all stopped, then exits.

    Tornado's own fork_processes only waits in its parent: a signal to the parent alone (a
    service manager's SIGTERM, a kill) left its children serving the port, and Ctrl+C printed
    its KeyboardInterrupt traceback. This parent passes SIGINT, SIGTERM and SIGHUP on to every
    child as SIGTERM and exits quietly once they are gone; on Linux a child also stops when its
    parent dies any other way (PR_SET_PDEATHSIG), SIGKILL included. A child that dies by itself
    is replaced, as Tornado does.
    """
    parent = os.getpid()
    children: dict[int, int] = {}
    stopping = False

    def fork(number: int) -> bool:
        """Start server process ``number``; True in the new process."""
        pid = os.fork()
        if pid:
            children[pid] = number
            return False
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        _stop_with_parent(parent)
        return True

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    for number in range(count):
        if fork(number):
            return
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    restarts = 0
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        number = children.pop(pid, None)
        if number is None or stopping or os.waitstatus_to_exitcode(status) == 0:
            continue
        restarts += 1
        if restarts > MAX_RESTARTS:
            log.error("Server processes keep dying; stopping")
            stop(None, None)
            continue
        log.warning(
            "Server process %d (pid %d) ended with %d; starting another", number, pid, os.waitstatus_to_exitcode(status)
        )
        if fork(number):
            return
    sys.exit(0)


def _stop_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGTERM when its parent dies (Linux); elsewhere nothing."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (AttributeError, OSError, TypeError):
        return
    if os.getppid() != parent:  # it died before that took hold
        os._exit(0)


def _no_server_header():
    from tornado.web import OutputTransform

    class NoServerHeader(OutputTransform):
        """Leaves out the Server header, in which Tornado names itself and its version."""

        def transform_first_chunk(self, status_code, headers, chunk, finishing):
            headers.pop("Server", None)
            return status_code, headers, chunk

    return NoServerHeader


def shorten_log_line(text: str) -> str:
    """A log message as the server logs it: its first ``MAX_LOG_CHARS`` characters, and how long it was."""
    return text if len(text) <= MAX_LOG_CHARS else f"{text[:MAX_LOG_CHARS]}… ({len(text):,} characters in all)"


def _shorten_long_log_messages() -> None:
    """Cut every log message to ``MAX_LOG_CHARS``: Bokeh logs a message it cannot handle whole
    (5 MB of log for a 5 MB message), and Tornado a request's URL."""
    make_record = logging.getLogRecordFactory()
    if getattr(make_record, "shortens", False):
        return

    def shortened(*args, **kwargs):
        record = make_record(*args, **kwargs)
        try:
            text = record.getMessage()
        except Exception:  # a bad format is the logging module's to report
            return record
        if len(text) > MAX_LOG_CHARS:
            record.msg, record.args = shorten_log_line(text), None
        return record

    shortened.shortens = True
    logging.setLogRecordFactory(shortened)


# Scripts and stylesheets a page loads; a first visit fetches 2.9 MB of them, 0.75 MB gzipped.
COMPRESSIBLE = (".js", ".css", ".json", ".svg", ".map")
_gzipped: dict[tuple[str, float], bytes] = {}


def gzipped(path: str, modified: float) -> bytes:
    """The gzip of a file, made once per file and version: a class's first visit costs no compression per student."""
    import gzip

    key = (path, modified)
    if key not in _gzipped:
        _gzipped[key] = gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)
    return _gzipped[key]


@functools.cache
def explainer_static(handler_class):
    """``handler_class`` (a Tornado static file handler) as the explainer serves files:

    - to browsers that accept gzip, a gzipped copy of each script and stylesheet, compressed
      once (Tornado's own ``compress_response`` would compress it again for every request, on
      the one thread that also answers every click);
    - a path with a NUL byte refused with a 400 (Tornado 6.6 would pass it to os.path.realpath:
      a ValueError, a 500 and a traceback in the log).
    """
    from tornado.web import HTTPError

    class Served(handler_class):
        gzipping = False

        def get(self, path, include_body=True):
            if "\x00" in path:
                raise HTTPError(400)
            return super().get(path, include_body)

        def set_headers(self):
            encodings = self.request.headers.get("Accept-Encoding", "")
            self.gzipping = (
                self.absolute_path.endswith(COMPRESSIBLE)
                and "gzip" in encodings.lower()
                and "Range" not in self.request.headers
            )
            super().set_headers()
            if self.absolute_path.endswith(COMPRESSIBLE):
                self.set_header("Vary", "Accept-Encoding")
            if self.gzipping:
                self.set_header("Content-Encoding", "gzip")
                # For this response only: the class's get_content also serves Tornado's version hashes.
                self.get_content = lambda abspath, start=None, end=None: self._gzipped()[start:end]

        def compute_etag(self):
            etag = super().compute_etag()
            return f'{etag[:-1]}-gzip"' if etag and self.gzipping else etag

        def get_content_size(self):
            return len(self._gzipped()) if self.gzipping else super().get_content_size()

        def _gzipped(self) -> bytes:
            return gzipped(self.absolute_path, self.modified.timestamp())

    Served.__name__ = Served.__qualname__ = f"Explainer{handler_class.__name__}"
    return Served


def use_explainer_static_files() -> None:
    """Serve Bokeh's and Panel's scripts and stylesheets as ``explainer_static`` says.

    Each page's /static/ route is made by Panel's replacement for Bokeh's create_static_handler,
    with the handler class its module names ``StaticHandler``; the shared routes are Bokeh's
    top-level patterns. Both get our handler (the same class each time).
    """
    import panel.io.server as panel_server
    from bokeh.server.urls import toplevel_patterns
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler
    from bokeh.server.views.static_handler import StaticHandler

    ours = {handler: explainer_static(handler) for handler in (StaticHandler, MultiRootStaticHandler)}
    panel_server.StaticHandler = ours[StaticHandler]
    toplevel_patterns[:] = [(route[0], ours.get(route[1], route[1]), *route[2:]) for route in toplevel_patterns]


def is_allowed_origin(origin: str, host: str, allowed) -> bool:
    """Whether a websocket from a page at ``origin`` is accepted: a page of the very host it was sent
    to (``host``), or of a host and port in ``allowed`` (this host's own names and ``--allow-origin``)."""
    from bokeh.server.util import check_allowlist

    if is_same_origin(origin, host):
        return True
    origin_host = urlsplit(origin).netloc.lower() if "://" in origin else origin
    return check_allowlist(origin_host, allowed)


def is_same_origin(origin: str, host: str) -> bool:
    """Whether a websocket's ``Origin`` header names the very host and port its request was sent to."""
    try:
        return bool(host) and urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False


def network_address() -> str | None:
    """This computer's address on its network (the one its default route leaves from), or None when offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))  # connecting a UDP socket sends nothing
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address
