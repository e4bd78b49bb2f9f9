"""A websocket's session token: checked before anything parses it.

Sessions are signed (Bokeh's ``sign_sessions``, with a secret made at start-up, before
``--num-procs`` forks, so every process takes every page's token): a token made by hand for any
session id or expiry does not open one. A token longer than any page's is refused unread (one
whose compressed payload unpacks to megabytes cost 250 ms of the shared thread per handshake),
and so is one whose signature is wrong, before Bokeh decodes its payload. (A token opens one
websocket at a time: ``guards.Guards.in_use``.)
"""

from __future__ import annotations

import secrets

# The longest token a page is given is some 400 characters (a session id, an expiry and the page's
# route, signed; no headers or cookies: ``include_headers=[]``). Ten times that, and no more.
MAX_TOKEN_CHARS = 4096


def new_secret() -> bytes:
    """A secret to sign sessions with, made once per server start (Bokeh wants at least 32 bytes)."""
    return secrets.token_urlsafe(48).encode("ascii")


def token_refusal(token: str | None, secret: str | bytes | None) -> str | None:
    """Why a websocket's ``token`` is refused, as a short code, or None when it may open:
    ``no-token``, ``token-too-long`` (more than ``MAX_TOKEN_CHARS``), ``bad-token`` (not signed
    with ``secret``, or not a token at all). With no ``secret`` (a server that does not sign its
    sessions: the tests' object server) only the length is checked."""
    from bokeh.util.token import check_token_signature

    if not token:
        return "no-token"
    if len(token) > MAX_TOKEN_CHARS:
        return "token-too-long"
    if secret is None:
        return None
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    try:
        signed = check_token_signature(token, secret_key=key, signed=True)
    except Exception:  # whatever a client sends: base64, JSON, a missing session id
        return "bad-token"
    return None if signed else "bad-token"
