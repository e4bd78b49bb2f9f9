"""The run reader: ``qid Q0 docid rank score tag`` lines, each query's results in trec_eval's order."""

from __future__ import annotations

from collections.abc import Mapping

from explainer.evaluation.formats import fast_path
from explainer.evaluation.formats.blocks import Progress, open_source
from explainer.evaluation.formats.collector import Collector, Parsed, parse_all, parse_lines
from explainer.evaluation.formats.dicts import check_score, collect_dict
from explainer.evaluation.formats.fields import split
from explainer.evaluation.formats.limits import NO_CAPS, Caps, check_id_lengths
from explainer.evaluation.formats.lines import Run
from explainer.evaluation.formats.memory import small_pages
from explainer.evaluation.formats.numbers import numbers
from explainer.evaluation.formats.order import check_duplicates, group
from explainer.evaluation.formats.qrels import _is_ranx


def read_run(
    source,
    *,
    name: str | None = None,
    duplicates: str = "error",
    progress: Progress | None = None,
    caps: Caps = NO_CAPS,
    unpack_limit: int | None = None,
) -> Run:
    """Read a run: a path (plain or gzipped; ``"-"`` for standard input), the file's bytes, a binary
    or text file object, a dict ``{qid: {docid: score}}`` (pytrec_eval's shape), or a ranx ``Run``.

    Each query's results are put in trec_eval's order (score descending, ties by docid
    descending). ``name`` names the run (default: the file name, else the run's tag).
    Raises ``InputError`` for a malformed line or, with ``duplicates="error"``, a docid
    listed twice for one query; and past ``caps`` or ``unpack_limit``, which are the page's.
    """
    check_duplicates(duplicates)
    if _is_ranx(source, "Run"):
        name = name or getattr(source, "name", None) or None
        source = source.to_dict()
    if isinstance(source, Mapping):
        label = name or "run"
        lines = group(label, collect_dict(source, label, "score", check_score), duplicates, by_score=True)
        return Run(**lines["common"], score=lines["value"], name=label)
    label, chunks, total = open_source(source, name, "run", progress, unpack_limit)

    def parse(block: bytes, first_line: int) -> list[Parsed] | Parsed | None:
        pieces = fast_path.read_plain(block, 6, number_col=4)
        if pieces is not None:
            parsed = []
            for columns in pieces:
                for j, what in ((0, "qid"), (2, "docid"), (5, "run tag")):
                    check_id_lengths(label, first_line, fast_path.binary_parts(columns[j])[2], what)
                data, starts, lengths = fast_path.binary_parts(columns[5])
                tag = data[int(starts[-1]) : int(starts[-1]) + int(lengths[-1])].tobytes().decode("utf-8", "replace")
                parsed.append(fast_path.parse_plain(columns, first_line, fast_path.double_values(columns[4]), tag=tag))
                first_line += len(columns[0])
            return parsed
        fields = split(block, first_line, label, 6, False, (0, 2, 4, 5), "6 fields: qid Q0 docid rank score tag")
        if not len(fields.line_no):
            return None
        for j, what in ((0, "qid"), (1, "docid"), (3, "run tag")):
            check_id_lengths(label, fields.line_no, fields.lengths[:, j], what)
        scores = numbers(
            fields.buf,
            fields.starts[:, 2],
            fields.lengths[:, 2],
            fields.line_no,
            label,
            float,
            "a number as the score in the 5th field",
        )
        s, n = int(fields.starts[-1, 3]), int(fields.lengths[-1, 3])
        return parse_lines(fields, scores, 0, 1, tag=bytes(fields.buf[s : s + n]).decode("utf-8", "replace"))

    with small_pages():
        collector = parse_all(chunks, parse, total, Collector(label, caps))
        tag = collector.tag  # trec_eval keeps the last line's
        lines = group(label, collector, duplicates, by_score=True)
    return Run(**lines["common"], score=lines["value"], name=name or tag or label)
