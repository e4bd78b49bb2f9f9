"""The served explainer under attack from a classroom network, while a well-behaved reader keeps clicking.

Each test serves the explainer in a subprocess on 127.0.0.1, opens a reader's session of the
workbench (/evaluate, the one page that still sends clicks to Python: ``support/reader.py``)
that changes its k every ``CLICK_EVERY_S`` seconds whatever happens (so a frozen server shows in
every click it delays, not in one), runs one attack from another session or connection, and
then checks what a class would notice:

- the reader's round trips (click sent to the server's OK) stay under ``P95_LIMIT_MS`` at the
  95th percentile, and the reader's state in the server is still what the reader sent;
- the attacker's message was not applied (its session's document is as it was);
- the server's memory comes back once the attacker has left (slow connections).

The attacks on Bokeh's websocket target the workbench's (/evaluate/ws); the story and the
figure pages open none on a plain server. On a server that holds a class (``--class``) every
page also opens the class channel (/channel, ``server/channel.py``): its floods, crowds and
made-up tokens are measured the same way, the reader still clicking on the workbench.

The reader clicks in a process of its own, so that only the server's delays count, not the
attacker's work in this process. On a shared machine a reader can be slow with no attack at
all: when it was slower than the limit, it is measured again without the attack, and if it is
as slow then, the attack is tried again (``TRIES`` in all); the test fails when the attack was
slow and the machine was not, or when the machine never was quiet enough to tell. With
EXPLAINER_ABUSE_REPORT=FILE each measurement is added to FILE, to compare two servers
(EXPLAINER_ABUSE_TRIES=1 takes each attack's first measurement only).

Every attack is bounded in size and time and stays on the loopback interface. The attacks are
marked slow (``./serve.sh test -m slow``, which CI runs after the suite), but for the one the
workbench's uploads need; what a page sends and the limits they are set from run in every run.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import pytest
from tornado.websocket import WebSocketClosedError

from explainer.classroom import messages as class_messages
from explainer.figures.base import MAX_QUERY_LENGTH
from explainer.pages import EVALUATE_ROUTE, LIGHT_ROUTES
from explainer.server import channel
from explainer.server.config import Limits
from explainer.server.messages import DOCUMENT_READY, WORKBENCH_PAGE_FIELDS
from explainer.workbench import rate_limit
from explainer.workbench.upload import CHUNK_BYTES

import support.class_client
import support.reader
from support.bokeh_client import as_map, models_of
from support.class_client import ClassClient
from support.class_client import Closed as ChannelClosed
from support.expect import expect
from support.reader import ATTACK_LIMIT_S, PAGE_FIELDS, Closed, Refused, Session, as_dict, state_change
from support.server import Server

# A reader clicks beside each attack and is timed: CI runs these tests alone (marked `alone`, its
# last step). The browser test below times nothing and runs beside others.

# What a reader may wait for a click's round trip, at the 95th percentile, while someone attacks.
P95_LIMIT_MS = 100.0


# -- running an attack ---------------------------------------------------------------------------


class Loop:
    """An asyncio loop in a thread of its own (Playwright's sync API may own this thread's)."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine, timeout: float = 300.0):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def loop():
    running = Loop()
    yield running
    running.close()


@dataclass
class Outcome:
    """What the reader saw while an attack ran (its last try), and where the server's log was then."""

    reader: dict[str, float]
    state_kept: bool
    failures: list[str]
    log_from: int
    baseline: dict[str, float] | None = None

    def check(self, name: str, p95_limit_ms: float = P95_LIMIT_MS) -> None:
        assert self.failures == [], self.failures[:5]
        assert self.state_kept, "the reader's state in the server is not what the reader sent"
        busy = ""
        if self.baseline:
            busy = f" (with no attack, just after: p95 {self.baseline['p95']:.0f} ms"
            busy += ": the machine was too busy to tell)" if self.baseline["p95"] > P95_LIMIT_MS else ")"
        assert self.reader["p95"] <= p95_limit_ms, (
            f"{name}: the reader's p95 round trip was {self.reader['p95']:.0f} ms{busy}"
        )


class ReaderProcess:
    """A well-behaved reader clicking in a process of its own, so that no work of the attacker (or of
    this test process) delays its clicks: only the server's does."""

    def __init__(self, url: str, cookie: str = ""):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "support.reader", url, *([cookie] if cookie else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent,
        )
        if self.process.stdout.readline().strip() != "ready":
            self.kill()
            raise AssertionError("the reader did not start")

    def tell(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def result(self) -> dict[str, Any]:
        out, _ = self.process.communicate(timeout=2 * ATTACK_LIMIT_S)
        return json.loads(out.strip().splitlines()[-1])

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


# An attacked reader slower than the limit is measured again with no attack: if it is as slow
# then, the machine (shared, in development) was too busy to tell, and the attack is tried again.
TRIES = int(os.environ.get("EXPLAINER_ABUSE_TRIES", 3))


def under_attack(loop: Loop, server: Server, attack, settle_s: float = 2.0, limit_s: float = ATTACK_LIMIT_S) -> Outcome:
    """Run an attack while a reader of ``server`` clicks; what the reader saw.

    ``attack`` is an async generator function in three parts: what comes before its first
    ``yield`` prepares the attack (opening the attacker's session, which any visitor may do),
    what comes between the first and the second is the attack, and what comes after runs once
    the reader has stopped (checks). The reader's round trips are taken from the attack's
    start until ``settle_s`` seconds after it ended; clicks still in flight then are waited for
    (up to ``ATTACK_LIMIT_S``); the attack itself may take ``limit_s``. When the reader was
    slower than ``P95_LIMIT_MS`` and is as slow again with no attack, the attack is run again
    (``TRIES`` in all).
    """
    for _ in range(TRIES):
        log_from = len(server.log())
        started = time.monotonic()
        seen = read_while(loop, server, attack(), settle_s, limit_s)
        outcome = Outcome(seen["summary"], seen["kept"], seen["failures"], log_from)
        report(seen["summary"])
        if outcome.reader["p95"] <= P95_LIMIT_MS:
            break
        outcome.baseline = read_while(loop, server, None, time.monotonic() - started)["summary"]
        report(outcome.baseline, "with no attack")
        if outcome.baseline["p95"] <= P95_LIMIT_MS:
            break
    return outcome


def read_while(loop: Loop, server: Server, steps, settle_s: float, limit_s: float = ATTACK_LIMIT_S) -> dict[str, Any]:
    """What a reader saw while ``steps`` (an attack's async generator, or None for no attack) ran."""
    finished = steps is None
    if steps is not None:
        loop.run(steps.__anext__(), timeout=limit_s)
    # On a server with an access code, the test gives its reader the code's cookie (``reader_cookie``).
    reader = ReaderProcess(server.url, getattr(server, "reader_cookie", ""))
    try:
        reader.tell("start")

        async def attacking():
            nonlocal finished
            if steps is not None:
                try:
                    await asyncio.wait_for(steps.__anext__(), limit_s)
                except StopAsyncIteration:
                    finished = True
                except asyncio.TimeoutError:
                    finished = True  # the generator was cancelled with it
                    print(f"\nthe attack did not end within {limit_s:.0f} s")
            await asyncio.sleep(settle_s)

        loop.run(attacking(), timeout=2 * limit_s)
        reader.tell("stop")
        seen = reader.result()
    finally:
        reader.kill()
    if not finished:

        async def checking():
            try:
                await steps.__anext__()
            except StopAsyncIteration:
                pass

        loop.run(checking(), timeout=ATTACK_LIMIT_S)
    return seen


def report(summary: dict[str, float], note: str = "") -> None:
    """Print what the reader saw (pytest -s shows it); with EXPLAINER_ABUSE_REPORT=FILE, add it to FILE as a JSON line."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0] + (f" ({note})" if note else "")
    print(
        f"\n{test}: the reader's round trip median {summary['median']:.1f} ms, p95 {summary['p95']:.1f} ms, "
        f"max {summary['max']:.1f} ms over {summary['n']} clicks"
    )
    if path := os.environ.get("EXPLAINER_ABUSE_REPORT"):
        with open(path, "a") as out:
            out.write(json.dumps({"test": test, **summary}) + "\n")


def rss_mb(server: Server) -> float:
    return psutil.Process(server.process.pid).memory_info().rss / 2**20


@pytest.fixture
def fresh_server():
    running = Server()
    yield running
    running.stop()


async def doc_after(server: Server, attacker: Session) -> dict[str, Any]:
    """The attacker's document as the server holds it, over a new connection to its session, once the
    attacker's own has closed (a session takes one websocket at a time)."""
    await attacker.close()
    check = Session(server.url, attacker.path)
    check.token = attacker.token
    await check.connect()
    doc = await check.pull()
    await check.close()
    return doc


async def attempt(session: Session, msgtype: str, content: Any, timeout: float = ATTACK_LIMIT_S) -> str:
    """Send one message; how the server answered it: "OK", "refused: <text>" or "closed: <code>".

    ``content`` may be its JSON text already: a long message is written out before the attack starts,
    so that this process's work on it does not take the machine from the server and the reader."""
    try:
        await session.request(msgtype, content, timeout)
        return "OK"
    except Refused as refused:
        return f"refused: {refused.content.get('text')}"
    except Closed:
        return f"closed: {session.close_code}"
    except asyncio.TimeoutError:
        return "no answer"


def state_model(doc: dict[str, Any]) -> str:
    """The id of the (first) model holding a page's state in a document: the workbench's view's data."""
    return next(
        model["id"]
        for model in models_of(doc)
        if isinstance(model["attributes"].get("state"), dict) and model["attributes"]["state"].get("type") == "map"
    )


def page_state(session: Session, **changes: Any) -> dict[str, Any]:
    """The state the workbench's page sends (its query, run and k), with ``changes``."""
    held = session.states[state_model(session.doc)]
    return {**{key: held[key] for key in PAGE_FIELDS}, **changes}


def kept_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """The query, run and k of the workbench's state in a document."""
    held = as_dict(next(m for m in models_of(doc) if m["id"] == state_model(doc))["attributes"]["state"])
    return {key: held[key] for key in PAGE_FIELDS}


# -- what a page may send ----------------------------------------------------------------------------


def test_the_reader_sends_what_the_workbenchs_page_sends():
    """The reader speaks as BokehJS does without importing the explainer (it must start fast): its
    "document ready" and its state's fields are the ones the server's message filter takes, and it
    is well-behaved: the workbench refuses a page's changes past ten a second."""
    assert support.reader.DOCUMENT_READY == DOCUMENT_READY
    assert frozenset(PAGE_FIELDS) == WORKBENCH_PAGE_FIELDS
    assert support.reader.READER_PATH == EVALUATE_ROUTE
    # Each of its sessions changes the workbench no faster than the workbench takes a page's changes.
    assert support.reader.SESSION_CLICK_EVERY_S * rate_limit.PER_SECOND > 1


def test_the_teachers_largest_message_fits_the_class_channels_limit():
    """The channel's message limit is set from the largest message a page sends: the teacher's ask,
    with a figure's query as long as a page takes (longer ones it ignores, figures/base.py) and the
    most numbers to predict, their labels as long as allowed."""
    assert class_messages.MAX_QUERY_CHARS >= MAX_QUERY_LENGTH
    targets = [
        {"key": f"k{i}" + "x" * 21, "label": "L" * class_messages.MAX_LABEL_CHARS, "value": 0.123456789}
        for i in range(class_messages.MAX_TARGETS)
    ]
    ask = {
        "type": "ask",
        "route": "/which-measure",
        "query": "a=" + "1," * (MAX_QUERY_LENGTH // 2 - 1),
        "targets": targets,
    }
    text = class_messages.encode(ask)
    assert len(ask["query"]) <= MAX_QUERY_LENGTH
    assert isinstance(class_messages.read_message(text), class_messages.Ask)  # a message the channel takes
    print(len(text.encode()))
    assert 4000 < len(text.encode()) < class_messages.MAX_MESSAGE_BYTES


@pytest.mark.slow
@pytest.mark.browser
def test_the_workbench_sends_only_its_document_request_document_ready_states_and_messages(page, served):
    """What the server accepts is what the pages send. The story and the figure pages open no
    websocket on a plain server (they are light pages: no session); the workbench's frames,
    recorded while clicking through it, are its document request, "document ready", its states
    (query, run and k only) and its what-if messages."""
    log_from = len(served.log())  # the module's attacks may have run before, on the same server
    opened: list[str] = []
    frames: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    for route in sorted(LIGHT_ROUTES):
        page.goto(served.url + route)
        buttons = page.locator(".fig button:visible:not(.fig-picture-save, .kchart-save, .predict-toggle)")
        expect(buttons.first).to_be_visible()
        for button in buttons.all()[:5]:
            if button.is_enabled():
                button.click()
    assert opened == [], f"light pages opened websockets: {opened}"

    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))
    page.goto(served.url + EVALUATE_ROUTE)
    # The workbench: a what-if judgment, then its figures on the query opened.
    page.locator(".wb-row .wb-link").first.click()
    page.locator(".wb-list.wb-run-1 select.wb-grade").first.select_option("3")
    # Not the picture buttons, Save chart's included (a download, nothing sent; while a picture is
    # made the frame takes presenter view's layout, hiding buttons), nor predict mode's switch (it hides buttons).
    buttons = page.locator(".fig button:visible:not(.fig-picture-save, .kchart-save, .predict-toggle)")
    expect(buttons.first).to_be_visible()
    for button in buttons.all()[:30]:
        # A click's buttons change state in the frame after it (shell.js beforePaint): a reader's next
        # click comes after that frame.
        page.evaluate("() => new Promise((resolve) => requestAnimationFrame(() => resolve()))")
        if button.is_enabled():
            button.click()
    for select in page.locator(".fig select:visible:enabled").all()[:3]:
        select.select_option(index=2)
    for cutoff in page.locator(".rl-cutoff:visible").all()[:2]:
        cutoff.focus()
        page.keyboard.press("Home")
    page.goto("about:blank")
    assert [urlsplit(url).path for url in opened] == [EVALUATE_ROUTE + "/ws"], opened
    kinds = collections.Counter()
    fields: set[str] = set()
    for header, content in zip(frames[0::3], frames[2::3], strict=False):
        msgtype = json.loads(header)["msgtype"]
        if msgtype != "PATCH-DOC":
            kinds[msgtype] += 1
            continue
        for event in json.loads(content)["events"]:
            kinds["document ready" if event == DOCUMENT_READY else f"{event['kind']} {event.get('attr')}"] += 1
            if event.get("attr") == "state":
                fields |= set(as_dict(event["new"]))
    print(dict(kinds), fields)
    # The workbench's what-if judgment is a message of its own (workbench/what_if.py).
    assert set(kinds) == {"PULL-DOC-REQ", "document ready", "ModelChanged state", "MessageSent None"}
    assert kinds["PULL-DOC-REQ"] == kinds["document ready"] == 1
    assert fields == WORKBENCH_PAGE_FIELDS
    # A click's message is a small fraction of what a page that takes no uploads may send.
    assert max(len(frame) for frame in frames) * 10 < Limits().max_message_bytes
    logged = served.log()[log_from:]
    assert "Dropped" not in logged and "Closed the websocket" not in logged, logged[-2000:]


# -- attacks over the workbench's websocket -------------------------------------------------------------


@pytest.fixture(scope="module")
def served():
    """One server for this module's quick attacks (each test checks that the reader is still well served)."""
    running = Server()
    yield running
    running.stop()


def root_added(count: int) -> dict[str, Any]:
    """A patch that adds ``count`` new small models to the document as roots."""
    return {
        "events": [
            {
                "kind": "RootAdded",
                "model": {"type": "object", "name": "Div", "id": f"evil{i}", "attributes": {"text": f"root {i}"}},
            }
            for i in range(count)
        ]
    }


def one_message(server: Server, msgtype: str, content: Any, seen: dict[str, Any], path: str = EVALUATE_ROUTE):
    """An attack that sends one message from a session of ``path``; ``seen`` gets the answer, and the
    attacker's document before and after (read over a new connection to its session)."""

    text = json.dumps(content)

    async def attack():
        attacker = await Session(server.url, path).open()
        seen["before"] = attacker.doc
        yield
        seen["answer"] = await attempt(attacker, msgtype, text)
        yield
        seen["after"] = await doc_after(server, attacker)
        await attacker.close()

    return attack


def message_bytes(content: Any) -> int:
    return len(json.dumps(content, separators=(",", ":")).encode())


@pytest.mark.slow
@pytest.mark.alone
@pytest.mark.parametrize("count", [400, 25_000])
def test_a_message_adding_roots_is_dropped_and_holds_no_one(loop, served, count):
    """400 small roots (43 KB) froze every reader for 13 s: Bokeh's add_root recomputes all models each time.
    The workbench's websocket takes a message longer than a page's (32 KB) only as one piece of an
    upload (2 MiB at most): 400 roots are refused before anything parses them (``too-long``) and
    the connection closed (1008); 25,000 (2.7 MB) are over the 2 MiB and Tornado closes it."""
    seen: dict[str, Any] = {}
    content = root_added(count)
    limits = Limits()
    assert message_bytes(content) > limits.max_message_bytes
    over = message_bytes(content) > limits.max_upload_message_bytes
    assert over == (count > 400)
    outcome = under_attack(loop, served, one_message(served, "PATCH-DOC", content, seen))
    assert seen["after"]["roots"] == seen["before"]["roots"], f"the roots were added ({seen['answer']})"
    # Over the 2 MiB, Tornado closes the connection (1009) and stops reading: the close frame may be lost.
    assert seen["answer"].startswith("closed") if over else seen["answer"] == "closed: 1008", seen["answer"]
    outcome.check(f"{count} new roots in one message")


@pytest.mark.slow
@pytest.mark.alone
def test_a_huge_state_is_refused_unread_and_holds_no_one(loop, served):
    """A well-formed 6 MB state (a `relevant` list of a million values) froze every reader for 14 s;
    the workbench's, with a 6 MB query, is over its websocket's limit and closes it unread."""
    seen: dict[str, Any] = {}

    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        model = state_model(attacker.doc)
        seen["before"] = kept_fields(attacker.doc)
        huge = json.dumps({"events": [state_change(model, page_state(attacker, query="q" * 6_000_000))]})
        yield
        seen["answer"] = await attempt(attacker, "PATCH-DOC", huge)
        yield
        seen["after"] = kept_fields(await doc_after(served, attacker))
        await attacker.close()

    outcome = under_attack(loop, served, attack)
    assert seen["after"] == seen["before"], "the huge state was applied"
    assert seen["answer"].startswith("closed"), seen["answer"]
    outcome.check("a 6 MB state")


def k_changes(model: str, state: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """``count`` changes of the workbench's k, each a whole state as its page sends one."""
    return [state_change(model, {**state, "k": 1 + (i + 5) % 30}) for i in range(count)]


@pytest.mark.slow
@pytest.mark.alone
def test_thousands_of_events_in_one_message_hold_no_one(loop, served):
    """20,000 valid state changes in one 4.5 MB message stopped every reader for 5 to 6 s; 40,000 of the
    workbench's (over 2 MiB) close its connection unread."""
    seen: dict[str, Any] = {}

    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        text = json.dumps({"events": k_changes(state_model(attacker.doc), page_state(attacker), 40_000)})
        seen["bytes"] = len(text.encode())
        yield
        seen["answer"] = await attempt(attacker, "PATCH-DOC", text)
        yield
        await attacker.close()

    outcome = under_attack(loop, served, attack)
    assert seen["bytes"] > Limits().max_upload_message_bytes
    assert seen["answer"].startswith("closed"), seen["answer"]
    outcome.check("40,000 events in one message")


def many_changes(server: Server, count: int, seen: dict[str, Any], times: int = 1):
    """An attack that sends ``count`` changes of the workbench's k in one message (``times`` over, each
    once the one before is answered); ``seen`` gets the answers, the last change, and the state the
    server holds after it."""

    async def attack():
        attacker = await Session(server.url, EVALUATE_ROUTE).open()
        events = k_changes(state_model(attacker.doc), page_state(attacker), count)
        seen["last"] = as_dict(events[-1]["new"])
        assert seen["last"]["k"] != kept_fields(attacker.doc)["k"]
        text = json.dumps({"events": events})
        seen["bytes"] = len(text.encode())
        yield
        answers = {await attempt(attacker, "PATCH-DOC", text) for _ in range(times)}
        seen["answer"] = answers.pop() if len(answers) == 1 else answers
        yield
        seen["after"] = kept_fields(await doc_after(server, attacker))
        await attacker.close()

    return attack


@pytest.mark.slow
@pytest.mark.alone
def test_many_changes_of_a_state_in_one_message_leave_the_last(loop, served):
    """A page sends one state per click; a message with many of them is worth its last one."""
    seen: dict[str, Any] = {}
    outcome = under_attack(loop, served, many_changes(served, 100, seen))
    assert seen["answer"] == "OK" and seen["after"] == seen["last"], seen
    outcome.check("100 changes of the workbench's state in one message")


@pytest.mark.slow
@pytest.mark.alone
def test_a_message_as_long_as_an_upload_piece_that_is_not_one_is_refused_unread_and_holds_no_one(loop, served):
    """10,000 changes of the workbench's state in one 1.4 MB message, within the 2 MiB an upload's
    piece may take, sent ten times over: read whole, one cost the server's thread some 250 ms (its
    JSON some 70 ms, the filter some 40 ms), and ten held the reader to a p95 of 0.5 to 0.6 s. It is
    not one piece of an upload, so it is refused before anything parses it (server/messages.py
    ``fits_a_page``), and the state stays as it was."""
    seen: dict[str, Any] = {}
    outcome = under_attack(loop, served, many_changes(served, 10_000, seen, times=10))
    assert Limits().max_message_bytes < seen["bytes"] < Limits().max_upload_message_bytes
    assert str(seen["answer"]).startswith("closed"), seen
    assert seen["after"] != seen["last"], seen
    outcome.check("10,000 changes of the workbench's state in one message, ten times over")


def other_events(doc: dict[str, Any]) -> dict[str, Any]:
    """Events the workbench's page never sends, each aimed at a model of ``doc``."""
    models = {model["name"]: model["id"] for model in models_of(doc)}
    esm = next(i for name, i in models.items() if name.endswith("ReactiveESM"))
    root = doc["roots"][0]["id"]
    state = state_model(doc)

    def change(model: str, attr: str, new: Any) -> dict[str, Any]:
        return {"kind": "ModelChanged", "model": {"id": model}, "attr": attr, "new": new}

    def state_with(value: Any) -> dict[str, Any]:
        return change(state, "state", {"type": "map", "entries": [["k", value]]})

    return {
        "the workbench's module code": change(esm, "esm", "alert(1)"),
        "another property of the workbench": change(state, "table_text", "<b>pwned</b>"),
        "a property of another model": change(root, "css_classes", ["evil"]),
        "a state on another model": change(root, "state", {"type": "map"}),
        "a model that does not exist": change("p999999", "state", {"type": "map"}),
        "a new model inside a state": state_with({"type": "object", "name": "Div", "id": "evil", "attributes": {}}),
        "a reference inside a state": state_with({"id": esm}),
        "an array inside a state": state_with({"type": "ndarray", "array": {"type": "bytes", "data": "AAAA"}}),
        "a field the state has not": change(state, "state", {"type": "map", "entries": [["evil", 1]]}),
        # The what-if judgments are in the workbench's state, but come from Python: a page sends them
        # as messages, and a state that carries them would be as large as a what-if of every query.
        "what-if judgments in a state": change(
            state, "state", {"type": "map", "entries": [["judgments", {"type": "map", "entries": []}]]}
        ),
        "a state nested too deep": state_with([[[[[[1]]]]]]),
        "a root removed": {"kind": "RootRemoved", "model": {"id": root}},
        "the title": {"kind": "TitleChanged", "title": "pwned"},
        "another event": {
            "kind": "MessageSent",
            "msg_type": "bokeh_event",
            "msg_data": {
                "type": "event",
                "name": "button_click",
                "values": {"type": "map", "entries": [["model", {"id": esm}]]},
            },
        },
        "another message kind": {"kind": "MessageSent", "msg_type": "comm", "msg_data": {"x": 1}},
        "an unknown kind": {"kind": "Nonsense"},
        "not an event": [1, 2, 3],
    }


@pytest.mark.slow
@pytest.mark.alone
def test_events_other_than_a_pages_state_are_dropped_and_logged_briefly(loop, served):
    seen: dict[str, Any] = {"answers": {}}

    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        seen["before"] = attacker.doc
        events = other_events(attacker.doc)
        yield
        for name, event in events.items():
            seen["answers"][name] = await attempt(attacker, "PATCH-DOC", {"events": [event]})
        seen["answers"]["events not a list"] = await attempt(attacker, "PATCH-DOC", {"events": {"a": 1}})
        seen["answers"]["no events"] = await attempt(attacker, "PATCH-DOC", {"nothing": []})
        seen["answers"]["document ready again"] = await attempt(attacker, "PATCH-DOC", {"events": [DOCUMENT_READY]})
        yield
        seen["after"] = await doc_after(served, attacker)
        await attacker.close()

    outcome = under_attack(loop, served, attack)
    answers = set(seen["answers"].values())
    assert answers == {"refused: refused-event"}, seen["answers"]
    assert seen["after"] == seen["before"], "the document changed"
    logged = served.log()[outcome.log_from :]
    assert logged.count("Dropped") == 1 and "a change of 'esm'" in logged and len(logged) < 1000, logged[-2000:]
    outcome.check("events other than the workbench's state")


# A new Bokeh model, as a message's value would make one.
DIV = {"type": "object", "name": "Div", "id": "evil", "attributes": {"text": "made by a message"}}


def upload_piece(model_id: str, message: dict[str, Any], model: dict[str, Any] | None = None) -> dict[str, Any]:
    """A piece of an upload as the workbench's page sends it (Panel's ``model.send_msg``); ``model``
    is put in the message as its "model" entry."""
    data = as_map(message)
    if model is not None:
        data["entries"].append(["model", model])
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {
            "type": "event",
            "name": "data_event",
            "values": {"type": "map", "entries": [["model", {"id": model_id}], ["data", data]]},
        },
    }


def view_model(doc: dict[str, Any], uploads: bool | None = None) -> str:
    """The id of the (first) view's model in a document (the workbench's); with ``uploads``, one whose data says so."""
    return next(
        model["id"]
        for model in models_of(doc)
        if isinstance(model["attributes"].get("data"), dict)
        and "state" in model["attributes"]["data"].get("attributes", {})
        and (uploads is None or model["attributes"]["data"]["attributes"].get("uploads") is uploads)
    )


@pytest.mark.slow
@pytest.mark.alone
def test_upload_pieces_are_taken_only_from_the_workbenchs_view_and_only_as_long_as_a_piece(loop, served):
    """The workbench's page sends files a MiB a message, from its view; a piece sent to another of
    its models, a message of another kind, or one with a model inside is refused."""
    seen: dict[str, Any] = {}
    piece = "A" * (4 * (CHUNK_BYTES // 3 + 1))  # the longest base64 piece a page sends

    async def attack():
        workbench = await Session(served.url, EVALUATE_ROUTE).open()
        view = view_model(workbench.doc, uploads=True)
        other = next(model["id"] for model in models_of(workbench.doc) if model["id"] != view)
        start = {"type": "start", "slot": "qrels", "name": "a.qrels", "size": CHUNK_BYTES, "pieces": 1}
        yield
        seen["another model"] = await attempt(workbench, "PATCH-DOC", {"events": [upload_piece(other, start)]})
        seen["other message"] = await attempt(
            workbench, "PATCH-DOC", {"events": [upload_piece(view, {"type": "run-this"})]}
        )
        seen["object inside"] = await attempt(
            workbench, "PATCH-DOC", {"events": [upload_piece(view, {"type": "start", "name": "a.qrels"}, model=DIV)]}
        )
        seen["start"] = await attempt(workbench, "PATCH-DOC", {"events": [upload_piece(view, start)]})
        chunk = {"type": "chunk", "slot": "qrels", "index": 0, "data": piece}
        seen["long piece"] = await attempt(workbench, "PATCH-DOC", {"events": [upload_piece(view, chunk)]})
        yield
        await workbench.close()

    outcome = under_attack(loop, served, attack)
    assert seen["another model"] == seen["other message"] == seen["object inside"] == "refused: refused-event", seen
    assert seen["start"] == seen["long piece"] == "OK", seen
    outcome.check("upload pieces")


@pytest.mark.slow
@pytest.mark.alone
def test_a_pushed_document_a_second_pull_and_a_server_info_request_are_refused(loop, served):
    seen: dict[str, Any] = {}

    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        seen["before"] = attacker.doc
        replacement = {"doc": {"title": "pwned", "roots": [root_added(1)["events"][0]["model"]], "version": "3.9.2"}}
        yield
        seen["push"] = await attempt(attacker, "PUSH-DOC", replacement)
        seen["info"] = await attempt(attacker, "SERVER-INFO-REQ", {})
        seen["pull"] = await attempt(attacker, "PULL-DOC-REQ", {})
        yield
        seen["after"] = await doc_after(served, attacker)
        await attacker.close()

    outcome = under_attack(loop, served, attack)
    assert seen["after"] == seen["before"], f"the document was replaced ({seen['push']})"
    assert seen["push"] == seen["info"] == seen["pull"] == "refused: refused-message", seen
    outcome.check("PUSH-DOC, SERVER-INFO-REQ and a second PULL-DOC-REQ")


@pytest.mark.slow
@pytest.mark.alone
def test_a_refused_state_gets_a_short_error_code_and_a_short_log_line(loop, served):
    """Bokeh's reply carried a 2.4 KB traceback with the server's install paths, and its log the whole
    message. A k that is not a number reaches the workbench, which keeps its own state and shows it again."""
    replies: list[dict[str, Any]] = []
    marker = "never-copied-" * 1500  # about 20 KB
    seen: dict[str, Any] = {}

    async def attack():
        replies.clear()
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        model = state_model(attacker.doc)
        seen["before"] = kept_fields(attacker.doc)
        yield
        for new in (marker, 12345, [marker], {"type": "map", "entries": [["k", marker]]}, None):
            event = {"kind": "ModelChanged", "model": {"id": model}, "attr": "state", "new": new}
            try:
                await attacker.request("PATCH-DOC", {"events": [event]})
                replies.append({"ok": True})
            except Refused as refused:
                replies.append(refused.content)
        yield
        seen["after"] = kept_fields(await doc_after(served, attacker))
        await attacker.close()

    outcome = under_attack(loop, served, attack)
    assert len(replies) == 5
    for reply in replies:
        assert reply.get("traceback") is None and "/" not in json.dumps(reply), json.dumps(reply)[:500]
        assert reply.get("ok") or reply["text"] in ("refused-event", "refused-state"), reply
    assert seen["after"] == seen["before"], seen
    logged = served.log()[outcome.log_from :]
    assert marker[:200] not in logged and len(logged) < 2000, logged[-2000:]
    outcome.check("refused states")


# Frames no page sends, each on a connection of its own, and the reason the server closes it with.
GARBAGE = {
    "binary": ([b"\x00" * 20_000], "binary-frame"),
    "not JSON": (["not json", "{}", "{}"], "unreadable-message"),
    "buffers": (
        ['{"msgid": "1", "msgtype": "PATCH-DOC", "num_buffers": 100000}', "{}", '{"events": []}'],
        "binary-buffers",
    ),
    "deep": (['{"msgid": "1", "msgtype": "PATCH-DOC"}', "{}", "[" * 20_000], "unreadable-message"),
    "no message id": (['{"msgtype": "PATCH-DOC"}', "{}", '{"events": []}'], "bad-header"),
    "unknown type": (['{"msgid": "1", "msgtype": "SHUTDOWN"}', "{}", "{}"], "unreadable-message"),
}


@pytest.mark.slow
@pytest.mark.alone
def test_garbage_frames_close_the_connection_with_a_short_log_line(loop, served):
    """Bokeh logged some of these whole (the 20,000-deep list, a message of junk events) with a traceback."""
    seen: dict[str, Any] = {}

    async def attack():
        attackers = {name: await Session(served.url, EVALUATE_ROUTE).open() for name in GARBAGE}
        yield
        for name, (frames, _) in GARBAGE.items():
            await attackers[name].send_frames(*frames)
            closed = await attackers[name].wait_closed(10)
            seen[name] = attackers[name].ws.close_reason if closed else "still open"
        yield
        for attacker in attackers.values():
            await attacker.close()

    outcome = under_attack(loop, served, attack)
    assert seen == {name: code for name, (_, code) in GARBAGE.items()}
    logged = served.log()[outcome.log_from :].splitlines()
    assert len(logged) == len(GARBAGE) and all(len(line) < 300 for line in logged), logged
    assert "Traceback" not in "".join(logged)
    outcome.check("garbage frames")


@pytest.mark.slow
@pytest.mark.alone
def test_a_flood_of_valid_clicks_holds_no_one(loop, served):
    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        model = state_model(attacker.doc)
        state = page_state(attacker)
        frames = []
        for i, event in enumerate(k_changes(model, state, 1000)):
            frames += [{"msgid": f"f{i}", "msgtype": "PATCH-DOC"}, {}, json.dumps({"events": [event]})]
        yield
        await attacker.send_frames(*frames)
        await attempt(attacker, "PATCH-DOC", {"events": [state_change(model, state)]})  # after all the others
        yield
        await attacker.close()

    under_attack(loop, served, attack).check("1,000 clicks sent at once")


@pytest.mark.slow
@pytest.mark.alone
def test_a_flood_of_document_requests_holds_no_one(loop, served):
    """Each PULL-DOC-REQ had the server write the whole document (the workbench's is the largest)."""

    async def attack():
        attacker = await Session(served.url, EVALUATE_ROUTE).open()
        frames = []
        for i in range(300):
            frames += [{"msgid": f"p{i}", "msgtype": "PULL-DOC-REQ"}, {}, {}]
        yield
        await attacker.send_frames(*frames)
        await attempt(attacker, "PATCH-DOC", {"events": [DOCUMENT_READY]})  # after all the others
        yield
        await attacker.close()

    under_attack(loop, served, attack).check("300 document requests sent at once")


# -- attacks on the class channel -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def class_served():
    """A server that holds a class, behind a proxy as the README serves one to many (X-Forwarded-For
    names each client), for the channel's attacks; the reader clicks on its workbench."""
    running = Server("--class", "--trusted-proxy", "127.0.0.1")
    yield running
    running.stop()


def a_client(n: int) -> dict[str, str]:
    """The headers of the ``n``-th client behind the proxy."""
    return {"X-Forwarded-For": f"198.51.{100 + n // 250}.{1 + n % 250}"}


class Student(ClassClient):
    """A page in the class as ``ClassClient`` is, from a client of its own behind the proxy."""

    def __init__(self, url: str, n: int, **options):
        super().__init__(url, **options)
        self.headers = a_client(n)

    async def fetch_token(self) -> str:
        from tornado.httpclient import AsyncHTTPClient

        page = await AsyncHTTPClient().fetch(self.base + self.path, headers=self.headers, request_timeout=60)
        self.token = support.class_client.token_in(page.body.decode())
        return self.token

    async def connect(self, timeout: float = 30.0) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = "ws" + self.base.removeprefix("http") + "/channel"
        headers = {"Origin": self.origin, **self.headers}
        request = HTTPRequest(url, headers=headers, connect_timeout=timeout, request_timeout=timeout)
        self.ws = await websocket_connect(request, max_message_size=2**24)
        self.reader = asyncio.ensure_future(self._read())


async def in_batches(coroutines, size: int, every_s: float) -> list:
    """Run ``coroutines`` ``size`` at a time, a batch every ``every_s`` seconds; their results in order.

    An attack of many connections is sent in batches, so that this process's own work on its side
    of them (a websocket handshake costs a Python client as much as the server) does not take the
    machine's two cores from the server and the reader: what the test measures is the server."""
    tasks = []
    for start in range(0, len(coroutines), size):
        tasks += [asyncio.ensure_future(c) for c in coroutines[start : start + size]]
        await asyncio.sleep(every_s)
    return await asyncio.gather(*tasks)


async def channel_end(client: ClassClient, timeout: float = 30.0) -> str:
    """How a channel ended: the reason the server closed it with, "still open", or "refused" (its handshake)."""
    try:
        return (await client.closed(timeout)).reason or f"code {client.ws.close_code}"
    except asyncio.TimeoutError:
        return "still open"


@pytest.mark.slow
@pytest.mark.alone
def test_a_flood_of_channel_messages_from_one_page_is_dropped_then_closed_and_holds_no_one(loop, class_served):
    """A page that sends as fast as it can is held to its pace (``channel.MESSAGES_PER_S``, a burst of
    ``MESSAGES_BURST``): what is past it is dropped unread, said ``too-fast`` at most once a second, and
    the page is closed once ``FLOOD_DROPS`` were dropped in a row; the class goes on meanwhile."""
    url = class_served.url
    seen: dict[str, Any] = {}

    async def attack():
        flooder, calm = Student(url, 1), Student(url, 2)
        await flooder.join()
        await calm.join()
        yield
        started = time.monotonic()
        sent = 0
        while flooder.ws.close_code is None and sent < 20_000:
            try:
                await asyncio.gather(
                    *(flooder.ws.write_message(json.dumps({"v": 1, "type": "ping", "n": sent + i})) for i in range(500))
                )
            except WebSocketClosedError:  # closed by the server within the batch: what the test waits for
                break
            sent += 500
            await asyncio.sleep(0)
        seen["end"] = await channel_end(flooder)
        seen["seconds"] = time.monotonic() - started
        seen["sent"] = sent
        seen["pongs"] = sum(message["type"] == "pong" for message in flooder.seen)
        seen["too fast"] = sum(message.get("code") == "too-fast" for message in flooder.seen)
        await calm.send({"type": "ping", "n": 7})
        seen["calm"] = (await calm.receive("pong"))["n"]
        calm.close()
        yield

    outcome = under_attack(loop, class_served, attack)
    print({key: value for key, value in seen.items()})
    logged = class_served.log()[outcome.log_from :]
    assert "flooding" in logged, logged[-2000:]
    # The server closes with "flooding", then cuts the connection: a flooder still writing may find
    # it cut before it reads that close frame, or the too-fast notice before it.
    assert seen["end"] in ("flooding", "code None"), seen
    assert seen["pongs"] <= channel.MESSAGES_BURST + channel.MESSAGES_PER_S * seen["seconds"], seen
    assert (seen["end"] != "flooding" or 1 <= seen["too fast"]) and seen["too fast"] <= 1 + seen["seconds"], seen
    assert seen["calm"] == 7
    assert logged.count("too-fast") <= 1 and len(logged) < 1000, logged[-2000:]
    outcome.check("a flood of channel messages")


def masked_text_frame(text: str) -> bytes:
    """A websocket text frame as a client sends it (masked)."""
    data, mask = text.encode(), secrets.token_bytes(4)
    length = len(data)
    head = bytes([0x81, 0x80 | length]) if length < 126 else bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(data))


async def raw_channel(url: str, token: str, headers: dict[str, str]):
    """A class channel opened by hand (a script, not a browser), said hello with ``token``: its stream's reader and writer."""
    host = urlsplit(url).netloc
    reader, writer = await asyncio.open_connection(*host.split(":"))
    lines = [
        "GET /channel HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(secrets.token_bytes(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        f"Origin: {url}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 "), head[:200]
    writer.write(masked_text_frame(json.dumps({"v": 1, "type": "hello", "token": token, "student": "flooder-0001"})))
    return reader, writer


DEAF_SCRIPTS = 8
# While eight scripts start flooding, the class's thread is held once, for some 150 to 300 ms on a
# 2-core machine: every click sent in the flood's first 0.15 s waits for it, those after do not
# (round three's thirteenth session timed each click). The wait grows with the scripts, 20 to 35 ms
# each (one: 25 to 54 ms, four: 60 to 95 ms); a single 45 KB write per script, or a cut after 20
# drops instead of 50, did not shorten it, and what in those frames costs so much is not found yet.
# At the 95th percentile of some 70 clicks that one wait is 50 to 200 ms. Before the cut, such
# scripts held every reader for seconds (a median of 1.4 s): this limit still fails that.
DEAF_SCRIPTS_P95_LIMIT_MS = 300.0


@pytest.mark.slow
@pytest.mark.alone
def test_scripts_that_flood_the_channel_and_ignore_its_close_are_dropped_and_hold_no_one(loop, class_served):
    """Scripts (no browser) from one client, each of which says hello and then writes pings as fast as
    the network takes them, never reading what the server says, its close included, until the server
    drops the connection: the server stops reading each once it has closed it for flooding and cuts its
    connection at once (server/channel.py ``_drop``; Tornado would read on for 5 s, and eight such
    scripts held the reader to a median of 1.4 s), and the reader keeps clicking meanwhile."""
    url = class_served.url
    seen: dict[str, Any] = {"dropped after": []}
    frames = b"".join(masked_text_frame(json.dumps({"v": 1, "type": "ping", "n": n})) for n in range(1000))

    async def flood(writer) -> None:
        started = time.monotonic()
        try:
            while time.monotonic() - started < 15:
                writer.write(frames)
                await writer.drain()
        except ConnectionError:
            pass
        seen["dropped after"].append(round(time.monotonic() - started, 1))
        writer.close()

    async def attack():
        channels = [
            await raw_channel(url, await Student(url, 3).fetch_token(), a_client(3)) for _ in range(DEAF_SCRIPTS)
        ]
        yield
        await asyncio.gather(*(flood(writer) for _, writer in channels))
        calm = Student(url, 4)
        await calm.join()
        await calm.send({"type": "ping", "n": 7})
        seen["calm"] = (await calm.receive("pong"))["n"]
        calm.close()
        yield

    outcome = under_attack(loop, class_served, attack, limit_s=ATTACK_LIMIT_S)
    print(seen)
    assert seen["calm"] == 7
    logged = class_served.log()[outcome.log_from :]
    assert len(logged) < 1000 and "Traceback" not in logged, logged[-2000:]
    outcome.check(f"{DEAF_SCRIPTS} scripts flooding the channel, deaf to its close", DEAF_SCRIPTS_P95_LIMIT_MS)
    assert max(seen["dropped after"]) < 2, seen["dropped after"]


@pytest.mark.slow
@pytest.mark.alone
def test_six_hundred_silent_channels_are_closed_and_hold_no_one(loop, class_served):
    """600 channels from 600 clients, opened within three seconds, that never say hello (as a script
    holding connections would): each is closed ``no-hello`` after ``channel.HELLO_WITHIN_S``, logged
    in one line, and a page that joins meanwhile is welcomed."""
    url = class_served.url
    seen: dict[str, Any] = {}
    count = 600

    async def attack():
        silent = [Student(url, n) for n in range(count)]
        yield
        started = time.monotonic()
        await in_batches([client.connect() for client in silent], 50, 0.25)
        seen["opened"] = time.monotonic() - started
        joining = Student(url, count + 1)
        seen["welcome"] = (await joining.join())["type"]
        ends = await asyncio.gather(*(channel_end(client, channel.HELLO_WITHIN_S + 30) for client in silent))
        seen["ends"] = collections.Counter(ends)
        seen["held"] = time.monotonic() - started
        joining.close()
        yield

    outcome = under_attack(loop, class_served, attack)
    print({key: value for key, value in seen.items()})
    assert seen["welcome"] == "welcome"
    assert seen["ends"] == {"no-hello": count}, seen["ends"]
    assert seen["held"] < channel.HELLO_WITHIN_S + 10, seen
    logged = class_served.log()[outcome.log_from :]
    assert logged.count("no-hello") <= 1 and "Traceback" not in logged, logged[-2000:]
    outcome.check("600 silent channels")


def made_up_tokens(count: int) -> list[str]:
    """Tokens a page was never given: in the channel's form (expiry, random part, signature) but signed
    by nobody, far from expiring, without a signature, too long, not ASCII."""
    far = f"{int(time.time()) + 10**6:x}"
    kinds = [
        lambda n: f"{far}.{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(18)}",
        lambda n: f"{far}.{secrets.token_urlsafe(12)}",
        lambda n: f"{far}.{n}." + "A" * 150,
        lambda n: f"ffffffff.{n}.é",
        lambda n: f"0.{n}.x",
    ]
    return [kinds[n % len(kinds)](n) for n in range(count)]


@pytest.mark.slow
@pytest.mark.alone
def test_hellos_with_made_up_tokens_are_closed_and_hold_no_one(loop, class_served):
    """300 channels within three seconds, each saying hello with a token no page was given: each is
    closed (``bad-token`` or ``token-too-long``) before anything else is read, in a line or two of log."""
    url = class_served.url
    seen: dict[str, Any] = {}

    async def attack():
        tokens = made_up_tokens(300)
        clients = [Student(url, n) for n in range(len(tokens))]
        for client, token in zip(clients, tokens, strict=True):
            client.token = token
        yield

        async def hello(client: Student) -> str:
            try:
                await client.join()
            except ChannelClosed as closed:
                return closed.reason
            client.close()
            return "welcome"

        seen["ends"] = collections.Counter(await in_batches([hello(client) for client in clients], 25, 0.25))
        yield

    outcome = under_attack(loop, class_served, attack)
    assert set(seen["ends"]) <= {"bad-token", "token-too-long"} and seen["ends"]["bad-token"] >= 200, seen["ends"]
    logged = class_served.log()[outcome.log_from :]
    assert len(logged.splitlines()) <= 2 and "Traceback" not in logged, logged[-2000:]
    outcome.check("hellos with made-up tokens")


# -- attacks over HTTP ----------------------------------------------------------------------------


async def raw_request(port: int, head: bytes, timeout: float = ATTACK_LIMIT_S) -> bytes | None:
    """Send ``head`` on a new connection; the server's answer (b"" when it closed without one), None on timeout."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    except asyncio.TimeoutError:
        return None
    except ConnectionError:
        return b""
    finally:
        writer.close()


def request_with_headers(fields: list[bytes]) -> bytes:
    return b"GET /evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + b"".join(fields) + b"\r\n"


@pytest.mark.slow
@pytest.mark.alone
def test_a_request_with_forty_thousand_headers_holds_no_one(loop, served):
    """40,000 small headers (458 KB) froze the server for 35 s: Panel and Bokeh match each header against a list."""
    seen: dict[str, Any] = {}
    head = request_with_headers([b"X-%d: %d\r\n" % (i, i) for i in range(40_000)])

    async def attack():
        yield
        seen["answer"] = await raw_request(served.port, head)
        yield

    outcome = under_attack(loop, served, attack)
    assert seen["answer"] == b"", "the server answered a request with 458 KB of headers"
    outcome.check("40,000 headers")


@pytest.mark.slow
@pytest.mark.alone
def test_a_request_with_too_many_small_headers_is_refused(loop, served):
    seen: dict[str, Any] = {}
    head = request_with_headers([b"X-%d: 1\r\n" % i for i in range(1500)])  # 15 KB

    async def attack():
        yield
        seen["answer"] = await raw_request(served.port, head)
        yield

    outcome = under_attack(loop, served, attack)
    assert (seen["answer"] or b"").startswith(b"HTTP/1.1 431 "), (seen["answer"] or b"")[:200]
    outcome.check("1,500 headers")


@pytest.mark.slow
@pytest.mark.alone
def test_slow_connections_are_dropped_and_their_memory_returns(loop, fresh_server):
    """100 connections that never finished their headers held 180 MB and stayed open.

    Each sends most of a 1.8 MB request line at once, then one more byte every 0.1 s (a
    thousand small sends a second in all), as an attacker keeping its connections alive would.
    """
    connections, line = 100, b"GET /evaluate?" + b"a" * 1_800_000
    seen: dict[str, Any] = {"rss_before": rss_mb(fresh_server)}

    async def slow() -> float:
        """How long the server kept this connection open (up to 30 s)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", fresh_server.port)
        started = time.monotonic()
        try:
            writer.write(line)
            await writer.drain()
            while time.monotonic() - started < 30:
                writer.write(b"a")
                await writer.drain()
                try:
                    if await asyncio.wait_for(reader.read(1), 0.1) == b"":
                        break  # closed by the server
                except asyncio.TimeoutError:
                    pass
        except ConnectionError:
            pass
        finally:
            writer.close()
        return time.monotonic() - started

    async def attack():
        yield
        tasks = [asyncio.ensure_future(slow()) for _ in range(connections)]
        await asyncio.sleep(3)
        seen["rss_during"] = rss_mb(fresh_server)
        seen["held_s"] = max(await asyncio.gather(*tasks))
        yield

    outcome = under_attack(loop, fresh_server, attack)
    deadline = time.monotonic() + 40
    while rss_mb(fresh_server) > seen["rss_before"] + 20 and time.monotonic() < deadline:
        time.sleep(0.5)
    seen["rss_after"] = rss_mb(fresh_server)
    print({key: round(value, 1) for key, value in seen.items()})
    assert seen["held_s"] < Limits().header_timeout_s + 3, "the server kept slow connections open"
    assert seen["rss_after"] < seen["rss_before"] + 20, seen
    outcome.check("100 slow connections")
