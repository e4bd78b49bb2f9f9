"""Faults: the server stopped and restarted under an open page; pages that close, crash or vanish
free their sessions."""

from __future__ import annotations

import asyncio
import gc
import re
import threading
import weakref

import pytest
from playwright.sync_api import expect

from explainer import metrics
from explainer.export import DISCONNECT_NOTICE
from explainer.pages import ROUTES
from explainer.server.config import ServerConfig, SessionTimes
from explainer.server.serve import serve_pages

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


@pytest.mark.slow
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
        assert figure_page.locator(".connection-notice").count() == 0

        running.stop()
        for page in (figure_page, story_page):
            expect(page.locator(".connection-notice p").first).to_have_text(DISCONNECT_NOTICE, timeout=10_000)
        # The notice is in the page's type, readable, and its close button has a name.
        notice = figure_page.locator(".connection-notice")
        expect(notice).to_have_css("font-family", re.compile(r"^system-ui"))
        expect(figure_page.get_by_role("button", name="Close this notice")).to_be_visible()
        figure_page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
        serious = serious_violations(figure_page)
        assert serious == [], "\n".join(serious)
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
        assert figure_page.locator(".connection-notice").count() == 0
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


@pytest.mark.slow
def test_the_session_of_a_closed_or_vanished_page_is_freed(browser):
    """A closed page closes its websocket (so does a crashed tab: Chromium's network service outlives the
    renderer); a vanished one (laptop shut, Wi-Fi gone) goes silent, and only the server's pings notice."""
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
        closed.goto(f"http://127.0.0.1:{port}/binary")
        vanished.goto(f"http://127.0.0.1:{proxy.port}/ndcg")
        for page in (closed, vanished):
            expect(page.locator(".metric-formula").first).to_be_visible()
        # A light page draws before its websocket opens: wait for both sessions, not for the drawing.
        wait_until(lambda: len(session_ids(server) - warmed) == 2, timeout=30, message="both pages' sessions")
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
