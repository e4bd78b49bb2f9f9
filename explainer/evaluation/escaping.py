"""Text from a file made safe to print: control and bidi characters shown as escapes."""

from __future__ import annotations

import re

# C0 and C1 controls and DEL (an escape sequence can move the cursor and rewrite what was
# printed), the bidi controls (they reorder what follows, so one id can look like another),
# line and paragraph separators, and the lone surrogates that stand for bytes that were not
# UTF-8 (they cannot be written to a UTF-8 terminal at all).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\udc80-\udcff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): shown as that byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """``text`` with every control, bidi and undecodable character written as ``\\xNN`` or ``\\uNNNN``.

    Everything printed that came from a file (qids, docids, run tags, texts, file names)
    goes through this, so that a qid cannot move the cursor or reorder the line it is on.
    Backslashes are kept as they are: the escapes are for reading, not for parsing back.
    """
    return _UNSAFE.sub(_escape, text)
