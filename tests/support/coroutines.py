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
