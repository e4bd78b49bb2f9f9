"""Serving safely: what the server binds, which paths answer, no listing, no file from elsewhere,
no cookies, nothing loaded from another host, and all of it under a prefix too."""

from __future__ import annotations

import http.client
import json
import re
import socket

import psutil
import pytest

from explainer import metrics
from explainer.figures import BY_NAME
from explainer.pages import ROUTES
from explainer.server.config import ServerConfig
from explainer.server.serve import serve_pages

from support.expect import expect
from support.page import watch_page
from support.server import answers, free_port, wait_until
from support.sessions import (
    routes_of,
    tornado_app,
)

pytestmark = pytest.mark.browser

f = metrics.format_number


# A figure's first button that takes a click (Undo waits, aria-disabled, until there is a change).
FIRST_BUTTON = '.fig button:not([aria-disabled="true"])'


def raw_get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes, list[tuple[str, str]]]:
    """GET ``path`` exactly as written (no normalisation of ``..`` or escapes); returns status, body, headers."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read(), response.getheaders()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def inproc_server():
    """The explainer served in this process, so that its Tornado application can be inspected."""
    port = free_port()
    thread = serve_pages(ServerConfig(port, "127.0.0.1"), threaded=True)
    wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the in-process server")
    yield port, thread
    thread.stop()


def test_the_server_listens_on_this_computer_only(probe_server):
    listening = [
        c
        for c in psutil.Process(probe_server.process.pid).net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]
    assert {(c.laddr.ip, c.laddr.port) for c in listening} == {("127.0.0.1", probe_server.port)}
    # On any other address this computer has, the port is closed.
    others = {
        a.address
        for addresses in psutil.net_if_addrs().values()
        for a in addresses
        if a.family == socket.AF_INET and not a.address.startswith("127.")
    }
    for address in others:
        with socket.socket() as sock:
            sock.settimeout(2)
            assert sock.connect_ex((address, probe_server.port)) != 0, f"port open on {address}"


def test_address_binds_the_address_given_and_its_pages_work(page):
    """--address is honoured (127.0.0.2 stands in for a LAN address: it is loopback, so nothing leaves the machine)."""
    port = free_port()
    thread = serve_pages(ServerConfig(port, "127.0.0.2"), threaded=True)
    try:
        wait_until(lambda: answers(f"http://127.0.0.2:{port}/binary"), timeout=30, message="the server on 127.0.0.2")
        mine = [
            c
            for c in psutil.Process().net_connections(kind="inet")
            if c.laddr.port == port and c.status == psutil.CONN_LISTEN
        ]
        assert {c.laddr.ip for c in mine} == {"127.0.0.2"}
        page.goto(f"http://127.0.0.2:{port}/binary")  # its websocket origin is allowed too
        expect(page.locator(".metric-formula").first).to_have_text(re.compile(r"^P@5"))
        page.locator('.rl-row[data-rank="1"] button').click()
        expect(page.locator(".metric-formula").first).to_have_text("P@5 = 4 / 5 = 0.80")
    finally:
        thread.stop()


# Handlers a served explainer may have: its pages and their websocket, metadata, autoload and static
# routes, Bokeh's favicon, Panel's static files, and the 404 that shadows Panel's /components/ route.
ALLOWED_HANDLERS = {
    "IcoHandler",
    "ExplainerWSHandler",
    "MetadataHandler",
    "AutoloadJsHandler",
    "ExplainerAutoloadJsHandler",  # the embed script, behind the access code when there is one
    "ExplainerDocHandler",
    "ExplainerStaticHandler",
    "ErrorHandler",
    "ComponentResourceHandler",
    "RootHandler",
    "ExplainerMultiRootStaticHandler",
    "LightPageHandler",
}


def test_only_the_pages_and_their_resources_are_routed_and_nothing_reloads(inproc_server):
    port, thread = inproc_server
    server, tornado = tornado_app(thread)
    routes = routes_of(tornado)
    assert {handler for _, handler in routes} <= ALLOWED_HANDLERS, routes
    pages = {pattern for pattern, handler in routes if handler in ("ExplainerDocHandler", "LightPageHandler")}
    assert pages == {("/?$" if route == "/" else f"{route}/?$") for route in ROUTES}
    # The story and the figure pages are light pages, with no Panel session; the workbench is Panel's.
    panel = {pattern for pattern, handler in routes if handler == "ExplainerDocHandler"}
    assert panel == {"/evaluate/?$"}
    # No class on a server not started for one: no channel, no join address, no teacher's door.
    assert not [pattern for pattern, _ in routes if pattern.startswith(("/channel", "/class", "/teach"))]
    # Panel's /components/ route (which imports any module a URL names) is shadowed by a 404 that comes first.
    components = [handler for pattern, handler in routes if pattern.startswith("/components/")]
    assert components[0] == "ErrorHandler"
    # No autoreload, no debug mode, no tracebacks in error pages.
    import panel as pn

    assert pn.config.autoreload is False and server._autoreload_stop_event is None
    assert not tornado.settings.get("autoreload") and not tornado.settings.get("debug")
    assert not tornado.settings.get("serve_traceback")


NOT_THERE = [
    "/admin",
    "/admin/",
    "/debug",
    "/liveness",
    "/health",
    "/metrics",
    "/rest/session_info",
    "/session_info",
    "/api",
    "/login",
    "/logout",
    "/panel-preview/",
    "/components/this/x/_css/a.css",
    "/components/antigravity/x/_css/a.css",
    "/components/explainer.figures.binary/BinaryView/_stylesheets/x",
    "/binary/admin",
]


def test_admin_debug_and_component_paths_are_not_found(probe_server):
    for path in NOT_THERE:
        status, _, _ = raw_get(probe_server.port, path)
        assert status == 404, f"GET {path} -> {status}"
    # /components/<module>/... used to import the module a URL names: `this` prints the Zen of Python.
    assert "Namespaces are one honking great idea" not in probe_server.log()
    # Bokeh's metadata route answers for its one application, the workbench, with nothing in it; a
    # light page has none.
    status, body, _ = raw_get(probe_server.port, "/evaluate/metadata")
    assert status == 200 and json.loads(body) == {"url": "/evaluate", "data": {}}
    assert raw_get(probe_server.port, "/binary/metadata")[0] == 404


LISTINGS = [
    "/static/",
    "/static/js/",
    "/static/extensions/",
    "/static/extensions/panel/",
    "/binary/static/",
    "/evaluate/static/",
    "/ndcg/static/",
]

TRAVERSALS = [
    "/static/../pyproject.toml",
    "/static/%2e%2e/pyproject.toml",
    "/static/%2e%2e%2fpyproject.toml",
    "/static/..%2f..%2f..%2f..%2fetc/passwd",
    "/static/%252e%252e/%252e%252e/etc/passwd",
    "/static/..\\..\\..\\..\\etc\\passwd",
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/js/../../../../../../../etc/passwd",
    "/static/js/bokeh.min.js/../../../../../../etc/passwd",
    "/static/extensions/panel/../../../../../../../etc/passwd",
    "/static/extensions/panel/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/extensions/panel/..%5c..%5c..%5c..%5cetc/passwd",
    "/static/extensions/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/extensions/explainer/cli.py",
    "/binary/static/../../explainer/cli.py",
    "/binary/static/%2e%2e/%2e%2e/pyproject.toml",
    "/components/explainer.cli/x/_css/../../cli.py",
    "/favicon.ico/../pyproject.toml",
    "/..%2f..%2fetc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
]

# Text from files that must never be served: the system's, the project's and the package's own source.
SECRETS = [b"root:x:0:0", b"[build-system]", b"def serve_pages", b"import argparse"]


def test_no_directory_listing_and_no_file_from_outside_the_served_assets(probe_server):
    for path in LISTINGS:
        status, body, _ = raw_get(probe_server.port, path)
        assert status != 200 and b"<a href" not in body.lower(), f"GET {path} -> {status}"
    for path in TRAVERSALS:
        status, body, _ = raw_get(probe_server.port, path)
        leaked = [secret for secret in SECRETS if secret in body]
        assert 400 <= status < 500 and not leaked, f"GET {path} -> {status} {leaked}"
    # The server is still well, and nothing it was asked made it fail.
    assert raw_get(probe_server.port, "/binary")[0] == 200
    assert "Traceback" not in probe_server.log()


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["/static/js/bokeh.min.js%00.txt", "/binary/static/js/%00", "/static/extensions/panel/panel.min.js%00"]
)
def test_a_nul_byte_in_a_static_path_is_refused_without_a_server_error(probe_server, path):
    """Tornado's StaticFileHandler would pass the NUL to os.path.realpath: a ValueError, a 500 and a traceback."""
    status, body, _ = raw_get(probe_server.port, path)
    assert not any(secret in body for secret in SECRETS)
    assert raw_get(probe_server.port, "/binary")[0] == 200
    assert 400 <= status < 500 and "Traceback" not in probe_server.log()


def test_served_pages_set_no_cookie_and_load_only_from_this_server(browser, probe_server):
    context = browser.new_context()
    try:
        page = context.new_page()
        seen = watch_page(page)
        requested: list[str] = []
        cookies: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.on("websocket", lambda ws: requested.append(ws.url))

        def check_headers(response):
            cookies.extend(f"{response.url}: {v}" for k, v in response.headers_array() if k.lower() == "set-cookie")

        page.on("response", check_headers)
        for route in ROUTES:
            # The workbench shows its figures on a query's lists: open one.
            page.goto(probe_server.url + route + ("?query=g001" if route == "/evaluate" else ""))
            expect(page.locator(".fig .rl-row, " + FIRST_BUTTON).first).to_be_visible()
            page.locator(FIRST_BUTTON).first.click()
            assert page.evaluate("document.cookie") == ""
        hosts = {
            re.sub(r"^\w+://([^/]+).*$", r"\1", url) for url in requested if not url.startswith(("data:", "blob:"))
        }
        assert hosts == {f"127.0.0.1:{probe_server.port}"}
        assert cookies == [] and context.cookies() == []
        assert seen["errors"] == [] and seen["dialogs"] == []
    finally:
        context.close()


def test_exported_pages_set_no_cookie(browser, exported_site):
    context = browser.new_context()
    try:
        page = context.new_page()
        for name in ["index", *BY_NAME]:
            page.goto((exported_site / f"{name}.html").as_uri())
            expect(page.locator(FIRST_BUTTON).first).to_be_visible(timeout=30_000)
            page.locator(FIRST_BUTTON).first.click()
            assert page.evaluate("document.cookie") == ""
        assert context.cookies() == []
    finally:
        context.close()


def test_a_session_its_websocket_made_loads_only_from_this_server(page, probe_server):
    """As under --num-procs (the page from one process, its websocket on another) or after a reconnect.

    A light page's token names a session the server has not made yet: the server makes it when the
    websocket connects rather than when the page is requested. Panel points such a session's
    stylesheets at its CDN; serve_pages points them back here. (Sessions are signed, so a test can
    no longer make such a token by hand: the page's own is one.)
    """
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    seen = watch_page(page)
    page.goto(probe_server.url + "/binary?k=3")
    expect(page.locator(".metric-formula").first).to_have_text("P@3 = 2 / 3 = 0.67")
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(".metric-formula").first).to_have_text("P@3 = 3 / 3 = 1.00")
    outside = [url for url in requested if not url.startswith((probe_server.url, "data:", "blob:"))]
    assert outside == [] and seen["errors"] == []


def test_serving_under_a_prefix_keeps_pages_resources_and_websocket_under_it(page):
    """As behind a reverse proxy that forwards /explainer/ to the server (--prefix /explainer)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/explainer"
    thread = serve_pages(ServerConfig(port, "127.0.0.1", prefix="/explainer"), threaded=True)
    try:
        wait_until(lambda: answers(base + "/binary"), timeout=30, message="the prefixed server")
        requested: list[str] = []
        failed: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.on("websocket", lambda ws: requested.append(ws.url))
        page.on("response", lambda response: response.status >= 400 and failed.append(response.url))
        seen = watch_page(page)
        page.goto(base + "/ndcg?k=3")
        expect(page.locator(".metric-ndcgText .metric-formula")).to_have_text(re.compile(r"^NDCG@3 = "))
        page.locator('.rl-row[data-rank="2"] button').click()
        page.wait_for_url(re.compile(r"/explainer/ndcg\?grades=3,1,"))
        elsewhere = [
            u
            for u in requested
            if not u.startswith(("data:", "blob:", base + "/", base.replace("http", "ws", 1) + "/"))
        ]
        assert elsewhere == []
        # Bokeh routes its favicon at /favicon.ico whatever the prefix, so the page's own link to it is the one miss.
        assert set(failed) <= {base + "/favicon.ico"}
        assert [e for e in seen["errors"] if not e.startswith("Failed to load resource")] == []
        assert raw_get(port, "/binary")[0] == 404
    finally:
        thread.stop()
