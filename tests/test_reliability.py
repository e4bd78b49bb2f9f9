"""Serving safely and reliably: safe defaults, bad input, load, and faults (issue 8).

- Safe defaults: what the server binds, which paths answer, no listing, no file from
  elsewhere, no cookies, nothing loaded from another host.
- Bad input in Python: the state classes and figures refuse wrong arguments, and text
  a figure shows (titles, captions) is never markup. URL queries are in test_url_fuzz.py.
- Load: a hundred live sessions clicked at once, each one's Python state equal to what
  its page shows, and their memory let go once the pages close.
- Faults: the server stopped and restarted under an open page; pages that close, crash
  or vanish free their sessions.
"""

from __future__ import annotations

import asyncio
import gc
import http.client
import json
import logging
import re
import socket
import sys
import tempfile
import threading
import time
import urllib.request
import warnings
import weakref
from functools import cache
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect

from explainer import cli, metrics, serving
from explainer.figures import BY_NAME
from explainer.figures.base import Figure, FigureView
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.ndcg import TITLES as NDCG_TITLES
from explainer.figures.ndcg import NdcgFigure, NdcgState
from explainer.pages import ROUTES

from support.server import Server, answers, free_port, wait_until

pytestmark = pytest.mark.browser

f = metrics.format_number

# Markup that would run or show an element if a page ever used it as HTML.
MARKUP = '<img src=x id=pwned onerror="alert(1)"><script>alert(2)</script><b id=pwned2>bold</b>'


# -- helpers -------------------------------------------------------------------------------


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


def watch_page(page) -> dict[str, list]:
    """Collect a page's console errors, uncaught exceptions and dialogs (dismissing them)."""
    seen: dict[str, list] = {"errors": [], "dialogs": []}
    page.on("console", lambda message: message.type == "error" and seen["errors"].append(message.text))
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    return seen


# Every element matching a selector, in the page and in every shadow root (Panel renders into shadow roots).
DEEP_JS = """
(selector, root = document) => {
  const found = [];
  const walk = (node) => {
    found.push(...node.querySelectorAll(selector));
    for (const el of node.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(root);
  return found;
}
"""

# What a binary or NDCG figure shows, read from its DOM: the list, k, missed count or gain, and the numbers.
READ_FIGURE_JS = """
(fig) => {
  const rows = [...fig.querySelectorAll('.rl-row')];
  const k = Number(fig.querySelector('.rl-cutoff').getAttribute('aria-valuenow'));
  if (fig.classList.contains('fig-binary')) {
    return {
      kind: 'binary', k,
      relevant: rows.map((r) => r.querySelector('button.rl-activate').getAttribute('aria-pressed') === 'true'),
      missed: Number(fig.querySelector('.stepper-value').textContent),
      formulas: Object.fromEntries([...fig.querySelectorAll('.metric[data-metric]')].map(
        (m) => [m.dataset.metric, m.querySelector('.metric-formula').textContent])),
    };
  }
  return {
    kind: 'ndcg', k,
    titles: rows.map((r) => r.querySelector('.rl-title').textContent),
    grades: rows.map((r) => Number(r.querySelector('select.grade-select').value)),
    gain: (fig.querySelector('input[type=radio]:checked') || {}).value,
    ndcg: fig.querySelector('.metric-ndcgText .metric-formula').textContent,
  };
}
"""


def read_figures(target, root_selector: str = ":root") -> list[dict]:
    """What every binary and NDCG figure under ``root_selector`` shows (``target`` is a page or frame)."""
    return target.evaluate(
        f"""(rootSelector) => {{
            const deep = {DEEP_JS};
            const read = {READ_FIGURE_JS};
            return deep('.fig-binary, .fig-ndcg', document.querySelector(rootSelector)).map(read);
        }}""",
        root_selector,
    )


def shown_state(shown: dict) -> dict:
    """The figure state a page shows, as the Python state class writes it."""
    if shown["kind"] == "binary":
        return {"relevant": shown["relevant"], "k": shown["k"], "missed": shown["missed"]}
    order = [NDCG_TITLES.index(title) for title in shown["titles"]]
    grades = [0] * len(order)
    for rank, doc in enumerate(order):
        grades[doc] = shown["grades"][rank]
    return {"grades": grades, "order": order, "k": shown["k"], "gain": shown["gain"]}


def last_number(formula: str) -> str:
    """The value a formula ends with ("P@5 = 3 / 5 = 0.60" gives 0.60; "RR = 0 (...)" gives 0.00)."""
    match = re.search(r"= (-?[\d.]+)$", formula)
    return match.group(1) if match else f(0.0)


def numbers_mismatch(shown: dict) -> list[str]:
    """Where the numbers a figure shows disagree with the list it shows (empty when they agree)."""
    state = shown_state(shown)
    if shown["kind"] == "binary":
        expected = BinaryState(**state).values
        return [
            f"{key}: shows {shown['formulas'][key]!r}, the list gives {f(value)}"
            for key, value in expected.items()
            if last_number(shown["formulas"][key]) != f(value)
        ]
    value = NdcgState(**state).values["ndcg"]
    return (
        [] if last_number(shown["ndcg"]) == f(value) else [f"ndcg: shows {shown['ndcg']!r}, the list gives {f(value)}"]
    )


@cache
def exported_site() -> Path:
    """Every page exported once per test process (test_url_fuzz uses it too)."""
    site = Path(tempfile.mkdtemp(prefix="explainer-site-"))
    cli.main(["export", str(site)])
    return site


def tornado_app(thread):
    """The Bokeh server and its Tornado application behind a threaded ``serve_pages``."""
    from panel.io.state import state

    server = state._servers[thread.server_id][0]
    return server, server._tornado


def routes_of(tornado) -> list[tuple[str, str]]:
    """(path pattern, handler class name) for every route the application answers."""
    found = []

    def walk(rules):
        for rule in rules:
            if hasattr(rule.target, "rules"):
                walk(rule.target.rules)
            else:
                found.append((rule.matcher.regex.pattern, rule.target.__name__))

    walk(tornado.default_router.rules)
    return found


@pytest.fixture(scope="module")
def probe_server():
    """A server of this module's own, so that the 404s and refusals it logs stay out of the shared one's log."""
    running = Server()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def inproc_server():
    """The explainer served in this process, so that its Tornado application can be inspected."""
    port = free_port()
    thread = serving.serve_pages(port, "127.0.0.1", [], threaded=True)
    wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the in-process server")
    yield port, thread
    thread.stop()


# -- 1. safe defaults ----------------------------------------------------------------------


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
    thread = serving.serve_pages(port, "127.0.0.2", [], threaded=True)
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
    "ExplainerDocHandler",
    "ExplainerStaticHandler",
    "ErrorHandler",
    "ComponentResourceHandler",
    "RootHandler",
    "ExplainerMultiRootStaticHandler",
}


def test_only_the_pages_and_their_resources_are_routed_and_nothing_reloads(inproc_server):
    port, thread = inproc_server
    server, tornado = tornado_app(thread)
    routes = routes_of(tornado)
    assert {handler for _, handler in routes} <= ALLOWED_HANDLERS, routes
    pages = {pattern for pattern, handler in routes if handler == "ExplainerDocHandler"}
    assert pages == {("/?$" if route == "/" else f"{route}/?$") for route in ROUTES}
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
    # Bokeh's metadata route answers, with nothing in it.
    status, body, _ = raw_get(probe_server.port, "/binary/metadata")
    assert status == 200 and json.loads(body) == {"url": "/binary", "data": {}}


LISTINGS = [
    "/static/",
    "/static/js/",
    "/static/extensions/",
    "/static/extensions/panel/",
    "/binary/static/",
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


@pytest.mark.parametrize(
    "path", ["/static/js/bokeh.min.js%00.txt", "/binary/static/js/%00", "/static/extensions/panel/panel.min.js%00"]
)
def test_a_nul_byte_in_a_static_path_is_refused_without_a_server_error(path):
    """Tornado's StaticFileHandler would pass the NUL to os.path.realpath: a ValueError, a 500 and a traceback."""
    running = Server()
    try:
        status, body, _ = raw_get(running.port, path)
        assert not any(secret in body for secret in SECRETS)
        assert raw_get(running.port, "/binary")[0] == 200
        assert 400 <= status < 500 and "Traceback" not in running.log()
    finally:
        running.stop()


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
            page.goto(probe_server.url + route)
            expect(page.locator(".fig .rl-row, .fig button").first).to_be_visible()
            page.locator(".fig button").first.click()
            assert page.evaluate("document.cookie") == ""
        hosts = {
            re.sub(r"^\w+://([^/]+).*$", r"\1", url) for url in requested if not url.startswith(("data:", "blob:"))
        }
        assert hosts == {f"127.0.0.1:{probe_server.port}"}
        assert cookies == [] and context.cookies() == []
        assert seen["errors"] == [] and seen["dialogs"] == []
    finally:
        context.close()


def test_exported_pages_set_no_cookie(browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        for name in ["index", *BY_NAME]:
            page.goto((exported_site() / f"{name}.html").as_uri())
            expect(page.locator(".fig button").first).to_be_visible(timeout=30_000)
            page.locator(".fig button").first.click()
            assert page.evaluate("document.cookie") == ""
        assert context.cookies() == []
    finally:
        context.close()


def test_a_session_its_websocket_made_loads_only_from_this_server(page, probe_server):
    """As under --num-procs (the page from one process, its websocket on another) or after a reconnect.

    The page's websocket offers a token with a session id the server has never seen, so the
    server makes the session when the websocket connects rather than when the page is requested.
    Panel points such a session's stylesheets at its CDN; serve_pages points them back here.
    """
    from bokeh.util.token import generate_jwt_token, generate_session_id, get_token_payload

    with urllib.request.urlopen(probe_server.url + "/binary?k=3") as response:
        token = re.search(r'"token":"([^"]+)"', response.read().decode()).group(1)
    fresh = generate_jwt_token(generate_session_id(), signed=False, extra_payload=get_token_payload(token))
    page.add_init_script(
        "window.WebSocket = class extends WebSocket {"
        f"  constructor(url, protocols) {{ super(url, [protocols[0], {json.dumps(fresh)}]); }}"
        "};"
    )
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
    thread = serving.serve_pages(port, "127.0.0.1", [], threaded=True, prefix="/explainer")
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


# -- 2. bad input in Python ----------------------------------------------------------------


WRONG_TYPES = [
    (BinaryState, "relevant", "x" * 12),
    (BinaryState, "relevant", None),
    (BinaryState, "relevant", {"1": True}),
    (BinaryState, "k", "5"),
    (BinaryState, "k", 5.0),
    (BinaryState, "k", None),
    (BinaryState, "missed", [1]),
    (BinaryState, "missed", "1"),
    (NdcgState, "grades", "13020312"),
    (NdcgState, "grades", None),
    (NdcgState, "order", None),
    (NdcgState, "gain", 1),
    (NdcgState, "gain", "Linear"),
    (NdcgState, "k", "8"),
    pytest.param(BinaryState, "relevant", [1] * 12),
    pytest.param(BinaryState, "relevant", ["yes"] * 12),
    pytest.param(NdcgState, "grades", [1.0] * 8),
    pytest.param(NdcgState, "order", [str(i) for i in range(8)]),
]


@pytest.mark.parametrize(("state_class", "name", "value"), WRONG_TYPES)
def test_a_state_constructor_refuses_a_value_of_the_wrong_type_with_value_error_naming_it(state_class, name, value):
    with pytest.raises(ValueError, match=re.escape(name)):
        state_class(**{name: value})
    # And through the figure, which builds the state from the same arguments.
    figure_class = BinaryFigure if state_class is BinaryState else NdcgFigure
    with pytest.raises(ValueError, match=re.escape(name)):
        figure_class(**{name: value})


@pytest.mark.parametrize(("name", "value"), [("standalone", "yes"), ("caption", 5), ("caption", None)])
def test_a_figure_refuses_view_options_of_the_wrong_type(name, value):
    with pytest.raises(ValueError, match=name):
        BinaryFigure(**{name: value})


@pytest.mark.parametrize(
    "build", [lambda: NdcgFigure(state=BinaryState()), lambda: BinaryFigure(state=5)], ids=["other", "int"]
)
def test_a_figure_refuses_a_state_that_is_not_its_own(build):
    with pytest.raises((TypeError, ValueError), match="state"):
        build()


def test_titles_captions_and_names_with_markup_show_as_text(page, serve_object):
    binary = BinaryFigure(caption=MARKUP)
    binary.view.titles = [MARKUP, *binary.view.titles[1:]]
    binary.view.measures = {**binary.view.measures, "precision": {**binary.view.measures["precision"], "name": MARKUP}}
    ndcg = NdcgFigure()
    ndcg.view.titles = [*ndcg.view.titles[:-1], MARKUP]
    import panel as pn

    seen = watch_page(page)
    page.goto(serve_object(pn.Column(binary, ndcg)))
    expect(page.locator(".fig-binary .rl-row").first.locator(".rl-title")).to_have_text(MARKUP)
    expect(page.locator(".fig-binary .fig-caption")).to_have_text(MARKUP)
    expect(page.locator(".fig-binary [data-metric=precision] .metric-name")).to_have_text(MARKUP)
    expect(page.locator(".fig-ndcg .rl-row").last.locator(".rl-title")).to_have_text(MARKUP)
    assert page.evaluate(f"() => ({DEEP_JS})('.fig img, .fig script, .fig b, #pwned, #pwned2').length") == 0
    page.locator(".fig-ndcg .rl-row").last.locator("button.rl-activate").dispatch_event(
        "click"
    )  # it moves up, still text
    expect(page.locator(".fig-ndcg .rl-row").nth(6).locator(".rl-title")).to_have_text(MARKUP)
    assert seen["dialogs"] == [] and seen["errors"] == []


# -- 3. load -------------------------------------------------------------------------------

# The load test's driver, run in each host page. A session is a real Bokeh server session of a
# figure page, made by fetching the page (so the server builds it, as for any visitor) and
# embedding it with Bokeh's own embed_items, the call the page's inline script makes. The host
# page already has BokehJS, Panel and the import map loaded, so a session costs a document and a
# websocket rather than a full page load: that is what lets 100 of them run on two cores.
LOAD_JS = """
() => {
  const deep = %(deep)s;
  const KEYS = ['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End'];
  const seeded = (seed) => () => {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const byText = (fig, text) => [...fig.querySelectorAll('button')].find((b) => b.textContent === text);
  function act(fig, random) {
    const pick = (list) => list[Math.floor(random() * list.length)];
    const key = () => fig.querySelector('.rl-cutoff').dispatchEvent(new KeyboardEvent('keydown', { key: pick(KEYS), bubbles: true }));
    const r = random();
    if (fig.classList.contains('fig-binary')) {
      if (r < 0.45) pick(fig.querySelectorAll('.rl-row button.rl-activate')).click();
      else if (r < 0.65) key();
      else if (r < 0.95) pick(fig.querySelectorAll('.stepper button')).click();
      else byText(fig, 'Reset').click();
    } else {
      if (r < 0.35) pick(fig.querySelectorAll('.rl-row button.rl-activate')).click();
      else if (r < 0.55) {
        const select = pick(fig.querySelectorAll('select.grade-select'));
        select.value = String(Math.floor(random() * 4));
        select.dispatchEvent(new Event('change'));
      } else if (r < 0.7) pick(fig.querySelectorAll('input[type=radio]')).click();
      else if (r < 0.85) key();
      else if (r < 0.95) byText(fig, 'Step').click();
      else byText(fig, 'Reset').click();
    }
  }
  window.__load = {
    sessions: [],
    // Fetch a page (the server makes its session) and embed that session here.
    async open(path) {
      const html = await (await fetch(path)).text();
      const doc = new DOMParser().parseFromString(html, 'text/html');
      const box = document.createElement('div');
      box.className = 'load-session';
      box.id = `load-session-${this.sessions.length}`;
      const ids = {};
      for (const div of doc.querySelectorAll('body > div[data-root-id]')) {
        const el = document.createElement('div');
        el.id = ids[div.id] = `${box.id}-${div.id}`;
        el.style.display = 'contents';
        box.append(el);
      }
      document.body.append(box);
      const script = [...doc.querySelectorAll('script')].map((s) => s.textContent).find((t) => t.includes('render_items'));
      const items = JSON.parse(script.match(/const render_items = (\\[.*?\\]);/s)[1]);
      for (const item of items) item.roots = Object.fromEntries(Object.entries(item.roots).map(([root, el]) => [root, ids[el]]));
      this.sessions.push({ box, token: items[0].token, path, done: 0 });
      await Bokeh.embed.embed_items('{}', items, path);
    },
    ready() {
      return this.sessions.every(({ box }) => deep('.fig-binary, .fig-ndcg', box).length > 0);
    },
    // Each session makes `actions` interactions, at random moments spread over about `spanMs`.
    start(actions, spanMs, seed) {
      this.sessions.forEach((session, i) => {
        const random = seeded(seed * 1000 + i);
        const figures = deep('.fig-binary, .fig-ndcg', session.box);
        const next = () => {
          if (session.done >= actions) return;
          act(figures[Math.floor(random() * figures.length)], random);
          session.done += 1;
          setTimeout(next, (0.2 + 1.6 * random()) * spanMs / actions);
        };
        setTimeout(next, random() * spanMs / actions);
      });
    },
    progress() {
      return this.sessions.map((s) => s.done);
    },
    shown() {
      const read = %(read)s;
      return this.sessions.map(({ box, token, path }) => ({ token, path, figures: deep('.fig-binary, .fig-ndcg', box).map(read) }));
    },
  };
}
""" % {"deep": DEEP_JS, "read": READ_FIGURE_JS}  # noqa: UP031 (moves to a .js file)

HOSTS = 5
# Per host page: (route, sessions). 5 hosts x 20 = 100 sessions: 40 of each figure page, 20 story pages.
PER_HOST = [("/binary", 8), ("/ndcg", 8), ("/", 4)]
ACTIONS = 100
SPAN_S = 60


def python_figures(server, path: str, token: str) -> list[Figure]:
    """The figures of the server session a page's token names, in page order."""
    from bokeh.util.token import get_session_id
    from panel.io.state import state

    session_id = get_session_id(token)
    session = next((s for s in server.get_sessions(path) if s.id == session_id), None)
    assert session is not None, f"the server has dropped the session of a page still open on {path}"
    figures = []
    for viewable, _, doc, _ in list(state._views.values()):
        if doc is session.document and hasattr(viewable, "select"):
            for view in viewable.select(FigureView):
                figures += [
                    w.fn.__self__
                    for w in view.param.watchers["state"]["value"]
                    if isinstance(getattr(w.fn, "__self__", None), Figure)
                ]
    return figures


def quiet_debug_logs(caplog) -> None:
    """Keep Panel's and Bokeh's debug records out of pytest's log capture for this test.

    Panel logs each browser event with its value, a Bokeh property value that refers to its
    model and so to the whole document; pytest keeps every record until the test ends, which
    would keep every session alive and hide whether the server let go of them.
    """
    for name in ("panel", "bokeh", "tornado"):
        caplog.set_level(logging.WARNING, logger=name)


def session_ids(server) -> set[str]:
    return {s.id for route in ROUTES for s in server.get_sessions(route)}


def warm_up(context, url: str) -> None:
    """Visit a page and click once, before a test tracks its sessions' memory.

    The first event a Panel process handles starts Panel's busy-counter clean-up task, whose
    context keeps that session's document for the life of the process (one document, not one
    per session); letting a visit the test does not track be that session keeps it out of the count.
    """
    page = context.new_page()
    page.goto(url + "/binary")
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(".metric-formula").first).to_have_text("P@5 = 4 / 5 = 0.80")
    page.close()


def session_objects(server, exclude: set[str] = frozenset()) -> list:
    """Every live session's document, and the Panel objects and figures built for it."""
    from panel.io.state import state

    documents = [s.document for route in ROUTES for s in server.get_sessions(route) if s.id not in exclude]
    objects: list = list(documents)
    for viewable, _, doc, _ in list(state._views.values()):
        if any(doc is d for d in documents):
            objects.append(viewable)
            for view in viewable.select(FigureView) if hasattr(viewable, "select") else []:
                objects.append(view)
                objects += [
                    w.fn.__self__
                    for w in view.param.watchers["state"]["value"]
                    if isinstance(getattr(w.fn, "__self__", None), Figure)
                ]
    return objects


def mismatches(server, shown_sessions: list[dict]) -> list[str]:
    """Every session whose Python state differs from what its page shows, or whose numbers disagree with its list."""
    found = []
    for n, session in enumerate(shown_sessions):
        figures = {
            type(figure).__name__: figure for figure in python_figures(server, session["path"], session["token"])
        }
        for shown in session["figures"]:
            figure = figures["BinaryFigure" if shown["kind"] == "binary" else "NdcgFigure"]
            if figure.state.to_dict() != shown_state(shown):
                found.append(
                    f"session {n} {session['path']} {shown['kind']}: Python {figure.state.to_dict()} != page {shown_state(shown)}"
                )
            found += [f"session {n} {session['path']}: {m}" for m in numbers_mismatch(shown)]
    return found


@pytest.mark.slow
def test_a_hundred_sessions_clicked_at_once_stay_apart_and_let_go_of_their_memory(browser, caplog):
    from panel.io.state import state

    quiet_debug_logs(caplog)
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.WARNING)
    handler.emit = records.append
    loggers = [logging.getLogger(name) for name in ("", "bokeh", "tornado", "panel")]
    for logger in loggers:
        logger.addHandler(handler)
    port = free_port()
    thread = serving.serve_pages(port, "127.0.0.1", [], threaded=True)
    contexts = []
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: answers(url + "/favicon.ico"), timeout=30, message="the server")
        server, _ = tornado_app(thread)
        warm = browser.new_context()
        warm_up(warm, url)
        warm.close()
        warmed = session_ids(server)
        gc.collect()
        idle_blocks, idle_views = sys.getallocatedblocks(), len(state._views)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pages = []
            started = time.monotonic()
            for _ in range(HOSTS):
                context = browser.new_context()
                contexts.append(context)
                page = context.new_page()
                page.goto(url + "/")  # the host: the story page, itself one more session
                expect(page.locator(".fig-binary .metric-formula").first).to_be_visible()
                # The sessions share the host's URL: keep their state out of it, so each reads its own defaults.
                page.evaluate("() => { window.history.replaceState = () => {}; }")
                page.evaluate(LOAD_JS)
                for path, count in PER_HOST:
                    for _ in range(count):
                        page.evaluate("(path) => window.__load.open(path)", path)
                pages.append(page)
            for page in pages:
                page.wait_for_function("() => window.__load.ready()", timeout=60_000)
            opened = time.monotonic() - started
            sessions = len(session_ids(server) - warmed)
            assert sessions == HOSTS * (1 + sum(n for _, n in PER_HOST))

            # Keep a weak reference to every session's document, page and figures, to see them go once the pages close.
            held = [weakref.ref(obj) for obj in session_objects(server, exclude=warmed)]

            for n, page in enumerate(pages):
                page.evaluate(
                    "([actions, span, seed]) => window.__load.start(actions, span, seed)",
                    [ACTIONS, SPAN_S * 1000, n + 1],
                )
            deadline = time.monotonic() + SPAN_S * 2.5
            while time.monotonic() < deadline:
                progress = [done for page in pages for done in page.evaluate("() => window.__load.progress()")]
                if min(progress) >= ACTIONS:
                    break
                time.sleep(1)
            assert min(progress) >= ACTIONS, f"sessions did not finish: {sorted(progress)[:5]}"
            clicked = time.monotonic() - started - opened
            peak_blocks = sys.getallocatedblocks()

            # Every session's Python state is what its page shows, and its numbers match its list
            # (once the server has worked through the clicks queued on each connection).
            found: list[str] = ["not compared yet"]
            deadline = time.monotonic() + 60
            while found and time.monotonic() < deadline:
                shown = [s for page in pages for s in page.evaluate("() => window.__load.shown()")]
                found = mismatches(server, shown)
                if found:
                    time.sleep(0.5)
            caught_up = time.monotonic() - started - opened - clicked
            assert found == [], "\n".join(found[:20])
            assert len(shown) == HOSTS * sum(n for _, n in PER_HOST)
            # No two sessions share a Python state.
            states = [id(fig.state) for s in shown for fig in python_figures(server, s["path"], s["token"])]
            assert len(states) == len(set(states)) >= HOSTS * sum(n * (2 if p == "/" else 1) for p, n in PER_HOST)

            # Close every page: the server frees each session within SESSION_OPTIONS' times.
            for context in contexts:
                context.close()
            contexts = []
            options = serving.SESSION_OPTIONS
            limit = (
                options["unused_session_lifetime_milliseconds"] + options["check_unused_sessions_milliseconds"]
            ) / 1000
            wait_until(
                lambda: sum(len(server.get_sessions(route)) for route in ROUTES) == 0,
                timeout=limit + 15,
                message="every session to be discarded",
            )
            gc.collect()
            left = [ref() for ref in held if ref() is not None]
            after_blocks = sys.getallocatedblocks()
            cpu = next(t for t in psutil.Process().threads() if t.id == thread.native_id)
            print(
                f"\n{sessions} sessions opened in {opened:.1f} s; {len(shown) * ACTIONS} interactions made in {clicked:.1f} s, "
                f"Python caught up {caught_up:.1f} s later; server thread CPU {cpu.user_time + cpu.system_time:.1f} s; "
                f"allocated blocks: idle {idle_blocks}, peak {peak_blocks}, after {after_blocks}; "
                f"RSS {psutil.Process().memory_info().rss / 2**20:.0f} MB"
            )
            assert left == [], f"{len(left)} figures or documents outlived their sessions: {left[:5]}"
            assert len(state._views) <= idle_views
            # What the sessions allocated is given back: at most a tenth of it remains (caches, interned strings).
            assert after_blocks - idle_blocks < 0.1 * (peak_blocks - idle_blocks)

        ours = [w for w in caught if w.category.__module__.split(".")[0] in ("bokeh", "panel", "param", "tornado")]
        assert ours == [], [str(w.message) for w in ours[:5]]
        errors = [r for r in records if r.levelno >= logging.ERROR or r.exc_info]
        assert errors == [], [r.getMessage() for r in errors[:5]]
    finally:
        for context in contexts:
            context.close()
        for logger in loggers:
            logger.removeHandler(handler)
        thread.stop()


# -- 4. faults -----------------------------------------------------------------------------


def expect_consistent(page) -> list[dict]:
    """Every figure on the page shows numbers that match its own list; returns what they show."""
    shown = read_figures(page)
    assert shown, "no figure on the page"
    for figure in shown:
        assert numbers_mismatch(figure) == [], numbers_mismatch(figure)
    return shown


def test_a_page_says_when_the_server_is_gone_and_a_reload_brings_it_back(browser):
    running = Server()
    context = browser.new_context()
    try:
        figure_page, story_page = context.new_page(), context.new_page()
        seen = watch_page(figure_page)
        figure_page.goto(running.url + "/binary?relevant=1,4&missed=0&k=3")
        story_page.goto(running.url + "/")
        expect(figure_page.locator(".metric-formula").first).to_have_text("P@3 = 1 / 3 = 0.33")
        expect(story_page.locator(".fig-binary .metric-formula").first).to_be_visible()
        figure_page.locator('.rl-row[data-rank="2"] button').click()
        figure_page.wait_for_url(re.compile(r"relevant=1,2,4&"))
        expect_consistent(figure_page)
        assert figure_page.locator(".notyf__toast").count() == 0

        running.stop()
        for page in (figure_page, story_page):
            expect(page.locator(".notyf__message").first).to_have_text(serving.DISCONNECT_NOTICE, timeout=10_000)
        # The figures keep working on their own, their numbers always matching their lists.
        for rank in (3, 7, 2):
            figure_page.locator(f'.rl-row[data-rank="{rank}"] button').click()
            expect_consistent(figure_page)
        story_page.locator('.fig-ndcg .rl-row[data-rank="4"] button').click()
        expect_consistent(story_page)
        figure_page.wait_for_url(re.compile(r"relevant=1,3,4,7&"))
        before = read_figures(figure_page)

        running.start()
        figure_page.reload()  # as the notice says: the link keeps the state
        expect(figure_page.locator(".metric-formula").first).to_be_visible()
        wait_until(lambda: read_figures(figure_page) == before, message="the reloaded page to show the same state")
        assert figure_page.locator(".notyf__toast").count() == 0
        figure_page.locator('.rl-row[data-rank="1"] button').click()
        figure_page.wait_for_url(re.compile(r"relevant=3,4,7&"))
        expect_consistent(figure_page)
        # While the server was down, sends failed and a reload found nothing; since it is back, no error.
        errors_since = len(seen["errors"])
        figure_page.locator('.rl-row[data-rank="12"] button').click()
        expect_consistent(figure_page)
        assert seen["errors"][errors_since:] == [] and seen["dialogs"] == []
        assert "Traceback" not in running.log()
    finally:
        context.close()
        running.stop()


class FreezableProxy:
    """A TCP proxy to a local port that can freeze: it stops forwarding but keeps every connection open,
    as when a laptop is shut or leaves the Wi-Fi (the server hears nothing, not even a close)."""

    def __init__(self, target_port: int):
        self.port, self.target = free_port(), target_port
        self.frozen = threading.Event()
        self.writers: list[asyncio.StreamWriter] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result(10)

    async def _listen(self):
        self.released = asyncio.Event()
        self.server = await asyncio.start_server(self._connection, "127.0.0.1", self.port)

    async def _connection(self, reader, writer):
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.writers += [writer, upstream_writer]

        async def pipe(source, sink):
            try:
                while data := await source.read(65536):
                    if self.frozen.is_set():
                        await self.released.wait()
                        return
                    sink.write(data)
                    await sink.drain()
            except ConnectionError:
                pass
            sink.close()

        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer), return_exceptions=True)

    def freeze(self):
        self.frozen.set()

    def close(self):
        async def shutdown():
            self.server.close()
            self.released.set()
            for writer in self.writers:
                writer.close()
            await asyncio.sleep(0.1)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_the_session_of_a_closed_or_vanished_page_is_freed(browser, monkeypatch):
    """A closed page closes its websocket (so does a crashed tab: Chromium's network service outlives the
    renderer); a vanished one (laptop shut, Wi-Fi gone) goes silent, and only the server's pings notice."""
    # The same mechanism as in production, on a shorter clock so the test need not wait half a minute.
    options = serving.SESSION_OPTIONS
    assert options["unused_session_lifetime_milliseconds"] <= 15_000
    assert options["check_unused_sessions_milliseconds"] <= 5_000
    assert 0 < options["websocket_ping_timeout"] <= options["websocket_ping_interval"] <= 60
    for key, value in {
        "unused_session_lifetime_milliseconds": 2_000,
        "check_unused_sessions_milliseconds": 500,
        "websocket_ping_interval": 1,
        "websocket_ping_timeout": 1,
    }.items():
        monkeypatch.setitem(serving.SESSION_OPTIONS, key, value)
    port = free_port()
    proxy = FreezableProxy(port)
    thread = serving.serve_pages(port, "127.0.0.1", [f"127.0.0.1:{proxy.port}"], threaded=True)
    context = browser.new_context()
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the server")
        server, _ = tornado_app(thread)
        warm_up(context, f"http://127.0.0.1:{port}")
        warmed = session_ids(server)
        closed, vanished = context.new_page(), context.new_page()
        closed.goto(f"http://127.0.0.1:{port}/binary")
        vanished.goto(f"http://127.0.0.1:{proxy.port}/ndcg")
        for page in (closed, vanished):
            expect(page.locator(".metric-formula").first).to_be_visible()
        assert len(session_ids(server) - warmed) == 2
        held = [weakref.ref(obj) for obj in session_objects(server, exclude=warmed)]

        closed.close()
        proxy.freeze()
        wait_until(
            lambda: sum(len(server.get_sessions(route)) for route in ROUTES) == 0,
            timeout=20,
            message="both sessions to be discarded",
        )
        gc.collect()
        assert [ref() for ref in held if ref() is not None] == []
    finally:
        context.close()
        thread.stop()
        proxy.close()


@pytest.mark.slow
def test_a_class_that_leaves_gives_its_memory_back_to_the_system():
    """Not only to Python's allocator: the server's resident memory falls back once the sessions have ended."""
    from support.bokeh_client import SessionPool

    running = Server()
    pool = SessionPool(running.url)
    try:
        process = psutil.Process(running.process.pid)
        rss_mb = lambda: process.memory_info().rss / 2**20  # noqa: E731
        pool.open(1)
        one = rss_mb()
        pool.open(99)  # sessions opened as BokehJS opens them, without a browser each
        hundred = rss_mb()
        assert hundred - one > 10, f"a hundred sessions took only {hundred - one:.1f} MB: nothing to give back"
        pool.close_all()
        # Freed within SESSION_OPTIONS' lifetime and check interval, then RELEASE_AFTER_S later given back.
        wait_until(
            lambda: rss_mb() < one + 0.2 * (hundred - one),
            timeout=90,
            message=f"RSS to fall from {hundred:.1f} MB to near {one:.1f} MB",
        )
    finally:
        pool.shutdown()
        running.stop()
