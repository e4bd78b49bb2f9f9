"""trec_eval's lines: each query's value of each measure (with ``-q``), then the ``all`` lines.

trec_eval prints a value as ``%-22s\\t%s\\t%6.4f`` (the measure's name padded to 22, the qid,
four decimals), a count (``num_ret``, ``num_rel``, ...) as an integer, and the run's tag on a
``runid`` line; a qid with a control or bidi character is printed escaped here (trec_eval prints
it as it is), so that a qid cannot rewrite the terminal.
"""

from __future__ import annotations

from typing import TextIO

from explainer.evaluation.escaping import escaped
from explainer.evaluation.writers import table_name


def value_text(measure, value) -> str:
    """A value as trec_eval prints it: an integer for a count, text in quotes (relstring), else four decimals."""
    if isinstance(value, str):
        return f"'{escaped(value)}'"
    if measure.family.integer:
        return f"{int(round(value))}"
    return f"{value:6.4f}"


def write_lines(evaluation, out: TextIO, *, queries: bool = False, summary: bool = True, runid: bool = False) -> None:
    """trec_eval's table of one evaluation: with ``queries`` every query's lines (``-q``), with
    ``summary`` the ``all`` lines (without: ``-n``), first the ``runid`` line when ``runid`` (it was
    asked for, as ``official`` asks), measures in the evaluation's order."""
    measures = evaluation.measures
    lines = []
    if queries:
        per_query = [m for m in measures if m.family.per_query]
        columns = [evaluation.values[m.name].tolist() for m in per_query]
        printed = [table_name(m) for m in per_query]
        for i, qid in enumerate(map(escaped, evaluation.qids)):
            for m, name, column in zip(per_query, printed, columns, strict=True):
                lines.append(f"{name:<22}\t{qid}\t{value_text(m, column[i])}\n")
    if summary:
        if runid:
            lines.append(f"{'runid':<22}\tall\t{escaped(evaluation.name)}\n")
        for m in measures:
            if m.family.average != "none":
                lines.append(f"{table_name(m):<22}\tall\t{value_text(m, evaluation.means[m.name])}\n")
    out.writelines(lines)
