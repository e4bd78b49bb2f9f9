"""An access code keeps out whoever does not have it: no page, no session, no websocket, no embed script."""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request

import pytest

from explainer.cli import build_parser
from explainer.pages import EVALUATE_ROUTE
from explainer.serve_options import CODE_ALPHABET, access_code
from explainer.server.access_code import AccessCode
from explainer.server.config import ServerConfig
from explainer.server.serve import serve_pages

from support.expect import expect
from support.server import answers, free_port, wait_until
from support.sessions import tornado_app

CODE = "open-sesame"


def status_of(url: str, data: bytes | None = None, cookie: str = "") -> tuple[int, str, dict]:
    request = urllib.request.Request(url, data=data, headers={"Cookie": cookie} if cookie else {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace"), dict(error.headers)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.fixture
def guarded():
    port = free_port()
    thread = serve_pages(ServerConfig(port, "127.0.0.1", access=AccessCode(CODE)), threaded=True)
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=60, message="the server")
        yield f"http://127.0.0.1:{port}", tornado_app(thread)[0]
    finally:
        thread.stop()


def test_without_the_code_no_page_session_websocket_or_embed_script(guarded):
    url, server = guarded
    status, body, _ = status_of(url + "/evaluate")
    assert status == 401 and "asks for an access code" in body and "<script" not in body
    assert status_of(url + "/evaluate/ws")[0] == 403
    assert status_of(url + "/binary/autoload.js?bokeh-autoload-element=x")[0] == 404  # no embed script at all
    assert status_of(url + "/binary")[0] == 401  # a light page too
    assert len(server.get_sessions(EVALUATE_ROUTE)) == 0
    status, body, _ = status_of(url + "/evaluate", data=b"code=guess")
    assert status == 403 and "That is not the code" in body
    assert status_of(url + "/static/js/bokeh.min.js")[0] == 200  # Bokeh's own scripts stay public


def test_the_right_code_sets_a_cookie_that_opens_every_page(guarded):
    url, server = guarded
    status, _, headers = status_of(url + "/evaluate", data=urllib.parse.urlencode({"code": CODE}).encode())
    assert status == 303
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"{AccessCode.COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert CODE not in cookie
    value = cookie.split(";")[0]
    assert status_of(url + "/evaluate", cookie=value)[0] == 200
    assert status_of(url + "/evaluate/ws", cookie=value)[0] == 400  # past the code: not a websocket upgrade
    forged = value[:-1] + ("1" if value[-1] == "0" else "0")  # its last digit changed
    assert status_of(url + "/evaluate", cookie=forged)[0] == 401


@pytest.mark.browser
def test_a_reader_types_the_code_once_and_reads_the_workbench(guarded, page):
    url, _ = guarded
    page.goto(url + "/evaluate")
    page.get_by_label("Access code").fill(CODE)
    page.get_by_role("button", name="Open").click()
    expect(page.locator(".wb-count")).to_contain_text("100 queries", timeout=30_000)
    page.goto(url + "/binary")
    expect(page.locator(".fig-binary")).to_be_visible()


def test_access_code_alone_makes_one_and_prints_it(capsys):
    assert access_code(None) is None and access_code("mine") == "mine"
    made = access_code("")
    assert re.fullmatch(f"[{CODE_ALPHABET}]{{5}}-[{CODE_ALPHABET}]{{5}}", made)
    assert f"Access code: {made}" in capsys.readouterr().out
    assert access_code("") != made
    args = build_parser().parse_args(["serve", "--access-code"])
    assert args.access_code == ""
    assert build_parser().parse_args(["serve"]).access_code is None
