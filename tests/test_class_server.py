"""A server that holds a class, spoken to as pages and scripts do, with no browser: the teacher's
door (/teach), the join address (/class), the results (/class/results.csv), and the class channel
(/channel) with each of its refusals: no hello, a token made by hand or replayed, another site's
page, no access code, too many channels, a message no page sends, a flood.

The server runs in this process (``serve_pages(..., threaded=True)``), so a test can shorten a
limit; the clients are tornado's, as tests/support/class_client.py speaks the channel.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import time
import urllib.parse

import pytest
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from explainer.classroom import messages as m
from explainer.classroom.plan import Step
from explainer.server import channel
from explainer.server.access_code import AccessCode
from explainer.server.class_config import ClassConfig
from explainer.server.config import Limits, ServerConfig
from explainer.server.serve import serve_pages
from explainer.server.teach_page import USED_LINK

from support.class_client import ClassClient, Closed, status_of
from support.coroutines import run
from support.server import answers, free_port, wait_until

PLAN = (Step("/ndcg", "k=3", "Graded"), Step("/binary", "", "Cutoffs"))
CODE = "open-sesame"


def serve(**more):
    port = free_port()
    classroom = ClassConfig(plan=PLAN)
    thread = serve_pages(ServerConfig(port, "127.0.0.1", classroom=classroom, **more), threaded=True)
    wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=60, message="the server")
    return thread, f"http://127.0.0.1:{port}", classroom


@pytest.fixture(scope="module")
def served():
    thread, url, classroom = serve()
    yield url, classroom
    thread.stop()


def cookie_of(headers) -> str:
    """The name=value of a response's Set-Cookie, as a browser would send it back."""
    return headers["Set-Cookie"].split(";", 1)[0]


def teacher_cookie(url: str, classroom: ClassConfig) -> str:
    """The teacher cookie, as a browser gets it: the key typed into /teach's form."""
    status, headers, _ = run(status_of(url + "/teach", body=urllib.parse.urlencode({"code": classroom.teacher.key})))
    assert status == 303
    return cookie_of(headers)


# -- the teacher's door -------------------------------------------------------------------------------


def test_the_one_time_link_gives_the_teacher_cookie_once_and_leaves_the_token_out_of_the_address(caplog):
    thread, url, classroom = serve()
    try:
        link = classroom.teacher.once_link(url + "/")
        caplog.set_level(logging.INFO, logger="tornado.access")
        status, headers, _ = run(status_of(link))
        assert status == 303 and headers["Location"] == "./teach"
        cookie = headers["Set-Cookie"]
        assert cookie.startswith("explainer-teacher=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert classroom.teacher.key not in cookie
        # Used: the same link opens nothing and asks for the key.
        status, _, body = run(status_of(link))
        assert status == 401 and USED_LINK.split(" (")[0] in body and "<script" not in body
        # With the cookie, /teach sends the teacher to the projector's figure: the plan's first step.
        status, headers, _ = run(status_of(url + "/teach", cookie=cookie.split(";", 1)[0]))
        assert status == 303 and headers["Location"] == "./ndcg?k=3&present=1"
        token = link.split("once=")[1]
        assert token not in caplog.text and "/teach" in caplog.text
    finally:
        thread.stop()


def test_the_teacher_key_is_asked_for_in_a_form_and_a_wrong_one_is_refused(served, monkeypatch):
    url, classroom = served
    import explainer.server.access_code as access_code

    monkeypatch.setattr(access_code, "WRONG_GUESS_WAIT_S", 0)
    status, _, body = run(status_of(url + "/teach"))
    assert status == 401 and "Teacher key" in body and 'method="post"' in body
    status, headers, body = run(status_of(url + "/teach", body="code=not-the-key"))
    assert status == 403 and "not the teacher key" in body and "Set-Cookie" not in headers
    assert teacher_cookie(url, classroom).startswith("explainer-teacher=")


def test_the_join_address_opens_the_figure_the_class_is_on():
    # A server of its own: on the module's, other tests move the class.
    thread, url, classroom = serve()
    try:
        status, headers, _ = run(status_of(url + "/class"))
        assert status == 303 and headers["Location"] == "./ndcg?k=3" and headers["Cache-Control"] == "no-store"

        async def show():
            projector = ClassClient(url, "/binary", cookie=teacher_cookie(url, classroom))
            await projector.join()
            await projector.send({"type": "showing", "route": "/binary", "query": "relevant=1,2&k=2"})
            await projector.send({"type": "ping", "n": 1})
            await projector.receive("pong")  # the showing before it was taken
            projector.close()

        run(show())
        assert run(status_of(url + "/class"))[1]["Location"] == "./binary?relevant=1,2&k=2"
    finally:
        thread.stop()


def test_the_results_are_the_teachers_alone(served):
    url, classroom = served
    status, _, body = run(status_of(url + "/class/results.csv"))
    assert status == 403 and "teacher" in body
    status, headers, body = run(status_of(url + "/class/results.csv", cookie=teacher_cookie(url, classroom)))
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    assert body.splitlines()[0] == "question,figure,state,measure,true_value,respondent,guess"


def test_a_teachers_page_may_not_be_framed_and_a_students_may(served):
    url, classroom = served
    _, headers, body = run(status_of(url + "/binary"))
    assert "frame-ancestors" not in headers["Content-Security-Policy"]
    _, headers, teachers = run(status_of(url + "/binary", cookie=teacher_cookie(url, classroom)))
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    # The teacher key is in no page, the teacher's own included.
    assert classroom.teacher.key not in body and classroom.teacher.key not in teachers


# -- the channel ----------------------------------------------------------------------------------------


def test_a_page_joins_says_hello_and_is_told_its_role(served):
    url, classroom = served

    async def join():
        phone, projector = ClassClient(url), ClassClient(url, cookie=teacher_cookie(url, classroom))
        assert (await phone.join())["role"] == "student"
        welcome = await projector.join()
        assert welcome["role"] == "teacher" and [step["route"] for step in welcome["plan"]] == ["/ndcg", "/binary"]
        await phone.send({"type": "ping", "n": 5})
        assert await phone.receive("pong") == {"v": 1, "type": "pong", "n": 5}
        phone.close()
        projector.close()

    run(join())


@pytest.mark.parametrize(
    "first, code",
    [
        ({"type": "ping", "n": 1}, "no-hello"),
        ({"type": "hello", "token": "1.2.3", "student": "abcdef0123"}, "bad-token"),
        ({"type": "hello", "token": "x", "student": "!"}, "bad-student"),
        ({"type": "hello"}, "bad-fields"),
    ],
)
def test_a_channel_whose_first_message_is_not_a_pages_hello_is_closed(served, first, code):
    url, _ = served

    async def attempt():
        client = ClassClient(url)
        await client.connect()
        await client.send(first)
        return await client.closed()

    assert run(attempt()).reason == code


def test_a_channel_that_says_nothing_is_closed(served, monkeypatch):
    url, _ = served
    monkeypatch.setattr(channel, "HELLO_WITHIN_S", 0.2)

    async def silent():
        client = ClassClient(url)
        await client.connect()
        return await client.closed(5)

    assert run(silent()).reason == "no-hello"


def test_a_pages_token_opens_one_channel_at_a_time(served):
    url, _ = served

    async def replay():
        page = ClassClient(url)
        await page.join()
        copy = ClassClient(url)
        copy.token = page.token
        with pytest.raises(Closed) as caught:
            await copy.join()
        assert caught.value.reason == "token-in-use"
        page.close()
        await page.closed()
        await asyncio.sleep(0.2)
        again = ClassClient(url)
        again.token = page.token  # the page reconnects after a drop: its token serves again
        assert (await again.join())["type"] == "welcome"
        again.close()

    run(replay())


def test_a_page_of_another_site_gets_no_channel(served):
    url, _ = served

    async def foreign():
        client = ClassClient(url, origin="http://evil.example")
        await client.fetch_token()
        with pytest.raises(Exception) as caught:
            await client.connect()
        return caught.value

    assert "403" in str(run(foreign()))


def test_with_an_access_code_the_channel_needs_its_cookie():
    thread, url, _ = serve(access=AccessCode(CODE))
    try:

        async def without():
            client = ClassClient(url)
            client.token = "made.by.hand"
            with pytest.raises(Exception) as caught:
                await client.connect()
            return caught.value

        assert "403" in str(run(without()))
        status, headers, _ = run(status_of(url + "/binary", body=urllib.parse.urlencode({"code": CODE})))
        assert status == 303

        async def with_code():
            client = ClassClient(url, cookie=cookie_of(headers))
            assert (await client.join())["role"] == "student"
            client.close()

        run(with_code())
        assert run(status_of(url + "/class"))[0] == 401  # the join address asks for it too
    finally:
        thread.stop()


def test_a_client_may_hold_so_many_channels_and_no_more():
    limits = dataclasses.replace(Limits(), max_websockets_per_client=3)
    thread, url, _ = serve(limits=limits)
    try:

        async def many():
            pages = [ClassClient(url) for _ in range(4)]
            for page in pages[:3]:
                await page.join()
            with pytest.raises(Closed) as caught:
                await pages[3].join()
            assert caught.value.reason == "too-many-websockets"
            for page in pages[:3]:
                page.close()

        run(many())
    finally:
        thread.stop()


def test_a_message_no_page_sends_is_refused_and_the_page_stays(served):
    url, _ = served

    async def odd():
        phone = ClassClient(url)
        await phone.join()
        await phone.send({"type": "send", "route": "/binary", "query": ""})
        assert (await phone.receive("refused"))["code"] == "teachers-only"
        await phone.send_text("not json \x1b[31m")
        assert (await phone.receive("refused"))["code"] == "not-json"
        await phone.send({"type": "guess", "question": 1, "values": {"P@5": 7}})
        assert (await phone.receive("refused"))["code"] == "bad-values"
        await phone.send({"type": "ping", "n": 2})
        await phone.receive("pong")
        # A message longer than any page's closes the channel before it is read.
        await phone.send_text("x" * (m.MAX_MESSAGE_BYTES + 10))
        return await phone.closed()

    assert run(odd()).code == 1009


def test_a_page_that_floods_is_held_to_its_pace_then_closed_and_the_class_goes_on(served, caplog, monkeypatch):
    url, classroom = served
    caplog.set_level(logging.WARNING)
    # Nothing earned back while the flood is sent, however slow this machine sends it.
    monkeypatch.setattr(channel, "MESSAGES_PER_S", 1e-6)

    async def flood():
        projector = ClassClient(url, cookie=teacher_cookie(url, classroom))
        await projector.join()
        flooder, calm = ClassClient(url), ClassClient(url)
        await flooder.join()
        await calm.join()
        started = time.monotonic()
        try:
            for n in range(channel.MESSAGES_BURST + channel.FLOOD_DROPS + 10):
                await flooder.send({"type": "ping", "n": n})
        except (StreamClosedError, WebSocketClosedError):
            pass  # cut off: the server reads no more of it
        closed = await flooder.closed()
        took = time.monotonic() - started
        pongs = [message for message in flooder.seen if message["type"] == "pong"]
        too_fast = [message for message in flooder.seen if message.get("code") == "too-fast"]
        await calm.send({"type": "ping", "n": 9})
        assert (await calm.receive("pong"))["n"] == 9
        projector.close()
        calm.close()
        return closed, pongs, too_fast, took

    closed, pongs, too_fast, took = run(flood())
    # Cut off: a close frame saying why, when it gets there before the connection is cut (a page that
    # has stopped reading would not read it anyway).
    assert closed.reason in ("flooding", None), closed
    logged = [record.getMessage() for record in caplog.records]
    assert len([line for line in logged if ": flooding;" in line]) == 1, logged
    # Answered: the burst, less the hello's place in it (what was still on its way may be cut).
    assert len(pongs) <= channel.MESSAGES_BURST - 1 and len(too_fast) <= 1 + took  # said at most once a second
    assert len([line for line in logged if "too-fast" in line]) == 1  # one log line, however many were dropped


def test_a_class_end_to_end_predict_together_without_a_browser(served):
    url, classroom = served

    async def lesson():
        projector = ClassClient(url, cookie=teacher_cookie(url, classroom))
        await projector.join()
        phones = [ClassClient(url) for _ in range(3)]
        for phone in phones:
            await phone.join()
        targets = [{"key": "P@5", "label": "P@5", "value": 0.6}]
        await projector.send({"type": "ask", "route": "/binary", "query": "k=5", "targets": targets})
        asked = [await phone.receive("question") for phone in phones]
        number = asked[0]["question"]
        assert all("value" not in target for target in asked[0]["targets"])
        for phone, value in zip(phones, [0.5, 0.6, 0.65], strict=True):
            await phone.send({"type": "guess", "question": number, "values": {"P@5": value}})
            await phone.receive("guessed")
        while (seen := await projector.receive("guesses"))["answered"] < 3:
            pass
        assert seen["values"] == {"P@5": [0.5, 0.6, 0.65]}
        await projector.send({"type": "reveal", "question": number})
        for phone in phones:
            assert (await phone.receive("revealed"))["truth"] == {"P@5": 0.6}
        await projector.send({"type": "step", "to": 1})
        for phone in phones:
            assert (await phone.receive("go"))["route"] == "/binary"
        assert (await projector.receive("step"))["step"] == 1
        for page in [projector, *phones]:
            page.close()

    run(lesson())
    status, _, body = run(status_of(url + "/class/results.csv", cookie=teacher_cookie(url, classroom)))
    rows = [line.split(",") for line in body.splitlines()[1:]]
    assert sorted(row[6] for row in rows if row[0] == "1") == ["0.5000", "0.6000", "0.6500"]


def test_the_served_page_carries_the_class_script_only_on_a_class_server(served, server):
    url, _ = served
    _, _, page = run(status_of(url + "/binary"))
    assert "joinTheClass" in page and re.search(r'"token":"[0-9a-f]+\.[\w-]+\.[\w-]+"', page)
    _, _, plain = run(status_of(server.url + "/binary"))
    assert "joinTheClass" not in plain and "@@channel-token@@" not in plain
    assert json.loads(re.search(r'"token":("[^"]+")', page).group(1)) != "@@channel-token@@"


def test_a_channel_asked_for_by_another_host_name_is_refused_before_anything(served, monkeypatch):
    """DNS rebinding: a page of another site whose name points here gets a 421, its channel too."""
    from explainer.server import http_server
    from explainer.server.logs import Throttled

    monkeypatch.setattr(http_server, "_HOST_REFUSALS", Throttled())  # its log line is another test's to read
    url, _ = served
    status, _, body = run(status_of(url + "/channel", headers={"Host": "evil.example", "Upgrade": "websocket"}))
    assert status == 421 and "evil.example" in body


@pytest.mark.parametrize(
    "args, said",
    [
        (["--class", "--num-procs", "2"], "--class: a class is held by one server process, so leave out --num-procs"),
        (["--plan", "{plan}"], "plan.txt:2: '/evaluate' is not a figure's page"),
        (["--plan", "{missing}"], "cannot be read"),
    ],
)
def test_a_class_the_server_cannot_hold_stops_it_at_start_with_one_line(tmp_path, args, said):
    import subprocess
    import sys

    plan = tmp_path / "plan.txt"
    plan.write_text("/binary?k=3\n/evaluate\n", encoding="utf-8")
    filled = [arg.format(plan=plan, missing=tmp_path / "none.txt") for arg in args]
    # A plan that cannot be opened stops the command before it imports Panel (a second or two).
    # main is given its arguments, so it does not start Python again (for PYTHONMALLOC) and lose the block.
    blocked = "sys.modules['panel'] = None; " if said == "cannot be read" else ""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; {blocked}from explainer.cli import main; main(sys.argv[1:])",
            "serve",
            "--no-browser",
            "--port",
            "1",
            *filled,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in done.stderr
    assert done.stdout == ""  # stopped before it served or printed anything
