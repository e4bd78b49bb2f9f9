"""The class channel's tokens: each served page gets one, and its channel opens only with it.

A token is signed with a secret made at start-up, so a token made by hand opens nothing; it
expires (``LIFETIME_S``, a school day) and opens one connection at a time (``in_use``), so a
token copied out of a page cannot open a second channel beside the page's. The page keeps its
token to reconnect with after a drop. It is checked before anything else is read of a page.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable

LIFETIME_S = 12 * 3600
# A token is some 60 characters; anything longer is refused unread.
MAX_TOKEN_CHARS = 100


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class ChannelTokens:
    """Makes and checks the channel tokens of one server (every process of it: the secret is made before they fork)."""

    def __init__(self, secret: bytes | None = None, clock: Callable[[], float] = time.time):
        self._secret = secret or secrets.token_bytes(32)
        self._clock = clock
        self.in_use: set[str] = set()  # the tokens whose channel is open (in this process)

    def _signature(self, body: str) -> str:
        return _b64(hmac.new(self._secret, body.encode("ascii"), hashlib.sha256).digest()[:18])

    def new(self) -> str:
        """A token for one page load: its expiry, a random part and the signature of both."""
        body = f"{int(self._clock() + LIFETIME_S):x}.{_b64(secrets.token_bytes(12))}"
        return f"{body}.{self._signature(body)}"

    def refusal(self, token: str) -> str | None:
        """Why ``token`` opens no channel (``token-too-long``, ``bad-token``, ``token-expired``,
        ``token-in-use``), or None when it may."""
        if len(token) > MAX_TOKEN_CHARS:
            return "token-too-long"
        if not token.isascii():
            return "bad-token"
        body, _, signature = token.rpartition(".")
        if not body or not hmac.compare_digest(self._signature(body).encode(), signature.encode("ascii")):
            return "bad-token"
        expiry = body.partition(".")[0]
        try:
            expired = int(expiry, 16) < self._clock()
        except ValueError:
            return "bad-token"
        if expired:
            return "token-expired"
        if token in self.in_use:
            return "token-in-use"
        return None
