"""What ``serve`` and ``evaluate --serve`` share: their options, declared once, and what they do before the server starts.

Both command lines (``explainer.cli``, ``explainer.workbench.cli``) import this module, and it
imports neither: the command line's arrows run one way (README "Developing").
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys

DEFAULT_PORT = 5006

# Letters and digits nobody mistakes for one another when a code is read out or written on a board.
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
# Where ``--access-code`` alone takes the code from, when set: the environment is not in the process list.
ACCESS_CODE_VARIABLE = "EXPLAINER_ACCESS_CODE"
# The longest access code read from a file (the form reads 200 characters).
MAX_CODE_CHARS = 200


def _code_from_file(path: str) -> str:
    """The access code in the first line of the file at ``path`` (argparse's type: one line on error)."""
    try:
        with open(path, encoding="utf-8") as file:
            code = file.readline(MAX_CODE_CHARS + 1).strip()
    except (OSError, UnicodeError) as error:
        raise argparse.ArgumentTypeError(
            f"{path}: cannot be read ({getattr(error, 'strerror', None) or error})"
        ) from None
    if not code or len(code) > MAX_CODE_CHARS:
        raise argparse.ArgumentTypeError(
            f"{path}: expected the code alone on the first line, 1 to {MAX_CODE_CHARS} characters"
        )
    return code


def add_serving_options(parser, with_serve: bool = False) -> None:
    """``--port``, ``--address``, ``--no-browser`` and ``--access-code``, on a parser or an argument group.

    With ``with_serve`` (the evaluate command) each help says that it applies with ``--serve``.
    """
    when = "with --serve: " if with_serve else ""
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"{when}port to listen on (default %(default)s)")
    parser.add_argument(
        "--address",
        default="127.0.0.1",
        help=f"{when}address to bind; the default keeps it on this computer, 0.0.0.0 opens it to the network",
    )
    parser.add_argument("--no-browser", dest="browser", action="store_false", help=f"{when}do not open a browser")
    parser.add_argument(
        "--access-code",
        nargs="?",
        const="",
        default=None,
        metavar="CODE",
        help=f"{when}ask every visitor for this code before a page opens (alone: the code in ${ACCESS_CODE_VARIABLE}, "
        "or a new one, printed); use it when serving beyond this computer anything not everyone there should see. "
        "A code given here shows in the process list: prefer the variable or --access-code-file",
    )
    parser.add_argument(
        "--access-code-file",
        dest="access_code",
        type=_code_from_file,
        metavar="FILE",
        help=f"{when}ask for the access code in the first line of FILE (kept out of the process list)",
    )
    parser.add_argument(
        "--public-host",
        action="append",
        default=[],
        type=_host_of("--public-host"),
        metavar="HOST[:PORT]",
        help=f"{when}also answer to this name, with its port if it has one, as a reverse proxy's public name (repeatable); "
        "the server answers only its own names, so that no other web site can reach it through DNS",
    )
    parser.add_argument(
        "--framed-by",
        action="append",
        default=[],
        type=_host_of("--framed-by"),
        metavar="HOST[:PORT]",
        help=f"{when}let only pages of this host frame the story and the figure pages (repeatable); by default any "
        "page may (the workbench and the access form never)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=_trusted_proxy,
        metavar="ADDRESS",
        help=f"{when}a reverse proxy in front of the server (repeatable): for its requests, the client the "
        "server's per-client limits count is the last address it adds to X-Forwarded-For",
    )


def _host_of(option: str):
    """An argparse type for ``HOST[:PORT]`` values of ``option``: no wildcards (``hosts.checked_host``)."""

    def host(text: str) -> str:
        from explainer.server.hosts import checked_host

        try:
            return checked_host(text, option)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).removeprefix(f"{option} {text!r}: ")) from None

    return host


def add_allow_origin_option(parser) -> None:
    """``--allow-origin HOST[:PORT]``, repeatable, no wildcards."""
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        type=_host_of("--allow-origin"),
        metavar="HOST[:PORT]",
        help="also accept websockets from pages served under this host name, as behind a proxy that does not pass "
        "the Host header on (repeatable; no wildcards)",
    )


def _trusted_proxy(text: str):
    from explainer.server.clients import trusted_networks

    try:
        return trusted_networks([text])[0]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--trusted-proxy {text!r}: ")) from None


def wants_browser() -> bool:
    """Open a browser only for a person at a screen: not in CI, not on a headless Linux box."""
    if os.environ.get("CI"):
        return False
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def shown_host(address: str) -> str:
    """The host name to print for a bound address: one a browser on this computer opens."""
    return "localhost" if address in ("127.0.0.1", "0.0.0.0", "::") else address


def announce_class_address(address: str, port: int, path: str) -> str | None:
    """Served to the network (``--address``): print the address others open, with its QR code.

    Returns that address, or None when the server listens on this computer only."""
    from explainer.classroom.address import class_address, terminal_qr
    from explainer.server.network import network_address

    lan = network_address() if address in ("0.0.0.0", "::") else None
    shared = class_address(address, port, path, lan)
    if shared:
        print(f"Others on this network can open {shared}", flush=True)
        print(terminal_qr(shared), flush=True)
        print(
            "Scan this with a phone's camera, or show it large on the screen: Class address, in presenter view.",
            flush=True,
        )
    return shared


def access_code(asked: str | None) -> str | None:
    """The access code to serve with: the one given (on the command line or in a file), for
    ``--access-code`` alone the one in ``ACCESS_CODE_VARIABLE`` or a new one, or None.

    A new code is printed (only then: one the user chose is theirs to know). It is never logged.
    """
    if asked is None:
        return None
    if asked:
        return asked
    if code := os.environ.get(ACCESS_CODE_VARIABLE, "").strip():
        return code[:MAX_CODE_CHARS]
    code = "-".join("".join(secrets.choice(CODE_ALPHABET) for _ in range(5)) for _ in range(2))
    print(f"Access code: {code} (give it to the people who should open the pages)", flush=True)
    return code


def server_config(args: argparse.Namespace, code: str | None, class_address: str | None, **more):
    """The server's one configuration (``server.config.ServerConfig``) from the shared options,
    the access code (``access_code``) and the class address (``announce_class_address``);
    ``more`` holds what one command alone sets."""
    from explainer.server.access_code import AccessCode
    from explainer.server.config import ServerConfig

    return ServerConfig(
        port=args.port,
        address=args.address,
        access=AccessCode(code),
        class_address=class_address or "",
        trusted_proxies=tuple(args.trusted_proxy),
        public_hosts=tuple(args.public_host),
        framed_by=tuple(args.framed_by),
        **more,
    )


def cannot_serve(args: argparse.Namespace, error: OSError) -> SystemExit:
    """The exit, with what to try, when the server cannot listen where it was told."""
    return SystemExit(
        f"Cannot serve on {args.address}:{args.port}: {error.strerror or error}. "
        "Is another server using that port? Try --port with another number."
    )
