"""Qrels and runs given as pytrec_eval's dicts, ``{qid: {docid: value}}``, checked and collected as if read from a file."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from explainer.evaluation.formats.collector import Collector, parse_lines
from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.fields import split
from explainer.evaluation.formats.limits import MAX_ID_BYTES


def collect_dict(data: Mapping, label: str, what: str, check) -> Collector:
    """Turn ``{qid: {docid: value}}`` into one parsed block, as if it were a file in dict order."""
    collector = Collector(label)
    qids, docids, values = [], [], []
    for qid, docs in data.items():
        if not isinstance(qid, str):
            raise InputError(label, None, f"expected query ids as strings, found a {type(qid).__name__}")
        if not isinstance(docs, Mapping):
            raise InputError(label, None, f"expected a dict of docid to {what} for each query")
        for docid, value in docs.items():
            if not isinstance(docid, str):
                raise InputError(label, None, f"expected docids as strings, found a {type(docid).__name__}")
            values.append(check(value))
            qids.append(qid)
            docids.append(docid)
    for text in (*data.keys(), *docids):
        if not text or any(c.isspace() for c in text):
            raise InputError(label, None, "expected ids that are not empty and hold no whitespace")
    encoded_q = [q.encode("utf-8", "surrogateescape") for q in qids]
    encoded_d = [d.encode("utf-8", "surrogateescape") for d in docids]
    if any(len(text) > MAX_ID_BYTES for text in (*encoded_q, *encoded_d)):
        raise InputError(label, None, f"expected ids of at most {MAX_ID_BYTES:,} bytes, found a longer one")
    for qid in data if what == "score" else ():
        # A run's query given with no results still exists, as in pytrec_eval (which evaluates
        # it, all zeros); a query with no judgments does not (pytrec_eval skips it).
        collector.qid_code.setdefault(qid.encode("utf-8", "surrogateescape"), len(collector.qid_code))
    if not values:
        return collector
    text = b"".join(q + b" " + d + b"\n" for q, d in zip(encoded_q, encoded_d, strict=True))
    fields = split(text, 1, label, 2, True, (0, 1), "2 fields")
    kind = np.float64 if what == "score" else np.int64
    collector.add(parse_lines(fields, np.asarray(values, dtype=kind), 0, 1))
    return collector


def check_grade(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError("qrels", None, f"expected integer grades, found {value!r}")
    if not -(1 << 63) <= int(value) < 1 << 63:
        raise InputError("qrels", None, "expected integer grades within 64 bits, found a larger one")
    return int(value)


def check_score(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value != value:
        raise InputError("run", None, f"expected numbers as scores, found {value!r}")
    return float(value)
