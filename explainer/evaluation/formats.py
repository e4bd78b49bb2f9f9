"""Reading qrels and runs in trec_eval's formats, from files, bytes, dicts or ranx objects.

Formats (whitespace-separated fields, one judgment or result per line):

- qrels: ``qid iter docid grade``; ``iter`` is ignored, ``grade`` is an integer.
- run: ``qid Q0 docid rank score tag``; ``Q0`` and ``rank`` are ignored, as trec_eval
  ignores them, and fields after ``tag`` too; ``score`` is a number.

Files may be gzipped (recognised by their first bytes, whatever their name). Blank lines
and lines starting with ``#`` are skipped, as trec_eval 10 skips them.

What trec_eval does, and so what happens here (``trec_eval`` 9.0.x and 10.0 source,
``get_trec_results.c`` and ``form_res_rels.c``):

- A query's results are ordered by score, highest first; equal scores are ordered by
  docid, compared byte by byte, the greater docid first (``comp_sim_docno``:
  ``strcmp(docid2, docid1)``). The rank column plays no part.
- A docid listed twice for one query makes trec_eval stop ("duplicate docs"), in a run
  and in qrels alike; ``pytrec_eval.parse_run`` and ``parse_qrel`` refuse it too. Here
  ``duplicates="error"`` (the default) does the same, with the file and both line
  numbers; ``"first"`` or ``"last"`` keeps one line and counts the others.
- A negative grade means "in the pool but not judged": such a document is neither
  relevant nor non-relevant, and counts as unjudged (``RELVALUE_UNJUDGED``).

Nothing read here is written anywhere, and no error message repeats a docid or a qid:
messages name the source, the line number and what was expected.

Everything is kept in flat numpy arrays (docids as one byte string with offsets, queries
as offsets into the lines), so that ten million results fit in a few hundred megabytes.
"""

from __future__ import annotations

import contextlib
import ctypes
import gzip
import io
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

DUPLICATES = ("error", "first", "last")
"""What to do with a docid listed twice for one query: refuse (as trec_eval does), keep the first line, or the last."""

CHUNK_BYTES = 8 << 20
"""Bytes read and parsed at a time: the loader's memory grows with this, not with the file.

A block's temporaries (field positions, byte matrices, masks) are some ten times its size:
8 MB keeps them under 100 MB (32 MB blocks were no faster and held 120 MB more)."""

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True  # C's isspace, which trec_eval splits fields on
_HASH_PRIME = np.uint64(0x100000001B3)
_HASH_BASIS = np.uint64(0xCBF29CE484222325)

Progress = Callable[[int, int], None]
"""A callback ``progress(done, total)`` in bytes of the source (``total`` 0 when unknown)."""


class InputError(ValueError):
    """Input that cannot be read: says which source, which line, and what was expected there.

    ``source`` names the file (or ``"qrels"``/``"run"`` for data given in memory), ``line``
    is 1-based (``None`` when the problem is not one line's), ``expected`` says what the
    line should hold. The message never repeats a docid or a qid.
    """

    def __init__(self, source: str, line: int | None, expected: str):
        self.source = source
        self.line = line
        self.expected = expected
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {expected}")


# -- the data -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Lines:
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


@dataclass(frozen=True, eq=False)
class Qrels(_Lines):
    """Judgments: for each query, its judged docids and their grades (``grade``, aligned with the lines)."""

    grade: np.ndarray = field(default=None)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """The judgments in pytrec_eval's shape, ``{qid: {docid: grade}}``."""
        out = {}
        for q, qid in enumerate(self.qids):
            a, b = int(self.offsets[q]), int(self.offsets[q + 1])
            out[qid] = dict(zip(self.docids(a, b), self.grade[a:b].tolist(), strict=True))
        return out


@dataclass(frozen=True, eq=False)
class Run(_Lines):
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


# -- public readers -----------------------------------------------------------------


def read_qrels(
    source, *, name: str | None = None, duplicates: str = "error", progress: Progress | None = None
) -> Qrels:
    """Read judgments: a path (plain or gzipped), the file's bytes, a binary or text file object,
    a dict ``{qid: {docid: grade}}`` (pytrec_eval's shape), or a ranx ``Qrels``.

    ``name`` names the source in messages (default: the file name, else ``"qrels"``).
    Raises ``InputError`` for a malformed line or, with ``duplicates="error"``, a docid
    judged twice for one query.
    """
    _check_duplicates(duplicates)
    if _is_ranx(source, "Qrels"):
        source = source.to_dict()
    if isinstance(source, Mapping):
        return _qrels_from_dict(source, name or "qrels", duplicates)
    label, chunks, total = _open(source, name, "qrels", progress)
    with _small_pages():
        return _qrels_from_chunks(label, chunks, total, duplicates)


def read_run(source, *, name: str | None = None, duplicates: str = "error", progress: Progress | None = None) -> Run:
    """Read a run: a path (plain or gzipped), the file's bytes, a binary or text file object,
    a dict ``{qid: {docid: score}}`` (pytrec_eval's shape), or a ranx ``Run``.

    Each query's results are put in trec_eval's order (score descending, ties by docid
    descending). ``name`` names the run (default: the file name, else the run's tag).
    Raises ``InputError`` for a malformed line or, with ``duplicates="error"``, a docid
    listed twice for one query.
    """
    _check_duplicates(duplicates)
    if _is_ranx(source, "Run"):
        name = name or getattr(source, "name", None) or None
        source = source.to_dict()
    if isinstance(source, Mapping):
        return _run_from_dict(source, name or "run", duplicates)
    label, chunks, total = _open(source, name, "run", progress)
    with _small_pages():
        return _run_from_chunks(label, chunks, total, duplicates, name)


@contextlib.contextmanager
def _small_pages():
    """Ask numpy for ordinary pages, not huge ones, while a file is read (or grades looked up); then as before.

    numpy asks Linux for 2 MB pages for every large array. While a run is read, its columns
    fill bit by bit between the blocks' many smaller arrays, and each huge page first touched
    then may wait for the kernel to make 2 MB of memory contiguous: reading ten million lines
    spent 3.7 s in the kernel that way, 0.9 to 1.6 s with ordinary pages, and looking up their
    grades 0.2 to 0.9 s, 0.1 with ordinary pages (measured on the project's 2-core virtual
    machines). The switch is numpy's own (``_set_madvise_hugepage``); where it is missing,
    nothing changes.
    """
    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    switch = getattr(switch, "_set_madvise_hugepage", None)
    previous = switch(False) if switch is not None else None
    try:
        yield
    finally:
        if switch is not None:
            switch(previous)


def _give_back_freed_memory() -> None:
    """Hand the C library's free heap memory back to the system (glibc; elsewhere nothing happens).

    A block's temporaries, and the grouping's, are freed once the lines are grouped, but glibc
    keeps freed memory below its mapping threshold (raised up to 32 MB as arrays come and go) in
    its heap, where the evaluation that follows does not always fit its own. Given back, ten
    million lines peaked at 809 MB instead of 829 to 914. (Mapping every large array on its own
    instead lowered the peak further but cost a third more time in page faults.)
    """
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError, TypeError):
        pass


def _check_duplicates(duplicates) -> None:
    if duplicates not in DUPLICATES:
        raise ValueError(f"duplicates must be one of {', '.join(map(repr, DUPLICATES))}, got {duplicates!r}")


def _is_ranx(obj, cls: str) -> bool:
    kind = type(obj)
    return kind.__name__ == cls and kind.__module__.split(".")[0] == "ranx" and hasattr(obj, "to_dict")


# -- sources -----------------------------------------------------------------------


def _open(source, name: str | None, default: str, progress: Progress | None) -> tuple[str, Iterator, int]:
    """A label for messages, an iterator of (block of whole lines, number of the block's first line),
    and the source's size in bytes (0 when unknown)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        label = name or os.path.basename(path)
        try:
            handle = open(path, "rb")  # closed by _blocks
        except OSError as error:
            raise InputError(label, None, f"cannot be read ({error.strerror or error})") from None
        total = os.fstat(handle.fileno()).st_size
        return label, _blocks(handle, label, total, progress, close=True), total
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = io.BytesIO(bytes(source))
        total = len(raw.getbuffer())
        return name or default, _blocks(raw, name or default, total, progress, close=True), total
    if hasattr(source, "read"):
        label = name or os.path.basename(str(getattr(source, "name", ""))) or default
        first = source.read(0)
        if isinstance(first, str):
            raw = io.BytesIO(source.read().encode("utf-8", "surrogateescape"))
            total = len(raw.getbuffer())
            return label, _blocks(raw, label, total, progress, close=True), total
        return label, _blocks(source, label, 0, progress, close=False), 0
    raise TypeError(
        f"expected a path, bytes, a file object, a dict or a ranx object for the {default}, got {type(source).__name__}"
    )


def _blocks(handle, label: str, total: int, progress: Progress | None, close: bool) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines (each ending in a newline), gunzipped when the data is gzip."""
    raw = handle
    try:
        head = handle.peek(2)[:2] if hasattr(handle, "peek") else b""
        if not head and hasattr(handle, "seekable") and handle.seekable():
            pos = handle.tell()
            head = handle.read(2)
            handle.seek(pos)
        if head == b"\x1f\x8b":
            handle = gzip.GzipFile(fileobj=raw, mode="rb")
        line = 1
        rest = b""
        while True:
            try:
                block = handle.read(CHUNK_BYTES)
            except (OSError, EOFError, gzip.BadGzipFile) as error:
                raise InputError(label, None, f"is not a readable gzip file ({error})") from None
            if progress is not None:
                done = raw.tell() if hasattr(raw, "tell") else 0
                progress(done, total)
            if not block:
                break
            data = rest + block if rest else block
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            whole = data[:cut]
            yield whole, line
            line += whole.count(b"\n")
        if rest:
            yield rest + b"\n", line
    finally:
        if close:
            handle.close()
            if raw is not handle:
                raw.close()


# -- parsing a block of lines ---------------------------------------------------------


@dataclass
class _Fields:
    """One block's lines that hold data: their line numbers and the byte ranges of their fields."""

    buf: np.ndarray
    line_no: np.ndarray  # 1-based line numbers in the source
    starts: np.ndarray  # (n_lines, n_fields) start of each wanted field
    lengths: np.ndarray  # (n_lines, n_fields) byte length of each wanted field


def _split(
    block: bytes, first_line: int, label: str, n_fields: int, exact: bool, wanted: tuple[int, ...], expected: str
) -> _Fields:
    """Find the fields of every line of ``block``; raise ``InputError`` at the first line with the wrong count."""
    buf = np.frombuffer(block, dtype=np.uint8)
    space = _SPACE[buf]
    before = np.empty_like(space)
    before[0] = True
    before[1:] = space[:-1]
    after = np.empty_like(space)
    after[-1] = True
    after[:-1] = space[1:]
    word = ~space
    starts = np.flatnonzero(word & before)
    ends = np.flatnonzero(word & after) + 1
    newlines = np.flatnonzero(buf == 10)
    del space, before, after, word
    line_of = np.searchsorted(newlines, starts)  # the field's line within the block, 0-based
    counts = np.bincount(line_of, minlength=len(newlines))
    first_field = np.zeros(len(newlines), dtype=np.int64)
    np.cumsum(counts[:-1], out=first_field[1:])
    has_data = counts > 0
    comment = np.zeros(len(newlines), dtype=bool)
    comment[has_data] = buf[starts[first_field[has_data]]] == ord("#")
    data_lines = np.flatnonzero(has_data & ~comment)
    bad = counts[data_lines] != n_fields if exact else counts[data_lines] < n_fields
    if bad.any():
        i = int(data_lines[np.argmax(bad)])
        raise InputError(label, first_line + i, f"expected {expected}, found {int(counts[i])} fields")
    first = first_field[data_lines]
    picks = first[:, None] + np.asarray(wanted, dtype=np.int64)[None, :]
    return _Fields(
        buf=buf,
        line_no=first_line + data_lines,
        starts=starts[picks],
        lengths=(ends[picks] - starts[picks]),
    )


def _matrix(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The fields as rows of a (n, width) byte matrix, zero-padded: ``.view(f"S{width}")`` gives strings."""
    width = max(int(lengths.max()) if len(lengths) else 1, 1)
    if len(starts) and int(starts.max()) + width > len(buf):
        buf = np.concatenate([buf, np.zeros(width, dtype=np.uint8)])
    windows = np.lib.stride_tricks.as_strided(buf, shape=(len(buf) - width + 1, width), strides=(1, 1))
    out = windows[starts]  # one copy of each field's bytes, and what follows them
    out[np.arange(width)[None, :] >= lengths[:, None]] = 0
    return out


def _hash_ranges(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte range ``buf[start:start + length]``, read eight bytes at a time.

    Each step folds one little-endian word (the bytes past the range masked off) into the hash,
    so a docid of up to 8 bytes costs one gather and a few operations for all lines at once;
    a splitmix64 finaliser spreads the bits. The length is mixed in, so that trailing zero
    bytes still count. Every reader uses this one function: qrels and runs must agree.
    """
    n = len(starts)
    h = np.full(n, _HASH_BASIS, dtype=np.uint64) ^ lengths.astype(np.uint64)
    if not n:
        return h
    n_words = -(-int(lengths.max()) // 8)
    if int(starts.max()) + 8 * n_words > len(buf):
        buf = np.concatenate([buf, np.zeros(8 * n_words, dtype=np.uint8)])
    windows = np.lib.stride_tricks.as_strided(buf, shape=(len(buf) - 7, 8), strides=(1, 1))
    with np.errstate(over="ignore"):
        for w in range(n_words):
            word = windows[starts + 8 * w].view("<u8").ravel()
            left = lengths - 8 * w  # how many of the word's bytes belong to the range
            if int(left.min()) < 8:
                shift = (8 * np.clip(left, 0, 7)).astype(np.uint64)
                mask = np.where(left >= 8, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << shift) - np.uint64(1))
                word &= mask
            h = (h ^ word) * _HASH_PRIME
            h ^= h >> np.uint64(29)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return h


def _strings(matrix: np.ndarray) -> np.ndarray:
    """The rows of a byte matrix as a numpy bytes array (trailing zero bytes are padding)."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel()


def _numbers(matrix: np.ndarray, line_no: np.ndarray, label: str, kind: type, expected: str) -> np.ndarray:
    """Parse each row as a number; ``InputError`` at the first row that is not one."""
    values = _decimals(matrix, kind)
    if values is not None:
        return values
    text = _strings(matrix)
    try:
        values = text.astype(np.float64 if kind is float else np.int64)
    except (ValueError, OverflowError):
        for i, t in enumerate(text.tolist()):
            try:
                kind(t.decode("ascii"))
            except (ValueError, UnicodeDecodeError, OverflowError):
                raise InputError(label, int(line_no[i]), f"expected {expected}, found {_shown(t)}") from None
        raise  # pragma: no cover - numpy refused what Python accepts
    if kind is float and np.isnan(values).any():
        i = int(np.argmax(np.isnan(values)))
        raise InputError(label, int(line_no[i]), f"expected {expected}, found {_shown(text[i])}")
    return values


def _decimals(matrix: np.ndarray, kind: type) -> np.ndarray | None:
    """Plain decimals (``-12.345``, at most 15 digits) parsed in bulk; None for anything else.

    The digits make an integer below 2^53 and the point a power of ten up to 10^15, both
    exact in a double, and IEEE division rounds their quotient correctly: the same double
    as C's ``strtod`` (trec_eval's ``atof``) or Python's ``float``.
    """
    n, width = matrix.shape
    if n == 0 or width > 17:
        return None
    negative = matrix[:, 0] == ord("-")
    mantissa = np.zeros(n, dtype=np.int64)
    after_point = np.zeros(n, dtype=np.int64)
    seen_point = np.zeros(n, dtype=bool)
    digits = np.zeros(n, dtype=np.int64)
    for j in range(width):
        c = matrix[:, j]
        is_digit = (c >= 48) & (c <= 57)
        is_point = c == 46
        ok = is_digit | is_point | (c == 0) | ((j == 0) & negative)
        if not ok.all() or (is_point & seen_point).any():
            return None
        if kind is int and is_point.any():
            return None
        mantissa = np.where(is_digit, mantissa * 10 + (c.astype(np.int64) - 48), mantissa)
        digits += is_digit
        after_point += is_digit & seen_point
        seen_point |= is_point
        if j and ((c != 0) & (matrix[:, j - 1] == 0)).any():
            return None  # a gap inside the field cannot happen; be safe
    if (digits == 0).any() or (digits > 15).any():
        return None
    if kind is int:
        return np.where(negative, -mantissa, mantissa)
    values = mantissa.astype(np.float64) / (10.0**after_point)
    return np.where(negative, -values, values)  # -0 stays -0.0, as strtod gives it


def _shown(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 24 else text[:21] + "...")


@dataclass
class _Parsed:
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


def _query_runs(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    """Where the qid changes (line indices, the first line included) and the qids there, as bytes."""
    n = len(starts)
    change = np.ones(n, dtype=bool)
    if n > 1:
        width = int(lengths[0])
        if (lengths == width).all() and (np.diff(starts) == width).all():  # one qid after another: no copy
            q = buf[int(starts[0]) : int(starts[0]) + n * width].reshape(n, width)
            change[1:] = False
        else:
            q = _matrix(buf, starts, lengths)  # zero-padded, so lengths must be compared too
            change[1:] = lengths[1:] != lengths[:-1]
        change[1:] |= (q[1:] != q[:-1]).any(axis=1)
    heads = np.flatnonzero(change)
    names = [
        buf[a : a + size].tobytes() for a, size in zip(starts[heads].tolist(), lengths[heads].tolist(), strict=True)
    ]
    return heads, names


def _parse_lines(fields: _Fields, values: np.ndarray, qid_col: int, doc_col: int, tag: str = "") -> _Parsed:
    buf = fields.buf
    heads, names = _query_runs(buf, fields.starts[:, qid_col], fields.lengths[:, qid_col])
    run_lengths = np.diff(np.append(heads, len(fields.starts)))
    d_len = fields.lengths[:, doc_col]
    d = _matrix(buf, fields.starts[:, doc_col], d_len)
    d_hash = _hash_ranges(buf, fields.starts[:, doc_col], d_len)
    blob = d[np.arange(d.shape[1])[None, :] < d_len[:, None]]
    contiguous = fields.line_no[-1] - fields.line_no[0] == len(fields.line_no) - 1
    return _Parsed(
        first_line=int(fields.line_no[0]),
        line_no=None if contiguous else fields.line_no,
        heads=names,
        run_lengths=run_lengths,
        doc_hash=d_hash,
        doc_len=d_len.astype(np.int32),
        doc_start=np.cumsum(d_len) - d_len,
        blob=blob,
        values=values,
        tag=tag,
    )


def _read_plain(block: bytes, n_fields: int, number_col: int | None = None) -> list[list] | None:
    """The common case, read by one compiled pass: every line holds ``n_fields`` fields, one space apart.

    pyarrow's CSV reader splits the block (pieces of it on each core) and parses column
    ``number_col`` as doubles: the same double as strtod, correctly rounded (it refuses more
    forms than strtod, never fewer). The numpy passes of ``_split`` cost three times as much.
    Returns the pieces, each a list of its columns (binary, but ``number_col``), lines in
    order; or None when the block holds anything else: tabs and other whitespace, runs of
    spaces, blank or comment lines, carriage returns, more fields, a number it does not take,
    NaN. The exact reader then reads the block, and says which line is wrong.
    """
    import pyarrow as pa
    from pyarrow import csv

    if any(c in block for c in (b"\t", b"\r", b"\x0b", b"\x0c", b"#")) or block.startswith(b"\xef\xbb\xbf"):
        return None  # (pyarrow would drop a byte-order mark, which trec_eval keeps as part of the qid)
    names = [str(j) for j in range(n_fields)]
    types = {name: pa.float64() if j == number_col else pa.binary() for j, name in enumerate(names)}
    try:
        table = csv.read_csv(
            pa.py_buffer(block),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(
                delimiter=" ", quote_char=False, escape_char=False, newlines_in_values=False, ignore_empty_lines=False
            ),
            convert_options=csv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False),
            # the C library's heap, which _give_back_freed_memory trims (pyarrow's own pool would
            # keep the blocks' freed buffers to itself)
            memory_pool=pa.system_memory_pool(),
        )
    except pa.ArrowInvalid:
        return None
    pieces = [[column.chunk(c) for column in table.columns] for c in range(table.column(0).num_chunks)]
    pieces = [columns for columns in pieces if len(columns[0])]
    for columns in pieces:
        for j, column in enumerate(columns):
            if column.null_count:
                return None
            if j == number_col:
                if np.isnan(_double_values(column)).any():
                    return None
            elif not _binary_parts(column)[2].all():
                return None  # an empty field: a space doubled, or at a line's start or end
    return pieces


def _binary_parts(column) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pyarrow binary column as numpy views, no copies: its bytes, each value's start and length."""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    return data, offsets[:-1], np.diff(offsets)


def _double_values(column) -> np.ndarray:
    """A pyarrow double column without nulls as a numpy view (its ``to_numpy`` imports pandas: 0.6 s)."""
    return np.frombuffer(column.buffers()[1], dtype=np.float64)[column.offset : column.offset + len(column)]


def _parse_plain(columns: list, first_line: int, values: np.ndarray, tag: str = "") -> _Parsed:
    """What ``_parse_lines`` makes of a block, from the columns of ``_read_plain`` (qid first, docid third)."""
    heads, names = _query_runs(*_binary_parts(columns[0]))
    data, starts, lengths = _binary_parts(columns[2])
    return _Parsed(
        first_line=first_line,
        line_no=None,
        heads=names,
        run_lengths=np.diff(np.append(heads, len(starts))),
        doc_hash=_hash_ranges(data, starts, lengths),
        doc_len=lengths,
        doc_start=starts - starts[0],
        blob=data[int(starts[0]) : int(starts[-1]) + int(lengths[-1])],
        values=values,
        tag=tag,
    )


_COLUMN_TYPES = {"qcode": np.int32, "hash": np.uint64, "len": np.int32, "start": np.int64, "blob": np.uint8}


class _Collector:
    """Parsed blocks, joined in order: qid per line (as codes in first-seen order), docid bytes and hashes.

    Each column is one array, filled block by block and grown by half when full. Joining the
    blocks' arrays at the end instead wrote the whole run a second time, into fresh memory,
    whose first touch is slow on the project's virtual machines (for ten million lines, over
    a second of system time). ``reserve`` sizes the arrays from an estimate first; room never
    written to is never touched, so it costs no memory.
    """

    def __init__(self):
        self.qid_code: dict[bytes, int] = {}
        self.columns: dict[str, np.ndarray] = {}
        self.size = 0
        self.blob_size = 0
        self.line_blocks: list[tuple[int, int, np.ndarray | None]] = []  # (first index, first line, numbers)
        self.tag = ""

    def reserve(self, parsed: _Parsed, lines: int, blob_bytes: int) -> None:
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
    def _parts(parsed: _Parsed, qcode: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
        return (
            ("qcode", qcode),
            ("hash", parsed.doc_hash),
            ("len", parsed.doc_len),
            ("start", parsed.doc_start),
            ("blob", parsed.blob),
            ("value", parsed.values),
        )

    def add(self, parsed: _Parsed) -> None:
        codes = np.fromiter(
            (self.qid_code.setdefault(name, len(self.qid_code)) for name in parsed.heads),
            dtype=np.int32,
            count=len(parsed.heads),
        )
        n, n_bytes = len(parsed), len(parsed.blob)
        lines = self.size + n
        blob_bytes = self.blob_size + n_bytes
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


def _parse_all(chunks, parse, total: int) -> _Collector:
    """Parse every block with ``parse(block, first_line)`` and join them in order.

    ``parse`` gives one ``_Parsed``, a list of them (the block's pieces, in order), or None
    for a block without data. ``total`` is the source's size in bytes (0 when unknown): the
    first block tells how many lines and docid bytes so many bytes hold.
    """
    collector = _Collector()
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


def _qrels_from_chunks(label: str, chunks, total: int, duplicates: str) -> Qrels:
    expected = "an integer grade in the 4th field"

    def parse(block: bytes, first_line: int) -> list[_Parsed] | _Parsed | None:
        pieces = _read_plain(block, 4)
        if pieces is not None:
            parsed = []
            for columns in pieces:  # grades as the exact reader parses them (pyarrow takes 0x10 as 16)
                data, starts, lengths = _binary_parts(columns[3])
                line_no = first_line + np.arange(len(starts))
                grades = _numbers(_matrix(data, starts, lengths), line_no, label, int, expected)
                parsed.append(_parse_plain(columns, first_line, grades))
                first_line += len(starts)
            return parsed
        fields = _split(block, first_line, label, 4, True, (0, 2, 3), "4 fields: qid iter docid grade")
        if not len(fields.line_no):
            return None
        grades = _numbers(
            _matrix(fields.buf, fields.starts[:, 2], fields.lengths[:, 2]), fields.line_no, label, int, expected
        )
        return _parse_lines(fields, grades, 0, 1)

    lines = _group(label, _parse_all(chunks, parse, total), duplicates, by_score=False)
    return Qrels(**lines["common"], grade=lines["value"])


def _run_from_chunks(label: str, chunks, total: int, duplicates: str, name: str | None) -> Run:
    def parse(block: bytes, first_line: int) -> list[_Parsed] | _Parsed | None:
        pieces = _read_plain(block, 6, number_col=4)
        if pieces is not None:
            parsed = []
            for columns in pieces:
                data, starts, lengths = _binary_parts(columns[5])
                tag = data[int(starts[-1]) : int(starts[-1]) + int(lengths[-1])].tobytes().decode("utf-8", "replace")
                parsed.append(_parse_plain(columns, first_line, _double_values(columns[4]), tag=tag))
                first_line += len(columns[0])
            return parsed
        fields = _split(block, first_line, label, 6, False, (0, 2, 4, 5), "6 fields: qid Q0 docid rank score tag")
        if not len(fields.line_no):
            return None
        scores = _numbers(
            _matrix(fields.buf, fields.starts[:, 2], fields.lengths[:, 2]),
            fields.line_no,
            label,
            float,
            "a number as the score in the 5th field",
        )
        s, n = int(fields.starts[-1, 3]), int(fields.lengths[-1, 3])
        return _parse_lines(fields, scores, 0, 1, tag=bytes(fields.buf[s : s + n]).decode("utf-8", "replace"))

    collector = _parse_all(chunks, parse, total)
    tag = collector.tag  # trec_eval keeps the last line's
    lines = _group(label, collector, duplicates, by_score=True)
    return Run(**lines["common"], score=lines["value"], name=name or tag or label)


# -- from dicts -------------------------------------------------------------------------


def _from_dict(data: Mapping, label: str, what: str, check) -> _Collector:
    """Turn ``{qid: {docid: value}}`` into one parsed block, as if it were a file in dict order."""
    collector = _Collector()
    qids, docids, values = [], [], []
    for qid, docs in data.items():
        if not isinstance(qid, str):
            raise InputError(label, None, f"expected query ids as strings, found a {type(qid).__name__}")
        if not isinstance(docs, Mapping):
            raise InputError(label, None, f"expected a dict of docid to {what} for each query")
        for docid, value in docs.items():
            if not isinstance(docid, str):
                raise InputError(label, None, f"expected docids as strings, found a {type(docid).__name__}")
            values.append(check(value))
            qids.append(qid)
            docids.append(docid)
    for text in (*data.keys(), *docids):
        if not text or any(c.isspace() for c in text):
            raise InputError(label, None, "expected ids that are not empty and hold no whitespace")
    for qid in data if what == "score" else ():
        # A run's query given with no results still exists, as in pytrec_eval (which evaluates
        # it, all zeros); a query with no judgments does not (pytrec_eval skips it).
        collector.qid_code.setdefault(qid.encode("utf-8", "surrogateescape"), len(collector.qid_code))
    if not values:
        return collector
    encoded_q = [q.encode("utf-8", "surrogateescape") for q in qids]
    encoded_d = [d.encode("utf-8", "surrogateescape") for d in docids]
    text = b"".join(q + b" " + d + b"\n" for q, d in zip(encoded_q, encoded_d, strict=True))
    fields = _split(text, 1, label, 2, True, (0, 1), "2 fields")
    kind = np.float64 if what == "score" else np.int64
    collector.add(_parse_lines(fields, np.asarray(values, dtype=kind), 0, 1))
    return collector


def _check_grade(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError("qrels", None, f"expected integer grades, found {value!r}")
    return int(value)


def _check_score(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value != value:
        raise InputError("run", None, f"expected numbers as scores, found {value!r}")
    return float(value)


def _qrels_from_dict(data: Mapping, label: str, duplicates: str) -> Qrels:
    lines = _group(label, _from_dict(data, label, "grade", _check_grade), duplicates, by_score=False)
    return Qrels(**lines["common"], grade=lines["value"])


def _run_from_dict(data: Mapping, label: str, duplicates: str) -> Run:
    lines = _group(label, _from_dict(data, label, "score", _check_score), duplicates, by_score=True)
    return Run(**lines["common"], score=lines["value"], name=label)


# -- grouping, duplicates and trec_eval's order --------------------------------------------


def _mix(qcode: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """One 64-bit key per (query, docid)."""
    with np.errstate(over="ignore"):
        return doc_hash ^ (qcode.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _group(label: str, collector: _Collector, duplicates: str, by_score: bool) -> dict:
    """Sort lines into queries (trec_eval's order), handle duplicates, order each query's results."""
    qcode = collector.take("qcode", np.int32)
    doc_hash = collector.take("hash", np.uint64)
    doc_len = collector.take("len", np.int32)
    doc_start = collector.take("start", np.int64)
    blob = collector.take("blob", np.uint8)
    value = collector.take("value", np.float64 if by_score else np.int64)
    n_read = len(qcode)

    # Duplicates: the same docid twice for one query (hash first, then the bytes themselves).
    dropped = np.zeros(0, dtype=np.int64)
    pairs: list[tuple[int, int]] = []
    if n_read:
        ordered = _mix(qcode, doc_hash)
        ordered.sort()  # in place: one array of keys, not two
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        del ordered
        maybe = np.flatnonzero(np.isin(_mix(qcode, doc_hash), repeated)) if len(repeated) else repeated
        if len(maybe):
            groups: dict[tuple, list[int]] = {}
            for i in maybe.tolist():
                s, n = int(doc_start[i]), int(doc_len[i])
                groups.setdefault((int(qcode[i]), bytes(blob[s : s + n])), []).append(i)
            repeats = [sorted(g) for g in groups.values() if len(g) > 1]
            repeats.sort()
            pairs = [(collector.line_of(g[0]), collector.line_of(g[1])) for g in repeats]
            if repeats and duplicates == "error":
                first, second = pairs[0]
                what = "result" if by_score else "judgment"
                raise InputError(
                    label,
                    second,
                    f"a docid listed twice for one query (line {first} has the same {what}); trec_eval refuses "
                    f"such input ('duplicate docs'); keep one with duplicates='first' or 'last' "
                    f"({len(repeats)} such docid{'s' if len(repeats) > 1 else ''} in all)",
                )
            drop = [i for g in repeats for i in (g[1:] if duplicates == "first" else g[:-1])]
            dropped = np.asarray(sorted(drop), dtype=np.int64)

    # Queries in trec_eval's order: qids sorted byte by byte.
    names = sorted(collector.qid_code, key=lambda raw: raw)
    rank_of_code = np.empty(len(names), dtype=np.int32)
    for rank, raw in enumerate(names):
        rank_of_code[collector.qid_code[raw]] = rank
    qrank = rank_of_code[qcode] if len(qcode) else qcode
    if len(dropped):
        keep = np.ones(n_read, dtype=bool)
        keep[dropped] = False
        qrank, value, doc_hash, doc_start, doc_len = (a[keep] for a in (qrank, value, doc_hash, doc_start, doc_len))

    order = _order(qrank, value if by_score else None)
    if order is not None:
        qrank, value, doc_hash, doc_start, doc_len = (a[order] for a in (qrank, value, doc_hash, doc_start, doc_len))
    if by_score:
        ties = _break_ties(qrank, value, doc_start, doc_len, blob)
        if ties is not None:
            members, moved = ties
            for a in (value, doc_hash, doc_start, doc_len):
                a[members] = a[moved]
    offsets = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(qrank, minlength=len(names)), out=offsets[1:])
    del qrank
    _give_back_freed_memory()
    common = dict(
        source=label,
        qids=tuple(raw.decode("utf-8", "surrogateescape") for raw in names),
        offsets=offsets,
        doc_hash=doc_hash,
        doc_start=doc_start,
        doc_len=doc_len,
        blob=blob,
        n_lines_read=n_read,
        n_duplicates=len(dropped),
        duplicate_lines=tuple(pairs),
    )
    return {"common": common, "value": value}


def _order(qrank: np.ndarray, score: np.ndarray | None) -> np.ndarray | None:
    """The permutation that groups lines by query (and sorts each by score, descending); None if already so."""
    if len(qrank) < 2:
        return None
    step = np.diff(qrank)
    if score is None:
        if (step >= 0).all():
            return None
        return np.argsort(qrank, kind="stable")
    if ((step > 0) | ((step == 0) & (np.diff(score) <= 0))).all():
        return None
    return np.lexsort((-score, qrank))


def _break_ties(qrank, score, doc_start, doc_len, blob) -> tuple[np.ndarray, np.ndarray] | None:
    """Order equal scores of a query by docid, the greater first, as trec_eval does; None if no ties.

    Returns ``(members, moved)``: the lines in ties, and which line each of their places takes.
    """
    if len(score) < 2:
        return None
    tied_next = (qrank[1:] == qrank[:-1]) & (score[1:] == score[:-1])
    if not tied_next.any():
        return None
    in_tie = np.zeros(len(score), dtype=bool)
    in_tie[:-1] |= tied_next
    in_tie[1:] |= tied_next
    members = np.flatnonzero(in_tie)
    starts_group = np.ones(len(members), dtype=bool)
    starts_group[1:] = ~tied_next[members[1:] - 1]
    group = np.cumsum(starts_group)
    lengths = doc_len[members]
    width = int(lengths.max())
    matrix = np.zeros((len(members), max(width, 8)), dtype=np.uint8)
    for j in range(width):
        inside = lengths > j
        matrix[inside, j] = blob[doc_start[members[inside]] + j]
    if width <= 8:  # each docid, zero-padded, as a big-endian number: ordered as its bytes are
        descending = ~matrix.view(">u8").ravel()
    else:
        _, rank = np.unique(_strings(matrix), return_inverse=True)
        descending = -rank.ravel()
    within = np.lexsort((descending, group))  # groups stay in place, members by docid descending
    return members, members[within]
