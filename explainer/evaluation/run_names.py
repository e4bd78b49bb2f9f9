"""The name each run goes by in a report: its tag, or its file's name when two runs share a tag.

trec_eval names a run by the tag in its sixth column, and many tools write the same tag in
every run (``STANDARD``, ``Anserini``), so two runs compared would read alike. A report names
each run by its tag where the tags differ, else by its file's name, else by its file's path,
else by its place (``run 2``); the tag is kept beside the name (the ``runid`` line prints it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def distinct_names(tags: Sequence[str], files: Sequence[str]) -> tuple[str, ...]:
    """One name per run, all different: the tags, the files' names, their paths, or ``run N``.

    ``tags[i]`` is run i's tag and ``files[i]`` the file it was read from (``-`` for standard
    input). The first of the four that tells every run apart is used for all of them, so
    that the names in one report are of one kind.
    """
    if len(tags) != len(files):
        raise ValueError(f"one file per tag: got {len(tags)} tags and {len(files)} files")
    candidates = (
        list(tags),
        [_file_name(f) for f in files],
        [_file_path(f) for f in files],
    )
    for names in candidates:
        if all(names) and len(set(names)) == len(names):
            return tuple(names)
    return tuple(f"run {i + 1}" for i in range(len(tags)))


def _file_name(path: str) -> str:
    return "standard input" if path == "-" else os.path.basename(path)


def _file_path(path: str) -> str:
    return "standard input" if path == "-" else os.path.normpath(path)
