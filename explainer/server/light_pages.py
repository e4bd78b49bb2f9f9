"""The light pages' handler: the story and the figure pages, each one self-contained page, no session.

A light page is the exported page (``export.served_page``): explainer.js draws its figures and
computes every number in the browser, so the server makes no Panel session for it and keeps
nothing per page. A request is answered with the page, the access form (with an access code)
or a redirect (``page_redirect``). On a server that holds a class (``ServerConfig.classroom``)
the page also carries the class's script and a token for the class channel (``channel.py``).
Its scripts run with this response's nonce alone; it is framable as ``--framed-by`` says, by
any page unless the reader is the teacher, whose pages no other page may frame.
"""

from __future__ import annotations

import functools

from tornado.web import RequestHandler

from explainer.server.config import config_of
from explainer.server.guards import client_of
from explainer.server.headers import content_security_policy, new_nonce
from explainer.server.page_redirect import page_redirect


@functools.cache
def light_page(route: str, class_address: str, classroom: bool) -> str:
    """The page served at ``route`` with its nonce and its channel token to fill in (cached: one per route)."""
    from explainer.export import served_page

    return served_page(route, class_address, classroom)


class LightPageHandler(RequestHandler):
    """Answers a light page's route (``route``, given by ``serve.py``): the page, the form, or a redirect."""

    def initialize(self, route: str) -> None:
        self.route = route

    def get(self, *_) -> None:
        config = config_of(self.application)
        if not config.access.allows(self):
            return config.access.ask(self)
        redirect = page_redirect(self.request.path, self.request.query, self.route)
        if redirect is not None:
            return self.redirect(redirect, status=303)
        from explainer.export import CHANNEL_TOKEN, SCRIPT_NONCE

        page = light_page(self.route, config.class_address, config.classroom is not None)
        nonce = new_nonce()
        teacher = config.classroom is not None and config.classroom.teacher.allows(self)
        policy = content_security_policy(nonce, self.request.host, None if teacher else config.framed_by)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")  # a channel token is for one page load
        self.set_header("Content-Security-Policy", policy)
        if config.classroom is not None:
            page = page.replace(CHANNEL_TOKEN, config.classroom.tokens.new())
        self.finish(page.replace(SCRIPT_NONCE, nonce))

    async def post(self, *_) -> None:
        # The access code's form: a right code sets its cookie and reloads the page.
        config = config_of(self.application)
        return await config.access.check(self, client_of(self))

    def compute_etag(self) -> None:
        return None  # each response is new (its nonce and token)
