"""Every served page under its own Content-Security-Policy, in Chromium: its scripts run, nothing is refused.

The policy's parts are unit-tested in tests/test_server_doors.py; here a browser says whether the
pages' own scripts pass it (a violation fires ``securitypolicyviolation``), and what the pages are
served with.
"""

from __future__ import annotations

import urllib.request

import pytest
from playwright.sync_api import expect

from explainer.pages import ROUTES, UPLOADS_OFF

from support.page import watch_page

pytestmark = pytest.mark.browser

# Each violation the page meets, kept where the test reads it.
LISTEN = (
    "window.violations = [];"
    "document.addEventListener('securitypolicyviolation',"
    " (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));"
)


def headers_of(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url) as response:
        return dict(response.headers)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_each_page_runs_under_its_policy_with_no_violation(page, server, route):
    page.add_init_script(LISTEN)
    seen = watch_page(page)
    websockets = []
    page.on("websocket", lambda ws: websockets.append(ws))
    page.goto(server.url + route)
    if route == "/evaluate":
        expect(page.locator(".wb-title")).to_have_text("Evaluate runs, query by query", timeout=60_000)
        page.wait_for_timeout(500)  # the websocket's first messages, and any module Panel loads late
    else:
        # A light page's inline scripts have all run by the load event, which goto waits for: it
        # loads nothing later, and only a class's script (not on this server) opens a websocket.
        expect(page.locator(".fig button").first).to_be_visible(timeout=30_000)
    # The workbench is a Panel page, on its websocket; a light page needs none without a class.
    assert len(websockets) == (1 if route == "/evaluate" else 0) and not any(ws.is_closed() for ws in websockets)
    assert page.evaluate("window.violations") == [] and seen["errors"] == []
    sent = headers_of(server.url + route)
    assert sent["X-Content-Type-Options"] == "nosniff" and sent["Referrer-Policy"] == "no-referrer"
    policy = sent["Content-Security-Policy"]
    assert "script-src 'nonce-" in policy
    if route == "/evaluate":
        assert "frame-ancestors 'none'" in policy
    else:
        assert "frame-ancestors" not in policy  # any page may frame a figure, one opened from file:// too


def test_each_response_has_a_nonce_of_its_own(server):
    nonces = {headers_of(server.url + "/binary")["Content-Security-Policy"].split("'nonce-")[1][:22] for _ in range(3)}
    assert len(nonces) == 3


def test_served_to_the_network_without_a_code_evaluate_shows_the_golden_set_and_how_to_upload(page, class_server):
    page.goto(class_server.url + "/evaluate")
    expect(page.locator(".wb-title")).to_have_text("Evaluate runs, query by query", timeout=60_000)
    expect(page.get_by_text("shows the golden set only")).to_be_visible()
    assert "--access-code" in UPLOADS_OFF and "--uploads" in UPLOADS_OFF
    expect(page.get_by_text("Use your own files")).to_have_count(0)
