"""The Host check: the server answers only the names it is known by, so that DNS rebinding reads nothing.

A web page on any site can make its own name resolve to 127.0.0.1 or to a classroom laptop's
address, then fetch from "its own" origin what this server serves: the workbench's files
included, were the server to answer any ``Host``. A browser's ``Host`` is the name in the
address it opened, so the server answers only its own names, on pages and websockets alike:

- listening on this computer only (127.0.0.1, the default): ``localhost``, ``127.0.0.1``,
  ``[::1]`` and the address it listens on, with its port;
- listening on the network (``--address``): those, any IP address (a rebinding page has a name
  of its own; a browser that sends an IP address opened this server by it), this computer's host
  name, ``NAME.local`` and its fully qualified name, with its port;
- the names given with ``--public-host`` (a reverse proxy's public name) or ``--allow-origin``,
  with the port given, or without one for a name given without (the default ports).

Anything else gets ``421 Misdirected Request`` before a handler runs, and one log line a
minute naming the option that would allow it.
"""

from __future__ import annotations

import functools
import ipaddress
import socket

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
# What may not be given as a host: patterns that would let every site in.
WILDCARDS = ("*", "?")


def checked_host(text: str, option: str) -> str:
    """A ``HOST[:PORT]`` value of ``option`` (``--public-host``, ``--allow-origin``), lowercased;
    ValueError for a wildcard, a URL or what is not a host."""
    host = text.strip().lower()
    if any(mark in host for mark in WILDCARDS):
        raise ValueError(f"{option} {text!r}: a wildcard would let every web site in; name each host")
    if not host or "/" in host or "@" in host or " " in host:
        raise ValueError(
            f"{option} {text!r}: expected a host name or address, with its port if it has one (HOST[:PORT])"
        )
    return host


def split_host(host: str) -> tuple[str, str | None]:
    """A ``Host`` header's name and port (None when it has none), the name lowercased, without a final dot."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else None
    name, colon, port = host.rpartition(":")
    if not colon or ":" in name:  # no port, or an IPv6 address without brackets
        return host.rstrip("."), None
    return name.rstrip("."), port


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


@functools.cache
def this_computers_names() -> frozenset[str]:
    """This computer's host name, ``NAME.local`` and its fully qualified name (README's ``teachers-laptop.local``)."""
    names = set()
    for name in (socket.gethostname(), socket.getfqdn()):
        name = name.lower().rstrip(".")
        if name and not is_ip_address(name):
            short = name.split(".")[0]
            names |= {name, short, f"{short}.local"}
    return frozenset(names)


def is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class HostRule:
    """Which ``Host`` headers a server of ``address`` and ``port`` answers (see the module's docstring)."""

    def __init__(self, address: str, port: int, public_hosts=(), names=None):
        self.port = str(port)
        self.network = not is_loopback(address)
        bound = f"[{address}]" if ":" in address else address
        own = {*LOOPBACK_NAMES, bound.lower()}
        if self.network:
            own |= this_computers_names() if names is None else set(names)
        self.own = frozenset(own)
        self.public = frozenset(split_host(host) for host in public_hosts)

    def allows(self, host: str | None) -> bool:
        """Whether a request whose ``Host`` is ``host`` is answered."""
        if not host:
            return False
        name, port = split_host(host)
        if (name, port) in self.public:
            return True
        if port != self.port and not (port is None and self.port == "80"):
            return False
        return name in self.own or (self.network and is_ip_address(name))


def host_rule(config) -> HostRule | None:
    """The Host rule of a server of ``config`` (``ServerConfig``); None (any host) for a server
    this package did not start (``config.OTHER_SERVERS``: the tests' object server)."""
    if not config.address:
        return None
    return HostRule(config.address, config.port, (*config.public_hosts, *config.allow_origins))
