"""A page kept from one test for the next (``support.kept_pages``) is as a new page would be.

Each test plays two tests in a row on a context of its own: the first leaves what a test may leave
in its page, and the second finds none of it, or a new page where it could not be undone.
"""

from __future__ import annotations

import pytest

from support.kept_pages import KeptPages

pytestmark = pytest.mark.browser

ROUTE = "/binary"


@pytest.fixture
def kept(browser):
    context = browser.new_context()
    yield KeptPages(context)
    context.close()


def test_a_page_put_back_keeps_nothing_its_test_left(kept, server):
    first = kept.take()
    heard, routed = [], []
    first.on(event="console", f=lambda message: heard.append(message.text))  # by name, as watch_page does by place
    first.add_init_script("window.leftOver = 'init script'")
    first.route("**/nowhere", lambda route: (routed.append(route.request.url), route.abort()))
    first.set_viewport_size({"width": 500, "height": 400})
    first.goto(server.url + ROUTE)
    first.evaluate("sessionStorage.setItem('student', 'kept?')")
    first.evaluate("console.log('first test')")
    assert first.evaluate("window.leftOver") == "init script"
    assert heard == ["first test"]
    kept.put_back()

    second = kept.take()
    assert second is first  # kept, not new
    assert second.url == "about:blank"
    assert second.viewport_size == {"width": 1280, "height": 720}
    second.goto(server.url + ROUTE)
    assert second.evaluate("window.leftOver") is None
    assert second.evaluate("sessionStorage.getItem('student')") is None
    second.evaluate("console.log('second test'); fetch('/nowhere').catch(() => null)")
    second.wait_for_timeout(200)
    assert heard == ["first test"]
    assert routed == []
    kept.put_back()


def test_sessionstorage_is_cleared_in_every_frame_the_page_ends_on(kept, server, tmp_path):
    other = server.url.replace("127.0.0.1", "localhost")  # another origin of the same server
    host = tmp_path / "docs.html"
    host.write_text(f'<iframe src="{other}{ROUTE}"></iframe>')
    first = kept.take()
    first.goto(host.as_uri())
    frame = first.frame_locator("iframe").locator(".fig").first
    frame.wait_for()
    first.frames[1].evaluate("sessionStorage.setItem('student', 'kept?')")
    kept.put_back()

    second = kept.take()
    assert second is first
    second.goto(other + ROUTE)
    assert second.evaluate("sessionStorage.getItem('student')") is None
    kept.put_back()


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda page, url: page.emulate_media(color_scheme="dark"), id="emulated media"),
        pytest.param(lambda page, url: page.set_default_timeout(1_000), id="a default timeout"),
        pytest.param(lambda page, url: page.context.new_cdp_session(page), id="a CDP session"),
        pytest.param(  # the first origin's sessionStorage is out of reach from the second's page
            lambda page, url: (page.goto(url + ROUTE), page.goto(url.replace("127.0.0.1", "localhost") + ROUTE)),
            id="a second origin",
        ),
        pytest.param(lambda page, url: page.close(), id="closed"),
    ],
)
def test_a_page_its_test_left_what_cannot_be_undone_is_closed_and_the_next_test_gets_a_new_one(kept, server, spoil):
    first = kept.take()
    spoil(first, server.url)
    kept.put_back()
    assert first.is_closed()
    second = kept.take()
    assert second is not first
    assert kept.context.pages == [second]
    kept.put_back()
