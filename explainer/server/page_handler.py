"""The Panel page handler: the workbench's page request answered with its page, the access form or a redirect.

``ExplainerDocHandler`` takes the place of Panel's in Bokeh's per-app routes (``patches.py``).
The story and the figure pages are not Panel's (``light_pages.py``); a Panel page (the
workbench's) makes its session with the page, so it counts against the client's workbench
sessions (``guards.py``; past them, a 429). It redirects the addresses Panel cannot serve well
(``page_redirect``) and, with an access code, asks for it first. It reads its server's
``ServerConfig`` from the Tornado application's settings.
"""

from __future__ import annotations

import math
import re

from panel.io.server import DocHandler

from explainer.server.config import config_of
from explainer.server.guards import client_of, guards_of
from explainer.server.headers import content_security_policy, new_nonce
from explainer.server.page_redirect import page_redirect

SCRIPT_TAG = re.compile(rb"<script(?=[\s>])")


def with_nonce(page: bytes, nonce: str) -> bytes:
    """``page`` (HTML as Bokeh writes it) with ``nonce`` on each of its ``<script>`` tags."""
    return SCRIPT_TAG.sub(b'<script nonce="' + nonce.encode("ascii") + b'"', page)


class ExplainerDocHandler(DocHandler):
    """Panel's page handler, behind the access code, with our redirects and a nonce on its scripts."""

    async def get(self, *args, **kwargs):
        config = config_of(self.application)
        if not config.access.allows(self):
            return config.access.ask(self)
        redirect = page_redirect(self.request.path, self.request.query, self.application_context.url)
        if redirect is not None:
            return self.redirect(redirect, status=303)
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

    async def post(self, *args, **kwargs):
        # The access code's form: a right code sets its cookie and reloads the page.
        return await config_of(self.application).access.check(self, client_of(self))
