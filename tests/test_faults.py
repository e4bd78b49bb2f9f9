"""Faults: the server stopped and restarted under open pages; a class's channel lost and found
again; pages that close, crash or vanish free their sessions.

The story and the figure pages are light pages: on a plain server they hold no connection, so
a server that is gone changes nothing for them. The workbench (/evaluate) is the one Panel page:
its connection's loss shows Panel's notice (``pages.DISCONNECT_NOTICE``), and its session is the
one a page can leave behind. On a server that holds a class, every page holds the class channel:
a phone says when it lost it and when it is back (class.js's bar, ``.class-news``).
"""

from __future__ import annotations

import asyncio
import gc
import re
import threading
import weakref

import pytest

from explainer import metrics
from explainer.pages import DISCONNECT_NOTICE, EVALUATE_ROUTE
from explainer.server.config import ServerConfig, SessionTimes
from explainer.server.serve import serve_pages

from support.expect import expect
from support.page import numbers_mismatch, read_figures, serious_violations, watch_page
from support.server import Server, answers, free_port, wait_until
from support.sessions import (
    session_ids,
    session_objects,
    tornado_app,
    warm_up,
)

pytestmark = pytest.mark.browser

f = metrics.format_number
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def expect_consistent(page) -> list[dict]:
    """Every figure on the page shows numbers that match its own list; returns what they show.

    The page is brought to the front first: of this test's two tabs, the one behind paints no frames,
    and a click draws its rows in the frame after it (shell.js ``beforePaint``), as a reader sees it."""
    page.bring_to_front()
    shown = read_figures(page)
    assert shown, "no figure on the page"
    for figure in shown:
        assert numbers_mismatch(figure) == [], numbers_mismatch(figure)
    return shown


def open_a_query(workbench) -> None:
    """Open the first query of the workbench's table: Python sends it in full (its lists to judge)."""
    workbench.locator(".wb-row .wb-link").first.click()
    expect(workbench.locator(".wb-list.wb-run-1 select.wb-grade").first).to_be_visible()


@pytest.mark.slow
def test_the_workbench_says_when_the_server_is_gone_and_a_reload_brings_it_back(browser):
    """The workbench shows Panel's notice when its connection drops (in the page's type, its close
    button named for screen readers, axe clean); a figure page beside it, a light page, notices
    nothing and keeps working on its own; once the server is back, reloading the workbench brings it
    back to Python."""
    running = Server()
    context = browser.new_context()
    try:
        workbench, figure_page = context.new_page(), context.new_page()
        seen = watch_page(workbench)
        workbench.goto(running.url + EVALUATE_ROUTE)
        figure_page.goto(running.url + "/binary?relevant=1,4&missed=0&k=3")
        expect(figure_page.locator(".metric-formula").first).to_have_text("P@3 = 1 / 3 = 0.33")
        workbench.bring_to_front()
        open_a_query(workbench)
        notice = workbench.locator(".notyf__toast.notyf__disconnect")
        assert notice.count() == 0

        running.stop()
        expect(notice.locator(".notyf__message")).to_have_text(DISCONNECT_NOTICE, timeout=10_000)
        # The notice is in the page's type, readable, and its close button has a name.
        expect(notice).to_have_css("font-family", re.compile(r"^system-ui"))
        expect(workbench.get_by_role("button", name="Close this notice")).to_be_visible()
        workbench.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
        serious = serious_violations(workbench)
        assert serious == [], "\n".join(serious)
        # The light page had no connection to lose: no notice, and its figure works on, its numbers
        # always matching its list.
        for rank in (3, 7, 2):
            figure_page.locator(f'.rl-row[data-rank="{rank}"] button').click()
            expect_consistent(figure_page)
        figure_page.wait_for_url(re.compile(r"relevant=1,2,3,4,7&"))
        assert figure_page.locator(".notyf__toast, .connection-notice, .class-bar").count() == 0

        running.start()
        workbench.bring_to_front()
        workbench.reload()  # as the notice says
        open_a_query(workbench)  # Python sends the query: the connection is back
        assert notice.count() == 0
        errors_since = len(seen["errors"])
        workbench.locator(".wb-row .wb-link").nth(1).click()
        expect(workbench.locator(".wb-list.wb-run-1 select.wb-grade").first).to_be_visible()
        assert seen["errors"][errors_since:] == [] and seen["dialogs"] == []
        assert "Traceback" not in running.log()
    finally:
        context.close()
        running.stop()


class FreezableProxy:
    """A TCP proxy to a local port that can freeze: it stops forwarding but keeps every connection open,
    as when a laptop is shut or leaves the Wi-Fi (the server hears nothing, not even a close). It can
    also cut: drop every connection, and each new one at once, until it is restored (a Wi-Fi that
    blinks: both ends hear their connections close)."""

    def __init__(self, target_port: int, port: int | None = None):
        self.port, self.target = port or free_port(), target_port
        self.frozen = threading.Event()
        self.cutting = threading.Event()
        self.writers: list[asyncio.StreamWriter] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result(10)

    async def _listen(self):
        self.released = asyncio.Event()
        self.server = await asyncio.start_server(self._connection, "127.0.0.1", self.port)

    async def _connection(self, reader, writer):
        if self.cutting.is_set():
            writer.close()
            return
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

    def cut(self):
        """Close every connection (both ends) and, until ``restore``, each new one as it comes."""
        self.cutting.set()

        async def close_all():
            for writer in self.writers:
                writer.close()
            self.writers = []

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(10)

    def restore(self):
        self.cutting.clear()

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


@pytest.mark.slow
def test_a_phone_in_a_class_says_when_its_channel_is_lost_and_when_it_is_back(browser):
    """A phone in a class, its Wi-Fi blinking: the class bar says the connection is lost and being
    tried again, its figure works on meanwhile, and once the network is back the channel reopens
    with the page's token and the bar says so (class.js: a lost channel is tried again, a little
    later each time)."""
    port = free_port()  # the proxy's: the server is told it is its public address, as behind nginx
    running = Server("--class", "--public-host", f"127.0.0.1:{port}")
    proxy = FreezableProxy(running.port, port)
    context = browser.new_context(**PHONE)
    try:
        phone = context.new_page()
        seen = watch_page(phone)
        phone.goto(f"http://127.0.0.1:{port}/class")  # the join address: the plan's first figure
        news = phone.locator(".class-news")
        expect(news).to_have_text("You are in the class.", timeout=30_000)
        expect_consistent(phone)

        proxy.cut()
        expect(news).to_have_text("Lost the class's connection: trying again…", timeout=10_000)
        phone.locator('.rl-row[data-rank="2"] button').click()  # the figure works on its own
        expect_consistent(phone)
        phone.wait_for_timeout(2_000)  # a try or two fails meanwhile
        expect(news).to_have_text("Lost the class's connection: trying again…")

        proxy.restore()
        expect(news).to_have_text("You are in the class.", timeout=30_000)
        assert "Traceback" not in running.log()
        assert [error for error in seen["errors"] if "WebSocket" not in error] == [], seen["errors"]
    finally:
        context.close()
        proxy.close()
        running.stop()


@pytest.mark.slow
def test_the_session_of_a_closed_or_vanished_workbench_is_freed(browser):
    """The workbench is the one page with a session. A closed page closes its websocket (so does a
    crashed tab: Chromium's network service outlives the renderer); a vanished one (laptop shut,
    Wi-Fi gone) goes silent, and only the server's pings notice. Either way the server lets go of its
    session, its document, its page and its workbench."""
    # The same mechanism as in production, on a shorter clock so the test need not wait half a minute.
    options = SessionTimes()
    assert options.unused_session_lifetime_milliseconds <= 15_000
    assert options.check_unused_sessions_milliseconds <= 5_000
    assert 0 < options.websocket_ping_timeout <= options.websocket_ping_interval <= 60
    shorter = SessionTimes(
        unused_session_lifetime_milliseconds=2_000,
        check_unused_sessions_milliseconds=500,
        websocket_ping_interval=1,
        websocket_ping_timeout=1,
    )
    port = free_port()
    proxy = FreezableProxy(port)
    config = ServerConfig(port, "127.0.0.1", allow_origins=(f"127.0.0.1:{proxy.port}",), sessions=shorter)
    thread = serve_pages(config, threaded=True)
    context = browser.new_context()
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=30, message="the server")
        server, _ = tornado_app(thread)
        warm_up(context, f"http://127.0.0.1:{port}")
        warmed = session_ids(server)
        closed, vanished = context.new_page(), context.new_page()
        closed.goto(f"http://127.0.0.1:{port}{EVALUATE_ROUTE}")
        vanished.goto(f"http://127.0.0.1:{proxy.port}{EVALUATE_ROUTE}")
        for page in (closed, vanished):
            page.bring_to_front()
            open_a_query(page)
        wait_until(lambda: len(session_ids(server) - warmed) == 2, timeout=30, message="both pages' sessions")
        held = [weakref.ref(obj) for obj in session_objects(server, exclude=warmed)]
        assert len(held) >= 2 * 3  # each session's document, page and workbench (its view and itself)

        closed.close()
        proxy.freeze()
        wait_until(lambda: session_ids(server) <= warmed, timeout=20, message="both sessions to be discarded")
        gc.collect()
        assert [ref() for ref in held if ref() is not None] == []
    finally:
        context.close()
        thread.stop()
        proxy.close()
