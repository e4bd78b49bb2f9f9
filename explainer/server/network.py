"""This computer's address on its network: the one a class opens (README "Serving for a class")."""

from __future__ import annotations

import ipaddress
import socket


def network_address() -> str | None:
    """This computer's address on its network (the one its default route leaves from), or None when offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))  # connecting a UDP socket sends nothing
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback or address == "0.0.0.0" else address
