"""The Python mirror of a served light page (issue #28 replaces it; kept as it was, not polished).

A story or figure page is served as its light page (``light_page``) with a new session's token
(``light_page_token``); connection.js opens that session and asks for its document with
``LIGHT_PULL``, which ``states_reply`` answers with the figures' state models alone, so that
Python follows each figure's state (README "Served light pages").
"""

from __future__ import annotations

import functools

# A served light page's document request (connection.js): it needs only its figures' state models.
LIGHT_PULL = {"states": True}


def states_reply(request_id: str, document):
    """A PULL-DOC-REPLY to ``LIGHT_PULL``: a document whose roots are the figures' state models, in
    page order, each with its id and state and nothing else. A light page needs no more, and the
    whole document (every figure's module, stylesheets and data) took 37 ms of the server and
    160 kB for a figure page, 97 ms and 1 MB for the story."""
    from bokeh.core.serialization import Serializer
    from bokeh.protocol.messages.pull_doc_reply import pull_doc_reply
    from panel.models.esm import ReactiveESM

    found = []

    def walk(model) -> None:
        data = getattr(model, "data", None) if isinstance(model, ReactiveESM) else None
        if isinstance(getattr(data, "state", None), dict):
            found.append(data)
        for child in getattr(model, "children", None) or []:
            walk(child)

    for root in document.roots:
        walk(root)
    roots = [
        {
            "type": "object",
            "name": type(data).__name__,
            "id": data.id,
            "attributes": {"state": Serializer().serialize(data.state).content},
        }
        for data in found
    ]
    return pull_doc_reply(pull_doc_reply.create_header(request_id=request_id), {}, {"doc": {"roots": roots}})


@functools.cache
def _light_page(route: str, class_address: str) -> str | None:
    from explainer.export import served_page

    return served_page(route, class_address)


def light_page(route: str, config) -> str | None:
    """The light page served at ``route`` by a server of ``config`` (with its token to fill in),
    or None for a Panel page.

    A figure is drawn and computed by explainer.js, as in an exported page, and connection.js
    links it to its Python session: the browser evaluates none of Bokeh's and Panel's 2.9 MB,
    and the page works before its session is made (README "Serving safely").
    """
    return _light_page(route, config.class_address) if route in config.light_routes else None


def light_page_token(app, application, request) -> str:
    """A new session's token for a light page: what Bokeh's page handler puts in one, with none of
    the request's headers, cookies or arguments (``include_headers=[]``, ``include_cookies=[]``; the
    page reads its own URL). ``app`` is Bokeh's Tornado application (its secret key and token
    settings), ``application`` the page's Bokeh application."""
    from bokeh.util.token import generate_jwt_token, generate_session_id

    session_id = generate_session_id(secret_key=app.secret_key, signed=app.sign_sessions)
    payload = {"headers": {}, "cookies": {}, "arguments": {}}
    payload.update(application.process_request(request))
    return generate_jwt_token(
        session_id,
        secret_key=app.secret_key,
        signed=app.sign_sessions,
        expiration=app.session_token_expiration,
        extra_payload=payload,
    )
