"""Serving the pages: what the server accepts, sends and keeps, so that a class can use it safely.

``serve_pages`` starts Panel's server on the explainer's pages; the rest are the pieces it puts
in place of Panel's and Bokeh's defaults (see README "Serving safely").
"""

from __future__ import annotations

import ctypes
import functools
import ipaddress
import socket
import weakref
from pathlib import Path
from urllib.parse import urlsplit

# How the server lets go of the session of a page that is gone (closed, crashed, or on a laptop
# that was shut), so that its memory is freed; see README "Serving safely".
SESSION_OPTIONS = {
    # A new session waits this long for its page's websocket, and a closed page's session this
    # long before it is freed: long enough for a slow device to load the page's scripts.
    "unused_session_lifetime_milliseconds": 15_000,
    # How often the server looks for such sessions (Bokeh's default is every 17 s).
    "check_unused_sessions_milliseconds": 2_000,
    # Ping each websocket and close it when no answer comes back in time: a page that vanished
    # without closing its connection would otherwise hold its session until the OS gives up on
    # the connection, a quarter of an hour or more later. Generous, because a pong waits behind
    # the clicks already queued on its connection: a busy server must not drop live pages.
    "websocket_ping_interval": 60,
    "websocket_ping_timeout": 60,
}

# A page asked for with a longer query gets the figure without it and a notice (kit.js has the
# same number): Bokeh copies a page's query into its websocket's URL and token, and from about
# 25 KB the websocket fails, leaving a blank page.
MAX_QUERY_LENGTH = 4000
# Tornado drops a request whose headers pass 64 KB without answering it; this lets any URL a
# browser will send (Chromium's limit is 2 MB) reach the page handler, which then redirects it.
MAX_REQUEST_HEADERS = 2 * 1024 * 1024 + 64 * 1024

# Shown on every served page when its connection to the server drops.
DISCONNECT_NOTICE = "Lost the connection to the server. The figures still work on this page; reload it to reconnect."


def serve_pages(
    port: int,
    address: str,
    allow_origins: list[str],
    show: bool = False,
    threaded: bool = False,
    prefix: str = "",
    num_procs: int = 1,
    routes: dict | None = None,
    access_code: str | None = None,
):
    """Start Panel's server on the explainer's pages; returns the server (running in a thread if ``threaded``).

    With ``access_code``, a page opens only for a browser that gave the code (``ACCESS``).

    ``routes`` adds or replaces pages by route, each a function that builds a fresh page (the
    evaluate command serves its files' workbench at /evaluate this way).

    Only the pages are served (no admin page, no autoreload, no static directories, no
    /components/ files), websockets are accepted only from this host and from ``allow_origins``,
    and the session of a page that is gone is freed within ``SESSION_OPTIONS``' times.
    """
    import panel as pn
    from tornado.web import ErrorHandler

    from explainer.pages import ROUTES, TITLES

    use_explainer_handlers()
    ACCESS.require(access_code)
    served = {**ROUTES, **(routes or {})}
    if not threaded:  # the server has the process to itself (a test's server does not)
        _freeze_what_every_session_shares(served)
    origins = {f"{host}:{port}" for host in ("localhost", "127.0.0.1", address)} | set(allow_origins)
    return pn.serve(
        {route: _session_of(build) for route, build in served.items()},
        port=port,
        address=address,
        websocket_origin=sorted(origins),
        show=show,
        title=TITLES,
        autoreload=False,
        threaded=threaded,
        prefix=prefix,
        num_procs=num_procs,
        start=True,
        # Panel's /components/<module>/... route imports any module a URL names; no page uses it.
        extra_patterns=[(r"/components/.*", ErrorHandler, {"status_code": 404})],
        http_server_kwargs={"max_header_size": MAX_REQUEST_HEADERS},
        **SESSION_OPTIONS,
    )


def _freeze_what_every_session_shares(routes) -> None:
    """Build each page once, then leave everything alive so far out of Python's garbage collections.

    A full collection walks every tracked object, and the modules, classes and caches of Panel,
    Bokeh and the explainer are some 130,000 of them: 70 ms more of a stopped server, with every
    reader's click waiting, in each full collection (with a hundred sessions opening, those took
    145 and 189 ms; 59 and 97 ms frozen). Frozen objects are skipped; the objects of sessions are
    collected as before. Building the pages first does the imports and fills the caches that a
    first reader's page would otherwise set off.
    """
    import gc

    for build in routes.values():
        build()
    gc.collect()
    gc.freeze()


def _session_of(build):
    """``build`` as a served page: with a notice when the connection drops, and only local stylesheets."""

    def session():
        import panel as pn
        from panel.io.resources import LOCAL_DIST
        from panel.io.state import state

        doc = state.curdoc
        # Inside a session, Panel's config applies to that session alone.
        # No browser-info model: it would send the reader's time zone, language and WebGL
        # support in seven messages per page load (and probe WebGL), which no figure uses.
        pn.config.browser_info = False
        pn.config.notifications = True
        pn.config.disconnect_notification = DISCONNECT_NOTICE
        doc.on_session_destroyed(_forget_notification_area)
        doc.on_session_destroyed(_release_memory_soon)
        # Panel points its stylesheets at this server only for a session made by a page request;
        # one made by its websocket (under --num-procs, on another process) would load them from its CDN.
        request = doc.session_context.request
        if request is not None and request.path.endswith("/ws"):
            doc._template_variables["dist_url"] = f"{state.rel_path}/{LOCAL_DIST}" if state.rel_path else LOCAL_DIST
        return build()

    return session


def _forget_notification_area(session_context) -> None:
    """Let go of an ended session's notification area, which Panel 1.9 keeps, and with it the whole page."""
    from panel.io.notifications import NotificationAreaBase
    from panel.io.state import state

    doc = session_context._document
    for ref, (area, _, view_doc, _) in list(state._views.items()):
        if view_doc is doc and isinstance(area, NotificationAreaBase):
            del state._views[ref]
            area._documents.pop(doc, None)


def _c_malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):
        return None


# Hands the C heap's free pages back to the system. It only helps a server whose Python objects
# live on that heap: ``relevance-explainer serve`` runs with PYTHONMALLOC=malloc for this (cli.py).
MALLOC_TRIM = _c_malloc_trim()
# Sessions tend to end in waves (a class leaving): the memory goes back once none has ended for
# this long, after Panel has collected their garbage (5 s after the last one ends). Trimming takes
# some 30 ms with a hundred sessions' worth of freed memory.
RELEASE_AFTER_S = 10.0
_release_timers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a server's IO loop: its pending release


def _release_memory_soon(session_context) -> None:
    """Give the memory of ended sessions back to the system, once sessions stop ending for a while."""
    from tornado.ioloop import IOLoop

    if MALLOC_TRIM is None:
        return
    loop = IOLoop.current()
    if loop in _release_timers:
        loop.remove_timeout(_release_timers[loop])

    def release() -> None:
        del _release_timers[loop]
        MALLOC_TRIM(0)

    _release_timers[loop] = loop.call_later(RELEASE_AFTER_S, release)


class AccessCode:
    """An optional access code: with one, a page (and its websocket) opens only for a browser that gave it.

    The code is asked for once, in a form of its own (never in a URL, which logs and browser
    histories keep); a right one sets a cookie holding an HMAC of the code under a key made at
    start-up, valid until the server stops. A wrong one waits a second before the form comes
    back. Scripts and stylesheets stay public: they are Bokeh's and Panel's own.
    """

    COOKIE = "explainer-access"

    def __init__(self):
        self.key = b""
        self.digest: str | None = None

    def require(self, code: str | None) -> None:
        import hashlib
        import hmac
        import secrets

        self.key = secrets.token_bytes(32)
        self.digest = hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest() if code else None

    def _digest_of(self, code: str) -> str:
        import hashlib
        import hmac

        return hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest()

    def allows(self, handler) -> bool:
        import hmac

        if self.digest is None:
            return True
        given = handler.get_cookie(self.COOKIE) or ""
        return hmac.compare_digest(given.encode("ascii", "replace"), self.digest.encode("ascii"))

    def ask(self, handler, wrong: bool = False) -> None:
        from html import escape

        handler.set_status(403 if wrong else 401)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.set_header("Cache-Control", "no-store")
        note = "<p role='alert'>That is not the code. Ask the person who started the server.</p>" if wrong else ""
        handler.finish(ACCESS_PAGE.format(note=note, action=escape(handler.request.path, quote=True)))

    async def check(self, handler) -> None:
        import asyncio
        import hmac

        if self.digest is None:
            return handler.redirect(handler.request.path, status=303)
        code = handler.get_body_argument("code", default="")[:200].strip()
        if not hmac.compare_digest(self._digest_of(code).encode("ascii"), self.digest.encode("ascii")):
            await asyncio.sleep(1.0)  # a guesser gets one try a second
            return self.ask(handler, wrong=True)
        handler.set_cookie(self.COOKIE, self.digest, httponly=True, samesite="Strict", path="/")
        handler.redirect(handler.request.path, status=303)


ACCESS = AccessCode()

# The form that asks for the access code: no script, nothing fetched.
ACCESS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Access code</title>
<style>body{{font:16px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color-scheme:light dark}}
input,button{{font:inherit;padding:.4em .6em}}</style></head><body>
<h1>This explainer asks for an access code</h1>{note}
<form method="post" action="{action}"><label>Access code <input name="code" autocomplete="off" autofocus required></label>
<button type="submit">Open</button></form></body></html>
"""


def use_explainer_handlers() -> None:
    """Put our page and websocket handlers in Bokeh's per-app URL patterns, in place of Panel's.

    The page handler redirects three kinds of address Panel cannot serve well: a query longer
    than ``MAX_QUERY_LENGTH`` (to the page without it, with ``#ignored-query=<length>`` for the
    figure's notice), a trailing slash, and a "?" inside the query. The websocket handler
    extends Panel's in two ways:

    - It sends frames at once (TCP_NODELAY). Bokeh's handler leaves Nagle's algorithm on, so a
      click's small message can wait for the previous one's delayed ACK (about 40 ms on Linux).
    - It accepts a page this server sent, at whatever address the reader typed: a classroom's
      LAN address or the laptop's name, which no list made at start-up can know. Such a page's
      origin is the host it asked for. Tornado 6.6 accepts these before asking the handler;
      older Tornado versions (the only ones on Python 3.10) leave it to this check. Any other
      origin must be in the allowed list (this host's own names and ``--allow-origin``).
    """
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import AutoloadJsHandler, DocHandler, WSHandler
    from tornado.web import HTTPError

    class ExplainerDocHandler(DocHandler):
        async def get(self, *args, **kwargs):
            if not ACCESS.allows(self):
                return ACCESS.ask(self)
            # Redirects are relative, so that they hold behind a proxy that rewrites the path.
            path, query = self.request.path, self.request.query
            if len(query) > MAX_QUERY_LENGTH:
                return self.redirect(f"./{path.rsplit('/', 1)[-1]}#ignored-query={len(query)}", status=303)
            if path.endswith("/") and self.application_context.url != "/":
                # /binary/ would look for its scripts under /binary/static/: the page is /binary.
                page = path.rstrip("/").rsplit("/", 1)[-1]
                return self.redirect(f"../{page}{'?' if query else ''}{query}", status=303)
            if "?" in query:
                # Panel fails on a second "?" (a 500); the same query with it escaped, as a browser
                # would send a "?" inside a value. (The README's /which-measure lists use "?".)
                return self.redirect(f"./{path.rsplit('/', 1)[-1]}?{query.replace('?', '%3F')}", status=303)
            return await super().get(*args, **kwargs)

        async def post(self, *args, **kwargs):
            # The access code's form: a right code sets its cookie and reloads the page.
            return await ACCESS.check(self)

    class ExplainerWSHandler(WSHandler):
        def prepare(self):
            if not ACCESS.allows(self):
                raise HTTPError(403)
            return super().prepare()

        def check_origin(self, origin: str) -> bool:
            return is_same_origin(origin, self.request.host) or super().check_origin(origin)

        def open(self, *args, **kwargs):
            self.set_nodelay(True)
            return super().open(*args, **kwargs)

    class ExplainerAutoloadJsHandler(AutoloadJsHandler):
        def prepare(self):
            if not ACCESS.allows(self):
                raise HTTPError(403)
            return super().prepare()

    ours = {
        WSHandler: ExplainerWSHandler,
        DocHandler: ExplainerDocHandler,
        AutoloadJsHandler: ExplainerAutoloadJsHandler,
    }
    per_app_patterns[:] = [(pattern, ours.get(handler, handler)) for pattern, handler in per_app_patterns]
    use_explainer_static_files()


# Scripts and stylesheets a page loads; a first visit fetches 2.9 MB of them, 0.75 MB gzipped.
COMPRESSIBLE = (".js", ".css", ".json", ".svg", ".map")
_gzipped: dict[tuple[str, float], bytes] = {}


def gzipped(path: str, modified: float) -> bytes:
    """The gzip of a file, made once per file and version: a class's first visit costs no compression per student."""
    import gzip

    key = (path, modified)
    if key not in _gzipped:
        _gzipped[key] = gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)
    return _gzipped[key]


@functools.cache
def explainer_static(handler_class):
    """``handler_class`` (a Tornado static file handler) as the explainer serves files:

    - to browsers that accept gzip, a gzipped copy of each script and stylesheet, compressed
      once (Tornado's own ``compress_response`` would compress it again for every request, on
      the one thread that also answers every click);
    - a path with a NUL byte refused with a 400 (Tornado 6.6 would pass it to os.path.realpath:
      a ValueError, a 500 and a traceback in the log).
    """
    from tornado.web import HTTPError

    class Served(handler_class):
        gzipping = False

        def get(self, path, include_body=True):
            if "\x00" in path:
                raise HTTPError(400)
            return super().get(path, include_body)

        def set_headers(self):
            encodings = self.request.headers.get("Accept-Encoding", "")
            self.gzipping = (
                self.absolute_path.endswith(COMPRESSIBLE)
                and "gzip" in encodings.lower()
                and "Range" not in self.request.headers
            )
            super().set_headers()
            if self.absolute_path.endswith(COMPRESSIBLE):
                self.set_header("Vary", "Accept-Encoding")
            if self.gzipping:
                self.set_header("Content-Encoding", "gzip")
                # For this response only: the class's get_content also serves Tornado's version hashes.
                self.get_content = lambda abspath, start=None, end=None: self._gzipped()[start:end]

        def compute_etag(self):
            etag = super().compute_etag()
            return f'{etag[:-1]}-gzip"' if etag and self.gzipping else etag

        def get_content_size(self):
            return len(self._gzipped()) if self.gzipping else super().get_content_size()

        def _gzipped(self) -> bytes:
            return gzipped(self.absolute_path, self.modified.timestamp())

    Served.__name__ = Served.__qualname__ = f"Explainer{handler_class.__name__}"
    return Served


def use_explainer_static_files() -> None:
    """Serve Bokeh's and Panel's scripts and stylesheets as ``explainer_static`` says.

    Each page's /static/ route is made by Panel's replacement for Bokeh's create_static_handler,
    with the handler class its module names ``StaticHandler``; the shared routes are Bokeh's
    top-level patterns. Both get our handler (the same class each time).
    """
    import panel.io.server as panel_server
    from bokeh.server.urls import toplevel_patterns
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler
    from bokeh.server.views.static_handler import StaticHandler

    ours = {handler: explainer_static(handler) for handler in (StaticHandler, MultiRootStaticHandler)}
    panel_server.StaticHandler = ours[StaticHandler]
    toplevel_patterns[:] = [(route[0], ours.get(route[1], route[1]), *route[2:]) for route in toplevel_patterns]


def is_same_origin(origin: str, host: str) -> bool:
    """Whether a websocket's ``Origin`` header names the very host and port its request was sent to."""
    try:
        return bool(host) and urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False


def network_address() -> str | None:
    """This computer's address on its network (the one its default route leaves from), or None when offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))  # connecting a UDP socket sends nothing
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address
