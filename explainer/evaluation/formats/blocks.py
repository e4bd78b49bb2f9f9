"""A source (a path, standard input, bytes, a file object) read as blocks of whole lines, gunzipped when gzip."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator

import numpy as np

from explainer.evaluation.formats import limits
from explainer.evaluation.formats.compressed import Gunzipped, is_gzip
from explainer.evaluation.formats.errors import InputError

CHUNK_BYTES = 8 << 20
"""Bytes read and parsed at a time: the loader's memory grows with this, not with the file.

A block's temporaries (field positions, byte matrices, masks) are some ten times its size:
8 MB keeps them under 100 MB (32 MB blocks were no faster and held 120 MB more)."""

STDIN = "-"
"""The path that means standard input, as for most command-line tools."""

BOM = b"\xef\xbb\xbf"

Progress = Callable[[int, int], None]
"""A callback ``progress(done, total)`` in bytes of the source (``total`` 0 when unknown)."""


def open_source(
    source, name: str | None, default: str, progress: Progress | None, unpack_limit: int | None = None
) -> tuple[str, Iterator, int]:
    """A label for messages, an iterator of (block of whole lines, number of the block's first line),
    and the source's size in bytes (0 when unknown)."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) == STDIN:
        return name or "standard input", blocks(sys.stdin.buffer, name or "standard input", 0, progress, False), 0
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        label = name or os.path.basename(path)
        try:
            handle = open(path, "rb")  # closed by blocks
        except OSError as error:
            raise InputError(label, None, f"cannot be read ({error.strerror or error})") from None
        total = os.fstat(handle.fileno()).st_size
        return label, blocks(handle, label, total, progress, True, unpack_limit), total
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = io.BytesIO(bytes(source))
        total = len(raw.getbuffer())
        return name or default, blocks(raw, name or default, total, progress, True, unpack_limit), total
    if hasattr(source, "read"):
        label = name or os.path.basename(str(getattr(source, "name", ""))) or default
        first = source.read(0)
        if isinstance(first, str):
            raw = io.BytesIO(source.read().encode("utf-8", "surrogateescape"))
            total = len(raw.getbuffer())
            return label, blocks(raw, label, total, progress, True, unpack_limit), total
        return label, blocks(source, label, 0, progress, False, unpack_limit), 0
    raise TypeError(
        f"expected a path, bytes, a file object, a dict or a ranx object for the {default}, got {type(source).__name__}"
    )


def _head(handle) -> tuple[bytes, object]:
    """The source's first two bytes, and a handle that still reads them (wrapped when it cannot peek or seek)."""
    if hasattr(handle, "peek"):
        return handle.peek(2)[:2], handle
    if getattr(handle, "seekable", lambda: False)():
        pos = handle.tell()
        head = handle.read(2)
        handle.seek(pos)
        return head, handle
    buffered = io.BufferedReader(handle) if isinstance(handle, io.RawIOBase) else _Prefixed(handle)
    return buffered.peek(2)[:2], buffered


class _Prefixed:
    """A file object that cannot peek, given a peek: its first bytes are read once and handed out first."""

    def __init__(self, handle):
        self.handle = handle
        self.first = b""

    def peek(self, n: int) -> bytes:
        while len(self.first) < n:
            more = self.handle.read(n - len(self.first))
            if not more:
                break
            self.first += more
        return self.first

    def read(self, n: int) -> bytes:
        if self.first:
            out, self.first = self.first[:n], self.first[n:]
            return out + (self.handle.read(n - len(out)) if len(out) < n else b"")
        return self.handle.read(n)

    def tell(self) -> int:
        return self.handle.tell()

    def close(self) -> None:
        self.handle.close()


def _position(handle) -> int:
    try:
        return handle.tell()
    except (AttributeError, OSError):  # a pipe: no position
        return 0


def _newlines(block: bytes) -> int:
    """How many newlines ``block`` holds (numpy counts them a few times faster than ``bytes.count``)."""
    return int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == 10))


def blocks(
    handle, label: str, total: int, progress: Progress | None, close: bool, unpack_limit: int | None = None
) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines (each ending in a newline), gunzipped when the data is gzip.

    Refuses, naming the line, a line longer than ``limits.MAX_LINE_BYTES`` (so that an input
    without newlines stops there) and a byte-order mark (trec_eval would read it as part of
    the first qid, which then matches no judgment).
    """
    raw = handle
    try:
        head, raw = _head(handle)
        handle = Gunzipped(raw, label, unpack_limit) if is_gzip(head) else raw
        line = 1
        rest = b""
        while True:
            try:
                block = handle.read(CHUNK_BYTES)
            except (OSError, EOFError) as error:
                raise InputError(label, None, f"cannot be read ({getattr(error, 'strerror', None) or error})") from None
            if progress is not None:
                progress(_position(raw), total)
            if not block:
                break
            if line == 1 and not rest and block.startswith(BOM):
                raise InputError(label, 1, "starts with a byte-order mark, which trec_eval reads as part of the qid")
            data = rest + block if rest else block
            cut = data.rfind(b"\n") + 1
            first_end = data.find(b"\n") if rest else 0
            if (cut == 0 and len(data) > limits.MAX_LINE_BYTES) or first_end > limits.MAX_LINE_BYTES:
                raise InputError(
                    label, line, f"expected lines of at most {limits.MAX_LINE_BYTES >> 20} MB; this one is longer"
                )
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            whole = data[:cut]
            yield whole, line
            line += _newlines(whole)
        if rest:
            yield rest + b"\n", line
    finally:
        if close:
            handle.close()
            if raw is not handle:
                raw.close()
