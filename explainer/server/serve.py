"""Starting the server: Panel's, on the explainer's pages, with the pieces of this package in place of its defaults."""

from __future__ import annotations

from explainer.server.config import SETTING, ServerConfig


def serve_pages(config: ServerConfig, show: bool = False, threaded: bool = False):
    """Start Panel's server as ``config`` says; returns the server (running in a thread if ``threaded``).

    ``show`` opens a browser on the story. Only the pages are served (no admin page, no
    autoreload, no static directories, no /components/ files, no autoload.js), sessions are
    signed, websockets are accepted only from this host and from ``config.allow_origins``, a browser's requests and
    messages are held to ``config.limits``, and the session of a page that is gone is freed
    within ``config.sessions``' times (see README "Serving safely").
    """
    import panel as pn
    from tornado.web import ErrorHandler

    from explainer.pages import TITLES, routes
    from explainer.server.http_server import ResponseHeaders
    from explainer.server.logs import shorten_long_log_messages
    from explainer.server.patches import use_explainer_handlers, use_explainer_http_server
    from explainer.server.sessions import session_of

    use_explainer_handlers()
    use_explainer_http_server()
    shorten_long_log_messages()
    served = {**routes(config.class_address), **config.pages}
    if not threaded:  # the server has the process to itself (a test's server does not)
        _freeze_what_every_session_shares(served, config)
    return pn.serve(
        {route: session_of(build, config.trusted_proxies) for route, build in served.items()},
        port=config.port,
        address=config.address,
        websocket_origin=config.websocket_origins,
        show=show,
        title=TITLES,
        autoreload=False,
        # No Panel Location model: the pages keep their state in the URL themselves (kit.js), and a
        # session made by its websocket (under --num-procs) would otherwise have the page send it
        # the address, a message the server would have to take for no use.
        location=False,
        threaded=threaded,
        prefix=config.prefix,
        num_procs=config.num_procs,
        start=True,
        # Panel's /components/<module>/... route imports any module a URL names; no page uses it.
        extra_patterns=[(r"/components/.*", ErrorHandler, {"status_code": 404})],
        http_server_kwargs=config.limits.http_server_options,
        websocket_max_message_size=config.limits.max_message_bytes,
        # A session's token sits in its page's HTML, where the page's scripts can read it: Bokeh
        # copies every request header and cookie into it unless told which (an empty list: none).
        include_headers=[],
        include_cookies=[],
        # Signed sessions: a token made by hand, for any session id or expiry, opens none. The
        # secret is the configuration's, made before --num-procs forks (tokens.py).
        sign_sessions=True,
        secret_key=config.session_secret,
        # Tornado names itself and its version in a Server header on every response; every
        # response says nosniff and no-referrer (headers.py).
        transforms=[ResponseHeaders],
        # Bokeh passes keywords it does not know to Tornado's application settings, where our
        # handlers and HTTP server read this server's configuration (``config.config_of``).
        **{SETTING: config},
        **config.sessions.options(),
    )


def _freeze_what_every_session_shares(routes, config: ServerConfig) -> None:
    """Build each page once, then leave everything alive so far out of Python's garbage collections.

    A full collection walks every tracked object, and the modules, classes and caches of Panel,
    Bokeh and the explainer are some 130,000 of them: 70 ms more of a stopped server, with every
    reader's click waiting, in each full collection (with a hundred sessions opening, those took
    145 and 189 ms; 59 and 97 ms frozen). Frozen objects are skipped; the objects of sessions are
    collected as before. Building the pages first does the imports and fills the caches that a
    first reader's page would otherwise set off.
    """
    import gc

    from explainer.server.mirror import light_page

    for build in routes.values():
        build()
    for route in config.light_routes:
        light_page(route, config)
    gc.collect()
    gc.freeze()
