"""The origin check: which pages' websockets the server accepts.

A page this server sent is accepted at whatever address the reader typed: a classroom's LAN
address or the laptop's name, which no list made at start-up can know. Such a page's origin is
the host it asked for. Tornado 6.6 accepts these before asking the handler; older Tornado
versions (the only ones on Python 3.10) leave it to this check. Any other origin must be in the
allowed list (this host's own names and ``--allow-origin``).
"""

from __future__ import annotations

from urllib.parse import urlsplit


def is_allowed_origin(origin: str, host: str, allowed) -> bool:
    """Whether a websocket from a page at ``origin`` is accepted: a page of the very host it was sent
    to (``host``), or of a host and port in ``allowed`` (this host's own names and ``--allow-origin``)."""
    from bokeh.server.util import check_allowlist

    if is_same_origin(origin, host):
        return True
    origin_host = urlsplit(origin).netloc.lower() if "://" in origin else origin
    return check_allowlist(origin_host, allowed)


def is_same_origin(origin: str, host: str) -> bool:
    """Whether a websocket's ``Origin`` header names the very host and port its request was sent to."""
    try:
        return bool(host) and urlsplit(origin).netloc.lower() == host.lower()
    except ValueError:
        return False
