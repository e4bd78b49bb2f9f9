"""The README's nginx configuration, run by a real nginx in front of a served explainer.

nginx listens on a free port of 127.0.0.1 that is not 80 (the case a dropped port breaks),
with the explainer under a prefix, and runs as a child of the test with its own prefix
directory. Through it go the light pages (no websocket), the workbench's websocket
(/explainer/evaluate/ws, the one Bokeh session) and, on a server that holds a class, the class
channel (/explainer/channel). Each misconfiguration the README's troubleshooting names is tried
too, to check that its symptom is the one described. Without nginx (Debian's ``nginx``
package; .ci/run installs it) these tests are skipped.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from explainer.pages import EVALUATE_ROUTE

from support.expect import expect
from support.server import ROOT, free_port, wait_until

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
PREFIX = "/explainer"
# The port nginx listens on unless a test names another: the module's explainer is told it is its
# public address (--public-host), as the README's command line tells it explainer.example.com:8080.
NGINX_PORT = free_port()
# The README's command line, for this module's nginx.
README_ARGS = ("--public-host", f"127.0.0.1:{NGINX_PORT}", "--trusted-proxy", "127.0.0.1")
# The same, for a class.
CLASS_ARGS = (*README_ARGS, "--class")
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LOST = "Lost the class's connection: trying again…"

# A real nginx for each module run, in front of servers of its own: slow tests.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(
        NGINX is None, reason="nginx not found: install it (Debian: apt-get install nginx) to run these"
    ),
]


def readme_nginx_block() -> str:
    """The nginx configuration the README gives (its ```nginx block), as a reader would copy it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx\n(.*?)```", readme, flags=re.S)
    assert len(blocks) == 1, "the README should give exactly one nginx block"
    return blocks[0]


def get(url: str, **headers: str) -> tuple[int, str]:
    """The HTTP status and body of a GET of ``url``; (0, "") when nothing answers."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except OSError:
        return 0, ""


def status_of(url: str, **headers: str) -> int:
    return get(url, **headers)[0]


class Explainer:
    """``relevance-explainer serve --prefix /explainer`` in a subprocess."""

    def __init__(self, tmp_path: Path, *args: str):
        self.port = free_port()
        self.log_path = tmp_path / f"explainer-{self.port}.log"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "explainer.cli", "serve", "--port", str(self.port), "--no-browser"]
                + ["--prefix", PREFIX, *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
            )
        try:
            wait_until(
                lambda: self.process.poll() is None and status_of(f"http://127.0.0.1:{self.port}/favicon.ico") == 200,
                timeout=60,
                message="the explainer",
            )
        except BaseException:
            self.stop()
            raise

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class Nginx:
    """nginx with the README's block, in the foreground, with its files under ``tmp_path``."""

    def __init__(self, tmp_path: Path, upstream_port: int, block: str, port: int | None = None):
        self.port = port or NGINX_PORT
        self.url = f"http://127.0.0.1:{self.port}{PREFIX}"
        # Another nginx still on the port would answer for this one, which would fail to bind.
        assert status_of(self.url + "/binary") == 0, f"port {self.port} is in use: give this nginx a port of its own"
        # A directory per nginx: the module's tests reuse one port (NGINX_PORT) one after another.
        home = Path(tempfile.mkdtemp(prefix=f"nginx-{self.port}-", dir=tmp_path))
        (home / "logs").mkdir()
        # The upstream first: a listening port such as 50067 holds "127.0.0.1:5006" once written in.
        block = block.replace("127.0.0.1:5006", f"127.0.0.1:{upstream_port}").replace(
            "listen 8080;", f"listen 127.0.0.1:{self.port};"
        )
        temp = "\n".join(
            f"    {kind}_temp_path {home / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (home / "nginx.conf").write_text(
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"worker_processes 1;\npid {home / 'nginx.pid'};\nevents {{ worker_connections 256; }}\n"
            + f"http {{\n    access_log {home / 'logs/access.log'};\n{temp}\n{block}\n}}\n"
        )
        self.log_path = home / "logs/error.log"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [NGINX, "-p", str(home), "-c", str(home / "nginx.conf"), "-g", "daemon off; error_log stderr;"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_until(
                lambda: status_of(self.url + "/binary") in (200, 421) or self.process.poll() is not None, timeout=30
            )
            assert self.process.poll() is None, self.log_path.read_text()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture(scope="module")
def workdir():
    """This module's files, in a directory of their own rather than pytest's tmp_path: a pytest run
    started meanwhile on the same machine may remove older runs' directories, and nginx writes
    its buffered responses there."""
    home = tempfile.TemporaryDirectory(prefix="explainer-proxy-")
    yield Path(home.name)
    home.cleanup()


@pytest.fixture(scope="module")
def explainer(workdir):
    """The explainer served with ``--prefix /explainer`` for this module's proxies, as the README says."""
    running = Explainer(workdir, *README_ARGS)
    yield running
    running.stop()


@pytest.fixture
def proxied(workdir, explainer):
    """Start nginx with ``block`` (the README's by default, on ``port`` or a free one) in front of the
    module's explainer, of one of its own when given ``args``, or of ``upstream``, one started before
    in the same test; all stopped at the end."""
    running = []

    def start(
        block: str | None = None, args: tuple[str, ...] = (), port: int | None = None, upstream: Explainer | None = None
    ) -> tuple[Explainer, Nginx]:
        if upstream is None:
            upstream = explainer
        if args:
            upstream = Explainer(workdir, *args)
            running.append(upstream)
        log_from = len(upstream.log())
        nginx = Nginx(workdir, upstream.port, block or readme_nginx_block(), port)
        running.append(nginx)
        nginx.explainer_log = lambda: upstream.log()[log_from:]
        return upstream, nginx

    yield start
    for process in reversed(running):
        process.stop()


def open_workbench(page, url: str):
    """Open the workbench (the one page with a Bokeh session); its websocket, and whether it showed
    its queries (Bokeh's page has its document from the websocket: refused, the page stays blank)."""
    with page.expect_websocket(lambda ws: urlsplit(ws.url).path.endswith("/evaluate/ws"), timeout=30_000) as opened:
        page.goto(url + EVALUATE_ROUTE)
    websocket, rows = opened.value, page.locator(".wb-row .wb-link")
    wait_until(
        lambda: rows.count() > 0 or websocket.is_closed(), timeout=30, message="the queries or a closed websocket"
    )
    return websocket, rows.count() > 0


def clicks_reach_the_server(page, websocket) -> bool:
    """Open a query: Python sends it in full over the websocket."""
    with websocket.expect_event("framereceived", timeout=10_000):  # the server's answer to the click
        page.locator(".wb-row .wb-link").first.click()
    expect(page.locator(".wb-list.wb-run-1 select.wb-grade").first).to_be_visible()
    return not websocket.is_closed()


def assert_blank(page, websocket) -> None:
    """The workbench's websocket was refused, and the page stays blank (no queries)."""
    wait_until(websocket.is_closed, timeout=10, message="the refused websocket to close")
    page.wait_for_timeout(1_000)
    assert page.locator(".wb-row").count() == 0


def open_figure_without_a_websocket(page, url: str) -> None:
    """A light page shows its figure and opens no websocket on a plain server: it needs no proxying beyond HTTP."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    page.goto(url)
    expect(page.locator(".metric-formula").first).to_be_visible()
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(".metric-formula").first).to_have_text("P@5 = 4 / 5 = 0.80")
    assert opened == []


def join_the_class(browser, url: str):
    """A phone opens the class's join address; its page, and the channel's websocket it opened."""
    context = browser.new_context(**PHONE)
    phone = context.new_page()
    with phone.expect_websocket(lambda ws: urlsplit(ws.url).path.endswith("/channel"), timeout=30_000) as opened:
        phone.goto(url + "/class")
    return context, phone, opened.value


def test_the_readme_nginx_block_serves_the_pages_on_another_port_under_a_prefix(page, proxied):
    _, nginx = proxied()
    assert nginx.port not in (80, 443)
    open_figure_without_a_websocket(page, nginx.url + "/binary?k=5")
    websocket, shown = open_workbench(page, nginx.url)
    assert shown, "the workbench did not show behind nginx"
    assert urlsplit(websocket.url).path == PREFIX + EVALUATE_ROUTE + "/ws"
    assert clicks_reach_the_server(page, websocket)
    assert "Refusing websocket" not in nginx.explainer_log()


def test_the_readme_nginx_block_carries_the_class_channel_under_a_prefix(browser, proxied):
    """A phone joins a class through the README's nginx: the join address redirects under the prefix,
    the page opens the class channel there (/explainer/channel), says hello and is welcomed."""
    _, nginx = proxied(args=CLASS_ARGS)
    context, phone, channel = join_the_class(browser, nginx.url)
    try:
        assert urlsplit(channel.url).path == PREFIX + "/channel"
        assert urlsplit(phone.url).path.startswith(PREFIX + "/")
        expect(phone.locator(".class-news")).to_have_text("You are in the class.", timeout=30_000)
        assert not channel.is_closed()
        logged = nginx.explainer_log()
        assert "Refused" not in logged and "Class channel of" not in logged, logged[-2000:]
    finally:
        context.close()


def test_behind_the_readme_nginx_block_six_kilobytes_of_site_cookies_do_no_harm(browser, proxied):
    """The session token carried every cookie: 6 KB of them pushed the websocket's handshake past
    nginx's 8 KB header line, and the page stayed blank."""
    _, nginx = proxied()
    context = browser.new_context()
    try:
        # Site cookies are random (session ids, signed values): they do not compress.
        context.add_cookies(
            [
                {"name": f"site{i}", "value": secrets.token_urlsafe(750), "url": f"http://127.0.0.1:{nginx.port}/"}
                for i in range(6)
            ]
        )
        page = context.new_page()
        websocket, shown = open_workbench(page, nginx.url)
        assert shown and clicks_reach_the_server(page, websocket)
    finally:
        context.close()


def test_nginx_passing_host_without_its_port_gets_a_421_that_says_why(proxied):
    """`proxy_set_header Host $host;` drops the port: the server is not known by that name."""
    _, nginx = proxied(readme_nginx_block().replace("$http_host", "$host"))
    status, body = get(nginx.url + "/binary")
    assert status == 421 and "does not answer to the host '127.0.0.1'" in body
    assert "serve with --public-host 127.0.0.1" in nginx.explainer_log()


def test_a_proxy_whose_public_name_the_server_was_not_told_gets_a_421_that_names_the_option(proxied, workdir):
    upstream = Explainer(workdir)  # no --public-host
    try:
        _, nginx = proxied(upstream=upstream)
        status, body = get(nginx.url + "/binary")
        assert status == 421 and f"--public-host 127.0.0.1:{nginx.port}" in body
        assert f"serve with --public-host 127.0.0.1:{nginx.port}" in nginx.explainer_log()
    finally:
        upstream.stop()


def test_allow_origin_names_the_public_port_when_the_address_has_one(page, proxied):
    """Behind a proxy that sends its own Host, --allow-origin HOST means HOST:80; the port must be given."""
    block = readme_nginx_block().replace("$http_host", "$host")
    # One explainer allowing both (a second one cost this test a start-up of half a minute under
    # load): the bare host lets no page of another port in, the host with the port lets its own.
    port, other = free_port(), free_port()
    while other == port:
        other = free_port()
    upstream, nginx = proxied(block, ("--allow-origin", "127.0.0.1", "--allow-origin", f"127.0.0.1:{port}"), other)
    websocket, _ = open_workbench(page, nginx.url)
    assert_blank(page, websocket)
    assert "Refusing websocket connection from Origin" in nginx.explainer_log()
    _, nginx = proxied(block, port=port, upstream=upstream)
    websocket, shown = open_workbench(page, nginx.url)
    assert shown and clicks_reach_the_server(page, websocket)


def test_nginx_without_the_upgrade_headers_leaves_python_out_and_says_why(page, browser, proxied):
    """Without `Upgrade` and `Connection` no websocket gets through: the light pages work all the same,
    the workbench stays blank, and in a class a phone's bar says it keeps trying; the server logs each
    websocket's 400."""
    block = "\n".join(
        line for line in readme_nginx_block().splitlines() if "Upgrade" not in line and "Connection" not in line
    )
    _, nginx = proxied(block)
    open_figure_without_a_websocket(page, nginx.url + "/binary")
    websocket, shown = open_workbench(page, nginx.url)
    assert not shown
    assert_blank(page, websocket)
    assert f"400 GET {PREFIX}{EVALUATE_ROUTE}/ws" in nginx.explainer_log()
    nginx.stop()  # the port the class's explainer answers for (--public-host) is this nginx's

    _, nginx = proxied(block, args=CLASS_ARGS)
    context, phone, channel = join_the_class(browser, nginx.url)
    try:
        expect(phone.locator(".class-news")).to_have_text(LOST, timeout=30_000)
        expect(phone.locator(".metric-formula").first).to_be_visible()  # the figure works on its own
        assert f"400 GET {PREFIX}/channel" in nginx.explainer_log()
    finally:
        context.close()


def test_more_than_eight_kilobytes_of_cookies_need_a_larger_nginx_header_buffer(proxied):
    """nginx refuses a header line over 8 KB itself; the README's fix is large_client_header_buffers."""
    cookies = "; ".join(f"site{i}={secrets.token_urlsafe(750)}" for i in range(9))
    _, nginx = proxied()
    status, body = get(nginx.url + "/binary", Cookie=cookies)
    assert status == 400 and "Request Header Or Cookie Too Large" in body
    block, added = re.subn(
        r"^(\s*)listen 8080;\n", r"\g<0>\1large_client_header_buffers 4 16k;\n", readme_nginx_block(), flags=re.M
    )
    assert added == 1, "the README's nginx block should listen on 8080"
    nginx.stop()  # the port the explainer answers for (--public-host) is the first nginx's
    _, nginx = proxied(block)
    assert status_of(nginx.url + "/binary", Cookie=cookies) == 200
