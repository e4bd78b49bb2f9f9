"""The class a server holds: its room (``classroom.room.Room``), one per server, in its one process.

Made on first use for each Tornado application (two servers in one process, as in the tests,
each hold their own), on that server's event loop.
"""

from __future__ import annotations

from explainer.classroom.room import Room
from explainer.server.config import config_of

# The Tornado application setting that holds a server's room.
SETTING = "explainer-room"


def room_of(application) -> Room:
    """The class of the server that ``application`` (its Tornado application) belongs to."""
    room = application.settings.get(SETTING)
    if room is None:
        from tornado.ioloop import IOLoop

        from explainer.pages import FIGURE_ROUTES

        loop = IOLoop.current()
        room = Room(FIGURE_ROUTES, config_of(application).classroom.plan, loop.call_later)
        application.settings[SETTING] = room
    return room


def where_the_class_is(application, present: bool = False) -> str:
    """A relative link to the figure the class is on: the projector's, else the plan's first step
    (in presenter view with ``present``, for the teacher)."""
    room = room_of(application)
    figure = room.showing or {"route": room.plan[0].route, "query": room.plan[0].query}
    query = "&".join(part for part in (figure["query"], "present=1" if present else "") if part)
    return f".{figure['route']}{'?' if query else ''}{query}"
