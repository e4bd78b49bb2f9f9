"""Served figure pages are light pages: explainer.js draws them, connection.js links them to Python.

The browser loads one document and opens one websocket; Python follows every figure of it (a
click's state arrives, the page's URL state arrives once the session is made), a change Python
makes reaches the page, and a page whose session never comes still works and says so.
"""

from __future__ import annotations

import re
import threading
import urllib.request
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from explainer.export import UNREACHABLE_NOTICE
from explainer.figures import BY_NAME
from explainer.pages import story_parts
from explainer.server.config import ServerConfig
from explainer.server.serve import serve_pages

from support.page import click_changes, watch_page
from support.server import answers, free_port, wait_until
from support.sessions import python_figures, tornado_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def in_process():
    """The explainer served by this process, so that a test can read and change its sessions' figures."""
    port = free_port()
    thread = serve_pages(ServerConfig(port, "127.0.0.1"), threaded=True)
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=60, message="the server")
        yield f"http://127.0.0.1:{port}", tornado_app(thread)[0]
    finally:
        thread.stop()


def token_of(page) -> str:
    return re.search(r'"token":"([^"]+)"', page.content()).group(1)


def figures_of(server, page, path: str, count: int = 1):
    """The page's figures in its Python session, once the session is made (its websocket opened)."""
    token = token_of(page)
    found = []

    def made():
        try:
            found[:] = python_figures(server, path, token)
        except AssertionError:  # no such session yet
            return False
        return len(found) == count

    wait_until(made, timeout=20, message=f"the session of {path}")
    return found


def document_of(server, page, path: str):
    """The document of the page's session."""
    from bokeh.util.token import get_session_id

    session_id = get_session_id(token_of(page))
    return next(session.document for session in server.get_sessions(path) if session.id == session_id)


def in_session(document, change) -> None:
    """Run ``change`` as Python's changes to a session run, on the server's loop with the document
    locked (Bokeh's ``add_next_tick_callback``, which other threads may call), and wait for it."""
    done = threading.Event()
    failed = []

    def run():
        try:
            change()
        except Exception as error:  # reported in the test's thread
            failed.append(error)
        finally:
            done.set()

    document.add_next_tick_callback(run)
    assert done.wait(10), "the server's loop did not run the change"
    assert not failed, failed


def test_a_served_figure_page_requests_only_itself_and_its_websocket(page, server):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    with page.expect_websocket(lambda ws: urlsplit(ws.url).path == "/binary/ws") as opened:
        page.goto(server.url + "/binary?k=3")
    websocket = opened.value
    expect(page.locator(".metric-formula").first).to_have_text(re.compile(r"^P@3 = "))
    with websocket.expect_event("framereceived", lambda frame: '"msgtype": "OK"' in str(frame)):
        page.locator('.rl-row[data-rank="2"] button').click()
    assert requests == [server.url + "/binary?k=3"], requests  # no Bokeh, no Panel, no favicon
    assert not websocket.is_closed()


def test_python_follows_a_served_figure_and_its_own_changes_reach_the_page(page, in_process):
    url, server = in_process
    seen = watch_page(page)
    page.goto(url + "/binary?relevant=1,4&missed=0&k=3")
    (figure,) = figures_of(server, page, "/binary")
    # The page's state, from its URL, reaches the session once it is made.
    wait_until(lambda: figure.state.k == 3 and figure.state.missed == 0, message="Python to have the URL's state")
    assert figure.state.relevant[:4] == [True, False, False, True]

    page.locator('.rl-row[data-rank="2"] button').click()
    wait_until(lambda: figure.state.relevant[1], message="Python to follow the click")

    in_session(document_of(server, page, "/binary"), lambda: figure.state.param.update(k=6))
    expect(page.locator(".metric-formula").first).to_have_text("P@6 = 3 / 6 = 0.50")
    page.wait_for_url(re.compile(r"k=6"))  # shown as a reader's change is: the link follows
    page.locator('.rl-row[data-rank="5"] button').click()
    wait_until(lambda: figure.state.relevant[4] and figure.state.k == 6, message="Python to follow the next click")
    assert seen["errors"] == []


def test_every_figure_of_the_served_story_is_linked_to_its_python_figure(page, in_process):
    url, server = in_process
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.append(frame)))
    page.goto(url + "/")
    names = [value for kind, value in story_parts() if kind == "figure"]
    python = figures_of(server, page, "/", count=len(names))
    assert [type(figure) for figure in python] == [BY_NAME[name].figure for name in names]
    # The page asked for its figures' states only, not the whole document (1 MB for the story).
    # (Playwright hands the page's events to this thread while one of its calls waits.)
    reply = lambda: next((i for i, frame in enumerate(received) if "PULL-DOC-REPLY" in str(frame)), None)  # noqa: E731
    wait_until(lambda: page.wait_for_timeout(10) or (reply() is not None and len(received) > reply() + 2))
    content = str(received[reply() + 2])
    assert content.startswith('{"doc":') and len(content) < 4000, len(content)
    for figure, name in zip(python, names, strict=True):
        before = figure.state.to_dict()
        click_changes(page, name)
        wait_until(lambda f=figure, b=before: f.state.to_dict() != b, message=f"Python to follow {name}")


def test_a_page_whose_websocket_is_refused_works_and_says_python_does_not_follow(page, server):
    # The served page, at an address whose websocket cannot be reached (as behind a proxy that refuses it).
    with urllib.request.urlopen(server.url + "/binary") as response:
        html = response.read().decode()
    page.route("http://unreachable.invalid/**", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto("http://unreachable.invalid/binary?k=3")
    expect(page.locator(".connection-notice p")).to_have_text(UNREACHABLE_NOTICE)
    expect(page.get_by_role("button", name="Close this notice")).to_be_visible()
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(".metric-formula").first).to_have_text("P@3 = 3 / 3 = 1.00")
    page.get_by_role("button", name="Close this notice").click()
    expect(page.locator(".connection-notice")).to_have_count(0)
