"""The class address: the one address students type (or scan) to open the served pages.

Served with ``--address``, the command line prints it with a QR code in the terminal
(``terminal_qr``), and each figure page's presenter view can show that QR code large on the
screen (``qr_rows``, drawn by ``figures/class_address.js``). The server hands a page this address
and its QR code, nothing else. An access code never goes in it: the pages ask for the code in a
form, so the code on the projector is only what the teacher chooses to say or write.
"""

from __future__ import annotations

import functools

import segno

# The white border a scanner needs around the code, in modules (the QR standard's quiet zone).
QUIET_ZONE = 4


@functools.cache
def qr_rows(address: str) -> tuple[str, ...]:
    """The address's QR code, one string per row of modules, "1" dark and "0" light, without the quiet zone."""
    code = segno.make_qr(address, error="m")
    return tuple("".join("1" if dark else "0" for dark in row) for row in code.matrix_iter(scale=1, border=0))


def terminal_qr(address: str) -> str:
    """The address's QR code for a terminal: two rows of modules per line, as "▀" in black and white.

    Each character's foreground is its upper module and its background its lower one, both set
    with ANSI colours, so the code reads the same in a light terminal and in a dark one.
    """
    rows = qr_rows(address)
    width = len(rows[0]) + 2 * QUIET_ZONE
    light = "0" * width
    padded = [light] * QUIET_ZONE + [f"{'0' * QUIET_ZONE}{row}{'0' * QUIET_ZONE}" for row in rows]
    padded += [light] * (QUIET_ZONE + len(padded) % 2)
    lines = []
    for upper, lower in zip(padded[::2], padded[1::2], strict=True):
        cells, colours = [], None
        for top, bottom in zip(upper, lower, strict=True):
            wanted = f"\x1b[{'30' if top == '1' else '97'};{'40' if bottom == '1' else '107'}m"
            cells.append(("" if wanted == colours else wanted) + "▀")
            colours = wanted
        lines.append("".join(cells) + "\x1b[0m")
    return "\n".join(lines)


def class_address(address: str, port: int, path: str, network_address: str | None) -> str | None:
    """The address to give a class, or None when the server listens on this computer alone.

    ``address`` is what ``--address`` asked for; with 0.0.0.0 (or ::) it is this computer's
    address on its network, ``network_address`` (None when offline).
    """
    import ipaddress

    host = network_address if address in ("0.0.0.0", "::") else address
    if not host or host == "localhost":
        return None
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"http://{host}:{port}{path}"  # a name, as teachers-laptop.local
    if ip.is_loopback:
        return None
    return f"http://[{host}]:{port}{path}" if ip.version == 6 else f"http://{host}:{port}{path}"
