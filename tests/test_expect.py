"""``support.expect``'s ``expect`` waits as long as Playwright's would, in turns, and fails as it fails."""

from __future__ import annotations

import re
import time

import pytest

from support.expect import TURN_MS, expect

pytestmark = pytest.mark.browser


def later(page, script: str, after_ms: int) -> None:
    page.evaluate(f"setTimeout(() => {{ {script} }}, {after_ms})")


def test_what_comes_after_a_turn_is_still_waited_for(page):
    page.set_content('<p id="said">before</p>')
    later(page, "document.getElementById('said').textContent = 'after'", TURN_MS + 200)
    expect(page.locator("#said")).to_have_text("after")
    later(page, "document.getElementById('said').textContent = 'again'", TURN_MS + 200)
    expect(page.locator("#said")).not_to_have_text("after")
    later(page, "history.pushState(null, '', '#moved')", TURN_MS + 200)
    expect(page).to_have_url(re.compile("#moved$"))


def test_what_never_comes_fails_after_the_whole_timeout_with_playwrights_message(page):
    page.set_content('<p id="said">before</p>')
    start = time.monotonic()
    with pytest.raises(AssertionError) as failure:
        expect(page.locator("#said")).to_have_text("after", timeout=2 * TURN_MS + 100)
    assert time.monotonic() - start >= (2 * TURN_MS + 100) / 1000
    message = str(failure.value)
    assert "expected to have text" in message and "before" in message, message
    assert f"checked for {2 * TURN_MS + 100} ms in all" in message, message


def test_a_timeout_shorter_than_a_turn_is_kept_as_given(page):
    page.set_content('<p id="said">before</p>')
    with pytest.raises(AssertionError, match="checked for 100 ms in all") as failure:
        expect(page.locator("#said")).to_have_text("after", timeout=100)
    # Playwright's own call log names the timeout its last turn was given: never more than what is left.
    given = [int(ms) for ms in re.findall(r"with timeout (\d+)ms", str(failure.value))]
    assert given and max(given) <= 100, str(failure.value)
