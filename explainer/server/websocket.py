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
- With an access code, it opens only for a browser that gave it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from bokeh.protocol.exceptions import ProtocolError
from panel.io.server import WSHandler
from tornado.web import HTTPError

from explainer.server.config import config_of
from explainer.server.logs import log, shorten
from explainer.server.messages import PageMessages
from explainer.server.origins import is_allowed_origin


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

    def open(self, *args, **kwargs):
        self.set_nodelay(True)
        try:
            return super().open(*args, **kwargs)
        except (ProtocolError, ValueError, KeyError, TypeError) as refused:
            # A handshake no page makes (no "bokeh" subprotocol, a token that does not read):
            # Bokeh raises, and Tornado would log a whole traceback for each one.
            self._refuse_connection("bad-handshake", f"{type(refused).__name__}: {refused}")
            return None
