"""What a reader refuses, and why: ids too long, lines without end, more lines than memory holds, counts over a cap."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from explainer.evaluation.formats.errors import InputError

MAX_ID_BYTES = 1024
"""The longest qid, docid or run tag read, in bytes (the longest ids of public collections, URLs, fit)."""

MAX_LINE_BYTES = 8 << 20
"""The longest line read: 8 MiB. A file without newlines (``/dev/zero``, a gzip of zeros) stops here."""


def _memory_budget() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, OSError, ValueError):
        return 8 << 30


MEMORY_BUDGET_BYTES = _memory_budget()
"""The most the lines read may take: half of this computer's memory.

Every line is kept (some 32 bytes and its docid's), so an endless input of good lines
(``yes 'q Q0 d 1 1 t'``) stops here rather than filling the memory: a hundred million lines
take some 4 GB."""

BYTES_PER_LINE = 32
"""What a line read takes besides its docid's bytes: query code, hash, length, start, value."""


@dataclass(frozen=True)
class Caps:
    """Counts a reader refuses beyond (None: any number): the page's caps, never the command line's."""

    queries: int | None = None
    per_query: int | None = None


NO_CAPS = Caps()


def check_id_lengths(label: str, lines, lengths: np.ndarray, what: str) -> None:
    """``InputError`` at the first line whose ``what`` (qid, docid, run tag) is longer than ``MAX_ID_BYTES``.

    ``lines`` are the lines' numbers in the source, or the first one's when they follow each other.
    """
    if len(lengths) and int(lengths.max()) > MAX_ID_BYTES:
        i = int(np.argmax(lengths > MAX_ID_BYTES))
        line = lines + i if isinstance(lines, int) else int(lines[i])
        raise InputError(label, line, f"expected a {what} of at most {MAX_ID_BYTES:,} bytes, found a longer one")
