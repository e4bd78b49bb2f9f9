"""The qrels reader: ``qid iter docid grade`` lines, as trec_eval reads them.

trec_eval reads a grade with C's ``atol`` (get_qrels.c), so a grade written with a fraction counts
by its whole part (``1.5`` is 1, ``-0.5`` is 0); so does this reader, and it counts them
(``Qrels.n_fractional``) for the evaluation's summary to say. Anything else that is not a whole
number (``high``, ``1e3``, which atol would read as 0 and 1) is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from explainer.evaluation.formats import fast_path
from explainer.evaluation.formats.blocks import Progress, open_source
from explainer.evaluation.formats.collector import Collector, Parsed, parse_all, parse_lines
from explainer.evaluation.formats.dicts import check_grade, collect_dict
from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.fields import split
from explainer.evaluation.formats.limits import NO_CAPS, Caps, check_id_lengths
from explainer.evaluation.formats.lines import Qrels
from explainer.evaluation.formats.memory import small_pages
from explainer.evaluation.formats.numbers import numbers, shown
from explainer.evaluation.formats.order import check_duplicates, group

_EXPECTED = "an integer grade in the 4th field"


def read_qrels(
    source,
    *,
    name: str | None = None,
    duplicates: str = "error",
    progress: Progress | None = None,
    caps: Caps = NO_CAPS,
    unpack_limit: int | None = None,
) -> Qrels:
    """Read judgments: a path (plain or gzipped; ``"-"`` for standard input), the file's bytes, a
    binary or text file object, a dict ``{qid: {docid: grade}}`` (pytrec_eval's shape), or a ranx ``Qrels``.

    ``name`` names the source in messages (default: the file name, else ``"qrels"``).
    Raises ``InputError`` for a malformed line or, with ``duplicates="error"``, a docid
    judged twice for one query; and past ``caps`` (counts) or ``unpack_limit`` (bytes a gzip
    file may unpack to), which are the page's.
    """
    check_duplicates(duplicates)
    if _is_ranx(source, "Qrels"):
        source = source.to_dict()
    if isinstance(source, Mapping):
        label = name or "qrels"
        return _qrels(label, collect_dict(source, label, "grade", check_grade), duplicates)
    label, chunks, total = open_source(source, name, "qrels", progress, unpack_limit)
    fractional = [0]

    def grades_of(buf, starts, lengths, line_no) -> np.ndarray:
        try:
            return numbers(buf, starts, lengths, line_no, label, int, _EXPECTED)
        except InputError:
            values, n = _whole_parts(buf, starts, lengths, line_no, label)
            fractional[0] += n
            return values

    def parse(block: bytes, first_line: int) -> list[Parsed] | Parsed | None:
        pieces = fast_path.read_plain(block, 4)
        if pieces is not None:
            parsed = []
            for columns in pieces:  # grades as the exact reader parses them (pyarrow takes 0x10 as 16)
                for j, what in ((0, "qid"), (2, "docid")):
                    check_id_lengths(label, first_line, fast_path.binary_parts(columns[j])[2], what)
                data, starts, lengths = fast_path.binary_parts(columns[3])
                line_no = first_line + np.arange(len(starts))
                grades = grades_of(data, starts, lengths, line_no)
                parsed.append(fast_path.parse_plain(columns, first_line, grades))
                first_line += len(starts)
            return parsed
        fields = split(block, first_line, label, 4, True, (0, 2, 3), "4 fields: qid iter docid grade")
        if not len(fields.line_no):
            return None
        for j, what in ((0, "qid"), (1, "docid")):
            check_id_lengths(label, fields.line_no, fields.lengths[:, j], what)
        grades = grades_of(fields.buf, fields.starts[:, 2], fields.lengths[:, 2], fields.line_no)
        return parse_lines(fields, grades, 0, 1)

    with small_pages():
        collector = parse_all(chunks, parse, total, Collector(label, caps))
        return _qrels(label, collector, duplicates, fractional[0])


def _qrels(label: str, collector: Collector, duplicates: str, n_fractional: int = 0) -> Qrels:
    lines = group(label, collector, duplicates, by_score=False)
    return Qrels(**lines["common"], grade=lines["value"], n_fractional=n_fractional)


_WHOLE = re.compile(rb"[+-]?[0-9]+")
_FRACTION = re.compile(rb"([+-]?)([0-9]*)\.[0-9]*")


def _whole_parts(buf, starts, lengths, line_no, label: str) -> tuple[np.ndarray, int]:
    """Grades as atol reads them, where some field is not a plain whole number (rare: one by one);
    with the count of those written with a fraction. ``InputError`` at the first that is neither."""
    values = np.empty(len(starts), dtype=np.int64)
    n_fractional = 0
    for i, (s, n) in enumerate(zip(np.asarray(starts).tolist(), np.asarray(lengths).tolist(), strict=True)):
        raw = bytes(buf[s : s + n])
        fraction = None if _WHOLE.fullmatch(raw) else _FRACTION.fullmatch(raw)
        if fraction is None and not _WHOLE.fullmatch(raw) or raw in (b".", b"+.", b"-."):
            raise InputError(label, int(line_no[i]), f"expected {_EXPECTED}, found {shown(raw)}")
        value = int(raw) if fraction is None else int(fraction.group(1) + (fraction.group(2) or b"0"))
        if not -(1 << 63) <= value < 1 << 63:
            raise InputError(
                label, int(line_no[i]), f"expected {_EXPECTED}, found a number beyond 64 bits ({n} digits)"
            )
        values[i] = value
        n_fractional += fraction is not None
    return values, n_fractional


def _is_ranx(obj, cls: str) -> bool:
    kind = type(obj)
    return kind.__name__ == cls and kind.__module__.split(".")[0] == "ranx" and hasattr(obj, "to_dict")
