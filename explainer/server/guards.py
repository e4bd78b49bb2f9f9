"""One server process's guards: the per-client limiters and the sessions in use that its handlers share.

Made on first use for each server (each Tornado application) from its ``ServerConfig``: two
servers in one process (as in the tests) keep their own, and each ``--num-procs`` process its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explainer.server.clients import client_of_request
from explainer.server.config import config_of
from explainer.server.garbage import HeldCollections
from explainer.server.limiters import CountLimit, RateLimit, Turns
from explainer.server.logs import Throttled

# The Tornado application setting that holds a server's guards.
SETTING = "explainer-guards"


@dataclass
class Guards:
    """What a server process counts per client, and what it has seen of tokens."""

    websockets: CountLimit
    new_sessions: RateLimit
    workbench_sessions: RateLimit  # a Panel page's, made with the page
    session_turns: Turns  # new sessions are made one at a time, a gap apart
    # The sessions with an open websocket: a page opens one (Panel's reconnection is off), so a
    # second websocket with a page's token, as a script that copied it would open to drive that
    # page's screen, is refused while the first is open.
    in_use: set[str] = field(default_factory=set)
    refusals: Throttled = field(default_factory=Throttled)


def guards_of(application) -> Guards:
    """The guards of the server that ``application`` (its Tornado application) belongs to."""
    guards = application.settings.get(SETTING)
    if guards is None:
        config = config_of(application)
        limits = config.limits
        guards = Guards(
            websockets=CountLimit(limits.max_websockets_per_client),
            new_sessions=RateLimit(limits.new_sessions_burst, limits.new_sessions_per_second),
            workbench_sessions=RateLimit(limits.workbench_sessions_burst, limits.workbench_sessions_per_second),
            session_turns=Turns(limits.session_gap_s, limits.session_share, busy=HeldCollections().busy),
        )
        application.settings[SETTING] = guards
    return guards


def client_of(handler) -> str:
    """The client a handler's request counts as (``clients.client_of``, with its server's trusted proxies)."""
    return client_of_request(handler.request, config_of(handler.application).trusted_proxies)
