"""Grades and scores parsed as trec_eval's atof and atol would read them, in bulk where the field is a plain decimal."""

from __future__ import annotations

import numpy as np

from explainer.evaluation.escaping import escaped
from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.fields import NARROW, matrix

_INT64 = (-(1 << 63), (1 << 63) - 1)


def numbers(buf, starts, lengths, line_no: np.ndarray, label: str, kind: type, expected: str) -> np.ndarray:
    """Parse each field ``buf[start:start + length]`` as a number; ``InputError`` at the first that is not one.

    Fields of at most ``NARROW`` bytes are parsed as rows of one matrix; longer ones (a score
    of many digits) one by one, so that one long field costs its own length only.
    """
    wide = np.flatnonzero(lengths > NARROW)
    narrow = None if not len(wide) else np.flatnonzero(lengths <= NARROW)
    if narrow is None:
        return _parse_rows(matrix(buf, starts, lengths), line_no, label, kind, expected)
    values = np.empty(len(starts), dtype=np.float64 if kind is float else np.int64)
    if len(narrow):
        rows = matrix(buf, starts[narrow], lengths[narrow])
        values[narrow] = _parse_rows(rows, line_no[narrow], label, kind, expected)
    for i in wide.tolist():
        s, n = int(starts[i]), int(lengths[i])
        values[i] = _parse_one(buf[s : s + n].tobytes(), int(line_no[i]), label, kind, expected)
    return values


def _parse_rows(rows: np.ndarray, line_no: np.ndarray, label: str, kind: type, expected: str) -> np.ndarray:
    values = _decimals(rows, kind)
    if values is not None:
        return values
    text = strings(rows)
    try:
        values = text.astype(np.float64 if kind is float else np.int64)
    except (ValueError, OverflowError):
        # numpy refused one: Python names the line, or (``1_0``, which Python takes) gives every value
        parsed = [_parse_one(t, int(line_no[i]), label, kind, expected) for i, t in enumerate(text.tolist())]
        return np.asarray(parsed, dtype=np.float64 if kind is float else np.int64)
    if kind is float and np.isnan(values).any():
        i = int(np.argmax(np.isnan(values)))
        raise InputError(label, int(line_no[i]), f"expected {expected}, found {shown(text[i])}")
    return values


def _parse_one(raw: bytes, line: int, label: str, kind: type, expected: str):
    """One field parsed as Python parses it; ``InputError`` when it is not a number, NaN or out of range."""
    try:
        value = kind(raw.decode("ascii"))
    except (ValueError, UnicodeDecodeError, OverflowError):
        raise InputError(label, line, f"expected {expected}, found {shown(raw)}") from None
    if kind is float and value != value:
        raise InputError(label, line, f"expected {expected}, found {shown(raw)}")
    if kind is int and not _INT64[0] <= value <= _INT64[1]:
        raise InputError(label, line, f"expected {expected}, found a number beyond 64 bits ({len(raw)} digits)")
    return value


def strings(rows: np.ndarray) -> np.ndarray:
    """The rows of a byte matrix as a numpy bytes array (trailing zero bytes are padding)."""
    return np.ascontiguousarray(rows).view(f"S{rows.shape[1]}").ravel()


def _decimals(rows: np.ndarray, kind: type) -> np.ndarray | None:
    """Plain decimals (``-12.345``, at most 15 digits) parsed in bulk; None for anything else.

    The digits make an integer below 2^53 and the point a power of ten up to 10^15, both
    exact in a double, and IEEE division rounds their quotient correctly: the same double
    as C's ``strtod`` (trec_eval's ``atof``) or Python's ``float``.
    """
    n, width = rows.shape
    if n == 0 or width > 17:
        return None
    negative = rows[:, 0] == ord("-")
    mantissa = np.zeros(n, dtype=np.int64)
    after_point = np.zeros(n, dtype=np.int64)
    seen_point = np.zeros(n, dtype=bool)
    digits = np.zeros(n, dtype=np.int64)
    for j in range(width):
        c = rows[:, j]
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
        if j and ((c != 0) & (rows[:, j - 1] == 0)).any():
            return None  # a gap inside the field cannot happen; be safe
    if (digits == 0).any() or (digits > 15).any():
        return None
    if kind is int:
        return np.where(negative, -mantissa, mantissa)
    values = mantissa.astype(np.float64) / (10.0**after_point)
    return np.where(negative, -values, values)  # -0 stays -0.0, as strtod gives it


def shown(raw: bytes) -> str:
    """A field as a message quotes it: escaped, cut to 24 characters."""
    text = raw.decode("utf-8", "replace")
    return f"'{escaped(text if len(text) <= 24 else text[:21] + '...')}'"
