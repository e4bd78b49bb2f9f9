"""Where a page request is sent instead of its page: addresses a page cannot be served at as asked."""

from __future__ import annotations


def page_redirect(path: str, query: str, route: str) -> str | None:
    """Where a request for the page at ``route`` (asked for as ``path`` and ``query``) is sent
    instead, or None to serve it: a query longer than ``MAX_QUERY_LENGTH`` is left out (with
    ``#ignored-query=<length>`` for the figure's notice), a trailing slash goes, and a "?" inside
    the query is escaped. Redirects are relative, so that they hold behind a proxy that rewrites the path."""
    from explainer.figures.base import MAX_QUERY_LENGTH

    if len(query) > MAX_QUERY_LENGTH:
        return f"./{path.rsplit('/', 1)[-1]}#ignored-query={len(query)}"
    if path.endswith("/") and route != "/":
        # /binary/ would look for its scripts under /binary/static/: the page is /binary.
        page = path.rstrip("/").rsplit("/", 1)[-1]
        return f"../{page}{'?' if query else ''}{query}"
    if "?" in query:
        # Panel fails on a second "?" (a 500); the same query with it escaped, as a browser would
        # send a "?" inside a value. (The README's /which-measure lists use "?".)
        return f"./{path.rsplit('/', 1)[-1]}?{query.replace('?', '%3F')}"
    return None
