"""The server's configuration: one object, made by the command line, that every handler is given.

``ServerConfig`` says where the server listens, which pages it serves and to whom, and the
limits it holds a browser to. ``serve_pages`` hands it to Bokeh's server as a keyword, which
Tornado keeps in its application's settings (``config_of``): each handler reads it from there,
so that two servers in one process (as in the tests) each keep their own.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from explainer.server.access_code import AccessCode
from explainer.server.class_config import ClassConfig
from explainer.server.clients import Network
from explainer.server.tokens import new_secret

# The Tornado application setting that holds a server's ``ServerConfig``.
SETTING = "explainer"


@dataclass(frozen=True)
class Limits:
    """What the server takes from a browser (README "Serving safely"). Anything longer, or slower,
    is refused before the server spends time on it: one client must never stall the class."""

    # A request's first line may be as long as any URL a browser sends (Chromium's limit is 2 MB),
    # so that an oversized link reaches the page handler, which redirects it to a notice. Its header
    # fields after that line are what a browser sends, a dozen or two, mostly the site's cookies;
    # the most of them is refused with a 431, and more bytes of them close the connection unanswered
    # (Tornado's way with headers over its limit).
    max_request_line: int = 2 * 1024 * 1024
    max_header_bytes: int = 32 * 1024
    max_header_count: int = 100
    # The time a client has to send a request's headers (and that an idle kept-alive connection is
    # kept): a client that sends them a byte at a time is dropped, and its memory with it.
    header_timeout_s: float = 10.0
    # No page sends a request body but the access code's form.
    max_body_bytes: int = 16 * 1024
    body_timeout_s: float = 10.0
    # A Panel page's websocket messages (the workbench's: its document request, "document ready",
    # its state per change, what-if changes, a few hundred bytes each). A longer message closes the
    # connection before it is read; the workbench's page takes one longer only as a piece of an
    # upload (``max_upload_message_bytes``, ``messages.fits_a_page``).
    max_message_bytes: int = 32 * 1024
    # The workbench's page also sends the files a reader uploads, one piece a message
    # (``workbench/upload.py``): a MiB as base64, 1,398,104 characters. Its websocket alone takes
    # messages this long (``ServerConfig.upload_page``).
    max_upload_message_bytes: int = 2 * 1024 * 1024
    # Per client (``clients.client_of``), so that one address cannot take the server from the
    # rest, while a class of 300 phones behind one address (a school's NAT, or every request
    # through one proxy without --trusted-proxy) still fits: each phone may keep three pages open
    # (1,000 websockets), the whole class may open a page at the same moment (a burst of 300 new
    # sessions), and then each phone a new page every minute (5 a second). A light page's session
    # costs about 0.16 MB, so a client's most is some 160 MB.
    max_websockets_per_client: int = 1_000
    new_sessions_burst: int = 300
    new_sessions_per_second: float = 5.0
    # The workbench's page (a Panel page) makes its session with the page, which takes the server's
    # thread about a second (golden set, a load of 15 on 2 cores) while every click waits: a
    # client may open 30 at once, then one a second (a team's few readers reloading it, and a
    # test suite's). It is not a class's page: served to the network without an access code it
    # is the golden set only.
    workbench_sessions_burst: int = 30
    workbench_sessions_per_second: float = 1.0
    # New sessions are made one at a time, this long apart, whoever asks: a class arriving at once,
    # or a flood, leaves the clicks of those already in a gap between two (a figure's session takes
    # some 10 to 30 ms to make; a light page works before its session is there).
    session_gap_s: float = 0.02
    # ... or twice as long as the last one took, when that is longer (``limiters.Turns``): a class
    # arriving at once, or a flood of pages, takes a third of the server's thread at most, on a
    # slow machine as on a quick one. Where a session takes 57 ms, 300 arriving at once have their
    # sessions in some 55 s, their pages working meanwhile, and the others' clicks keep a p95 of
    # 73 ms (5 s with the fixed gap alone).
    session_share: float = 1 / 3
    # Each websocket's changes (its PATCH-DOC messages) may keep the server's thread busy at most
    # this share of the time, once this many seconds of work are spent: a reader's click takes a
    # few milliseconds, and a MiB piece of an upload some 20 ms, so no page comes near it, while a
    # script sending as fast as it is answered is slowed to its share and the clicks of the
    # others are answered between its messages (``limiters.Share``).
    message_share: float = 0.25
    message_share_burst_s: float = 0.5

    @property
    def http_server_options(self) -> dict[str, float]:
        """Tornado's HTTPServer options that hold a request to these limits (a new dict each time:
        Bokeh adds its own to the dict it is given)."""
        return {
            "max_header_size": self.max_request_line + self.max_header_bytes,
            "idle_connection_timeout": self.header_timeout_s,
            "max_body_size": self.max_body_bytes,
            "body_timeout": self.body_timeout_s,
        }


@dataclass(frozen=True)
class SessionTimes:
    """How the server lets go of the session of a page that is gone (closed, crashed, or on a laptop
    that was shut), so that its memory is freed; see README "Serving safely". The names are the
    keywords of Bokeh's server."""

    # A new session waits this long for its page's websocket, and a closed page's session this
    # long before it is freed: long enough for a slow device to load the page's scripts.
    unused_session_lifetime_milliseconds: int = 15_000
    # How often the server looks for such sessions (Bokeh's default is every 17 s).
    check_unused_sessions_milliseconds: int = 2_000
    # Ping each websocket and close it when no answer comes back in time: a page that vanished
    # without closing its connection would otherwise hold its session until the OS gives up on
    # the connection, a quarter of an hour or more later. Generous, because a pong waits behind
    # the clicks already queued on its connection: a busy server must not drop live pages.
    websocket_ping_interval: float = 60
    websocket_ping_timeout: float = 60

    def options(self) -> dict[str, float]:
        """These times as keywords of Bokeh's server."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ServerConfig:
    """Everything a served explainer is told at start-up; the command line makes it once.

    ``pages`` adds or replaces pages by route, each a function that builds a fresh page (the
    evaluate command serves its files' workbench at /evaluate this way). With ``access`` made
    from a code, a page opens only for a browser that gave it. With ``class_address`` (the
    address students open, README "Serving for a class"), each figure page's presenter view can
    show it as a QR code; pages get that address and nothing else.
    """

    port: int
    address: str
    # Hosts (and ports) whose pages' websockets are accepted besides this server's own names.
    allow_origins: tuple[str, ...] = ()
    # A reverse proxy's public names (HOST[:PORT]), answered besides this server's own (``hosts.py``).
    public_hosts: tuple[str, ...] = ()
    # The hosts whose pages may frame the story and the figure pages (HOST[:PORT]); none: any page.
    framed_by: tuple[str, ...] = ()
    # The reverse proxies whose X-Forwarded-For names the client (``clients.client_of``).
    trusted_proxies: tuple[Network, ...] = ()
    prefix: str = ""
    num_procs: int = 1
    pages: Mapping[str, Callable] = field(default_factory=dict)
    access: AccessCode = field(default_factory=AccessCode)
    class_address: str = ""
    # A server started for a class (``--class``, or ``--address`` in one process) holds one.
    classroom: ClassConfig | None = None
    # The one page whose websocket may send the pieces of an uploaded file.
    upload_page: str = "/evaluate"
    limits: Limits = Limits()
    sessions: SessionTimes = SessionTimes()
    # What sessions are signed with (Bokeh's ``sign_sessions``): made with the configuration, so
    # before ``--num-procs`` forks, and every process takes every page's token.
    session_secret: bytes = field(default_factory=new_secret, repr=False)

    def message_limit(self, route: str) -> int:
        """The longest websocket message the page at ``route`` may send (Tornado closes a longer one, 1009, unread)."""
        limits = self.limits
        return limits.max_upload_message_bytes if route == self.upload_page else limits.max_message_bytes

    @functools.cached_property
    def light_routes(self) -> frozenset[str]:
        """The routes served as light pages (``light_pages.py``): the story's and the figures'.
        A route given in ``pages`` in place of one of them is a Panel page."""
        from explainer.pages import LIGHT_ROUTES

        return frozenset(route for route in LIGHT_ROUTES if route not in self.pages)

    @functools.cached_property
    def panel_pages(self) -> dict[str, Callable]:
        """The Panel pages served, by route, each a builder of a fresh page: the workbench, and ``pages``."""
        from explainer.pages import evaluate_page

        return {"/evaluate": evaluate_page, **self.pages}

    @functools.cached_property
    def host_rule(self):
        """Which Host headers this server answers (``hosts.HostRule``), or None for any."""
        from explainer.server.hosts import host_rule

        return host_rule(self)

    @property
    def websocket_origins(self) -> list[str]:
        """The hosts whose pages' websockets are accepted: this host's own names, and ``allow_origins``."""
        own = {f"{host}:{self.port}" for host in ("localhost", "127.0.0.1", self.address)}
        return sorted(own | set(self.allow_origins))


def config_of(application) -> ServerConfig:
    """The configuration of the server that ``application`` (its Tornado application) belongs to.

    Our handlers take the place of Panel's for the whole process (``patches.py``): another Panel
    server in it, which ``serve_pages`` did not start (the tests' object server), has the defaults."""
    return application.settings.get(SETTING) or OTHER_SERVERS


# What a Panel server of this process that ``serve_pages`` did not start is held to: the defaults,
# but no per-client limit and no Host check (the tests' object server, which lends a Panel page a
# test, on 127.0.0.1, many a second).
OTHER_SERVERS = ServerConfig(
    port=0,
    address="",
    limits=Limits(
        max_websockets_per_client=sys.maxsize, new_sessions_burst=sys.maxsize, workbench_sessions_burst=sys.maxsize
    ),
)
