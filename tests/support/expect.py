"""Playwright's ``expect``, checked at most 50 ms apart for as long as it is given.

Playwright's driver checks a failing expectation again after 20, 50, 100 and 100 ms, then every
500 ms; but it leaves out every interval longer than a fifth of the expectation's timeout. So with
the default 5 s, a live region that speaks 500 ms after a change is seen at the check at 770 ms,
and a Panel round trip of 300 ms at the one at 770 ms too: up to half a second lost per wait, and
a default run had some 70 waits of over 270 ms. This ``expect`` runs Playwright's assertion
again and again with a timeout of 480 ms, which the driver checks at most 50 ms apart, until the
caller's timeout has passed. What an assertion matches is Playwright's, and so is its message
when it fails, with one line added that says how long it was checked.

Import it from here (``from support.expect import expect``); ruff refuses Playwright's in tests.
"""

from __future__ import annotations

import functools
import inspect
import time

from playwright.sync_api import expect as playwright_expect  # noqa: TID251 (the one import of it)

# Under a fifth of it, the driver's intervals are 20 and 50 ms (its backoff drops 100 and 500 ms).
TURN_MS = 480
# Playwright's default, which the project does not change (expect.set_options is not called).
DEFAULT_TIMEOUT_MS = 5_000


def expect(actual, message: str | None = None):
    """Playwright's assertions on ``actual`` (a page, a locator or a response), checked closely."""
    return _Closely(playwright_expect(actual, message))


class _Closely:
    def __init__(self, assertions) -> None:
        self._assertions = assertions

    def __getattr__(self, name: str):
        method = getattr(self._assertions, name)
        if not name.startswith(("to_", "not_to_")) or "timeout" not in inspect.signature(method).parameters:
            return method
        return _in_turns(method)


def _in_turns(method):
    @functools.wraps(method)
    def checked(*args, timeout: float | None = None, **kwargs):
        total = DEFAULT_TIMEOUT_MS if timeout is None else timeout
        if total == 0:  # Playwright's "no timeout": wait as it waits.
            return method(*args, timeout=0, **kwargs)
        deadline = time.monotonic() + total / 1000
        while True:
            left = (deadline - time.monotonic()) * 1000
            try:
                return method(*args, timeout=max(1, min(TURN_MS, round(left))), **kwargs)
            except AssertionError as failure:
                if time.monotonic() >= deadline:
                    raise AssertionError(
                        f"{failure}\n(checked for {total:g} ms in all, in turns of {TURN_MS} ms)"
                    ) from None

    return checked
