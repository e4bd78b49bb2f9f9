"""A shared context's pages kept from one test to the next, put back as a new page would be.

Opening a page costs Chromium a renderer and Playwright its set-up: a light page's load took
0.27 s of CPU in a new page and 0.17 s in a page that had loaded one before (12 loads each,
three times, headless shell). So a test's page is kept for the next test of its context when
everything the test did to it is undone here, or ends with the page's document:

- listeners the test added (``page.on``, ``page.once``) are removed, its init scripts and exposed
  functions closed, its routes removed;
- its viewport is set back to its context's;
- the sessionStorage of the origins it visited is cleared (the class keeps a phone's id there, and
  a tab keeps it across navigations);
- it goes to ``about:blank``, which ends its document: scripts, timers, sockets, focus.

A page is closed instead, and the next test gets a new one, when its test did what is not undone
here (``SPOILING``: emulated media, extra headers, default timeouts, locator handlers, a CDP
session), visited an origin whose storage it cannot reach any more, or closed or crashed it.
A page's clock is its context's (``page.clock``): a test that installs one asks for a context of
its own, as for cookies.

One difference stays. To Chromium's local network access checks, an ``about:blank`` reached by
navigation is a public page, where a new page's first document is not: frames of this machine's
servers, in a document a test writes into its page (``set_content``), load only in a new page. A
test that frames them writes its host page to a file, as documentation built to disk is, and opens it.
"""

from __future__ import annotations

import functools
import inspect
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

# What a test did to a page, kept on the page while it is a kept page.
_USE = "_explainer_use"

# Page methods whose effect outlives a navigation and is not undone here: the page is closed after its test.
SPOILING = (
    "emulate_media",
    "set_extra_http_headers",
    "set_default_timeout",
    "set_default_navigation_timeout",
    "add_locator_handler",
)

# sessionStorage cleared in a frame: false where the frame's document has none (about:blank, data:).
_CLEAR_STORAGE = "() => { try { sessionStorage.clear(); return true; } catch (e) { return false; } }"


class Use:
    """What one test did to a kept page that must be undone before the next test takes it."""

    def __init__(self):
        self.listeners: list[tuple[str, object]] = []
        self.disposables: list = []
        self.routed = False
        self.spoiled = ""
        self.origins: set[str] = set()


def _use(page: Page) -> Use | None:
    return page.__dict__.get(_USE)


def _recording(name: str, record) -> None:
    """Wrap ``Page.<name>`` so that ``record(use, arguments by name, result)`` sees each call on a kept page."""
    method = getattr(Page, name)
    signature = inspect.signature(method)

    @functools.wraps(method)
    def recorded(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        if (use := _use(self)) is not None:
            record(use, signature.bind(self, *args, **kwargs).arguments, result)
        return result

    setattr(Page, name, recorded)


def _installed() -> None:
    """Teach Playwright's pages to tell a kept page what its test does to it (once a process)."""
    if getattr(Page, "_explainer_recording", False):
        return
    Page._explainer_recording = True
    for name in ("on", "once"):
        _recording(name, lambda use, given, _: use.listeners.append((given["event"], given["f"])))
    for name in ("add_init_script", "expose_function", "expose_binding"):
        _recording(name, lambda use, _, disposable: use.disposables.append(disposable))
    for name in ("route", "route_from_har", "route_web_socket"):
        _recording(name, lambda use, *_: setattr(use, "routed", True))
    for name in SPOILING:
        _recording(name, lambda use, *_, name=name: setattr(use, "spoiled", name))
    cdp_session = BrowserContext.new_cdp_session

    @functools.wraps(cdp_session)
    def new_cdp_session(self, page, *args, **kwargs):
        if isinstance(page, Page) and (use := _use(page)) is not None:
            use.spoiled = "new_cdp_session"
        return cdp_session(self, page, *args, **kwargs)

    BrowserContext.new_cdp_session = new_cdp_session


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return "file://" if parts.scheme == "file" else None


class KeptPages:
    """One context's kept page: ``take()`` gives it (or a new page) to a test, ``put_back()`` keeps or closes it."""

    def __init__(self, context: BrowserContext):
        _installed()
        self.context = context
        self.kept: Page | None = None
        self.given: Page | None = None
        self.viewport = None  # the context's, as its new pages have it

    def take(self) -> Page:
        """A page of the context in the state a new page is in, and from now on its test's own."""
        page, self.kept = self.kept, None
        if page is None:
            page = self.context.new_page()
            self.viewport = page.viewport_size
            page.on("framenavigated", lambda frame: self._visited(page, frame.url))
        page.__dict__[_USE] = Use()
        self.given = page
        return page

    def new_page(self) -> Page:
        """The kept page for this test's first page, a new one for any more (``page_with``, ``phone``)."""
        return self.take() if self.given is None else self.context.new_page()

    def _visited(self, page: Page, url: str) -> None:
        if (use := _use(page)) is not None and (origin := _origin(url)):
            use.origins.add(origin)

    def put_back(self) -> None:
        """After a test: its page kept for the next, or closed; every other page of the context closed."""
        page, self.given = self.given, None
        try:
            restored = page is not None and self._restored(page)
        except PlaywrightError:  # crashed, or closed by the test
            restored = False
        if page is not None and not restored:
            if not page.is_closed():
                page.close()
            page = None
        for left in self.context.pages:
            if left is not page:
                left.close()
        self.kept = page

    def _restored(self, page: Page) -> bool:
        """Undo what the test did to the page; false where it cannot be undone."""
        use = page.__dict__.pop(_USE)
        if page.is_closed() or use.spoiled:
            return False
        reachable = {_origin(frame.url) for frame in page.frames} - {None}
        if not use.origins <= reachable:
            return False
        for frame in page.frames:
            if _origin(frame.url) and not frame.evaluate(_CLEAR_STORAGE):
                return False
        for event, listener in use.listeners:
            page.remove_listener(event, listener)
        for disposable in use.disposables:
            disposable.close()
        if use.routed:
            page.unroute_all(behavior="ignoreErrors")
        page.goto("about:blank")
        if page.viewport_size != self.viewport:
            page.set_viewport_size(self.viewport)
        return True
