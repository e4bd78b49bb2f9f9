"""Shared fixtures: the Chromium the browser tests drive, a served explainer, and served test objects.

The helpers behind them (servers, waits, browserless sessions, page objects) are in tests/support.
"""

from __future__ import annotations

import pytest

from explainer.tools.browser import launch_args

import support.server
from support.kept_pages import KeptPages
from support.page import View, Viewed
from support.server import Server


def pytest_configure(config):
    """Slow tests run only when ``-m`` names them: pyproject's ``-m 'not slow'`` is replaced by any
    ``-m`` given, so ``-m "not browser"`` (the Python layer) ran every slow test outside the browser."""
    expression = config.option.markexpr
    if expression and "slow" not in expression:
        config.option.markexpr = f"({expression}) and not slow"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist=loadfile``, with the files that take a shared server sent to one worker (``support.server_scopes``)."""
    if config.getvalue("dist") == "loadfile":
        from support.server_scopes import ServerScopes

        return ServerScopes(config, log)
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


# -- pages: one browser context for the session, a page for each test ------------------------------
#
# A new context costs a test about as much as loading a light page into it (a second and more on a
# busy 2-core machine), so tests share contexts. Each test takes a page that is new or as good as
# new: the page the test before it had, put back (``support.kept_pages``: its listeners, routes,
# init scripts, viewport and sessionStorage undone, its document ended), or a new page where that
# test did what cannot be undone. What a context keeps (cookies, other pages a test opened) is
# cleared after each test; a test that changes its context in ways that cannot be undone (routes,
# cookies, init scripts, its clock) asks for the ``context`` fixture too, and its page is then in a
# context of its own.
#
# The shared contexts keep a profile on disk, as a reader's browser does: an ordinary Playwright
# context is incognito and keeps no compiled code, so each Panel page (the workbench, a figure a
# test serves) compiled Bokeh's and Panel's scripts again. With a profile, Chromium's code cache
# spared a Panel page's load some 0.2 s of CPU (0.52 to 0.64 s against 0.78 to 0.83 s for a bare
# Panel page, five loads each, three times); light pages, whose scripts are inline, load as before.
# Each such context is a Chromium of its own.
PHONE_OPTIONS = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="session")
def lasting_context(playwright, browser_type_launch_args, browser_context_args, tmp_path_factory):
    """Make a context with its own profile on disk, closed at the session's end: ``lasting_context(**options)``."""
    made = []

    def open_context(**options):
        context = playwright.chromium.launch_persistent_context(
            tmp_path_factory.mktemp("profile"), **browser_type_launch_args, **{**browser_context_args, **options}
        )
        for first in context.pages:  # a profile opens with a blank page
            first.close()
        made.append(context)
        return context

    yield open_context
    for context in made:
        context.close()


@pytest.fixture(scope="session")
def shared_context(lasting_context):
    """The one ordinary context (desktop, 1280x720, light) the session's pages are opened in."""
    return lasting_context()


@pytest.fixture(scope="session")
def phone_context(lasting_context):
    """A phone's context (touch, a mobile viewport, 390 px wide) for the session's phone pages."""
    return lasting_context(**PHONE_OPTIONS)


@pytest.fixture(scope="session")
def shared_pages(shared_context):
    """The shared context's page, kept from one test for the next (``support.kept_pages``)."""
    return KeptPages(shared_context)


@pytest.fixture(scope="session")
def phone_pages(phone_context):
    """The phone context's page, kept from one test for the next (``support.kept_pages``)."""
    return KeptPages(phone_context)


def _given_back(pages: KeptPages):
    """After a test: its page kept or closed, every other page of the context closed, its cookies cleared."""
    pages.put_back()
    pages.context.clear_cookies()


@pytest.fixture
def page(request, shared_pages):
    """This test's page: in the shared context, or in the test's own ``context`` when it asks for one."""
    if "context" in request.fixturenames:
        yield request.getfixturevalue("context").new_page()  # pytest-playwright closes that context
        return
    yield shared_pages.take()
    _given_back(shared_pages)


@pytest.fixture
def page_with(shared_pages):
    """A page of the shared context at a viewport and colour scheme: ``page_with(viewport=(1920, 1080), color_scheme="dark")``.

    Both are the page's own emulation, as a context made with them would have."""

    def open_page(viewport: tuple[int, int] | None = None, color_scheme: str | None = None):
        opened = shared_pages.new_page()
        if viewport:
            opened.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        if color_scheme:
            opened.emulate_media(color_scheme=color_scheme)
        return opened

    yield open_page
    _given_back(shared_pages)


@pytest.fixture
def phone(phone_pages):
    """A page of the phone context: ``phone(height=600, color_scheme="dark")``."""

    def open_page(height: int = 844, color_scheme: str | None = None):
        opened = phone_pages.new_page()
        if height != 844:
            opened.set_viewport_size({"width": 390, "height": height})
        if color_scheme:
            opened.emulate_media(color_scheme=color_scheme)
        return opened

    yield open_page
    _given_back(phone_pages)


# -- one page load for many read-only checks ------------------------------------------------------


@pytest.fixture(scope="session")
def viewing_context(lasting_context):
    """The contexts the shared views are opened in, one for desktops and one for phones, made on first
    use and kept for the session: their caches stay warm, as the shared contexts' do (a new context
    would fetch and compile the page's scripts again for each view)."""
    made = {}

    def context(phone: bool):
        if phone not in made:
            made[phone] = lasting_context(**(PHONE_OPTIONS if phone else {}))
        return made[phone]

    return context


@pytest.fixture(scope="module")
def view(request, viewing_context, server):
    """A served page loaded once for every test of the module that reads it without changing it.

    Tests ask for one with ``@pytest.mark.parametrize("view", [View(...)], indirect=True)`` (every
    parameter of such a test must be indirect, or pytest gives it a page of its own), and get its
    page and route (``Viewed``). pytest orders a module's tests so that those asking for the same
    ``View`` (an equal value) run one after another, and loads the page once for them all (in a
    phone's context when the view is one). A test given a ``view`` may read the page (boxes, styles,
    text, axe-core's findings) but not change it: no clicks, keys, focus, scrolling or navigation
    (take the ``page`` fixture for that).
    """
    seen: View = request.param
    opened = viewing_context(seen.phone).new_page()
    opened.set_viewport_size({"width": seen.width, "height": seen.height})
    opened.emulate_media(color_scheme=seen.scheme)
    opened.goto(server.url + seen.path)
    yield Viewed(opened, seen.route)
    opened.close()


# -- servers and exported files --------------------------------------------------------------------


@pytest.fixture(scope="session")
def server():
    """The explainer served on a free port of 127.0.0.1 for the whole session."""
    running = Server()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def probe_server():
    """A second explainer for the tests whose 404s, refusals and errors must stay out of the shared
    server's log (test_pages.py's test_the_server_logged_no_error); it also lets pages of
    https://docs.example.com open its websockets (``--allow-origin docs.example.com``)."""
    running = Server("--allow-origin", "docs.example.com")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def class_server():
    """The explainer served as for a class: to the network (``--address 0.0.0.0``), holding one
    (``--class``), no ``--allow-origin``."""
    running = Server("--address", "0.0.0.0", "--class")
    yield running
    running.stop()


@pytest.fixture(scope="session")
def exported_site(tmp_path_factory):
    """Every page exported once, as ``relevance-explainer export DIR`` writes them, for the whole session."""
    from explainer.cli import main

    site = tmp_path_factory.mktemp("site")
    main(["export", str(site)])
    return site


@pytest.fixture
def address(server, exported_site):
    """A page's address, served or as its exported light file: ("exported", "/binary?k=3") is binary.html?k=3 on disk."""

    def at(mode: str, path: str) -> str:
        if mode == "served":
            return server.url + path
        route, mark, query = path.partition("?")
        return (exported_site / f"{route.strip('/') or 'index'}.html").as_uri() + mark + query

    return at


@pytest.fixture(scope="session")
def object_server():
    """One Panel server in this process for every served test object of the session."""
    running = support.server.object_server()
    yield running
    support.server.stop_object_server()


@pytest.fixture
def serve_object(object_server):
    """Serve Panel objects of this test process (so the test can read their Python state); returns their URL.

    The test changes their Python state on the server's thread, with ``support.server.on_server``.
    They are released after the test.
    """
    yield object_server.serve
    object_server.release()
