"""The fields of a block of lines, found and hashed at a cost that grows with their bytes, never lines times the longest."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explainer.evaluation.formats.errors import InputError

_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True  # C's isspace, which trec_eval splits fields on
_HASH_PRIME = np.uint64(0x100000001B3)
_HASH_BASIS = np.uint64(0xCBF29CE484222325)

NARROW = 32
"""Fields up to this many bytes may be laid out as rows of a byte matrix (lines x the longest):
the matrix then costs at most this many bytes a line. Longer ones are handled field by field."""


@dataclass
class Fields:
    """One block's lines that hold data: their line numbers and the byte ranges of their fields."""

    buf: np.ndarray
    line_no: np.ndarray  # 1-based line numbers in the source
    starts: np.ndarray  # (n_lines, n_fields) start of each wanted field
    lengths: np.ndarray  # (n_lines, n_fields) byte length of each wanted field


def split(
    block: bytes, first_line: int, label: str, n_fields: int, exact: bool, wanted: tuple[int, ...], expected: str
) -> Fields:
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
    return Fields(
        buf=buf,
        line_no=first_line + data_lines,
        starts=starts[picks],
        lengths=(ends[picks] - starts[picks]),
    )


def matrix(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The fields as rows of a (n, width) byte matrix, zero-padded: ``.view(f"S{width}")`` gives strings.

    It costs lines times the longest field: callers keep it to fields of at most ``NARROW`` bytes.
    """
    width = max(int(lengths.max()) if len(lengths) else 1, 1)
    if len(starts) and int(starts.max()) + width > len(buf):
        buf = np.concatenate([buf, np.zeros(width, dtype=np.uint8)])
    windows = np.lib.stride_tricks.as_strided(buf, shape=(len(buf) - width + 1, width), strides=(1, 1))
    out = windows[starts]  # one copy of each field's bytes, and what follows them
    out[np.arange(width)[None, :] >= lengths[:, None]] = 0
    return out


def gather(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The byte ranges ``buf[start:start + length]`` one after the other, in one array (a cost per byte)."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.uint8)
    placed = np.cumsum(lengths) - lengths  # where each range starts in the result
    index = np.repeat(starts.astype(np.int64) - placed, lengths) + np.arange(total, dtype=np.int64)
    return buf[index]


def hash_ranges(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte range ``buf[start:start + length]``, read eight bytes at a time.

    Each step folds one little-endian word (the bytes past the range masked off) into the hash
    of every range that still has bytes, so the cost is the ranges' words, not their number
    times the longest; and a range's hash depends on its own bytes only, whatever the others
    around it. A splitmix64 finaliser spreads the bits. The length is mixed in, so that
    trailing zero bytes still count. Every reader uses this one function: qrels and runs must agree.
    """
    n = len(starts)
    h = np.full(n, _HASH_BASIS, dtype=np.uint64) ^ lengths.astype(np.uint64)
    if not n:
        return h
    words = (lengths.astype(np.int64) + 7) // 8
    n_words = int(words.max())
    if int((starts + 8 * words).max()) + 8 > len(buf):
        buf = np.concatenate([buf, np.zeros(8, dtype=np.uint8)])
    windows = np.lib.stride_tricks.as_strided(buf, shape=(len(buf) - 7, 8), strides=(1, 1))
    # The ranges in order of their words, most first: the ranges still hashed at step w are a prefix.
    if int(words.min()) == n_words:
        order, still = None, np.full(n_words, n)
    else:
        key = -words.astype(np.int16) if n_words < 1 << 15 else -words  # small ints: numpy's radix sort
        order = np.argsort(key, kind="stable")
        still = np.searchsorted(-words[order], -np.arange(n_words), side="left")  # ranges with more than w words
        starts, lengths, h = starts[order], lengths[order], h[order]
    starts = starts.astype(np.int64)
    lengths = lengths.astype(np.int64)
    with np.errstate(over="ignore"):
        for w in range(n_words):
            m = int(still[w])
            if m <= _FEW and n_words - w > 1:
                _hash_tail(h, buf, starts[:m], lengths[:m], w)
                break
            part = h[:m]  # a view: the steps below change h in place
            word = windows[starts[:m] + 8 * w].view("<u8").ravel()
            left = lengths[:m] - 8 * w  # how many of the word's bytes belong to the range
            if int(left.min()) < 8:
                shift = (8 * np.clip(left, 0, 7)).astype(np.uint64)
                mask = np.where(left >= 8, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << shift) - np.uint64(1))
                word &= mask
            part ^= word
            part *= _HASH_PRIME
            part ^= part >> np.uint64(29)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    if order is None:
        return h
    out = np.empty_like(h)
    out[order] = h
    return out


_FEW = 8
"""When this few ranges are left to hash, their remaining words are folded in plain Python: a numpy
step costs some 50 microseconds whatever its size, a Python one for one word well under one."""


def _hash_tail(h: np.ndarray, buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, w: int) -> None:
    """The steps of ``hash_ranges`` from word ``w`` on, for a few ranges, in Python (the same arithmetic)."""
    full = (1 << 64) - 1
    prime = int(_HASH_PRIME)
    for i, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        rest = buf[s + 8 * w : s + n].tobytes()
        rest += bytes(-len(rest) % 8)  # the bytes past the range count as zeros, as the mask makes them
        value = int(h[i])
        for word in np.frombuffer(rest, dtype="<u8").tolist():
            value = ((value ^ word) * prime) & full
            value ^= value >> 29
        h[i] = value


def query_runs(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    """Where the qid changes (line indices, the first line included) and the qids there, as bytes."""
    n = len(starts)
    change = np.ones(n, dtype=bool)
    if n > 1:
        width = int(lengths[0])
        if (lengths == width).all() and (np.diff(starts) == width).all():  # one qid after another: no copy
            q = buf[int(starts[0]) : int(starts[0]) + n * width].reshape(n, width)
            change[1:] = (q[1:] != q[:-1]).any(axis=1)
        else:
            change[1:] = lengths[1:] != lengths[:-1]
            change[1:] |= ~same_as_previous(buf, starts, lengths)
    heads = np.flatnonzero(change)
    names = [
        buf[a : a + size].tobytes() for a, size in zip(starts[heads].tolist(), lengths[heads].tolist(), strict=True)
    ]
    return heads, names


def same_as_previous(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For each range but the first, whether it holds the same bytes as the range before it.

    Narrow ranges are compared as matrix rows; wider ones byte by byte in one flat pass, each
    range against the one before it, so that one long field costs its own length only.
    """
    if int(lengths.max()) <= NARROW:
        q = matrix(buf, starts, lengths)  # zero-padded, so lengths must be compared too
        return (lengths[1:] == lengths[:-1]) & ~(q[1:] != q[:-1]).any(axis=1)
    equal_length = lengths[1:] == lengths[:-1]
    pairs = np.flatnonzero(equal_length)  # range pairs + 1 is compared with pairs
    size = lengths[pairs + 1].astype(np.int64)
    same = equal_length.copy()
    if not int(size.sum()):
        return same
    here = gather(buf, starts[pairs + 1], size)
    before = gather(buf, starts[pairs], size)
    differ = here != before
    owner = np.repeat(np.arange(len(pairs)), size)
    same[pairs[np.unique(owner[differ])]] = False
    return same
