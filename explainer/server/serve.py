"""Starting the server: Panel's, on the explainer's pages, with the pieces of this package in place of its defaults."""

from __future__ import annotations

from explainer.server.config import SETTING, ServerConfig


def serve_pages(config: ServerConfig, show: bool = False, threaded: bool = False):
    """Start Panel's server as ``config`` says; returns the server (running in a thread if ``threaded``).

    ``show`` opens a browser on the story. Only the pages are served (no admin page, no
    autoreload, no static directories, no /components/ files, no autoload.js): the story and
    the figure pages as light pages (``light_pages.py``, no session), the workbench as a Panel
    page, and on a server that holds a class its channel and its addresses (``class_routes``).
    Sessions are signed, websockets are accepted only from this host and from
    ``config.allow_origins``, a browser's requests and messages are held to ``config.limits``,
    and the session of a page that is gone is freed within ``config.sessions``' times (see
    README "Serving safely").
    """
    import panel as pn

    from explainer.pages import TITLES
    from explainer.server.http_server import ResponseHeaders
    from explainer.server.logs import shorten_long_log_messages
    from explainer.server.patches import use_explainer_handlers, use_explainer_http_server
    from explainer.server.sessions import session_of

    use_explainer_handlers()
    use_explainer_http_server()
    shorten_long_log_messages()
    if not threaded:  # the server has the process to itself (a test's server does not)
        _freeze_what_every_session_shares(config)
    return pn.serve(
        {route: session_of(build, config.trusted_proxies) for route, build in config.panel_pages.items()},
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
        extra_patterns=routes(config),
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


def routes(config: ServerConfig) -> list[tuple]:
    """The routes that are not Panel pages: each light page (and its address with a trailing slash,
    redirected), and on a server that holds a class, its channel, its join address, the teacher's
    door and the class's results. (Bokeh puts ``config.prefix`` before each.)"""
    from tornado.web import ErrorHandler

    from explainer.server.light_pages import LightPageHandler

    # "/binary/" too: page_redirect sends it to /binary.
    found: list[tuple] = [
        (f"{route.rstrip('/')}/?", LightPageHandler, {"route": route}) for route in sorted(config.light_routes)
    ]
    if config.classroom is not None:
        from explainer.server.channel import ChannelHandler
        from explainer.server.join_page import JoinHandler
        from explainer.server.results_download import ResultsHandler
        from explainer.server.teach_page import TeachHandler

        found += [
            (r"/channel", ChannelHandler),
            (r"/class", JoinHandler),
            (r"/class/results\.csv", ResultsHandler),
            (r"/teach", TeachHandler),
        ]
    # Panel's /components/<module>/... route imports any module a URL names; no page uses it.
    found.append((r"/components/.*", ErrorHandler, {"status_code": 404}))
    return found


def _freeze_what_every_session_shares(config: ServerConfig) -> None:
    """Build each page once, then leave everything alive so far out of Python's garbage collections.

    A full collection walks every tracked object, and the modules, classes and caches of Panel,
    Bokeh and the explainer are some 130,000 of them: 70 ms more of a stopped server, with every
    reader's click waiting, in each full collection (with a hundred sessions opening, those took
    145 and 189 ms; 59 and 97 ms frozen). Frozen objects are skipped; the objects of sessions are
    collected as before. Building the pages first does the imports and fills the caches that a
    first reader's page would otherwise set off.
    """
    import gc

    from explainer.server.light_pages import light_page

    for build in config.panel_pages.values():
        build()
    for route in config.light_routes:
        light_page(route, config.class_address, config.classroom is not None)
    gc.collect()
    gc.freeze()
