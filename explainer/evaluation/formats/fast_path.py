"""The common case, a block of single-spaced lines, read by pyarrow's compiled CSV reader."""

from __future__ import annotations

import numpy as np

from explainer.evaluation.formats.collector import Parsed
from explainer.evaluation.formats.fields import hash_ranges, query_runs


def read_plain(block: bytes, n_fields: int, number_col: int | None = None) -> list[list] | None:
    """The common case, read by one compiled pass: every line holds ``n_fields`` fields, one space apart.

    pyarrow's CSV reader splits the block (pieces of it on each core) and parses column
    ``number_col`` as doubles: the same double as strtod, correctly rounded (it refuses more
    forms than strtod, never fewer). The numpy passes of ``fields.split`` cost three times as much.
    Returns the pieces, each a list of its columns (binary, but ``number_col``), lines in
    order; or None when the block holds anything else: tabs and other whitespace, runs of
    spaces, blank or comment lines, carriage returns, more fields, a number it does not take,
    NaN. The exact reader then reads the block, and says which line is wrong.
    """
    import pyarrow as pa
    from pyarrow import csv

    if any(c in block for c in (b"\t", b"\r", b"\x0b", b"\x0c", b"#")) or block.startswith(b"\xef\xbb\xbf"):
        return None  # (pyarrow would drop a byte-order mark, which the exact reader refuses by its line)
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
            # the C library's heap, which memory.give_back_freed_memory trims (pyarrow's own pool
            # would keep the blocks' freed buffers to itself)
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
                if np.isnan(double_values(column)).any():
                    return None
            elif not binary_parts(column)[2].all():
                return None  # an empty field: a space doubled, or at a line's start or end
    return pieces


def binary_parts(column) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pyarrow binary column as numpy views, no copies: its bytes, each value's start and length."""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + len(column) + 1]
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    return data, offsets[:-1], np.diff(offsets)


def double_values(column) -> np.ndarray:
    """A pyarrow double column without nulls as a numpy view (its ``to_numpy`` imports pandas: 0.6 s)."""
    return np.frombuffer(column.buffers()[1], dtype=np.float64)[column.offset : column.offset + len(column)]


def parse_plain(columns: list, first_line: int, values: np.ndarray, tag: str = "") -> Parsed:
    """What ``collector.parse_lines`` makes of a block, from the columns of ``read_plain`` (qid first, docid third)."""
    heads, names = query_runs(*binary_parts(columns[0]))
    data, starts, lengths = binary_parts(columns[2])
    return Parsed(
        first_line=first_line,
        line_no=None,
        heads=names,
        run_lengths=np.diff(np.append(heads, len(starts))),
        doc_hash=hash_ranges(data, starts, lengths),
        doc_len=lengths,
        doc_start=starts - starts[0],
        blob=data[int(starts[0]) : int(starts[-1]) + int(lengths[-1])],
        values=values,
        tag=tag,
    )
