"""Who a request comes from: the client the server's per-client limits count.

A client is the address of the socket a request came in on. Behind a reverse proxy every
request comes in from the proxy (behind the README's nginx, from 127.0.0.1), so for a proxy
named with ``--trusted-proxy`` the client is the last address in ``X-Forwarded-For``: the one
that proxy added, the address it was connected from. Addresses before it are whatever the
browser or an earlier proxy wrote, which anyone can forge; and a request that does not come
from a trusted proxy is its socket's address whatever it says.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(proxies: Iterable[str]) -> tuple[Network, ...]:
    """The ``--trusted-proxy`` values as networks (an address is a network of one); ValueError naming a bad one."""
    networks = []
    for proxy in proxies:
        try:
            networks.append(ipaddress.ip_network(proxy.strip(), strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxy {proxy!r}: expected an IP address (or a network, 10.0.0.0/8)") from None
    return tuple(networks)


def client_of(remote_ip: str, forwarded_for: Iterable[str] = (), trusted: tuple[Network, ...] = ()) -> str:
    """The client a request counts as: its socket's address ``remote_ip``, or, when that is a
    ``trusted`` proxy, the last address of its ``X-Forwarded-For`` header lines (each a
    comma-separated list, in the order received); the proxy itself when that is missing or not
    an address."""
    own = _address(remote_ip)
    if own is None:
        return remote_ip
    if not any(own in network for network in trusted):
        return str(own)
    entries = [entry for line in forwarded_for for entry in line.split(",")]
    forwarded = _address(entries[-1]) if entries else None
    return str(forwarded if forwarded is not None else own)


def _address(text: str):
    """An IP address from a socket or a header, IPv4-mapped IPv6 addresses as IPv4; None if it is not one."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def client_of_request(request, trusted: tuple[Network, ...] = ()) -> str:
    """``client_of`` a Tornado request (``request.remote_ip`` and its ``X-Forwarded-For`` lines)."""
    return client_of(request.remote_ip or "", request.headers.get_list("X-Forwarded-For"), trusted)
