"""trec_eval's table as CSV: one value a row (``run,qid,measure,value``), at full precision.

The columns are trec_eval's (its lines' measure, qid and value) with the run's name before them,
so that two runs' tables share one file; ``qid`` is ``all`` on the means' rows, as on trec_eval's
``all`` lines. A value is written as Python writes it back exactly (``repr``): read back with
``float``, it is the number computed, not four decimals of it. Text from a file (qids, names) is
escaped as in trec_eval's lines (``escaping.escaped``).
"""

from __future__ import annotations

import csv
from typing import TextIO

from explainer.evaluation.escaping import escaped
from explainer.evaluation.writers import table_name

HEADER = ("run", "qid", "measure", "value")


def exact_text(measure, value) -> str:
    """A value written so that reading it back gives the same number: a count as an integer, else by ``repr``."""
    if isinstance(value, str):
        return escaped(value)
    return str(int(value)) if measure.family.integer else repr(float(value))


def write_header(out: TextIO) -> None:
    csv.writer(out, lineterminator="\n").writerow(HEADER)


def write_rows(
    evaluation, name: str, out: TextIO, *, queries: bool = False, summary: bool = True, runid: bool = False
) -> None:
    """One evaluation's rows under the run's ``name``: every query's (with ``queries``), then the means,
    first the run's tag as ``runid`` when ``runid``, as trec_eval's lines have it."""
    writer = csv.writer(out, lineterminator="\n")
    run = escaped(name)
    measures = evaluation.measures
    if queries:
        per_query = [m for m in measures if m.family.per_query]
        columns = [evaluation.values[m.name].tolist() for m in per_query]
        for i, qid in enumerate(map(escaped, evaluation.qids)):
            writer.writerows(
                (run, qid, table_name(m), exact_text(m, column[i]))
                for m, column in zip(per_query, columns, strict=True)
            )
    if summary:
        if runid:
            writer.writerow((run, "all", "runid", escaped(evaluation.name)))
        for m in measures:
            if m.family.average != "none":
                writer.writerow((run, "all", table_name(m), exact_text(m, evaluation.means[m.name])))
