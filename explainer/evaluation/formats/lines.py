"""What a reader gives: qrels and runs as flat arrays of lines grouped by query."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explainer.evaluation.formats.fields import hash_ranges


@dataclass(frozen=True, eq=False)
class Lines:
    """Lines grouped by query: queries in trec_eval's order, each query's lines contiguous.

    ``qids[q]`` owns lines ``offsets[q]:offsets[q + 1]``. Line i's docid is the bytes
    ``blob[doc_start[i]:doc_start[i] + doc_len[i]]``; ``doc_hash[i]`` is a 64-bit hash of them.
    """

    source: str
    qids: tuple[str, ...]
    offsets: np.ndarray
    doc_hash: np.ndarray
    doc_start: np.ndarray
    doc_len: np.ndarray
    blob: np.ndarray
    n_lines_read: int
    n_duplicates: int
    duplicate_lines: tuple[tuple[int, int], ...] = field(default=())

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def index(self, qid: str) -> int:
        """The position of ``qid`` in ``qids``; ``KeyError`` when absent."""
        lookup = self.__dict__.get("_lookup")
        if lookup is None:
            lookup = {q: i for i, q in enumerate(self.qids)}
            object.__setattr__(self, "_lookup", lookup)
        return lookup[qid]

    def docids(self, start: int, stop: int) -> list[str]:
        """The docids of lines ``start:stop`` as strings."""
        raw = self.blob
        return [
            bytes(raw[s : s + n]).decode("utf-8", "surrogateescape")
            for s, n in zip(self.doc_start[start:stop].tolist(), self.doc_len[start:stop].tolist(), strict=True)
        ]

    def find(self, start: int, stop: int, docid: str) -> int | None:
        """The line of ``docid`` among lines ``start:stop`` (the first, if several), or None.

        Found by its hash and then compared byte for byte: the cost is one comparison of hashes a
        line, with no docid made into a string, so a change that names one document of a long
        list costs microseconds, not the list's length in Python strings."""
        key = docid.encode("utf-8", "surrogateescape")
        wanted = hash_ranges(np.frombuffer(key, np.uint8), np.zeros(1, np.int64), np.array([len(key)], np.int64))[0]
        for i in np.flatnonzero(self.doc_hash[start:stop] == wanted).tolist():
            s, n = int(self.doc_start[start + i]), int(self.doc_len[start + i])
            if bytes(self.blob[s : s + n]) == key:
                return start + i
        return None


@dataclass(frozen=True, eq=False)
class Qrels(Lines):
    """Judgments: for each query, its judged docids and their grades (``grade``, aligned with the lines).

    ``n_fractional`` counts the grades written with a fraction, read by their whole part as
    trec_eval reads them (``1.5`` as 1)."""

    grade: np.ndarray = field(default=None)
    n_fractional: int = 0

    def to_dict(self) -> dict[str, dict[str, int]]:
        """The judgments in pytrec_eval's shape, ``{qid: {docid: grade}}``."""
        out = {}
        for q, qid in enumerate(self.qids):
            a, b = int(self.offsets[q]), int(self.offsets[q + 1])
            out[qid] = dict(zip(self.docids(a, b), self.grade[a:b].tolist(), strict=True))
        return out


@dataclass(frozen=True, eq=False)
class Run(Lines):
    """A ranked run: each query's results in trec_eval's order (``score`` aligned with the lines).

    ``name`` is the run's tag (trec_eval keeps the last line's), or the name it was given.
    """

    score: np.ndarray = field(default=None)
    name: str = ""

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The run in pytrec_eval's shape, ``{qid: {docid: score}}``."""
        out = {}
        for q, qid in enumerate(self.qids):
            a, b = int(self.offsets[q]), int(self.offsets[q + 1])
            out[qid] = dict(zip(self.docids(a, b), self.score[a:b].tolist(), strict=True))
        return out
