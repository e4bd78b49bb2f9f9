"""support/server_scopes.py: the test files that take a shared server are one unit of xdist's work,
so that one worker starts each shared server; every other file is a unit of its own."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

from support.server_scopes import SHARED_SCOPE, SHARED_SERVERS, ServerScopes

TESTS = Path(__file__).parent


def scope_of(nodeid: str) -> str:
    scheduler = ServerScopes.__new__(ServerScopes)  # _split_scope reads only the configuration's root
    scheduler.config = SimpleNamespace(rootpath=TESTS.parent)
    return scheduler._split_scope(nodeid)


def test_the_shared_servers_named_are_the_session_fixtures_conftest_makes():
    source = (TESTS / "conftest.py").read_text(encoding="utf-8")
    for name in SHARED_SERVERS:
        assert re.search(rf'@pytest\.fixture\(scope="session"\)\ndef {name}\(\)', source), name


def test_the_files_that_take_a_shared_server_are_one_unit_and_the_others_a_unit_each():
    for file in ("test_pages.py", "test_serving_defaults.py", "test_server.py", "test_class_address.py"):
        assert scope_of(f"tests/{file}::test_x[chromium]") == SHARED_SCOPE, file
    assert scope_of("tests/test_metrics.py::test_x") == "tests/test_metrics.py"
    assert scope_of("tests/test_binary_figure.py::test_x[chromium]") == "tests/test_binary_figure.py"
