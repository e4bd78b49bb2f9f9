"""pytest-xdist's file-at-a-time scheduling, with the files that take a second server kept together.

``./serve.sh test`` hands each worker a test file at a time (``--dist=loadfile``), so that a file's
module fixtures are made once. The session's servers are made once per worker: the ordinary one
(``server``), which nearly every file takes, and two that a few files take, ``probe_server`` and
``class_server``. Where two files that take one of those went to different workers, each worker
started that server (a start is some 3 s of CPU, which the test that asks for it waits for). Here
every file that names one of them is in one unit of work, so one worker runs them all and starts
each of those servers once.

It overrides xdist's ``_split_scope``, which is not public: ``tests/test_private_apis.py`` checks
that xdist still splits its work by it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadFileScheduling

SHARED_SERVERS = ("class_server", "probe_server")
"""The session fixtures (conftest.py) whose files go to one worker."""

SHARED_SCOPE = "the test files that take class_server or probe_server"


class ServerScopes(LoadFileScheduling):
    """A file's tests are one unit of work, as in ``--dist=loadfile``, except that the files naming a
    shared server are all one unit."""

    def _split_scope(self, nodeid: str) -> str:
        file = super()._split_scope(nodeid)
        return SHARED_SCOPE if names_a_shared_server(self.config.rootpath / file) else file


@functools.cache
def names_a_shared_server(path: Path) -> bool:
    """Whether a test file names a shared server (a mention in a comment counts: it only costs balance)."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(re.search(rf"\b{name}\b", source) for name in SHARED_SERVERS)
