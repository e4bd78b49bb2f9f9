"""What a served explainer holds, looked at from inside its process: routes, sessions, their objects.

For tests that run the server in their own process (``server.serve.serve_pages(config, threaded=True)``)
and check what it routes, which sessions it keeps and what their memory holds.
"""

from __future__ import annotations

import logging

from explainer.figures.base import Figure, FigureView
from explainer.pages import EVALUATE_ROUTE

from support.expect import expect


def tornado_app(thread):
    """The Bokeh server and its Tornado application behind a threaded ``serve_pages``."""
    from panel.io.state import state

    server = state._servers[thread.server_id][0]
    return server, server._tornado


def routes_of(tornado) -> list[tuple[str, str]]:
    """(path pattern, handler class name) for every route the application answers."""
    found = []

    def walk(rules):
        for rule in rules:
            if hasattr(rule.target, "rules"):
                walk(rule.target.rules)
            else:
                found.append((rule.matcher.regex.pattern, rule.target.__name__))

    walk(tornado.default_router.rules)
    return found


def quiet_debug_logs(caplog) -> None:
    """Keep Panel's and Bokeh's debug records out of pytest's log capture for this test.

    Panel logs each browser event with its value, a Bokeh property value that refers to its
    model and so to the whole document; pytest keeps every record until the test ends, which
    would keep every session alive and hide whether the server let go of them.
    """
    for name in ("panel", "bokeh", "tornado"):
        caplog.set_level(logging.WARNING, logger=name)


def session_ids(server) -> set[str]:
    """The ids of every session the server holds (the workbench's: the light pages have none)."""
    return {s.id for s in server.get_sessions()}


def warm_up(context, url: str) -> None:
    """Visit the workbench and open a query (an event Python handles), before a test tracks its sessions' memory.

    The first event a Panel process handles starts Panel's busy-counter clean-up task, whose
    context keeps that session's document for the life of the process (one document, not one
    per session); letting a visit the test does not track be that session keeps it out of the count.
    """
    page = context.new_page()
    page.goto(url + EVALUATE_ROUTE)
    page.locator(".wb-row .wb-link").first.click()
    expect(page.locator(".wb-list.wb-run-1 select.wb-grade").first).to_be_visible()
    page.close()


def session_objects(server, exclude: set[str] = frozenset()) -> list:
    """Every live session's document, and the Panel objects and figures built for it."""
    from panel.io.state import state

    documents = [s.document for s in server.get_sessions() if s.id not in exclude]
    objects: list = list(documents)
    for viewable, _, doc, _ in list(state._views.values()):
        if any(doc is d for d in documents):
            objects.append(viewable)
            for view in viewable.select(FigureView) if hasattr(viewable, "select") else []:
                objects.append(view)
                objects += [
                    w.fn.__self__
                    for w in view.param.watchers["state"]["value"]
                    if isinstance(getattr(w.fn, "__self__", None), Figure)
                ]
    return objects
