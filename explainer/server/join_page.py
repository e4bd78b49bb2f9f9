"""/class: the class's join address, the one the QR code holds; it opens the figure the class is on.

The address never changes as the teacher clicks (a QR code on the board stays right all lesson);
each request is sent on to the projector's figure in its current state (else the plan's first
step), where the page joins the class through its channel.
"""

from __future__ import annotations

from tornado.web import RequestHandler

from explainer.server.class_room import where_the_class_is
from explainer.server.config import config_of
from explainer.server.guards import client_of


class JoinHandler(RequestHandler):
    """Sends a student to the figure on the projector (behind the access code, when there is one)."""

    def get(self) -> None:
        config = config_of(self.application)
        if config.classroom is None:
            return self.send_error(404)
        if not config.access.allows(self):
            return config.access.ask(self)
        self.set_header("Cache-Control", "no-store")  # the class moves on: never a kept answer
        return self.redirect(where_the_class_is(self.application), status=303)

    async def post(self) -> None:
        config = config_of(self.application)
        return await config.access.check(self, client_of(self))
