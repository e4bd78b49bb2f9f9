"""pytest-xdist's file-at-a-time scheduling, with the files that share a second server kept together.

``./serve.sh test`` hands each worker a test file at a time (``--dist=loadfile``), so that a file's
module fixtures are made once. The session's servers are made once per worker: the ordinary one
(``server``), which nearly every file takes, and two that a few files take, ``probe_server`` and
``class_server``. Where two files that take one of those went to different workers, each worker
started that server: some 3.3 s of CPU, and of a worker's time, each. Here those files are one unit
of work, so one worker runs them all and starts their server once.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from xdist.scheduler import LoadFileScheduling

SHARED_SERVERS = ("class_server", "probe_server")
"""The session fixtures whose files go to one worker (conftest.py makes them)."""


class ServerScopes(LoadFileScheduling):
    """A file's tests are one unit of work, as in ``--dist=loadfile``; the files naming a shared
    server are one unit with the other files naming it."""

    def _split_scope(self, nodeid: str) -> str:
        file = super()._split_scope(nodeid)
        return _servers_named(self.config.rootpath / file) or file


@functools.cache
def _servers_named(path: Path) -> str:
    """The shared servers a test file names ("class_server", "class_server+probe_server"), or ""."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    return "+".join(name for name in SHARED_SERVERS if re.search(rf"\b{name}\b", source))
