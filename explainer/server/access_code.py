"""The access code: with one, a page or its websocket opens only for a browser that gave it."""

from __future__ import annotations

import hashlib
import hmac
import secrets


class AccessCode:
    """An optional access code, made once at start-up from the code given (or None for none).

    The code is asked for once, in a form of its own (never in a URL, which logs and browser
    histories keep); a right one sets a cookie holding an HMAC of the code under a key made
    here, valid until the server stops (made before ``--num-procs`` forks, so every process
    takes the same cookie). A wrong one waits a second before the form comes back. Scripts and
    stylesheets stay public: they are Bokeh's and Panel's own. The code itself is not kept.
    """

    COOKIE = "explainer-access"

    def __init__(self, code: str | None = None):
        self.key = secrets.token_bytes(32)
        self.digest: str | None = self._digest_of(code) if code else None

    def _digest_of(self, code: str) -> str:
        return hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest()

    def allows(self, handler) -> bool:
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

        if self.digest is None:
            return handler.redirect(handler.request.path, status=303)
        code = handler.get_body_argument("code", default="")[:200].strip()
        if not hmac.compare_digest(self._digest_of(code).encode("ascii"), self.digest.encode("ascii")):
            await asyncio.sleep(1.0)  # a guesser gets one try a second
            return self.ask(handler, wrong=True)
        handler.set_cookie(self.COOKIE, self.digest, httponly=True, samesite="Strict", path="/")
        handler.redirect(handler.request.path, status=303)


# The form that asks for the access code: no script, nothing fetched.
ACCESS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Access code</title>
<style>body{{font:16px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color-scheme:light dark}}
input,button{{font:inherit;padding:.4em .6em}}</style></head><body>
<h1>This explainer asks for an access code</h1>{note}
<form method="post" action="{action}"><label>Access code <input name="code" autocomplete="off" autofocus required></label>
<button type="submit">Open</button></form></body></html>
"""
