"""Shared fixtures: the Chromium the browser tests drive, a served explainer, and served test objects.

The helpers behind them (servers, waits, browserless sessions, page objects) are in tests/support.
"""

from __future__ import annotations

import pytest

from explainer.browser import launch_args

import support.server
from support.server import Server


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


@pytest.fixture(scope="session")
def object_server():
    """One Panel server in this process for every served test object of the session."""
    running = support.server.object_server()
    yield running
    support.server.stop_object_server()


@pytest.fixture
def serve_object(object_server):
    """Serve Panel objects of this test process (so the test can read their Python state); returns their URL.

    The test changes their Python state on the server's thread, with ``support.server.on_server``.
    They are released after the test.
    """
    yield object_server.serve
    object_server.release()
