"""Served figure pages are light pages: one self-contained document each, and no session on the server.

The story and each figure page are the exported page with a nonce on its scripts: the browser
loads that one document, and on a server that holds no class opens no websocket at all, while
the server keeps nothing for it (no Panel session, no document, no figure in Python).
"""

from __future__ import annotations

import re
import urllib.request

import pytest

from explainer.export import SCRIPT_NONCE, figure_page, story_page
from explainer.pages import EVALUATE_ROUTE, FIGURE_ROUTES
from explainer.server.config import ServerConfig
from explainer.server.serve import serve_pages

from support.expect import expect
from support.page import click_changes
from support.server import answers, free_port, wait_until
from support.sessions import tornado_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def in_process():
    """The explainer served by this process, so that a test can look at what its server holds."""
    port = free_port()
    thread = serve_pages(ServerConfig(port, "127.0.0.1"), threaded=True)
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=60, message="the server")
        yield f"http://127.0.0.1:{port}", tornado_app(thread)[0]
    finally:
        thread.stop()


def body_of(url: str) -> str:
    with urllib.request.urlopen(url) as response:
        return response.read().decode()


def test_a_served_figure_page_requests_only_itself_and_opens_no_websocket(page, server):
    requests, websockets = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda ws: websockets.append(ws))
    page.goto(server.url + "/binary?k=3")
    expect(page.locator(".metric-formula").first).to_have_text(re.compile(r"^P@3 = "))
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(".metric-formula").first).to_have_text("P@3 = 3 / 3 = 1.00")
    page.wait_for_timeout(300)
    assert requests == [server.url + "/binary?k=3"], requests  # no Bokeh, no Panel, no favicon
    assert websockets == []


def test_a_served_page_is_the_exported_page_with_a_nonce_on_its_scripts(in_process):
    url, _ = in_process
    served = body_of(url + "/binary")
    nonce = re.search(r'<script nonce="([^"]+)">', served).group(1)
    assert served == figure_page("binary", served="").replace(SCRIPT_NONCE, nonce)
    story = body_of(url + "/")
    nonce = re.search(r'<script nonce="([^"]+)">', story).group(1)
    assert story == story_page(served="").replace(SCRIPT_NONCE, nonce)


def test_the_server_holds_no_session_for_the_story_or_a_figure_page(context, in_process):
    url, server = in_process
    page = context.new_page()
    for route in ["/", *sorted(FIGURE_ROUTES)]:
        page.goto(url + route)
        expect(page.locator("relevance-figure").first).to_be_visible()
    click_changes(page, "which-measure")
    page.close()
    # The light routes are no Bokeh application: only the workbench's page makes a session.
    assert list(server._tornado._applications) == [EVALUATE_ROUTE]
    assert server.get_sessions(EVALUATE_ROUTE) == []
