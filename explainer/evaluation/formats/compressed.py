"""Gzip input, read the same way by the page and the command line: one layer, every member, within a size.

Every member is read, as ``gunzip`` and ``zcat`` read them: ``cat a.gz b.gz > both.gz`` is a
valid gzip file that holds both, and reading only the first member would drop the second's
lines without a word (wrong numbers). A second layer (gzip inside gzip) is refused, not
unpacked: it is how a small file grows to gigabytes, and no tool writes runs that way.
"""

from __future__ import annotations

import zlib

from explainer.evaluation.formats.errors import InputError

MAGIC = b"\x1f\x8b"
"""The first two bytes of every gzip member."""

_READ = 1 << 20


def is_gzip(head: bytes) -> bool:
    return head[:2] == MAGIC


class Gunzipped:
    """A gzip stream's content, read in pieces: ``read(n)`` as a binary file's, ``tell()`` the packed bytes read.

    ``limit`` (None: any size) is the most it may unpack to; past it, past the end of the
    packed data, and on a second gzip layer, ``read`` raises ``InputError`` for ``label``.
    """

    def __init__(self, raw, label: str, limit: int | None = None):
        self.raw = raw
        self.label = label
        self.limit = limit
        self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.pending = b""  # packed bytes not yet given to the inflater
        self.unpacked = 0
        self.head = b""  # the content's first bytes, until there are two
        self.ended = False

    def tell(self) -> int:
        try:
            return self.raw.tell()
        except (AttributeError, OSError):
            return 0

    def close(self) -> None:
        self.raw.close()

    def read(self, n: int) -> bytes:
        out = []
        size = 0
        while size < n and not self.ended:
            if not self.pending:
                self.pending = self.raw.read(_READ)
                if not self.pending:
                    self._end()
                    break
            if self.inflate.eof:  # a member ended: what follows must be another, or zeros
                self.pending = self.pending.lstrip(b"\x00")
                if not self.pending:
                    continue
                if len(self.pending) < 2:
                    self.pending += self.raw.read(_READ)
                if not is_gzip(self.pending):
                    raise InputError(self.label, None, "holds bytes after its gzip data that are not gzip")
                self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                piece = self.inflate.decompress(self.pending, n - size)
            except zlib.error:
                raise InputError(self.label, None, "is not a readable gzip file") from None
            self.pending = self.inflate.unused_data if self.inflate.eof else self.inflate.unconsumed_tail
            if not piece:
                continue
            self._check(piece)
            out.append(piece)
            size += len(piece)
        return b"".join(out)

    def _end(self) -> None:
        self.ended = True
        if not self.inflate.eof:
            raise InputError(self.label, None, "is not a readable gzip file (it ends before its gzip data does)")

    def _check(self, piece: bytes) -> None:
        if len(self.head) < 2:
            self.head += piece[: 2 - len(self.head)]
            if len(self.head) >= 2 and is_gzip(self.head):
                raise InputError(
                    self.label,
                    None,
                    "is gzip inside gzip; only one layer is unpacked: gunzip it once, then read the result",
                )
        self.unpacked += len(piece)
        if self.limit is not None and self.unpacked > self.limit:
            raise InputError(self.label, None, f"unpacks to more than the {self.limit >> 20} MB a file may have")


def gunzip(label: str, raw: bytes, limit: int | None = None) -> bytes:
    """The bytes of a file, gunzipped when they are gzip (by their first bytes, whatever the name)."""
    if not is_gzip(raw):
        return raw
    import io

    stream = Gunzipped(io.BytesIO(raw), label, limit)
    pieces = []
    while piece := stream.read(8 << 20):
        pieces.append(piece)
    return b"".join(pieces)
