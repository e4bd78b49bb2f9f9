"""The patches: the one module that puts our classes in place of Bokeh's, Panel's, Tornado's.

Bokeh's server makes its page and websocket handlers from a module-level list
(``bokeh.server.urls.per_app_patterns``), its static routes from another (``toplevel_patterns``)
and a page's static route with the class Panel's module names ``StaticHandler``, and its HTTP
server by the name ``bokeh.server.server.HTTPServer``; none of them takes a class as a keyword,
so these names are replaced here, once per process, with classes that read each server's own
``ServerConfig`` from its Tornado application (README "Developing" lists the private APIs).
Nothing of ours is patched: configuration is passed.
"""

from __future__ import annotations


def use_explainer_handlers() -> None:
    """Put our page and websocket handlers (``page_handler.py``, ``websocket.py``) in Bokeh's
    per-app URL patterns, in place of Panel's, and our static file handlers in place of Bokeh's.

    Bokeh's autoload.js route is left out: no page uses it, and it answers any site's script
    request (``Access-Control-Allow-Origin: *``) with a session token.
    """
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import DocHandler, WSHandler

    from explainer.server.page_handler import ExplainerDocHandler
    from explainer.server.websocket import ExplainerWSHandler

    ours = {WSHandler: ExplainerWSHandler, DocHandler: ExplainerDocHandler}
    per_app_patterns[:] = [
        (pattern, ours.get(handler, handler)) for pattern, handler in per_app_patterns if pattern != r"/autoload.js"
    ]
    use_explainer_static_files()


def use_explainer_static_files() -> None:
    """Serve Bokeh's and Panel's scripts and stylesheets as ``static_files.explainer_static`` says.

    Each page's /static/ route is made by Panel's replacement for Bokeh's create_static_handler,
    with the handler class its module names ``StaticHandler``; the shared routes are Bokeh's
    top-level patterns. Both get our handler (the same class each time).
    """
    import panel.io.server as panel_server
    from bokeh.server.urls import toplevel_patterns
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler
    from bokeh.server.views.static_handler import StaticHandler

    from explainer.server.static_files import explainer_static

    ours = {handler: explainer_static(handler) for handler in (StaticHandler, MultiRootStaticHandler)}
    panel_server.StaticHandler = ours[StaticHandler]
    toplevel_patterns[:] = [(route[0], ours.get(route[1], route[1]), *route[2:]) for route in toplevel_patterns]


def use_explainer_http_server() -> None:
    """Have Bokeh's server listen with ``http_server.ExplainerHTTPServer`` (Bokeh makes its HTTPServer by this name)."""
    import bokeh.server.server

    from explainer.server.http_server import ExplainerHTTPServer

    bokeh.server.server.HTTPServer = ExplainerHTTPServer
