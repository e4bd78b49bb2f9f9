"""A served Panel page's session (the workbench's): what each one is given when it starts, what is let go when it ends."""

from __future__ import annotations

from explainer.server.clients import client_of_request
from explainer.server.memory import release_memory_soon

# The document attribute that names the session's client (``clients.client_of``), for the pages'
# own per-client limits (the workbench's uploads, ``workbench/upload_budget.py``).
CLIENT = "explainer_client"


def session_of(build, trusted_proxies=()):
    """``build`` as a served page: with a notice when the connection drops, only local stylesheets,
    and the client it was opened by (behind ``trusted_proxies``, the one they name)."""

    def session():
        import panel as pn
        from panel.io.resources import LOCAL_DIST
        from panel.io.state import state

        from explainer.pages import DISCONNECT_NOTICE, PAGE_TEMPLATE

        doc = state.curdoc
        doc.template = PAGE_TEMPLATE
        # Inside a session, Panel's config applies to that session alone.
        # No browser-info model: it would send the reader's time zone, language and WebGL
        # support in seven messages per page load (and probe WebGL), which no figure uses.
        pn.config.browser_info = False
        pn.config.notifications = True
        pn.config.disconnect_notification = DISCONNECT_NOTICE
        doc.on_session_destroyed(_forget_notification_area)
        doc.on_session_destroyed(release_memory_soon)
        # Panel points its stylesheets at this server only for a session made by a page request;
        # one made by its websocket (under --num-procs, on another process) would load them from its CDN.
        request = doc.session_context.request
        tornado_request = getattr(request, "_request", None)
        if tornado_request is not None and hasattr(tornado_request, "remote_ip"):
            setattr(doc, CLIENT, client_of_request(tornado_request, trusted_proxies))
        if request is not None and request.path.endswith("/ws"):
            doc._template_variables["dist_url"] = f"{state.rel_path}/{LOCAL_DIST}" if state.rel_path else LOCAL_DIST
        return build()

    return session


def _forget_notification_area(session_context) -> None:
    """Let go of an ended session's notification area, which Panel 1.9 keeps, and with it the whole page."""
    from panel.io.notifications import NotificationAreaBase
    from panel.io.state import state

    doc = session_context._document
    for ref, (area, _, view_doc, _) in list(state._views.items()):
        if view_doc is doc and isinstance(area, NotificationAreaBase):
            del state._views[ref]
            area._documents.pop(doc, None)
