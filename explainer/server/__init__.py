"""The server: Panel's, serving the explainer's pages safely to a class (README "Serving safely").

One module per concept. ``serve.serve_pages`` starts it with one ``config.ServerConfig``, which
the command line makes and every handler reads from its Tornado application's settings;
``patches`` is the one module that puts our classes in place of Bokeh's and Panel's.
This package's own ``__init__`` imports nothing, so that the command line can read a small
module of it (``memory``, ``network``) before Panel is imported.
"""
