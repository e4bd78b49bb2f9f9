"""A lecture plan: the figures a teacher steps through, in order, each in the state to show.

``--plan FILE`` reads one step a line: a figure's link (``/binary?relevant=2,3,5&k=4``, or a
whole address such as ``http://localhost:5006/ndcg?k=3``), then, after a tab, an optional
title. Blank lines and lines starting with ``#`` are skipped. The link's page keys (present,
theme, predict, embed) are left out: a step is a figure and its state. Without a plan, the
class steps through the story's figures in the story's order, each at the article's example.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import parse_qsl, urlencode, urlsplit

from explainer.classroom.messages import MAX_QUERY_CHARS, QUERY

# A plan longer than this is a mistake (a file of the wrong kind), not a lecture.
MAX_STEPS = 200
MAX_TITLE_CHARS = 80
PAGE_KEYS = frozenset({"present", "theme", "predict", "embed"})


class Step(NamedTuple):
    """One step of a plan: the figure's route, its state as a query, and what the teacher calls it."""

    route: str
    query: str
    title: str

    def public(self) -> dict[str, str]:
        return {"route": self.route, "query": self.query, "title": self.title}


class PlanError(ValueError):
    """A plan that cannot be read: the message names the file's line and what is wrong with it."""


def read_plan(lines: Iterable[str], titles: dict[str, str], source: str = "plan") -> tuple[Step, ...]:
    """The steps of a plan file's ``lines``; ``titles`` maps each figure route to its title (the
    routes a step may name). Raises ``PlanError`` with ``source:line: what`` for a bad line."""
    steps = []
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if len(steps) == MAX_STEPS:
            raise PlanError(f"{source}:{number}: a plan has at most {MAX_STEPS} steps")
        link, _, title = line.partition("\t")
        route, query = _figure_link(link.strip(), titles, f"{source}:{number}")
        title = title.strip()
        if len(title) > MAX_TITLE_CHARS or not title.isprintable():
            raise PlanError(f"{source}:{number}: a title is at most {MAX_TITLE_CHARS} printable characters")
        steps.append(Step(route, query, title or titles[route]))
    if not steps:
        raise PlanError(f"{source}: no step (one figure link a line, then a tab and a title if you like)")
    return tuple(steps)


def _figure_link(link: str, titles: dict[str, str], where: str) -> tuple[str, str]:
    try:
        parts = urlsplit(link) if link.isprintable() else None
    except ValueError:
        parts = None
    route = "/" + parts.path.rstrip("/").rsplit("/", 1)[-1] if parts else ""
    if route not in titles:
        shown = link if len(link) <= 60 and link.isprintable() else "this link"
        raise PlanError(f"{where}: {shown!r} is not a figure's page; a step is one of {', '.join(sorted(titles))}")
    pairs = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key not in PAGE_KEYS]
    query = urlencode(pairs, safe=",")
    if len(query) > MAX_QUERY_CHARS or not QUERY.fullmatch(query):
        raise PlanError(f"{where}: the link's state is longer than a figure takes ({MAX_QUERY_CHARS} characters)")
    return route, query


def story_plan(routes_in_order: Iterable[str], titles: dict[str, str]) -> tuple[Step, ...]:
    """The plan without ``--plan``: each figure in the story's order, at the article's example."""
    return tuple(Step(route, "", titles[route]) for route in routes_in_order)
