"""The server's rules, each called directly: no server, no socket, no browser.

tests/test_abuse.py attacks a served explainer end to end (slow tests); here each rule those
attacks meet is checked at the function or class that enforces it (the modules of explainer/server/):
which events and messages a page may send, and what is done with the rest; the websocket's
message sizes; a request's header fields, their count and their bytes; the session token's
contents; the access code's cookie and form; the shortened log lines; the static files a
path may name. The websocket handler's rules run on the very handler class (``PageMessages``)
with Bokeh's own message receiver and a real session of a page's document, fed frames as a
browser sends them.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import logging
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bokeh.document import Document
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.server.connection import ServerConnection
from bokeh.server.session import ServerSession
from tornado import httputil
from tornado.concurrent import Future
from tornado.web import Application, StaticFileHandler

from explainer.figures import BY_NAME, FIGURES
from explainer.figures.base import MAX_QUERY_LENGTH
from explainer.figures.binary import BinaryState
from explainer.pages import LIGHT_ROUTES, evaluate_page
from explainer.server import http_server, logs, messages, origins, page_redirect, static_files
from explainer.server.access_code import AccessCode
from explainer.server.config import ServerConfig
from explainer.server.http_server import HeaderCount
from explainer.server.messages import DOCUMENT_READY
from explainer.workbench.upload import CHUNK_BYTES

from support.bokeh_client import as_map
from support.coroutines import run

# -- helpers: Bokeh's encoding, and a page's websocket without the socket ------------------------


def state_change(model_id: str, state: Any, **extra: Any) -> dict[str, Any]:
    """The event a figure's page sends when its reader changes the figure's state."""
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": "state", "new": as_map(state), **extra}


def change(model_id: str, attr: str, new: Any) -> dict[str, Any]:
    return {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}


BINARY = "p1"  # the binary figure's state model, in the hand-made page models below
FIELDS = frozenset(BinaryState().to_dict())
# The server as the command line makes it by default: its limits, its upload page.
CONFIG = ServerConfig(port=5006, address="127.0.0.1")
LIMITS = CONFIG.limits
MODELS = messages.PageModels(
    states={BINARY: FIELDS, "p2": frozenset({"grades"})}, uploads=frozenset({"v9"}), workbenches=frozenset({"v8", "v9"})
)


def panel_page(route: str):
    """A Panel page for ``route``: the workbench's, or a figure's Panel view alone ("/binary"), or
    every figure's ("/"), as a notebook shows them (the filter is the same for any Panel page)."""
    import panel as pn

    if route == CONFIG.upload_page:
        return evaluate_page()
    if route == "/":
        return pn.Column(*(page.figure() for page in FIGURES))
    return pn.Column(BY_NAME[route.removeprefix("/")].figure())


class Page(messages.PageMessages):
    """A served Panel page's websocket handler (``PageMessages``, as the server mixes it into Bokeh's)
    on a real session of ``route``'s document (``panel_page``), fed frames by ``send``; what it
    answers is kept in ``replies``, and ``closed`` holds the close code and reason it gave."""

    def __init__(self, route: str = "/binary", open_: bool = True):
        self.document = Document()
        panel_page(route).server_doc(self.document)
        self.receiver = Receiver(Protocol()) if open_ else None
        self.connection = (
            ServerConnection(Protocol(), self, None, ServerSession("s1", self.document)) if open_ else None
        )
        self.request = SimpleNamespace(remote_ip="192.0.2.1", path=f"{route}/ws")
        self.application = SimpleNamespace(settings={})  # a server's defaults (``config.config_of``)
        self.replies: list = []
        self.closed: tuple[int, str] | None = None

    async def send_message(self, message) -> None:
        self.replies.append(message)

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.closed = (code, reason)

    def send(self, *frames: str | bytes) -> None:
        async def frames_in_turn():
            for frame in frames:
                await self.on_message(frame)

        run(frames_in_turn())

    def message(self, msgtype: str, content: Any, msgid: str = "m1") -> None:
        """One message as BokehJS sends it: three text frames, header, metadata and content."""
        self.send(json.dumps({"msgid": msgid, "msgtype": msgtype}), "{}", json.dumps(content))

    @property
    def answer(self) -> str:
        """The last reply: "OK", the error's text, or the message type."""
        reply = self.replies[-1]
        return {"OK": "OK", "ERROR": reply.content.get("text")}.get(reply.msgtype, reply.msgtype)

    @property
    def figure_model(self) -> str:
        return next(iter(messages.page_models(self.document).states))

    def state(self) -> dict[str, Any]:
        return dict(self.document.get_model_by_id(self.figure_model).state)


@pytest.fixture(autouse=True)
def quiet_debug_logs(caplog):
    """Panel logs each event a session applies with its value, at debug level: not in these tests' reports."""
    for name in ("panel", "bokeh"):
        caplog.set_level(logging.INFO, logger=name)


@pytest.fixture
def binary_page():
    return Page("/binary")


# -- what a page may send: its figures' states, "document ready" once, and the workbench's pieces --


def test_a_figures_state_is_kept_rebuilt_from_its_checked_parts():
    event = state_change(BINARY, {"k": 3, "missed": 2}, extra="never passed on")
    events, dropped = messages.page_events({"events": [event]}, MODELS, ready_seen=True)
    assert dropped == []
    assert events == [
        {"kind": "ModelChanged", "model": {"id": BINARY}, "attr": "state", "new": as_map({"k": 3, "missed": 2})}
    ]


def test_of_many_states_for_one_figure_only_the_last_counts_and_each_figure_keeps_its_own():
    states = [state_change(BINARY, {"k": k}) for k in range(1, 101)] + [state_change("p2", {"grades": [3, 0]})]
    events, dropped = messages.page_events({"events": states}, MODELS, ready_seen=True)
    assert dropped == [] and len(events) == 2
    assert events[0]["new"] == as_map({"k": 100}) and events[1]["model"] == {"id": "p2"}


def test_document_ready_is_taken_once():
    events, dropped = messages.page_events({"events": [DOCUMENT_READY, DOCUMENT_READY]}, MODELS, ready_seen=False)
    assert events == [DOCUMENT_READY] and dropped == ["MessageSent"]
    events, dropped = messages.page_events({"events": [DOCUMENT_READY]}, MODELS, ready_seen=True)
    assert events == [] and dropped == ["MessageSent"]


def state_with(value: Any) -> dict[str, Any]:
    return change(BINARY, "state", {"type": "map", "entries": [["k", value]]})


# Events no page sends, and the few words the log gets for each (never their content).
NOT_SENT = {
    "the figure's module code": (change("p7", "esm", "alert(1)"), "a change of 'esm'"),
    "another property of the figure": (change(BINARY, "caption", "<b>pwned</b>"), "a change of 'caption'"),
    "a state on another model": (change("p7", "state", {"type": "map"}), "a state that is not a figure's"),
    "a model that does not exist": (change("p999", "state", {"type": "map"}), "a state that is not a figure's"),
    "a model given by more than its id": (
        {"kind": "ModelChanged", "model": {"id": BINARY, "type": "object"}, "attr": "state", "new": {"type": "map"}},
        "a state that is not a figure's",
    ),
    "a new model inside a state": (
        state_with({"type": "object", "name": "Div", "id": "evil", "attributes": {}}),
        "a state that is not a figure's",
    ),
    "a reference inside a state": (state_with({"id": "p7"}), "a state that is not a figure's"),
    "an array inside a state": (
        state_with({"type": "ndarray", "array": {"type": "bytes", "data": "AAAA"}}),
        "a state that is not a figure's",
    ),
    "a field the state has not": (
        change(BINARY, "state", {"type": "map", "entries": [["evil", 1]]}),
        "a state that is not a figure's",
    ),
    "a map key that is not a string": (
        change(BINARY, "state", {"type": "map", "entries": [[1, 1]]}),
        "a state that is not a figure's",
    ),
    "a state nested too deep": (state_with([[[[1]]]]), "a state that is not a figure's"),
    "a state that is not a map": (change(BINARY, "state", [1, 2]), "a state that is not a figure's"),
    "new roots": ({"kind": "RootAdded", "model": {"type": "object", "name": "Div", "id": "x"}}, "RootAdded"),
    "a root removed": ({"kind": "RootRemoved", "model": {"id": "p7"}}, "RootRemoved"),
    "the title": ({"kind": "TitleChanged", "title": "pwned"}, "TitleChanged"),
    "another event": (
        {
            "kind": "MessageSent",
            "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "button_click", "values": {"type": "map", "entries": []}},
        },
        "MessageSent",
    ),
    "a long kind": ({"kind": "K" * 5000}, "K" * 40),
    "no kind": ({"model": {"id": BINARY}}, "no kind"),
    "not an event": ([1, 2, 3], "not an event"),
}


@pytest.mark.parametrize("name", list(NOT_SENT))
def test_an_event_no_page_sends_is_dropped_and_described_in_a_few_words(name):
    event, description = NOT_SENT[name]
    assert messages.page_events({"events": [event]}, MODELS, ready_seen=True) == ([], [description])


def test_a_state_may_nest_as_deep_as_the_queries_figures_and_one_level_more():
    """The queries figure's state is a map of lists of lists; ``MAX_STATE_DEPTH`` allows one list more."""
    assert messages.MAX_STATE_DEPTH == 4
    deepest = {"type": "map", "entries": [["k", [[[1]]]]]}  # map, list, list, list: four containers
    assert messages.is_plain(deepest) and not messages.is_plain({"type": "map", "entries": [["k", [[[[1]]]]]]})
    queries = as_map({"a": [list(range(1, 21))] * 8})
    assert messages.is_state(queries, frozenset({"a"}))


@pytest.mark.parametrize("content", [None, [], "events", {"events": {"a": 1}}, {"nothing": []}])
def test_a_message_without_a_list_of_events_is_dropped_whole(content):
    assert messages.page_events(content, MODELS, ready_seen=False) == ([], ["a message without a list of events"])


def upload_piece(view: str, message: dict[str, Any], model: dict | None = None, **extra) -> dict[str, Any]:
    data = as_map(message)
    if model is not None:
        data["entries"].append(["model", model])
    values = {"type": "map", "entries": [["model", {"id": view}], ["data", data]]}
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {"type": "event", "name": "data_event", "values": values},
        **extra,
    }


def test_upload_pieces_are_taken_only_from_a_view_that_takes_uploads_and_only_of_the_three_kinds():
    for kind in sorted(messages.UPLOAD_MESSAGES):
        piece = upload_piece("v9", {"type": kind, "slot": "qrels"})
        assert messages.upload_event(piece, MODELS) == piece
        assert messages.page_events({"events": [piece]}, MODELS, ready_seen=True) == ([piece], [])
    refused = {
        "a figure's view": upload_piece("v1", {"type": "start"}),
        "another message": upload_piece("v9", {"type": "run-this"}),
        "a model inside": upload_piece("v9", {"type": "start"}, model={"type": "object", "name": "Div", "id": "x"}),
        "more than an event has": upload_piece("v9", {"type": "start"}, extra=1),
        "another event name": {**upload_piece("v9", {"type": "start"}), "msg_data": {"type": "event", "name": "x"}},
        "a comm message": {"kind": "MessageSent", "msg_type": "comm", "msg_data": {"x": 1}},
        "a piece to a workbench without uploads": upload_piece("v8", {"type": "start"}),
        "a what-if change to a figure's view": upload_piece("v1", {"type": "judge"}),
    }
    for name, piece in refused.items():
        assert messages.upload_event(piece, MODELS) is None, name


def test_what_if_changes_are_taken_from_any_workbench_view_uploads_or_not():
    for kind in sorted(messages.WHAT_IF_MESSAGES):
        for view in ("v8", "v9"):
            change = upload_piece(view, {"type": kind, "qid": "q1"})
            assert messages.upload_event(change, MODELS) == change


def test_a_pages_document_names_its_figures_states_and_the_views_that_take_uploads():
    binary = Page("/binary").document
    states = messages.page_models(binary)
    assert list(states.states.values()) == [FIELDS] and states.uploads == frozenset()
    story = messages.page_models(Page("/").document)
    assert len(story.states) == len(FIGURES)
    workbench = messages.page_models(Page(CONFIG.upload_page).document)
    assert len(workbench.uploads) == 1
    # Of the workbench's state, its page sends the open query, the run and k; the what-if changes
    # come one a message, so a state that carries them is not the page's.
    assert list(workbench.states.values()) == [{"query", "run", "k"}]


def test_a_workbench_state_that_carries_what_if_changes_is_dropped_before_panel_sees_it():
    page = Page(CONFIG.upload_page)
    page.message("PATCH-DOC", {"events": [DOCUMENT_READY]})
    model = page.figure_model
    whole = {"query": "", "run": 0, "k": 10, "judgments": {"q1": {f"d{i}": 3 for i in range(1000)}}}
    page.message("PATCH-DOC", {"events": [state_change(model, whole)]})
    assert page.answer == "refused-event" and page.state()["judgments"] == {}
    page.message("PATCH-DOC", {"events": [state_change(model, {"query": "", "run": 0, "k": 7})]})
    assert page.answer == "OK" and page.state()["k"] == 7


# -- the websocket handler: frames, message kinds, refusals and their codes -----------------------


def test_a_second_document_request_a_pushed_document_and_a_server_info_request_are_refused(binary_page):
    binary_page.message("PULL-DOC-REQ", {})
    assert binary_page.answer == "PULL-DOC-REPLY"
    before = binary_page.state()
    for msgtype, content in [("PULL-DOC-REQ", {}), ("PUSH-DOC", {"doc": {"roots": []}}), ("SERVER-INFO-REQ", {})]:
        binary_page.message(msgtype, content)
        assert binary_page.answer == "refused-message", msgtype
        assert binary_page.replies[-1].content["traceback"] is None
    assert binary_page.state() == before and binary_page.closed is None


def test_a_click_is_applied_and_a_message_with_nothing_a_page_sends_changes_nothing(binary_page):
    model = binary_page.figure_model
    binary_page.message("PATCH-DOC", {"events": [DOCUMENT_READY]})
    assert binary_page.answer == "OK"
    binary_page.message("PATCH-DOC", {"events": [state_change(model, {"k": 3})]})
    assert binary_page.answer == "OK" and binary_page.state()["k"] == 3
    binary_page.message("PATCH-DOC", {"events": [state_change(model, {"k": k}) for k in range(1, 13)]})
    assert binary_page.answer == "OK" and binary_page.state()["k"] == 12
    binary_page.message("PATCH-DOC", {"events": [change(model, "caption", "pwned"), DOCUMENT_READY]})
    assert binary_page.answer == "refused-event" and binary_page.state()["k"] == 12
    # What a page sends still applies beside what it does not, and the reply says something was dropped.
    binary_page.message("PATCH-DOC", {"events": [change(model, "caption", "pwned"), state_change(model, {"k": 4})]})
    assert binary_page.answer == "refused-event" and binary_page.state()["k"] == 4
    assert binary_page.closed is None


def test_a_connection_is_charged_its_patches_thread_time_and_waits_once_past_its_share(binary_page, monkeypatch):
    from explainer.server.limiters import Share

    binary_page.message("PATCH-DOC", {"events": [DOCUMENT_READY]})
    real = ServerSession._handle_patch

    def costly(session, message, connection):  # 50 ms of the thread, as a costly what-if might take
        until = time.thread_time() + 0.05
        while time.thread_time() < until:
            pass
        return real(session, message, connection)

    monkeypatch.setattr(ServerSession, "_handle_patch", costly)
    now = [0.0]
    binary_page._share = share = Share(0.25, 0.5, clock=lambda: now[0])
    waits = []

    async def pause(seconds):
        waits.append(seconds)
        now[0] += seconds

    binary_page._pause = pause
    k = 1
    while share.owed <= 0.5 and k <= 20:  # the burst: no message waits while it lasts
        binary_page.message("PATCH-DOC", {"events": [state_change(binary_page.figure_model, {"k": k})]})
        k += 1
    owed = share.owed
    assert waits == [] and k - 1 <= 10
    binary_page.message("PATCH-DOC", {"events": [state_change(binary_page.figure_model, {"k": 11})]})
    assert waits == [pytest.approx((owed - 0.5) / 0.25)]  # its first frame waited; the others did not
    assert 0.5 + 0.05 <= share.owed < 0.5 + 0.05 + 0.02  # charged its own 50 ms, and little more
    assert binary_page.answer == "OK" and binary_page.state()["k"] == 11  # slowed, never refused


def test_a_state_bokeh_refuses_gets_a_short_code_and_the_log_never_its_value(binary_page, caplog, monkeypatch):
    """Bokeh's reply carried its traceback (the server's install paths), and its log the whole value."""
    marker = "never-copied-" * 1500

    def refuse(session, message, connection):
        raise ValueError(f"expected an element of List(Bool), got {marker!r}")

    monkeypatch.setattr(ServerSession, "_handle_patch", refuse)
    caplog.set_level(logging.WARNING)
    binary_page.message("PATCH-DOC", {"events": [state_change(binary_page.figure_model, {"relevant": marker})]})
    assert binary_page.answer == "refused-state" and binary_page.closed is None
    assert binary_page.replies[-1].content["traceback"] is None
    (line,) = [record.getMessage() for record in caplog.records if record.name == logs.log.name]
    assert "a state refused with ValueError" in line and marker[:100] not in line and len(line) < 400, line


# Frames no page sends, and the reason the connection is closed with (code 1008).
GARBAGE = {
    "binary": ([b"\x00" * 20], "binary-frame"),
    "not JSON": (["not json", "{}", "{}"], "unreadable-message"),
    "buffers": (['{"msgid": "1", "msgtype": "PATCH-DOC", "num_buffers": 1}', "{}", '{"events": []}'], "binary-buffers"),
    "deep": (['{"msgid": "1", "msgtype": "PATCH-DOC"}', "{}", "[" * 20_000], "unreadable-message"),
    "no message id": (['{"msgtype": "PATCH-DOC"}', "{}", '{"events": []}'], "bad-header"),
    "a long message id": ([json.dumps({"msgid": "1" * 65, "msgtype": "PATCH-DOC"}), "{}", "{}"], "bad-header"),
    "unknown type": (['{"msgid": "1", "msgtype": "SHUTDOWN"}', "{}", "{}"], "unreadable-message"),
}


@pytest.mark.parametrize("name", list(GARBAGE))
def test_frames_no_page_sends_close_the_connection_with_a_code_and_one_short_log_line(name, caplog):
    frames, code = GARBAGE[name]
    page = Page()
    page.send(*frames)
    assert page.closed == (1008, code) and page.replies == []
    lines = [record.getMessage() for record in caplog.records if record.name == logs.log.name]
    assert len(lines) == 1 and code in lines[0] and len(lines[0]) < 300, lines
    page.message("PULL-DOC-REQ", {})  # after a refusal, nothing more is read
    assert page.replies == []


def test_a_message_before_the_session_is_open_closes_the_connection():
    page = Page(open_=False)
    page.message("PULL-DOC-REQ", {})
    assert page.closed == (1008, "not-open")


def test_a_message_after_its_session_was_destroyed_closes_the_connection_as_not_open(binary_page, caplog):
    """A page that leaves while its session is made: Bokeh destroys the session and detaches it from
    the open connection, whose ``session`` then fails an assertion (it was logged as an unreadable
    message, then as a traceback when the websocket closed: websocket.py's on_close)."""
    binary_page.connection.detach_session()
    assert messages.session_gone(binary_page.connection)
    binary_page.message("PULL-DOC-REQ", {})
    assert binary_page.closed == (1008, "not-open") and binary_page.replies == []
    assert not any("Assertion" in record.getMessage() for record in caplog.records)


def test_a_websocket_whose_session_is_gone_closes_with_no_traceback():
    """Bokeh's on_close asserts the connection still has its session; ours lets the application forget it."""
    from explainer.server.websocket import ExplainerWSHandler

    lost = []
    handler = ExplainerWSHandler.__new__(ExplainerWSHandler)
    connection = ServerConnection(Protocol(), handler, None, ServerSession("s1", Document()))
    connection.detach_session()
    handler.connection = connection
    handler.application = SimpleNamespace(settings={}, client_lost=lost.append)
    handler.on_close()
    assert lost == [connection]


def test_dropped_events_are_logged_once_then_at_most_once_a_minute(binary_page, caplog, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(messages.time, "monotonic", lambda: now[0])
    other = {"events": [change(binary_page.figure_model, "esm", "alert(1)")]}
    for seconds in (0, 1, 30, logs.REFUSAL_LOG_EVERY_S - 0.5, logs.REFUSAL_LOG_EVERY_S + 0.5):
        now[0] = 1000.0 + seconds
        binary_page.message("PATCH-DOC", other)
    lines = [record.getMessage() for record in caplog.records if "Dropped" in record.getMessage()]
    assert len(lines) == 2, lines
    assert (
        lines[0].startswith("Dropped 1 event(s)")
        and "a change of 'esm'" in lines[0]
        and "1 on this connection" in lines[0]
    )
    assert lines[1].startswith("Dropped 4 event(s)") and "5 on this connection" in lines[1]


# -- the configuration: where the handlers find it -------------------------------------------------


def test_a_servers_configuration_reaches_its_tornado_application_and_another_server_has_the_defaults():
    """serve_pages hands ServerConfig to Bokeh's server as a keyword, which Bokeh passes on to
    Tornado's application settings, where the handlers read it (config_of)."""
    from bokeh.application import Application as BokehApplication
    from bokeh.server.tornado import BokehTornado

    from explainer.server.config import SETTING, config_of

    guarded = ServerConfig(port=5007, address="127.0.0.1", access=AccessCode("open-sesame"))
    ours = BokehTornado({"/": BokehApplication()}, **{SETTING: guarded})
    assert config_of(ours) is guarded and not config_of(ours).access.allows(Visitor())
    other = BokehTornado({"/": BokehApplication()})  # a Panel server that serve_pages did not start
    assert config_of(other).access.allows(Visitor()) and config_of(other).host_rule is None
    # The defaults, but no per-client limit: the tests' object server lends pages many a second.
    per_client = {"max_websockets_per_client", "new_sessions_burst", "workbench_sessions_burst"}
    for field in dataclasses.fields(LIMITS):
        expected = sys.maxsize if field.name in per_client else getattr(LIMITS, field.name)
        assert getattr(config_of(other).limits, field.name) == expected, field.name


# -- websocket message sizes -----------------------------------------------------------------------


def test_only_the_workbenchs_page_may_send_messages_as_long_as_a_file_piece():
    assert CONFIG.message_limit(CONFIG.upload_page) == LIMITS.max_upload_message_bytes == 2 * 1024 * 1024
    for route in LIGHT_ROUTES:
        assert CONFIG.message_limit(route) == LIMITS.max_message_bytes == 32 * 1024, route
    # The longest piece the workbench sends: a MiB as base64 in its message, which the limit holds.
    data = base64.b64encode(b"\xff" * CHUNK_BYTES).decode()
    assert len(data) == 4 * -(-CHUNK_BYTES // 3) == 1_398_104
    piece = upload_piece("p1", {"type": "chunk", "slot": "qrels", "index": 0, "data": data})
    content = json.dumps({"events": [piece]}, separators=(",", ":"))
    assert LIMITS.max_message_bytes < len(content) < LIMITS.max_upload_message_bytes
    assert messages.fits_a_page(content, LIMITS.max_message_bytes)


def test_a_message_longer_than_a_pages_that_is_not_one_upload_piece_is_refused_before_it_is_read(caplog):
    """10,000 small states in one 1.4 MB message (within the workbench's 2 MiB) took the server's
    thread some 250 ms to read and filter; counting its events refuses it first."""
    states = [state_change(BINARY, {"k": 1 + i % 12}) for i in range(10_000)]
    content = json.dumps({"events": states}, separators=(",", ":"))
    assert LIMITS.max_message_bytes < len(content) < LIMITS.max_upload_message_bytes
    assert not messages.fits_a_page(content, LIMITS.max_message_bytes)
    assert messages.fits_a_page(json.dumps({"events": states[:100]}), LIMITS.max_message_bytes)  # a page's length
    page = Page(CONFIG.upload_page)
    consumed, parse = [], page.receiver.consume

    async def consume(fragment):  # Bokeh's parse, which the content must not reach
        consumed.append(fragment)
        return await parse(fragment)

    page.receiver.consume = consume
    page.send(json.dumps({"msgid": "m1", "msgtype": "PATCH-DOC"}), "{}", content)
    assert page.closed == (1008, "too-long") and len(consumed) == 2
    page = Page(CONFIG.upload_page)
    page.send("x" * (messages.MAX_HEADER_CHARS + 1))
    assert page.closed == (1008, "too-long")


# -- a request's header fields ----------------------------------------------------------------------


def scan_whole(head: bytes) -> int | None:
    return http_server.HeaderScan(LIMITS.max_header_bytes).end_in(head, len(head))


def test_header_fields_are_held_to_their_bytes_after_a_request_line_of_any_length():
    line = b"GET /binary?" + b"a" * (LIMITS.max_request_line - 100) + b" HTTP/1.1\r\n"
    fields = b"Host: 127.0.0.1\r\nX-Fill: "
    # Counted from the request line's line break to the end of the blank line after the fields.
    room = LIMITS.max_header_bytes - (len(b"\n") + len(fields) + len(b"\r\n\r\n"))
    exact = line + fields + b"f" * room + b"\r\n\r\n"
    assert scan_whole(exact) == len(exact)
    with pytest.raises(http_server.HeaderFieldsTooLong):
        scan_whole(line + fields + b"f" * (room + 1) + b"\r\n\r\n")
    # Byte by byte, the fields are refused as soon as they pass the limit, before they end.
    scan, growing = http_server.HeaderScan(LIMITS.max_header_bytes), bytearray()
    with pytest.raises(http_server.HeaderFieldsTooLong):
        for byte in line + fields + b"f" * (room + 10):
            growing.append(byte)
            assert scan.end_in(growing, len(growing)) is None
    assert len(growing) == len(line) + LIMITS.max_header_bytes


def test_header_fields_are_counted_and_more_than_a_hundred_get_a_431():
    def headers(count: int) -> httputil.HTTPHeaders:
        found = httputil.HTTPHeaders()
        for i in range(count):
            found.add("X-Same", str(i))  # repeated names count as the fields they are
        return found

    assert not http_server.too_many_header_fields(headers(LIMITS.max_header_count), LIMITS.max_header_count)
    assert http_server.too_many_header_fields(headers(LIMITS.max_header_count + 1), LIMITS.max_header_count)

    class Delegate:
        called: list[str] = []

        def headers_received(self, start_line, headers):
            self.called.append("headers")

        def data_received(self, chunk):
            self.called.append("data")

        def finish(self):
            self.called.append("finish")

    class Connection:
        def write_headers(self, start_line, headers, chunk):
            self.written = (start_line, dict(headers.get_all()), chunk)

        def finish(self):
            self.finished = True

    start = httputil.RequestStartLine("GET", "/binary", "HTTP/1.1")
    delegate, connection = Delegate(), Connection()
    request = HeaderCount(delegate, connection, LIMITS.max_header_count)
    request.headers_received(start, headers(LIMITS.max_header_count + 1))
    request.data_received(b"x")
    request.finish()
    status, sent, body = connection.written
    assert (status.code, connection.finished, delegate.called) == (431, True, [])
    assert body == b"Request Header Fields Too Large: at most 100 header fields\n"
    assert sent == {
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Length": str(len(body)),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    request = HeaderCount(delegate, Connection(), LIMITS.max_header_count)
    request.headers_received(start, headers(LIMITS.max_header_count))
    request.finish()
    assert delegate.called == ["headers", "finish"]


def test_the_http_server_is_given_the_limits_of_a_requests_headers_and_body():
    assert LIMITS.http_server_options == {
        "max_header_size": 2 * 1024 * 1024 + 32 * 1024,
        "idle_connection_timeout": 10.0,
        "max_body_size": 16 * 1024,
        "body_timeout": 10.0,
    }
    # The one body a page sends, the access code's form, fits well inside: its code is cut at 200 characters.
    assert len(b"code=" + b"%FF" * 200 * 4) < LIMITS.max_body_bytes


def test_no_response_names_the_server():
    transform = http_server.ResponseHeaders(None)
    headers = httputil.HTTPHeaders({"Server": "TornadoServer/6.5", "Content-Type": "text/html"})
    status, kept, chunk = transform.transform_first_chunk(200, headers, b"page", True)
    assert (status, chunk) == (200, b"page") and "Server" not in dict(kept.get_all())


# -- where a page request is sent instead, and which websockets are accepted --------------------------


def test_a_long_query_a_trailing_slash_and_a_question_mark_in_a_query_are_redirected():
    long = "k=3&" + "a" * MAX_QUERY_LENGTH
    assert page_redirect.page_redirect("/binary", long, "/binary") == f"./binary#ignored-query={len(long)}"
    assert page_redirect.page_redirect("/binary", "k" * MAX_QUERY_LENGTH, "/binary") is None
    assert page_redirect.page_redirect("/binary/", "k=3", "/binary") == "../binary?k=3"
    assert page_redirect.page_redirect("/binary/", "", "/binary") == "../binary"
    assert page_redirect.page_redirect("/", "", "/") is None
    assert page_redirect.page_redirect("/which-measure", "a=3?1", "/which-measure") == "./which-measure?a=3%3F1"
    assert page_redirect.page_redirect("/binary", "k=3", "/binary") is None


def test_a_websocket_is_accepted_from_the_host_it_was_sent_to_and_the_allowed_origins_only():
    allowed = ["localhost:5006", "127.0.0.1:5006", "docs.example.org"]
    assert origins.is_allowed_origin("http://192.168.1.20:5006", "192.168.1.20:5006", allowed)
    assert origins.is_allowed_origin("http://localhost:5006", "192.168.1.20:5006", allowed)
    assert origins.is_allowed_origin("https://docs.example.org", "192.168.1.20:5006", allowed)
    assert not origins.is_allowed_origin("http://evil.example", "192.168.1.20:5006", allowed)
    assert not origins.is_allowed_origin("http://192.168.1.20:5007", "192.168.1.20:5006", allowed)
    assert not origins.is_allowed_origin("http://localhost:5007", "192.168.1.20:5006", allowed)
    assert not origins.is_allowed_origin("null", "192.168.1.20:5006", allowed)


# -- the access code ----------------------------------------------------------------------------------


class Visitor:
    """What a page handler gives the access code and takes from it (Tornado's RequestHandler's methods)."""

    def __init__(self, path: str = "/evaluate", cookie: str | None = None, code: str = ""):
        self.request = SimpleNamespace(path=path)
        self.cookie, self.code = cookie, code
        self.status = self.page = self.redirected = None
        self.headers: dict[str, str] = {}
        self.cookies_set: list = []

    def get_cookie(self, name):
        return self.cookie if name == AccessCode.COOKIE else None

    def get_body_argument(self, name, default=""):
        return self.code if name == "code" else default

    def set_status(self, status):
        self.status = status

    def set_header(self, name, value):
        self.headers[name] = value

    def finish(self, text):
        self.page = text

    def set_cookie(self, name, value, **options):
        self.cookies_set.append((name, value, options))

    def redirect(self, url, status):
        self.redirected = (url, status)


@pytest.fixture
def waited(monkeypatch) -> list[float]:
    """The seconds the access code's check waits, recorded instead of slept."""
    seconds: list[float] = []

    async def sleep(wait):
        seconds.append(wait)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    return seconds


def test_without_a_code_every_visitor_is_let_in():
    access = AccessCode(None)
    assert access.allows(Visitor()) and access.allows(Visitor(cookie="anything"))


def test_the_right_code_sets_an_httponly_strict_cookie_that_is_not_the_code(waited):
    access = AccessCode("open-sesame")
    visitor = Visitor(code="  open-sesame  ")
    run(access.check(visitor))
    ((name, value, options),) = visitor.cookies_set
    assert name == "explainer-access" and "open-sesame" not in value
    assert options == {"httponly": True, "samesite": "Strict", "path": "/"}
    assert visitor.redirected == ("/evaluate", 303) and waited == []
    assert access.allows(Visitor(cookie=value))
    # The cookie with its last digit changed (a fixed "00" was no change for one cookie in 256).
    forged = value[:-1] + ("1" if value[-1] == "0" else "0")
    assert not access.allows(Visitor(cookie=forged)) and not access.allows(Visitor())
    assert not access.allows(Visitor(cookie="é" * 64))  # not even ASCII
    access = AccessCode("open-sesame")  # a new start: a new key, and yesterday's cookie opens nothing
    assert not access.allows(Visitor(cookie=value))


def test_a_wrong_code_waits_a_second_and_gets_the_form_again(waited):
    access = AccessCode("open-sesame")
    for guess in ("guess", "open-sesame" + "x" * 300, "open-sesameX"):
        visitor = Visitor(code=guess)
        run(access.check(visitor))
        assert (visitor.status, visitor.cookies_set) == (403, []) and "That is not the code" in visitor.page
    assert waited == [1.0, 1.0, 1.0]
    # Only the first 200 characters are read: a code and anything after them is the code.
    visitor = Visitor(code="open-sesame".ljust(200) + "ignored")
    run(access.check(visitor))
    assert visitor.cookies_set and visitor.redirected == ("/evaluate", 303)


def test_the_access_form_has_no_script_fetches_nothing_and_posts_back_to_its_page():
    access = AccessCode("open-sesame")
    visitor = Visitor(path='/evaluate"><script>alert(1)</script>')
    access.ask(visitor)
    assert visitor.status == 401
    assert visitor.headers.items() >= {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}.items()
    page = visitor.page
    assert "<script" not in page and "src=" not in page and "href=" not in page and "url(" not in page
    assert 'action="/evaluate&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page
    assert '<form method="post"' in page and 'name="code"' in page and "role='alert'" not in page


# -- the log -------------------------------------------------------------------------------------------


def test_a_long_log_message_is_cut_and_says_how_long_it_was():
    limit = logs.MAX_LOG_CHARS
    assert logs.shorten_log_line("x" * limit) == "x" * limit
    assert logs.shorten_log_line("x" * (limit + 1)) == "x" * limit + f"… ({limit + 1:,} characters in all)"
    assert logs.shorten_log_line("y" * 5_000_000).endswith("… (5,000,000 characters in all)")


def test_every_log_record_of_the_server_process_is_shortened():
    before = logging.getLogRecordFactory()
    try:
        logs.shorten_long_log_messages()
        logs.shorten_long_log_messages()  # twice is once
        record = logging.getLogRecordFactory()("bokeh", logging.ERROR, __file__, 1, "message %s", ("z" * 10_000,), None)
        assert record.getMessage() == logs.shorten_log_line("message " + "z" * 10_000)
        assert len(record.getMessage()) < logs.MAX_LOG_CHARS + 40
    finally:
        logging.setLogRecordFactory(before)


# -- static files ---------------------------------------------------------------------------------------


class Connection:
    """Tornado's side of one HTTP exchange, kept in memory."""

    def __init__(self):
        self.status, self.headers, self.body = None, {}, b""

    def set_close_callback(self, callback):
        pass

    def write_headers(self, start_line, headers, chunk=None):
        self.status, self.headers = start_line.code, dict(headers.get_all())
        return self.write(chunk or b"")

    def write(self, chunk):
        self.body += chunk
        done = Future()
        done.set_result(None)
        return done

    def finish(self):
        pass


def static_get(handler_class, path: str, root: Path | None = None, **headers: str) -> Connection:
    """What a static handler answers a GET of ``path`` (as its URL pattern hands it the handler)."""
    connection = Connection()
    request = httputil.HTTPServerRequest(
        start_line=httputil.RequestStartLine("GET", "/static/", "HTTP/1.1"),
        headers=httputil.HTTPHeaders({"Host": "127.0.0.1", **headers}),
        connection=connection,
    )
    options = {"path": str(root)} if root else {}
    handler = handler_class(Application(), request, **options)

    async def get():
        await handler._execute([], path.encode("latin-1"))

    run(get())
    return connection


@pytest.fixture
def bokeh_static():
    from bokeh.server.views.static_handler import StaticHandler

    return static_files.explainer_static(StaticHandler)


def test_a_nul_byte_in_a_static_path_is_a_400_where_tornado_would_fail_with_a_500(tmp_path, caplog):
    (tmp_path / "a.js").write_text("const a = 1;\n")
    assert static_get(StaticFileHandler, "a.js\x00.txt", tmp_path).status == 500  # why the rule is there
    caplog.clear()
    ours = static_files.explainer_static(StaticFileHandler)
    for path in ("a.js\x00.txt", "\x00", "js/bokeh.min.js\x00"):
        assert static_get(ours, path, tmp_path).status == 400
    assert "Traceback" not in caplog.text and "ValueError" not in caplog.text


@pytest.mark.parametrize(
    "path",
    [
        "../../../../pyproject.toml",
        "js/../../../../../../etc/passwd",
        "/etc/passwd",
        "..\\..\\..\\..\\etc\\passwd",
        "js/bokeh.min.js/../../../../../../etc/passwd",
        "",
        "js/",
    ],
)
def test_no_static_path_reaches_a_file_outside_the_assets_or_lists_a_directory(bokeh_static, path):
    answer = static_get(bokeh_static, path)
    assert 400 <= answer.status < 500 and b"root:x:0:0" not in answer.body and b"[project]" not in answer.body


def test_scripts_go_out_gzipped_to_a_browser_that_takes_gzip_and_whole_to_a_range(bokeh_static, monkeypatch):
    import gzip

    from bokeh.util.paths import bokehjs_path

    monkeypatch.setattr(static_files, "_gzipped", {})
    file = Path(bokehjs_path()) / "js" / "bokeh.min.js"
    plain = static_get(bokeh_static, "js/bokeh.min.js")
    zipped = static_get(bokeh_static, "js/bokeh.min.js", **{"Accept-Encoding": "gzip, br"})
    ranged = static_get(bokeh_static, "js/bokeh.min.js", **{"Accept-Encoding": "gzip", "Range": "bytes=0-99"})
    assert plain.status == 200 and plain.body == file.read_bytes() and "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped.body) == file.read_bytes()
    assert zipped.headers["Vary"] == plain.headers["Vary"] == "Accept-Encoding"
    assert zipped.headers["Etag"] != plain.headers["Etag"]
    assert ranged.status == 206 and ranged.body == file.read_bytes()[:100] and "Content-Encoding" not in ranged.headers
    static_get(bokeh_static, "js/bokeh.min.js", **{"Accept-Encoding": "gzip"})
    assert len(static_files._gzipped) == 1  # compressed once, for every visitor
