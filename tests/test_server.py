"""The server start-up: what it binds, what it accepts, and how fast its websocket sends."""

from __future__ import annotations

import gc
import socket

import pytest
from bokeh.server.views.ws import WSHandler
from playwright.sync_api import expect

from conftest import free_port
from explainer.cli import build_parser, serve_pages


def test_serve_binds_to_this_computer_only_unless_told_otherwise():
    args = build_parser().parse_args(["serve"])
    assert (args.address, args.port, args.allow_origin, args.browser) == ("127.0.0.1", 5006, [], True)
    args = build_parser().parse_args(
        ["serve", "--address", "0.0.0.0", "--port", "8080", "--allow-origin", "a.example", "--allow-origin", "b.example:8000", "--no-browser"]
    )
    assert (args.address, args.port, args.allow_origin, args.browser) == ("0.0.0.0", 8080, ["a.example", "b.example:8000"], False)


@pytest.mark.browser
def test_each_session_websocket_sends_small_frames_at_once(page):
    """TCP_NODELAY on the session's socket: without it a click's reply waits for a delayed ACK."""
    port = free_port()
    server = serve_pages(port, "127.0.0.1", [], threaded=True)
    try:
        page.goto(f"http://127.0.0.1:{port}/binary")
        expect(page.locator(".metric-formula").first).to_be_visible()
        handlers = [
            obj
            for obj in gc.get_objects()
            if isinstance(obj, WSHandler) and obj.ws_connection and obj.request.host == f"127.0.0.1:{port}"
        ]
        assert handlers, "no open websocket session found"
        for handler in handlers:
            sock = handler.ws_connection.stream.socket
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        server.stop()
