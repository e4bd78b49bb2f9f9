"""Parsed blocks of lines joined in order into flat columns, within the memory budget and the caps on queries."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.evaluation.formats import limits
from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.fields import Fields, gather, hash_ranges, query_runs
from explainer.evaluation.formats.limits import NO_CAPS, Caps


@dataclass
class Parsed:
    """One block's lines, parsed: what joins the other blocks' (made on any thread).

    ``heads`` are the qids where the qid changes (bytes), ``run_lengths`` how many lines each
    holds; ``line_no`` the lines' numbers, or None when they are ``first_line``, ``first_line + 1``...
    """

    first_line: int
    line_no: np.ndarray | None
    heads: list[bytes]
    run_lengths: np.ndarray
    doc_hash: np.ndarray
    doc_len: np.ndarray
    doc_start: np.ndarray  # where each docid starts in ``blob``
    blob: np.ndarray
    values: np.ndarray
    tag: str = ""

    def __len__(self) -> int:
        return len(self.values)

    def line(self, i: int) -> int:
        """The source's line number of this block's ``i``-th line."""
        return self.first_line + i if self.line_no is None else int(self.line_no[i])


def parse_lines(fields: Fields, values: np.ndarray, qid_col: int, doc_col: int, tag: str = "") -> Parsed:
    """A block's lines, parsed from the field ranges the exact reader found."""
    buf = fields.buf
    heads, names = query_runs(buf, fields.starts[:, qid_col], fields.lengths[:, qid_col])
    run_lengths = np.diff(np.append(heads, len(fields.starts)))
    d_start, d_len = fields.starts[:, doc_col], fields.lengths[:, doc_col]
    contiguous = fields.line_no[-1] - fields.line_no[0] == len(fields.line_no) - 1
    return Parsed(
        first_line=int(fields.line_no[0]),
        line_no=None if contiguous else fields.line_no,
        heads=names,
        run_lengths=run_lengths,
        doc_hash=hash_ranges(buf, d_start, d_len),
        doc_len=d_len.astype(np.int32),
        doc_start=np.cumsum(d_len) - d_len,
        blob=gather(buf, d_start, d_len),
        values=values,
        tag=tag,
    )


_COLUMN_TYPES = {"qcode": np.int32, "hash": np.uint64, "len": np.int32, "start": np.int64, "blob": np.uint8}


class Collector:
    """Parsed blocks, joined in order: qid per line (as codes in first-seen order), docid bytes and hashes.

    Each column is one array, filled block by block and grown by half when full. Joining the
    blocks' arrays at the end instead wrote the whole run a second time, into fresh memory,
    whose first touch is slow on the project's virtual machines (for ten million lines, over
    a second of system time). ``reserve`` sizes the arrays from an estimate first; room never
    written to is never touched, so it costs no memory.
    """

    def __init__(self, label: str = "", caps: Caps = NO_CAPS):
        self.label = label
        self.caps = caps
        self.qid_code: dict[bytes, int] = {}
        self.columns: dict[str, np.ndarray] = {}
        self.size = 0
        self.blob_size = 0
        self.line_blocks: list[tuple[int, int, np.ndarray | None]] = []  # (first index, first line, numbers)
        self.tag = ""

    def reserve(self, parsed: Parsed, lines: int, blob_bytes: int) -> None:
        """Make room for ``lines`` lines and ``blob_bytes`` docid bytes, with ``parsed``'s kinds of values."""
        for key, part in self._parts(parsed, np.zeros(0, dtype=np.int32)):
            need = blob_bytes if key == "blob" else lines
            held = self.columns.get(key)
            if held is None or len(held) < need:
                grown = np.empty(need, dtype=_COLUMN_TYPES.get(key, part.dtype))
                if held is not None:
                    used = self.blob_size if key == "blob" else self.size
                    grown[:used] = held[:used]
                self.columns[key] = grown

    @staticmethod
    def _parts(parsed: Parsed, qcode: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
        return (
            ("qcode", qcode),
            ("hash", parsed.doc_hash),
            ("len", parsed.doc_len),
            ("start", parsed.doc_start),
            ("blob", parsed.blob),
            ("value", parsed.values),
        )

    def add(self, parsed: Parsed) -> None:
        n, n_bytes = len(parsed), len(parsed.blob)
        lines = self.size + n
        blob_bytes = self.blob_size + n_bytes
        if lines * limits.BYTES_PER_LINE + blob_bytes > limits.MEMORY_BUDGET_BYTES:
            raise InputError(
                self.label,
                parsed.line(0),
                f"more lines than fit in half of this computer's memory ({limits.MEMORY_BUDGET_BYTES / 1e9:,.1f} GB)"
                "; is the input endless?",
            )
        codes = np.fromiter(
            (self.qid_code.setdefault(name, len(self.qid_code)) for name in parsed.heads),
            dtype=np.int32,
            count=len(parsed.heads),
        )
        if self.caps.queries is not None and len(self.qid_code) > self.caps.queries:
            head = int(np.argmax(codes == self.caps.queries))  # the first query over the cap
            line = parsed.line(int(np.sum(parsed.run_lengths[:head])))
            raise InputError(
                self.label, line, f"expected at most {self.caps.queries:,} queries in a file (the page's limit)"
            )
        if not self.columns or len(self.columns["hash"]) < lines or len(self.columns["blob"]) < blob_bytes:
            grow = 1.5 if self.columns else 1
            self.reserve(parsed, max(lines, int(self.size * grow)), max(blob_bytes, int(self.blob_size * grow)))
        self.line_blocks.append((self.size, parsed.first_line, parsed.line_no))
        self.tag = parsed.tag or self.tag
        for key, part in self._parts(parsed, np.repeat(codes, parsed.run_lengths)):
            if key == "blob":
                self.columns[key][self.blob_size : blob_bytes] = part
            elif key == "start":
                np.add(part, self.blob_size, out=self.columns[key][self.size : lines])
            else:
                self.columns[key][self.size : lines] = part
        self.size, self.blob_size = lines, blob_bytes

    def take(self, key: str, dtype) -> np.ndarray:
        held = self.columns.pop(key, None)
        if held is None:
            return np.zeros(0, dtype=dtype)
        return held[: self.blob_size if key == "blob" else self.size].astype(dtype, copy=False)

    def line_of(self, index: int) -> int:
        """The line number in the source of the ``index``-th line collected."""
        starts = [start for start, _, _ in self.line_blocks]
        block = int(np.searchsorted(starts, index, side="right")) - 1
        start, first_line, numbers = self.line_blocks[block]
        return first_line + index - start if numbers is None else int(numbers[index - start])


def parse_all(chunks, parse, total: int, collector: Collector) -> Collector:
    """Parse every block with ``parse(block, first_line)`` and join them in order into ``collector``.

    ``parse`` gives one ``Parsed``, a list of them (the block's pieces, in order), or None
    for a block without data. ``total`` is the source's size in bytes (0 when unknown): the
    first block tells how many lines and docid bytes so many bytes hold.
    """
    for block, first_line in chunks:
        parsed = parse(block, first_line)
        pieces = parsed if isinstance(parsed, list) else [] if parsed is None else [parsed]
        if pieces and not collector.columns and total > len(block):
            scale = 1.05 * total / len(block)
            lines = int(scale * sum(len(p) for p in pieces)) + 1024
            collector.reserve(pieces[0], lines, int(scale * sum(len(p.blob) for p in pieces)) + 8192)
        for piece in pieces:
            collector.add(piece)
    return collector
