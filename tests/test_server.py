"""The server start-up: what it binds, what it accepts, and how fast its websocket sends."""

from __future__ import annotations

import gc
import gzip
import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import psutil
import pytest
from bokeh.server.views.ws import WSHandler
from bokeh.util.token import get_token_payload
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from explainer.classroom.plan import Step
from explainer.cli import build_parser
from explainer.server import http_server, static_files
from explainer.server.channel import ChannelHandler
from explainer.server.class_config import ClassConfig
from explainer.server.config import ServerConfig
from explainer.server.network import network_address
from explainer.server.origins import is_same_origin
from explainer.server.serve import serve_pages

from support.coroutines import run
from support.expect import expect
from support.server import ROOT, answers, free_port, wait_until

PLAN = (Step("/binary", "", "Cutoffs"),)


def test_serve_binds_to_this_computer_only_unless_told_otherwise():
    args = build_parser().parse_args(["serve"])
    assert (args.address, args.port, args.allow_origin, args.browser) == ("127.0.0.1", 5006, [], True)
    args = build_parser().parse_args(
        [
            "serve",
            "--address",
            "0.0.0.0",
            "--port",
            "8080",
            "--allow-origin",
            "a.example",
            "--allow-origin",
            "b.example:8000",
            "--no-browser",
        ]
    )
    assert (args.address, args.port, args.allow_origin, args.browser) == (
        "0.0.0.0",
        8080,
        ["a.example", "b.example:8000"],
        False,
    )


# `serve` up to the server itself, in a process of its own whose output is a pipe (as under a log
# file or a service manager): the server is replaced by a wait for its standard input to close, so
# no port is opened, and then the command ends as a stopped server's does.
SERVE_WITHOUT_SERVING = """
import sys
import explainer.server.serve
def wait(*args, **kwargs):
    print("serving", file=sys.stderr, flush=True)
    sys.stdin.read()
explainer.server.serve.serve_pages = wait
from explainer.cli import main
main(sys.argv[1:])
"""


def test_every_line_serve_prints_before_serving_reaches_a_pipe_while_it_serves():
    """Python buffers a pipe's output: a line printed without a flush would wait there until the
    server exits (what a teacher reading a log, or the class address's QR code, would miss). What
    the command prints while it serves is all it prints: nothing more comes out at its exit."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    command = [sys.executable, "-c", SERVE_WITHOUT_SERVING, "serve", "--no-browser", "--port", str(free_port())]
    # Served to the network, with no class and no access code, "Teaching?" is the last line.
    process = subprocess.Popen(
        [*command, "--address", "0.0.0.0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    stop = threading.Timer(30, process.kill)  # a command that hangs before serving fails the test
    stop.start()
    try:
        assert process.stderr.readline() == b"serving\n", process.stderr.read().decode(errors="replace")[-2000:]
        os.set_blocking(process.stdout.fileno(), False)
        printed = (process.stdout.read() or b"").decode()
        os.set_blocking(process.stdout.fileno(), True)
        process.stdin.close()  # the "server" stops: the command ends, and Python writes what it held
        held_back = process.stdout.read().decode()
        assert process.wait(timeout=20) == 0
    finally:
        stop.cancel()
        process.kill()
        process.wait(timeout=10)
    assert held_back == "", f"printed only at exit: {held_back!r}"
    assert "Serving the explainer on http://localhost:" in printed
    assert "Teaching? Serve with --class too" in printed
    if network_address() is not None:
        assert "Others on this network can open http://" in printed
        assert "Scan this with a phone's camera" in printed


@pytest.mark.browser
def test_each_websocket_sends_small_frames_at_once(page):
    """TCP_NODELAY on the workbench's session socket and on a class channel's: without it a click's
    reply, or a guess, waits for a delayed ACK."""
    port = free_port()
    server = serve_pages(ServerConfig(port, "127.0.0.1", classroom=ClassConfig(plan=PLAN)), threaded=True)
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the server")

        def sockets(kind):
            handlers = [
                obj
                for obj in gc.get_objects()
                if isinstance(obj, kind) and obj.ws_connection and obj.request.host == f"127.0.0.1:{port}"
            ]
            assert handlers, f"no open {kind.__name__}"
            return [handler.ws_connection.stream.socket for handler in handlers]

        page.goto(f"http://127.0.0.1:{port}/binary")
        expect(page.locator("body.class-joined")).to_have_count(1)
        for sock in sockets(ChannelHandler):
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        page.goto(f"http://127.0.0.1:{port}/evaluate")
        expect(page.locator(".wb-title")).to_be_visible(timeout=60_000)
        for sock in sockets(WSHandler):
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        server.stop()


def test_same_origin_means_the_host_and_port_the_request_was_sent_to():
    assert is_same_origin("http://192.168.1.20:5006", "192.168.1.20:5006")
    assert is_same_origin("http://Teachers-Laptop.local:8080", "teachers-laptop.local:8080")
    assert is_same_origin("http://docs.example.com", "docs.example.com")
    assert not is_same_origin("http://192.168.1.20:8000", "192.168.1.20:5006")
    assert not is_same_origin("http://evil.example:5006", "192.168.1.20:5006")
    assert not is_same_origin("http://192.168.1.20:5006.evil.example", "192.168.1.20:5006")
    assert not is_same_origin("null", "")
    assert not is_same_origin("http://[::1", "[::1]:5006")


def websocket_answer(url: str, origin: str) -> int:
    """The HTTP status a websocket handshake to ``url`` from a page at ``origin`` gets: 101 or the refusal's."""

    async def connect():
        try:
            connection = await websocket_connect(HTTPRequest(url, headers={"Origin": origin}))
        except HTTPClientError as refused:
            return refused.code
        connection.close()
        return 101

    return run(connect())


def class_channel(page, load):
    """Run ``load`` (which opens a page) and return the page's class channel once it has said something.

    The channel's frames are listened for from the moment it opens: the server's welcome may come in
    before the websocket is handed back here, and a wait begun after it would see nothing until the
    page's first ping, 25 s later (two default runs took 25.3 s so)."""
    heard = []

    def listen(websocket):
        if websocket.url.endswith("/channel"):
            websocket.on("framereceived", lambda frame: heard.append(frame))

    page.on("websocket", listen)
    with page.expect_websocket(lambda ws: ws.url.endswith("/channel"), timeout=30_000) as opened:
        load()
    websocket = opened.value
    if not heard:
        websocket.wait_for_event("framereceived", timeout=30_000)
    return websocket


@pytest.mark.browser
def test_a_class_reaches_the_figures_at_whatever_address_it_types(page, class_server):
    """Students type the laptop's LAN address, which no start-up list holds; 127.0.0.2 stands in for it."""
    logged = len(class_server.log())  # other tests' refusals are in the shared server's log before it
    websocket = class_channel(page, lambda: page.goto(f"http://127.0.0.2:{class_server.port}/binary"))
    expect(page.locator("body.class-joined")).to_have_count(1)  # welcomed into the class
    assert not websocket.is_closed()
    assert "Refused a class channel" not in class_server.log()[logged:]


@pytest.mark.browser
def test_a_documentation_page_on_another_host_can_frame_a_served_figure(page, class_server, tmp_path):
    """A framed page's websocket comes from the framed page's own origin: no --allow-origin needed."""
    logged = len(class_server.log())
    docs = tmp_path / "docs.html"  # a documentation site built to disk
    docs.write_text(f'<iframe src="http://127.0.0.2:{class_server.port}/ndcg" width="1000" height="900"></iframe>')
    websocket = class_channel(page, lambda: page.goto(docs.as_uri()))
    figure = page.frame_locator("iframe")
    expect(figure.locator(".metric-formula").first).to_be_visible(timeout=30_000)
    expect(figure.locator("body.class-joined")).to_have_count(1)
    assert not websocket.is_closed()
    assert "Refused a class channel" not in class_server.log()[logged:]


def test_a_class_server_still_refuses_pages_from_elsewhere(class_server):
    port = class_server.port
    socket_url = f"ws://127.0.0.2:{port}/channel"
    assert websocket_answer(socket_url, f"http://127.0.0.2:{port}") == 101
    assert websocket_answer(socket_url, "http://evil.example") == 403
    assert websocket_answer(socket_url, f"http://127.0.0.3:{port}") == 403  # not the host it was sent to
    assert websocket_answer(socket_url, f"http://127.0.0.2:{port + 1}") == 403


def test_a_class_server_says_which_address_to_give_the_class(class_server):
    lan = network_address()
    if lan is None:
        assert "Others on this network" not in class_server.log()
        pytest.skip("this machine has no network address to announce")
    announced = f"Others on this network can open http://{lan}:{class_server.port}/class"
    assert announced in class_server.log()
    # The join address opens the figure the class is on (the plan's first, before the teacher has clicked).
    with urllib.request.urlopen(announced.rsplit(" ", 1)[1], timeout=30) as response:
        assert response.url.endswith("/binary")
        assert response.status == 200


def fetch(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_scripts_and_stylesheets_go_out_gzipped_compressed_once_and_intact(monkeypatch):
    """A class's first visits fetch 2.9 MB of Bokeh's and Panel's scripts; gzipped, 0.75 MB."""
    import bokeh
    import panel

    monkeypatch.setattr(static_files, "_gzipped", {})
    port = free_port()
    server = serve_pages(ServerConfig(port, "127.0.0.1"), threaded=True)
    files = {
        "/static/js/bokeh.min.js": Path(bokeh.__file__).parent / "server/static/js/bokeh.min.js",
        "/static/extensions/panel/panel.min.js": Path(panel.__file__).parent / "dist/panel.min.js",
        "/static/extensions/panel/css/loading.css": Path(panel.__file__).parent / "dist/css/loading.css",
    }
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the server")
        for path, file in files.items():
            plain_status, plain_headers, plain = fetch(port, path)
            status, headers, body = fetch(port, path, **{"Accept-Encoding": "gzip, deflate, br"})
            assert (plain_status, status) == (200, 200), path
            assert plain == file.read_bytes() and "content-encoding" not in plain_headers, path
            assert headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding", path
            assert gzip.decompress(body) == file.read_bytes(), path
            assert int(headers["content-length"]) == len(body), path
            assert headers["etag"] != plain_headers["etag"], "each encoding needs its own ETag"
            assert fetch(port, path, **{"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]})[0] == 304
        bokeh_gz = fetch(port, "/static/js/bokeh.min.js", **{"Accept-Encoding": "gzip"})[2]
        assert len(bokeh_gz) < 0.35 * files["/static/js/bokeh.min.js"].stat().st_size
        # A page's own static route serves the same bytes, from the same single compression.
        assert fetch(port, "/evaluate/static/js/bokeh.min.js", **{"Accept-Encoding": "gzip"})[2] == bokeh_gz
        assert sorted(Path(path).name for path, _ in static_files._gzipped) == sorted(
            file.name for file in files.values()
        )
        # A range asks for bytes of the file itself: no gzip.
        status, headers, body = fetch(
            port, "/static/js/bokeh.min.js", **{"Accept-Encoding": "gzip", "Range": "bytes=0-99"}
        )
        assert (
            status == 206
            and "content-encoding" not in headers
            and body == files["/static/js/bokeh.min.js"].read_bytes()[:100]
        )
    finally:
        server.stop()


@pytest.mark.browser
def test_a_served_page_tells_the_server_nothing_about_the_readers_browser(page, server):
    """Panel's browser-info model would report each reader's time zone, language, automation and WebGL."""
    page.add_init_script(
        "const send = WebSocket.prototype.send; window.__sent = [];"
        "WebSocket.prototype.send = function (data) { window.__sent.push(String(data)); return send.call(this, data); };"
    )
    # The workbench, the one Panel page (a light page opens no websocket without a class).
    page.goto(f"{server.url}/evaluate")
    page.wait_for_function("() => window.__sent.some((frame) => frame.includes('document_ready'))", timeout=60_000)
    page.wait_for_timeout(500)  # what else the page would say once it is ready
    sent = page.evaluate("window.__sent")
    told = [frame for frame in sent if any(word in frame for word in ("timezone", "webdriver", "language", "webgl"))]
    assert not told, told


# -- requests ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_end_of_a_requests_headers_is_found_as_tornado_finds_it():
    """http_server.find_header_end is Tornado's search for the blank line after the headers, made resumable."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pattern = re.compile(http_server.HEADER_END)

    @settings(max_examples=3000, deadline=None)
    @given(st.lists(st.text(alphabet="a\r\n", max_size=4).map(str.encode), max_size=8))
    def check(chunks):
        buffer, start, line_end = bytearray(), 0, -1
        for chunk in chunks:
            buffer += chunk
            end, start, line_end = http_server.find_header_end(buffer, len(buffer), start, line_end)
            match = pattern.search(buffer)
            assert end == (match.end() if match else None)
            if end is not None:
                break

    check()


# -- what a page carries and what the server answers ------------------------------------------

SECRETS = {
    "Cookie": "session=cookie-secret-1; theme=cookie-secret-2",
    "Authorization": "Bearer header-secret-3",
    "X-Api-Key": "header-secret-4",
}


def test_a_page_carries_no_request_header_or_cookie(server):
    """Bokeh copied every header and cookie (Authorization, HttpOnly cookies) into the token in the page's HTML."""
    # The workbench's page, the one with a Panel session and its token.
    status, _, body = fetch(server.port, "/evaluate", **SECRETS)
    html = body.decode()
    assert status == 200
    leaked = [value for value in re.findall(r"(?:cookie|header)-secret-\d", str(SECRETS)) if value in html]
    assert leaked == []
    payload = get_token_payload(re.search(r'"token":\s*"([^"]+)"', html).group(1))
    assert payload["headers"] == {} and payload["cookies"] == {}
    assert payload["arguments"] == {}  # the page sends its state itself, once its session is made


@pytest.mark.browser
def test_a_pages_scripts_cannot_read_an_httponly_cookie_from_it(browser, server):
    """What the page's scripts can read of the token (Bokeh compresses it) holds no cookie."""
    secret = secrets.token_urlsafe(24)
    context = browser.new_context()
    try:
        context.add_cookies([{"name": "sid", "value": secret, "url": server.url, "httpOnly": True}])
        page = context.new_page()
        page.goto(server.url + "/evaluate")
        expect(page.locator(".wb-title")).to_be_visible(timeout=60_000)
        token = page.evaluate('() => document.documentElement.outerHTML.match(/"token":\\s*"([^"]+)"/)[1]')
        payload = get_token_payload(token)
        assert payload["cookies"] == {} and secret not in json.dumps(payload)
        assert page.evaluate("document.cookie") == ""  # and the page itself cannot read it
    finally:
        context.close()


def test_autoload_js_is_not_served_and_no_response_names_the_server(server):
    """autoload.js answered any site's script request (Access-Control-Allow-Origin: *) with a session token."""
    status, headers, body = fetch(
        server.port, "/binary/autoload.js?bokeh-autoload-element=x", Origin="http://evil.example"
    )
    assert status == 404 and "access-control-allow-origin" not in headers and b"token" not in body
    for path in ("/binary", "/static/js/bokeh.min.js", "/nothing-here", "/binary/metadata"):
        status, headers, _ = fetch(server.port, path)
        assert "server" not in headers, (path, headers.get("server"))


# -- --num-procs: one command, several processes, all stopped together ---------------------------


class ForkedServer:
    """``relevance-explainer serve --num-procs 2`` in its own process group, as from a terminal."""

    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp_path / "server.log"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "explainer.cli", "serve", "--port", str(self.port), "--no-browser"]
                + ["--num-procs", "2"],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                start_new_session=True,
            )
        wait_until(lambda: self.process.poll() is not None or answers(self.url + "/favicon.ico"), timeout=60)
        assert self.process.poll() is None, self.log()
        self.parent = psutil.Process(self.process.pid)
        wait_until(lambda: len(self.parent.children()) == 2, timeout=30, message="two server processes")
        self.children = self.parent.children()

    def all_gone(self) -> bool:
        return not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in [self.parent, *self.children])

    def port_free(self) -> bool:
        """Whether nothing listens on the port and a new server could bind it (as Tornado does, reusing its address)."""
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", self.port))
                sock.listen()
                return True
            except OSError:
                return False

    def log(self) -> str:
        return self.log_path.read_text()

    def kill(self) -> None:
        for process in [self.parent, *self.children]:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        self.process.wait(10)


@pytest.fixture
def forked(tmp_path):
    running = ForkedServer(tmp_path)
    yield running
    running.kill()


@pytest.mark.parametrize(
    ("stop", "exit_code"),
    [
        # Ctrl+C, as a teacher stops it, in the default run; the other signals (three more servers
        # of three processes each, some 6 s apiece) among the slow tests.
        pytest.param(lambda server: os.killpg(server.process.pid, signal.SIGINT), 0, id="ctrl-c"),
        pytest.param(
            lambda server: server.process.send_signal(signal.SIGTERM), 0, id="sigterm-to-parent", marks=pytest.mark.slow
        ),
        pytest.param(
            lambda server: server.process.send_signal(signal.SIGINT), 0, id="sigint-to-parent", marks=pytest.mark.slow
        ),
        pytest.param(
            lambda server: server.process.kill(),
            -signal.SIGKILL,
            id="sigkill-to-parent",
            marks=[
                pytest.mark.slow,
                pytest.mark.skipif(
                    not sys.platform.startswith("linux"), reason="a child learns of its parent's death only on Linux"
                ),
            ],
        ),
    ],
)
def test_stopping_the_command_stops_every_server_process_and_frees_the_port(forked, stop, exit_code):
    """Tornado's parent only waited for its children: a signal to it alone left them serving the port,
    and Ctrl+C printed a KeyboardInterrupt traceback."""
    assert answers(forked.url + "/binary")
    stop(forked)
    wait_until(forked.all_gone, timeout=15, message="every server process to stop")
    wait_until(forked.port_free, timeout=5, message="the port to be free")
    assert forked.process.wait(5) == exit_code
    assert "Traceback" not in forked.log() and "KeyboardInterrupt" not in forked.log(), forked.log()


@pytest.mark.slow
def test_a_server_process_that_dies_is_replaced(forked):
    victim = forked.children[0]
    victim.kill()
    wait_until(
        lambda: len(forked.parent.children()) == 2 and victim not in forked.parent.children(),
        timeout=30,
        message="a new server process",
    )
    forked.children = forked.parent.children()
    wait_until(lambda: answers(forked.url + "/binary"), timeout=30, message="the port to answer again")
