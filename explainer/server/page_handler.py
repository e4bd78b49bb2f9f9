"""The page handler: a page request answered with its page, the access form or a redirect.

``ExplainerDocHandler`` takes the place of Panel's in Bokeh's per-app routes (``patches.py``).
It redirects three kinds of address Panel cannot serve well (``page_redirect``), sends the
story and the figure pages as light pages (``mirror.py``), and, with an access code, asks for
it first. A Panel page (the workbench's) makes its session with the page, so it counts against
the client's workbench sessions (``guards.py``; past them, a 429). It reads its server's
``ServerConfig`` from the Tornado application's settings.
"""

from __future__ import annotations

import math
import re

from panel.io.server import DocHandler

from explainer.server.config import config_of
from explainer.server.guards import client_of, guards_of
from explainer.server.headers import content_security_policy, new_nonce
from explainer.server.mirror import light_page, light_page_token


def page_redirect(path: str, query: str, route: str) -> str | None:
    """Where a request for the page at ``route`` (asked for as ``path`` and ``query``) is sent
    instead, or None to serve it: a query longer than ``MAX_QUERY_LENGTH`` is left out (with
    ``#ignored-query=<length>`` for the figure's notice), a trailing slash goes, and a "?" inside
    the query is escaped. Redirects are relative, so that they hold behind a proxy that rewrites the path."""
    from explainer.figures.base import MAX_QUERY_LENGTH

    if len(query) > MAX_QUERY_LENGTH:
        return f"./{path.rsplit('/', 1)[-1]}#ignored-query={len(query)}"
    if path.endswith("/") and route != "/":
        # /binary/ would look for its scripts under /binary/static/: the page is /binary.
        page = path.rstrip("/").rsplit("/", 1)[-1]
        return f"../{page}{'?' if query else ''}{query}"
    if "?" in query:
        # Panel fails on a second "?" (a 500); the same query with it escaped, as a browser would
        # send a "?" inside a value. (The README's /which-measure lists use "?".)
        return f"./{path.rsplit('/', 1)[-1]}?{query.replace('?', '%3F')}"
    return None


SCRIPT_TAG = re.compile(rb"<script(?=[\s>])")


def with_nonce(page: bytes, nonce: str) -> bytes:
    """``page`` (HTML as Bokeh writes it) with ``nonce`` on each of its ``<script>`` tags."""
    return SCRIPT_TAG.sub(b'<script nonce="' + nonce.encode("ascii") + b'"', page)


class ExplainerDocHandler(DocHandler):
    """Panel's page handler, behind the access code, with our redirects and the light pages."""

    async def get(self, *args, **kwargs):
        config = config_of(self.application)
        if not config.access.allows(self):
            return config.access.ask(self)
        redirect = page_redirect(self.request.path, self.request.query, self.application_context.url)
        if redirect is not None:
            return self.redirect(redirect, status=303)
        if (page := light_page(self.application_context.url, config)) is not None:
            return self._send_light_page(page)
        guards = guards_of(self.application)
        client = client_of(self)
        if not guards.workbench_sessions.allow(client):
            return self._too_many_sessions(guards.workbench_sessions, guards, client)
        # A Panel page (the workbench's): Bokeh writes its scripts, which get this response's nonce.
        self._nonce = new_nonce()
        policy = content_security_policy(self._nonce, self.request.host, None, blobs=True)
        self.set_header("Content-Security-Policy", policy)
        async with guards.session_turns.turn():  # its session is made with the page
            return await super().get(*args, **kwargs)

    _nonce: str | None = None

    def write(self, chunk) -> None:
        if self._nonce is not None and isinstance(chunk, (str, bytes)):
            chunk = with_nonce(chunk.encode("utf-8") if isinstance(chunk, str) else chunk, self._nonce)
        return super().write(chunk)

    def _too_many_sessions(self, limit, guards, client: str) -> None:
        seconds = max(1, math.ceil(limit.wait(client)))
        guards.refusals.warn(
            "too-many-sessions",
            "Refused a page to %s: too-many-sessions (%d at once, then %g a second)",
            client,
            limit.burst,
            limit.per_second,
        )
        self.set_status(429)
        self.set_header("Retry-After", str(seconds))
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"Too many new pages from this address: try again in {seconds} s.\n")

    def _send_light_page(self, page: str) -> None:
        """The page with a new session's token and its scripts' nonce; the session is made when its
        websocket opens (as Bokeh makes one for a page whose session is gone), while the page is
        already working. Framable as ``--framed-by`` says (by default by any page)."""
        from explainer.export import SCRIPT_NONCE, SESSION_TOKEN

        token = light_page_token(self.application, self.application_context.application, self.request)
        nonce = new_nonce()
        policy = content_security_policy(nonce, self.request.host, config_of(self.application).framed_by)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")  # a token is for one page load
        self.set_header("Content-Security-Policy", policy)
        self.write(page.replace(SESSION_TOKEN, token).replace(SCRIPT_NONCE, nonce))

    async def post(self, *args, **kwargs):
        # The access code's form: a right code sets its cookie and reloads the page.
        return await config_of(self.application).access.check(self, client_of(self))
