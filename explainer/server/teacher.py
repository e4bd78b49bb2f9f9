"""The teacher: a key made at start-up, exchanged for a cookie at /teach (``teach_page.py``).

The key is printed where the server was started, with a link that works once (``/teach?once=``)
and gives the teacher's browser the teacher cookie: an HMAC of the key, HttpOnly and
SameSite=Strict, as the access code's (``AccessCode``, whose form asks for the key too). The
link's token is not the key, and it is dead once used, so the address that browser histories
and logs keep opens nothing; the key itself is never in an address, in the QR code, or in
anything a student's page receives. With the cookie, /teach sends the teacher to the figure
the class is on (or the plan's first step) in presenter view; the teacher's pages may not be
framed (``light_pages.py``).
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import quote

from explainer.server.access_code import AccessCode, Form

# Letters and digits nobody mistakes for one another (the access code's), in three groups of four.
KEY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
TEACHER_FORM = Form(
    "Teach this class",
    "Teacher key",
    "That is not the teacher key: it is printed where the server was started.",
)


def new_key() -> str:
    """A teacher key: 12 letters and digits (some 10^17 keys), in three groups for reading aloud."""
    return "-".join("".join(secrets.choice(KEY_ALPHABET) for _ in range(4)) for _ in range(3))


class Teacher:
    """The teacher's key (made here unless given), the cookie it is exchanged for, and the one-time link's token."""

    def __init__(self, key: str | None = None):
        self.key = key or new_key()
        self.code = AccessCode(self.key, cookie="explainer-teacher", form=TEACHER_FORM)
        self._once: str | None = secrets.token_urlsafe(24)

    def once_link(self, base: str) -> str:
        """The link that gives a browser the teacher cookie, once: ``base`` is the server's address ("http://localhost:5006/")."""
        return f"{base}teach?once={quote(self._once or '')}"

    def take_once(self, token: str) -> bool:
        """Whether ``token`` is the one-time link's, unused until now (it is used up here)."""
        if self._once is None or not hmac.compare_digest(token.encode("utf-8"), self._once.encode("utf-8")):
            return False
        self._once = None
        return True

    def allows(self, handler) -> bool:
        """Whether a request comes from the teacher's browser (it carries the teacher cookie)."""
        return self.code.allows(handler)
