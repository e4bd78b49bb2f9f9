"""Every served page's Content-Security-Policy and headers, and the workbench running under its policy in Chromium.

The policy's parts are unit-tested in tests/test_server_doors.py; here a browser says whether the
workbench's scripts (Panel's and its own) pass it: a violation fires ``securitypolicyviolation``.
The light pages' run under theirs is checked as each loads in tests/test_pages.py.
"""

from __future__ import annotations

import urllib.request

import pytest

from explainer.pages import ROUTES, UPLOADS_OFF

from support.expect import expect
from support.page import watch_page, watch_policy


def headers_of(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url) as response:
        return dict(response.headers)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_each_page_is_served_with_its_policy_and_headers(server, route):
    sent = headers_of(server.url + route)
    assert sent["X-Content-Type-Options"] == "nosniff" and sent["Referrer-Policy"] == "no-referrer"
    policy = sent["Content-Security-Policy"]
    assert "script-src 'nonce-" in policy
    if route == "/evaluate":
        assert "frame-ancestors 'none'" in policy
    else:
        assert "frame-ancestors" not in policy  # any page may frame a figure, one opened from file:// too


@pytest.mark.browser
def test_the_workbench_runs_under_its_policy_with_no_violation(page, server):
    violations = watch_policy(page)
    seen = watch_page(page)
    websockets = []
    page.on("websocket", lambda ws: websockets.append(ws))
    page.goto(server.url + "/evaluate")
    expect(page.locator(".wb-title")).to_have_text("Evaluate runs, query by query", timeout=60_000)
    page.wait_for_timeout(500)  # the websocket's first messages, and any module Panel loads late
    # The workbench is a Panel page, on its websocket.
    assert len(websockets) == 1 and not websockets[0].is_closed()
    assert violations() == [] and seen["errors"] == []


def test_each_response_has_a_nonce_of_its_own(server):
    nonces = {headers_of(server.url + "/binary")["Content-Security-Policy"].split("'nonce-")[1][:22] for _ in range(3)}
    assert len(nonces) == 3


@pytest.mark.browser
def test_served_to_the_network_without_a_code_evaluate_shows_the_golden_set_and_how_to_upload(page, class_server):
    page.goto(class_server.url + "/evaluate")
    expect(page.locator(".wb-title")).to_have_text("Evaluate runs, query by query", timeout=60_000)
    expect(page.get_by_text("shows the golden set only")).to_be_visible()
    assert "--access-code" in UPLOADS_OFF and "--uploads" in UPLOADS_OFF
    expect(page.get_by_text("Use your own files")).to_have_count(0)
