"""The security headers: what every response says, and each page's Content-Security-Policy.

Every response: ``X-Content-Type-Options: nosniff`` (a browser takes a file for what its type
says, never for a script it guessed) and ``Referrer-Policy: no-referrer`` (a page's address,
with its state, is not sent to another site). A page adds a Content-Security-Policy:

- its scripts run only with the nonce made for this one response (a served page's inline
  scripts carry a per-request token, so hashes fixed per route would not do), it connects
  only to this server (its websocket), and fetches, frames and submits to nothing else;
- the workbench (``/evaluate``) and the access form may not be framed (``frame-ancestors
  'none'``): a page of another site could dress them up and have a reader click on them;
- the story and the figure pages may be framed by any page (embedding in documentation is
  their point), or by the hosts given with ``--framed-by`` only.
"""

from __future__ import annotations

import secrets

# What every response carries.
EVERY_RESPONSE = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def new_nonce() -> str:
    """A nonce for one response's scripts: 128 random bits."""
    return secrets.token_urlsafe(16)


def frame_ancestors(framed_by: tuple[str, ...] | None) -> str | None:
    """``frame-ancestors`` for a page: ``'none'`` for None (not framable), None for ``()`` (no
    directive: any page may frame it; ``*`` would refuse a documentation page opened from
    ``file://`` or written into a frame, whose origins no source expression matches), else this
    server and the hosts (``HOST[:PORT]``) of ``framed_by`` over http and https."""
    if framed_by is None:
        return "'none'"
    if not framed_by:
        return None
    return " ".join(["'self'", *(f"{scheme}://{host}" for host in framed_by for scheme in ("https", "http"))])


def content_security_policy(
    nonce: str | None, host: str, framed_by: tuple[str, ...] | None, blobs: bool = False
) -> str:
    """The policy of one page: scripts with ``nonce`` only (none for None), a websocket to ``host``
    (the request's own, checked by ``hosts.py``), and ``frame_ancestors(framed_by)``. With ``blobs``
    (a Panel page: ``/evaluate``), scripts from ``blob:`` URLs and fetches of ``blob:`` and ``data:``
    URLs too: Panel's module loader fetches each component's module (a ``data:`` URL in its import
    map, or a blob: one it makes of the module's text) and imports it from a blob: URL, and BokehJS
    evaluates code it makes (``'unsafe-eval'``); no script tag runs without the nonce even so."""
    scripts = f"'nonce-{nonce}'" if nonce else "'none'"
    connect = f"'self' ws://{host} wss://{host}" if nonce else "'none'"
    if blobs:
        scripts, connect = f"{scripts} blob: 'unsafe-eval'", f"{connect} blob: data:"
    ancestors = frame_ancestors(framed_by)
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            # The figures draw in shadow roots with their own stylesheets, and set sizes and
            # positions as they move: styles inline (no script can come through a style).
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            f"connect-src {connect}",
            "base-uri 'none'",
            "form-action 'self'",
            *([f"frame-ancestors {ancestors}"] if ancestors else []),
        ]
    )
