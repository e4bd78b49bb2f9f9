"""/teach: the teacher's one-time link, the teacher key's form, and for the teacher the way to the projector's page."""

from __future__ import annotations

from tornado.web import RequestHandler

from explainer.server.class_room import where_the_class_is
from explainer.server.config import config_of
from explainer.server.guards import client_of

USED_LINK = "That link has been used (it works once). Type the teacher key printed where the server was started."


class TeachHandler(RequestHandler):
    """/teach: the one-time link, the key's form, and for the teacher a redirect to the projector's page."""

    def _request_summary(self) -> str:
        # Tornado's access log line, without the query: the one-time token stays out of the log.
        return f"{self.request.method} {self.request.path} ({self.request.remote_ip})"

    def get(self) -> None:
        config = config_of(self.application)
        if config.classroom is None:
            return self.send_error(404)
        teacher = config.classroom.teacher
        self.set_header("Cache-Control", "no-store")
        once = self.get_query_argument("once", None)
        if once is not None:
            if not teacher.take_once(once[:100]):
                return teacher.code.ask(self, note_text=USED_LINK)
            teacher.code.grant(self)
            return self.redirect("./teach", status=303)  # the address without the token
        if not config.access.allows(self):
            return config.access.ask(self)
        if not teacher.allows(self):
            return teacher.code.ask(self)
        return self.redirect(where_the_class_is(self.application, present=True), status=303)

    async def post(self) -> None:
        config = config_of(self.application)
        if config.classroom is None:
            return self.send_error(404)
        if not config.access.allows(self):  # the access code's form, first
            return await config.access.check(self, client_of(self))
        return await config.classroom.teacher.code.check(self, client_of(self))
