"""The class channel: one websocket per served page, carrying the class's JSON messages (``classroom.messages``).

``ChannelHandler`` is the project's own endpoint (``/channel``), mounted beside Panel's in the
same Tornado server on a server that holds a class. It holds a page to what a page sends:

- its handshake is refused unless it comes with the access code's cookie (when there is one),
  from a page of this server (the Origin check, ``origins.py``; the Host was checked by the
  HTTP server), within the client's websockets (``Limits.max_websockets_per_client``);
- its first message is ``hello`` with the page's channel token (``channel_tokens.py``: signed,
  unexpired, not already open), within ``HELLO_WITHIN_S``; the teacher cookie makes it a
  teacher's page, anything else a student's;
- every message is read by ``messages.read_message`` (at most ``MAX_MESSAGE_BYTES``, a schema
  per type) and acted on by the class (``room.Room``); a message a page may not send is
  answered ``refused`` with its short code, and the page is closed after ``MAX_REFUSALS``;
- a connection's messages are paced (``MESSAGES_PER_S``, ``MESSAGES_BURST``): one past the pace
  is dropped unread and answered ``refused: too-fast`` at most once a second; a page that keeps
  sending past it (``FLOOD_DROPS``), or has sent ``MAX_REFUSALS`` messages no page sends, is cut
  off (``_drop``: not read another frame). Reading and dropping a message costs microseconds,
  so a phone sending as fast as it can does not hold the class.

Each refusal is logged in one line per kind, then at most once a minute (``guards.refusals``).
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from tornado.websocket import WebSocketClosedError, WebSocketHandler

from explainer.classroom import messages
from explainer.server.class_room import room_of
from explainer.server.config import config_of
from explainer.server.guards import client_of, guards_of
from explainer.server.limiters import RateLimit
from explainer.server.logs import shorten
from explainer.server.memory import release_memory_soon
from explainer.server.origins import is_allowed_origin

HELLO_WITHIN_S = 10.0
# A page says a few things a minute (a ping, a guess, the teacher's clicks, at most five a second
# as the projector's figure changes): ten a second, twenty at once, is far past any page.
MESSAGES_PER_S = 10.0
MESSAGES_BURST = 20
FLOOD_DROPS = 50  # messages dropped for the pace, in a row, before the page is cut off (a page drops none)
MAX_REFUSALS = 50  # messages refused on their content before the page is closed


class ChannelHandler(WebSocketHandler):
    """One page's class channel: a ``room.Member`` of the server's class once it has said hello."""

    teacher = False
    student = ""
    _client: str | None = None
    _token: str | None = None
    _joined = False
    _dropped_it = False  # cut off: nothing it sends is read any more
    _refusals = 0
    _dropped = 0
    _told_too_fast = 0.0
    _pace: RateLimit | None = None
    _hello_timer = None

    @property
    def max_message_size(self) -> int:
        return messages.MAX_MESSAGE_BYTES

    def get_compression_options(self):
        return None  # small messages: compressing them costs more than it saves

    def prepare(self):
        config = config_of(self.application)
        if config.classroom is None:
            return self.send_error(404)
        if not config.access.allows(self):
            self._refuse_http(403, "no-access-code")
            return None
        return super().prepare()

    def check_origin(self, origin: str) -> bool:
        config = config_of(self.application)
        if is_allowed_origin(origin, self.request.host, config.websocket_origins):
            return True
        guards_of(self.application).refusals.warn(
            "channel-origin",
            "Refused a class channel from Origin %r: its page is not at this server's address (host %r)",
            shorten(origin, 100),
            shorten(self.request.host, 100),
        )
        return False

    def open(self) -> None:
        self.set_nodelay(True)  # a guess is one small frame: no wait for the previous one's ACK
        guards = guards_of(self.application)
        client = client_of(self)
        if not guards.websockets.take(client):
            return self._close("too-many-websockets")
        self._client = client
        self._pace = RateLimit(MESSAGES_BURST, MESSAGES_PER_S)
        config = config_of(self.application)
        self.teacher = config.classroom.teacher.allows(self)
        from tornado.ioloop import IOLoop

        self._hello_timer = IOLoop.current().call_later(HELLO_WITHIN_S, lambda: self._close("no-hello"))
        return None

    def on_message(self, text: str | bytes) -> None:
        if self._pace is None or self.ws_connection is None or self._dropped_it:
            return
        if not self._pace.allow(""):
            return self._too_fast()
        self._dropped = 0
        try:
            message = messages.read_message(text)
            if not self._joined:
                return self._hello(message)
            room_of(self.application).receive(self, message)
        except messages.Refused as refused:
            if not self._joined:  # a page says hello first, right
                return self._close(refused.code)
            self._refusals += 1
            self._note(refused.code)
            self.send(messages.encode({"type": "refused", "code": refused.code}))
            if self._refusals >= MAX_REFUSALS:
                self._drop("too-many-refusals")
        return None

    def _hello(self, message) -> None:
        if not isinstance(message, messages.Hello):
            return self._close("no-hello")
        tokens = config_of(self.application).classroom.tokens
        refusal = tokens.refusal(message.token)
        if refusal is not None:
            return self._close(refusal)
        tokens.in_use.add(message.token)
        self._token = message.token
        self.student = "" if self.teacher else message.student
        self._joined = True
        if self._hello_timer is not None:
            from tornado.ioloop import IOLoop

            IOLoop.current().remove_timeout(self._hello_timer)
            self._hello_timer = None
        room_of(self.application).join(self)
        return None

    def _too_fast(self) -> None:
        self._dropped += 1
        if self._dropped >= FLOOD_DROPS:
            return self._drop("flooding")
        now = time.monotonic()
        if now - self._told_too_fast >= 1.0:
            self._told_too_fast = now
            self._note("too-fast")
            self.send(messages.encode({"type": "refused", "code": "too-fast"}))
        return None

    def send(self, text: str) -> None:
        """Send a message to this page (``room.Member``); a page that has gone is forgotten on close."""
        if self.ws_connection is None or self.ws_connection.is_closing():
            return
        try:
            self.write_message(text)
        except WebSocketClosedError:
            pass

    def _note(self, code: str) -> None:
        guards_of(self.application).refusals.warn(
            f"channel-{code}",
            "Class channel of %s on %s: %s",
            self._client or client_of(self),
            shorten(urlsplit(self.request.path).path, 60),
            code,
        )

    def _close(self, code: str) -> None:
        self._note(code)
        self.close(1008, code)

    def _drop(self, code: str) -> None:
        """Close, and stop reading at once: after a close frame Tornado goes on reading (and handing
        over) a page's frames until it answers or 5 s pass, and a script deaf to the close would
        spend those seconds of the class's thread. Its connection is cut instead."""
        self._dropped_it = True
        connection = self.ws_connection  # close() lets go of it
        self._close(code)
        if connection is not None and connection.stream is not None:
            connection.stream.close()

    def _refuse_http(self, status: int, code: str) -> None:
        self._note(code)
        self.set_status(status)
        self.finish()

    def on_close(self) -> None:
        if self._hello_timer is not None:
            from tornado.ioloop import IOLoop

            IOLoop.current().remove_timeout(self._hello_timer)
            self._hello_timer = None
        if self._client is not None:
            guards_of(self.application).websockets.give_back(self._client)
            self._client = None
        if self._token is not None:
            config_of(self.application).classroom.tokens.in_use.discard(self._token)
            self._token = None
        if self._joined:
            self._joined = False
            room_of(self.application).leave(self)
        release_memory_soon(None)  # a class that leaves gives its memory back, once it has left
