"""Running a coroutine from a test, whatever loop the test's thread already has."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(coroutine) -> Any:
    """Run ``coroutine`` to its end in a thread of its own: Playwright's sync API, once any browser
    test of the run has used it, keeps an event loop running in the main thread, where
    ``asyncio.run`` then refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class BackgroundLoop:
    """An event loop in a thread of its own, for clients that live across a test's steps (a class's
    simulated students); ``run(coroutine)`` waits for one coroutine on it."""

    def __init__(self):
        import threading

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine, timeout: float = 120.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
