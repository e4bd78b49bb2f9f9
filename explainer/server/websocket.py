"""The websocket handler: a page's connection to its session, held to what a page sends.

``ExplainerWSHandler`` takes the place of Panel's in Bokeh's per-app routes (``patches.py``)
and extends it:

- It sends frames at once (TCP_NODELAY). Bokeh's handler leaves Nagle's algorithm on, so a
  click's small message can wait for the previous one's delayed ACK (about 40 ms on Linux).
- It accepts a page this server sent, at whatever address the reader typed (``origins.py``).
- It takes from the page only what a page sends (``messages.PageMessages``), before Bokeh
  applies it, and no message longer than the page's ``ServerConfig.message_limit``.
- A handshake no page makes (no session token, one that does not read) is closed with the
  code ``bad-handshake`` and one short log line, not a traceback.
- A token is checked before anything parses it (``tokens.py``), and opens one websocket at a
  time: one too long, not signed by this server, or whose session has an open websocket closes
  the connection with a short code (``token-too-long``, ``bad-token``, ``token-in-use``).
- A client (``clients.py``) may hold ``Limits.max_websockets_per_client`` websockets at once
  and make new sessions at ``Limits.new_sessions_*`` (``guards.py``); past them it is closed with
  ``too-many-websockets`` or ``too-many-sessions``. Refusals of a handshake are logged in one
  line per kind, then at most one a minute.
- With an access code, it opens only for a browser that gave it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from bokeh.protocol.exceptions import ProtocolError
from panel.io.server import WSHandler
from tornado.web import HTTPError

from explainer.server.config import config_of
from explainer.server.guards import client_of, guards_of
from explainer.server.logs import log, shorten
from explainer.server.messages import PageMessages, session_gone
from explainer.server.origins import is_allowed_origin
from explainer.server.tokens import token_refusal


class ExplainerWSHandler(PageMessages, WSHandler):
    """Panel's websocket handler with the message filter, our origin check and TCP_NODELAY."""

    @property
    def max_message_size(self) -> int:
        # Read by Tornado when the connection opens: the workbench's page sends file pieces.
        return config_of(self.application).message_limit(self.application_context.url)

    def prepare(self):
        if not config_of(self.application).access.allows(self):
            raise HTTPError(403)
        return super().prepare()

    def check_origin(self, origin: str) -> bool:
        if is_allowed_origin(origin, self.request.host, self.application.websocket_origins):
            return True
        origin_host = urlsplit(origin).netloc.lower() if "://" in origin else origin
        # Bokeh's own message names an option this command does not have.
        log.warning(
            "Refusing websocket connection from Origin %r: its page is not at this server's address "
            "(the request was sent to host %r); if that page is yours, allow it with --allow-origin %s",
            shorten(origin, 100),
            shorten(self.request.host, 100),
            shorten(origin_host, 100) if origin_host and origin_host != "null" else "HOST[:PORT]",
        )
        return False

    _client: str | None = None  # the client whose websocket count this connection holds
    _session_id: str | None = None  # the session it holds in use

    def open(self, *args, **kwargs):
        self.set_nodelay(True)
        refusal = self._handshake_refusal()
        if refusal is not None:
            return self._refuse_handshake(refusal)
        try:
            return super().open(*args, **kwargs)
        except (ProtocolError, ValueError, KeyError, TypeError) as refused:
            # A handshake no page makes (no "bokeh" subprotocol, an expired token): Bokeh raises,
            # and Tornado would log a whole traceback for each one.
            self._refuse_handshake("bad-handshake", f"{type(refused).__name__}: {refused}")
            return None

    def _handshake_refusal(self) -> str | None:
        """Why this websocket is refused before Bokeh reads its token, or None: the token (its
        length, its signature, its first use), then the client's websockets and new sessions."""
        from bokeh.util.token import get_session_id

        app = self.application
        token = self._token
        refusal = token_refusal(token, app.secret_key if app.sign_sessions else None)
        if refusal is not None:
            return refusal
        guards = guards_of(app)
        try:
            session_id = get_session_id(token)
        except Exception:  # an unsigned server's token that does not read
            return "bad-token"
        if session_id in guards.in_use:
            return "token-in-use"
        client = client_of(self)
        if not guards.websockets.take(client):
            return "too-many-websockets"
        self._client = client
        if not self._session_exists(session_id) and not guards.new_sessions.allow(client):
            return "too-many-sessions"
        guards.in_use.add(session_id)
        self._session_id = session_id
        return None

    async def _async_open(self, token: str) -> None:
        # A new session is made in its turn (``Limits.session_gap_s``); the clicks of open pages go between.
        if self._session_id is not None and not self._session_exists(self._session_id):
            async with guards_of(self.application).session_turns.turn():
                return await super()._async_open(token)
        return await super()._async_open(token)

    def _session_exists(self, session_id: str) -> bool:
        try:
            self.application_context.get_session(session_id)
        except ProtocolError:
            return False
        return True

    def _refuse_handshake(self, code: str, detail: str = "") -> None:
        """Close with ``code``, logged once per kind and then at most once a minute (a flood of them is one line a minute)."""
        self._closing = True
        guards_of(self.application).refusals.warn(
            code,
            "Closed the websocket of %s on %s: %s%s",
            client_of(self),
            shorten(self.request.path, 100),
            code,
            f" ({shorten(detail)})" if detail else "",
        )
        self.close(1008, code)

    def on_close(self) -> None:
        guards = guards_of(self.application)
        if self._client is not None:
            guards.websockets.give_back(self._client)
            self._client = None
        if self._session_id is not None:
            guards.in_use.discard(self._session_id)
            self._session_id = None
        if session_gone(self.connection):
            # Its session was destroyed while it was open (a page that left as its session was
            # made): Bokeh's on_close would fail an assertion on it and log a traceback; the
            # application only has to forget the connection.
            self.application.client_lost(self.connection)
            return None
        return super().on_close()
