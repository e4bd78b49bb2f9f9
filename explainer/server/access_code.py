"""The access code: with one, a page or its websocket opens only for a browser that gave it."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Callable
from typing import NamedTuple

from explainer.server.headers import content_security_policy
from explainer.server.limiters import RateLimit

# Wrong guesses a client may make (a burst, then one every few seconds), and the whole server:
# a class of 300 behind one address mistyping at the start of a lesson fits in the burst, while a
# script gets a few thousand guesses an hour, against some 8 x 10^14 codes of the made ones.
WRONG_GUESSES_PER_CLIENT = (30, 1 / 2)
WRONG_GUESSES_IN_ALL = (100, 2.0)
# Every wrong guess waits this long before its answer: a person does not mind, a script in a
# loop is slowed (and scripts in parallel meet the limits above).
WRONG_GUESS_WAIT_S = 1.0


class Form(NamedTuple):
    """What the form that asks for a code says: its heading, its field's label, and after a wrong code."""

    heading: str
    label: str
    wrong: str


ACCESS_FORM = Form(
    "This explainer asks for an access code",
    "Access code",
    "That is not the code. Ask the person who started the server.",
)


class AccessCode:
    """An optional access code, made once at start-up from the code given (or None for none).

    The code is asked for once, in a form of its own (never in a URL, which logs and browser
    histories keep); a right one sets a cookie holding an HMAC of the code under a key made
    here, valid until the server stops (made before ``--num-procs`` forks, so every process
    takes the same cookie; ``cookie`` names it, ``form`` says what the form asks for: the
    teacher's key is asked for the same way). A wrong one waits a second before the form comes back; past
    ``WRONG_GUESSES_PER_CLIENT`` for a client or ``WRONG_GUESSES_IN_ALL`` for the server (each a
    burst, then so many a second) a guess is not even compared: it gets a 429 that says how long
    to wait. Scripts and stylesheets stay public: they are Bokeh's and Panel's own. The code
    itself is not kept. ``clock`` times the limits (a test's may stand still).
    """

    COOKIE = "explainer-access"

    def __init__(
        self,
        code: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        cookie: str = COOKIE,
        form: Form = ACCESS_FORM,
    ):
        self.cookie, self.form = cookie, form
        self.key = secrets.token_bytes(32)
        self.digest: str | None = self._digest_of(code) if code else None
        self.per_client = RateLimit(*WRONG_GUESSES_PER_CLIENT, clock=clock)
        self.in_all = RateLimit(*WRONG_GUESSES_IN_ALL, clock=clock)

    def _digest_of(self, code: str) -> str:
        return hmac.new(self.key, code.encode("utf-8"), hashlib.sha256).hexdigest()

    def allows(self, handler) -> bool:
        if self.digest is None:
            return True
        given = handler.get_cookie(self.cookie) or ""
        return hmac.compare_digest(given.encode("ascii", "replace"), self.digest.encode("ascii"))

    def ask(self, handler, wrong: bool = False, wait_s: float = 0.0, note_text: str = "") -> None:
        """Answer with the form: 401 (with ``note_text``, if any, above it), 403 after a wrong code,
        429 with ``wait_s`` after too many."""
        from html import escape

        handler.set_status(429 if wait_s else 403 if wrong else 401)
        handler.set_header("Content-Type", "text/html; charset=utf-8")
        handler.set_header("Cache-Control", "no-store")
        # No script, not framable: a page of another site cannot dress the form up.
        handler.set_header("Content-Security-Policy", content_security_policy(None, "", None))
        if wait_s:
            seconds = max(1, math.ceil(wait_s))
            handler.set_header("Retry-After", str(seconds))
            note = f"<p role='alert'>Too many wrong codes from here: try again in {seconds} s.</p>"
        elif wrong:
            note = f"<p role='alert'>{escape(self.form.wrong)}</p>"
        else:
            note = note_text and f"<p role='alert'>{escape(note_text)}</p>"
        form = self.form
        handler.finish(
            ACCESS_PAGE.format(
                title=escape(form.label),
                heading=escape(form.heading),
                label=escape(form.label),
                note=note,
                action=escape(handler.request.path, quote=True),
            )
        )

    def guess_wait(self, client: str) -> float:
        """The seconds ``client`` must wait before its next guess is compared (asked once refused: at least 1 ms)."""
        return max(self.per_client.wait(client), self.in_all.wait(""), 1e-3)

    async def check(self, handler, client: str = "") -> None:
        """The form's answer from ``client`` (``clients.client_of``): the cookie and the page for
        the right code, the form again after a wait for a wrong one, a 429 past the limits."""
        import asyncio

        if self.digest is None:
            return handler.redirect(handler.request.path, status=303)
        # Each guess takes its place in both limits before it is compared (guesses sent all at once
        # must not all pass a check made before any of them counted); a right one gives it back.
        if not self.per_client.allow(client):
            return self.ask(handler, wait_s=self.guess_wait(client))
        if not self.in_all.allow(""):
            self.per_client.give_back(client)
            return self.ask(handler, wait_s=self.guess_wait(client))
        code = handler.get_body_argument("code", default="")[:200].strip()
        if not hmac.compare_digest(self._digest_of(code).encode("ascii"), self.digest.encode("ascii")):
            await asyncio.sleep(WRONG_GUESS_WAIT_S)
            return self.ask(handler, wrong=True)
        self.per_client.give_back(client)
        self.in_all.give_back("")
        self.grant(handler)
        handler.redirect(handler.request.path, status=303)

    def grant(self, handler) -> None:
        """Set the cookie that says this browser gave the code (HttpOnly, SameSite=Strict, until the server stops)."""
        handler.set_cookie(self.cookie, self.digest, httponly=True, samesite="Strict", path="/")


# The form that asks for the access code: no script, nothing fetched.
ACCESS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>
<style>body{{font:16px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color-scheme:light dark}}
input,button{{font:inherit;padding:.4em .6em}}</style></head><body>
<h1>{heading}</h1>{note}
<form method="post" action="{action}"><label>{label} <input name="code" autocomplete="off" autofocus required></label>
<button type="submit">Open</button></form></body></html>
"""
