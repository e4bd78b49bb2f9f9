"""The whole report as one JSON document: options, runs, per-query values, means, comparison, verdict.

Its schema is the README's ("The JSON output"), and ``SCHEMA_VERSION`` its version: a field
added keeps the version, a field renamed or removed or a meaning changed raises it. Readers
should ignore fields they do not know. Text from files (qids, tags, file names) is written
exactly, with JSON's own escapes (``\\u001b``, ``\\udcff`` for a byte that was not UTF-8), so
the document is ASCII and a qid read back is the qid in the file.
"""

from __future__ import annotations

import json
from typing import TextIO

from explainer.evaluation.plain import number
from explainer.evaluation.writers import table_name

SCHEMA_VERSION = 1


def document(report, options: dict, *, queries: bool, exit_code: int, generator: str, left_out=(), detect=None) -> dict:
    """The report as plain data: ``report`` has ``evaluations``, their ``names`` and ``files``,
    ``comparison``, ``candidates`` (each candidate's comparison with the baseline), ``many`` and
    ``sweep``; ``left_out`` is always empty (every family is computed; kept for schema_version 1's readers);
    ``detect`` is ``--detect``'s difference, whose queries needed each effect gives."""
    evaluations = report.evaluations
    first = evaluations[0]
    roles = ("baseline", *("candidate",) * (len(evaluations) - 1)) if len(evaluations) > 1 else (None,)
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": generator,
        "options": options,
        "qrels": {
            "file": report.qrels_file,
            "lines": first.summary.qrels_lines,
            "duplicates": first.summary.qrels_duplicates,
        },
        "measures": [_measure(m) for m in first.measures],
        "left_out": list(left_out),
        "runs": [
            _run(e, name, path, role, queries)
            for e, name, path, role in zip(evaluations, report.names, report.files, roles, strict=True)
        ],
        "comparison": None if report.comparison is None else report.comparison.to_dict(),
        "candidates": _candidates(report, detect),
        "many_runs": None if report.many is None else report.many.as_dict(),
        "sweep": None if report.sweep is None else report.sweep.as_dict(runs=False),
        "exit_code": exit_code,
    }


def _candidates(report, detect) -> dict | None:
    """Each candidate against the baseline: its verdict and the verdict's reason, its effects, its comparison."""
    from explainer.evaluation.many_runs import gate_outcome, gate_summary, letter

    candidates = report.candidates
    if not candidates:
        return None
    gate = candidates[0].gate
    return {
        "baseline": report.names[0],
        "question": gate.question,
        "correction": gate.correction,
        "outcome": gate_outcome(candidates),
        "reason": gate_summary(candidates),
        "verdicts": [
            {
                "letter": letter(i),
                "name": c.candidate_name,
                "outcome": c.gate.outcome,
                "reason": c.gate.reason,
                "effects": [e.as_dict(detect if e.mde == e.mde else None) for e in c.effects()],
                "comparison": c.to_dict(),
            }
            for i, c in enumerate(candidates, start=1)
        ],
    }


def _measure(m) -> dict:
    return {"name": table_name(m), "trec_eval": m.name, "label": m.label, "integer": m.family.integer}


def _run(evaluation, name: str, path: str, role: str | None, queries: bool) -> dict:
    summary = evaluation.summary
    out = {
        "name": name,
        "tag": evaluation.name,
        "file": path,
        "role": role,
        "summary": {
            "evaluated": summary.n_evaluated,
            "run_only": list(summary.run_only),
            "qrels_only": list(summary.qrels_only),
            "lines": summary.run_lines,
            "duplicates": summary.run_duplicates,
            "text": summary.lines(),
        },
        "means": {
            table_name(m): _value(evaluation.means[m.name]) for m in evaluation.measures if m.family.average != "none"
        },
    }
    if queries:
        per_query = [m for m in evaluation.measures if m.family.per_query]
        columns = {m.name: evaluation.values[m.name].tolist() for m in per_query}
        out["queries"] = [
            {"qid": qid, "values": {table_name(m): _value(columns[m.name][i]) for m in per_query}}
            for i, qid in enumerate(evaluation.qids)
        ]
    return out


def _value(value):
    return value if isinstance(value, str) else number(value)


def write(doc: dict, out: TextIO) -> None:
    """The document as JSON text, ASCII, one line per field at the top level's depth of two."""
    json.dump(doc, out, ensure_ascii=True, indent=2, allow_nan=False)
    out.write("\n")
