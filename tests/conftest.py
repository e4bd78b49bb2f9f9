"""Shared fixtures: the Chromium the browser tests drive, a served explainer, and served test objects.

The helpers behind them (servers, waits, browserless sessions, page objects) are in tests/support.
"""

from __future__ import annotations

import time
import urllib.request

import pytest

from explainer.browser import launch_args

from support.server import Server, free_port


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session")
def server():
    """The explainer served on a free port of 127.0.0.1 for the whole session."""
    running = Server()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def exported_site(tmp_path_factory):
    """Every page exported once, as ``relevance-explainer export DIR`` writes them, for the whole session."""
    from explainer.cli import main

    site = tmp_path_factory.mktemp("site")
    main(["export", str(site)])
    return site


@pytest.fixture
def address(server, exported_site):
    """A page's address, served or as its exported light file: ("exported", "/binary?k=3") is binary.html?k=3 on disk."""

    def at(mode: str, path: str) -> str:
        if mode == "served":
            return server.url + path
        route, mark, query = path.partition("?")
        return (exported_site / f"{route.strip('/') or 'index'}.html").as_uri() + mark + query

    return at


@pytest.fixture
def serve_object():
    """Serve Panel objects of this test process (so the test can read their Python state); returns their URL."""
    import panel as pn

    servers = []

    def serve(obj) -> str:
        def session():
            # As the explainer's server has it (serving._session_of): the page's only start-up
            # message is its own. Panel's browser-info report, in seven messages, once raced a
            # test's change of Python state and the change never reached the page.
            pn.config.browser_info = False
            return obj

        port = free_port()
        servers.append(pn.serve(session, port=port, address="127.0.0.1", threaded=True, show=False, start=True))
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return url
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{url} did not answer")

    yield serve
    for running in servers:
        running.stop()
