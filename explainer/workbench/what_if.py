"""The what-if protocol: one change a message, a judgment or a move, checked against what the files hold.

The page sends each what-if change on its own (``model.send_msg``), not its whole state:

- ``{"type": "judge", "qid", "docid", "grade"}``: a what-if grade of one of the query's
  documents, 0 to the highest grade, ``None`` for "as if nobody judged it", or ``"qrels"`` for
  the files' own grade again (a grade equal to the files' is no change either);
- ``{"type": "move", "qid", "run", "order"}``: run ``run``'s top list of the query in a new
  order (positions 0, 1, 2... of the run's own order), ``None`` for the run's order;
- ``{"type": "undo", "qid"}``: the query's changes undone.

Each is checked against ``KnownDocuments``: where the query's lines are in the files, found
the first time the query is changed, and the one document a change names, looked up there by
its hash. A change costs what it is, however long the runs: no query is rebuilt or listed per
message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explainer.evaluation.formats.limits import MAX_ID_BYTES

MAX_WHATIF_QUERIES = 50
"""What-if changes are kept for at most this many queries at once (a reader explores a few)."""

CHANGES = frozenset({"judge", "move", "undo"})
"""The kinds of what-if message."""


class WhatIfRefused(ValueError):
    """A change that is not this data's: the reason, in a few words."""


@dataclass(frozen=True)
class QueryDocuments:
    """What a query's what-if changes may name: its documents (the runs' results and the judged
    relevant ones they missed, as ``drill_down.query_of`` numbers them), their grades in the qrels, and
    how deep each run's figures go (0 for a run without results). A document is looked up in the
    files' arrays when a change names it (``Lines.find``), never listed."""

    qrels: Any
    judged: tuple[int, int]  # the query's lines in the qrels
    results: tuple[tuple[Any, int, int], ...]  # each run and the query's lines in it
    depths: tuple[int, ...]

    def grade(self, docid: str) -> int | None:
        """The document's grade in the qrels, or None when they do not judge it."""
        line = self.qrels.find(*self.judged, docid)
        return None if line is None else int(self.qrels.grade[line])

    def has(self, docid: str) -> bool:
        """Whether a change may name the document: a run returned it, or the qrels judge it relevant."""
        if any(run.find(a, b, docid) is not None for run, a, b in self.results):
            return True
        grade = self.grade(docid)
        return grade is not None and grade >= 1


class KnownDocuments:
    """Each query's ``QueryDocuments``, from the files, made once per query when first asked for."""

    def __init__(self, evaluated, figure_depth: int):
        self.evaluated, self.figure_depth = evaluated, figure_depth
        self.qids = frozenset(evaluated.qids)
        self._made: dict[str, QueryDocuments] = {}

    def of(self, qid: str) -> QueryDocuments:
        if qid not in self._made:
            self._made[qid] = self._make(qid)
        return self._made[qid]

    def _make(self, qid: str) -> QueryDocuments:
        loaded = self.evaluated.loaded
        judged = (0, 0)
        try:
            q = loaded.qrels.index(qid)
            judged = (int(loaded.qrels.offsets[q]), int(loaded.qrels.offsets[q + 1]))
        except KeyError:
            pass
        results, depths = [], []
        for run in loaded.runs:
            try:
                r = run.index(qid)
                a, b = int(run.offsets[r]), int(run.offsets[r + 1])
            except KeyError:
                a = b = 0
            results.append((run, a, b))
            depths.append(min(self.figure_depth, b - a))
        return QueryDocuments(loaded.qrels, judged, tuple(results), tuple(depths))


def apply_change(
    message: dict, judgments: dict, orders: dict, known: KnownDocuments, highest: int
) -> tuple[dict, dict]:
    """The what-if ``judgments`` and ``orders`` after one change ``message`` (new dicts; the given
    ones are left as they are); ``WhatIfRefused`` when the change is not this data's."""
    kind, qid = message.get("type"), message.get("qid")
    if kind not in CHANGES:
        raise WhatIfRefused("not a what-if change")
    if not isinstance(qid, str) or qid not in known.qids:
        raise WhatIfRefused("no such query")
    judgments, orders = dict(judgments), dict(orders)
    if kind == "undo":
        judgments.pop(qid, None)
        orders.pop(qid, None)
        return judgments, orders
    if qid not in judgments and qid not in orders and len(set(judgments) | set(orders)) >= MAX_WHATIF_QUERIES:
        raise WhatIfRefused(f"what-if changes are kept for {MAX_WHATIF_QUERIES} queries at most: undo one first")
    documents = known.of(qid)
    if kind == "judge":
        docid, grade = message.get("docid"), message.get("grade")
        if not isinstance(docid, str) or len(docid) > MAX_ID_BYTES or not documents.has(docid):
            raise WhatIfRefused("no such document for this query")
        if not (grade is None or grade == "qrels" or (_whole(grade) and 0 <= grade <= highest)):
            raise WhatIfRefused(f"a grade is 0 to {highest}, or none")
        original = documents.grade(docid)
        original = None if original is None or original < 0 else original
        changed = dict(judgments.get(qid, {}))
        if grade == "qrels" or grade == original:
            changed.pop(docid, None)
        else:
            changed[docid] = grade
        if changed:
            judgments[qid] = changed
        else:
            judgments.pop(qid, None)
        return judgments, orders
    run, order = message.get("run"), message.get("order")
    if not (_whole(run) and 0 <= run < len(documents.depths)):
        raise WhatIfRefused("no such run")
    depth = documents.depths[run]
    if order is not None and not (
        depth
        and isinstance(order, list)
        and len(order) == depth
        and all(_whole(i) for i in order)
        and sorted(order) == list(range(depth))
    ):
        raise WhatIfRefused(f"an order is each of the top {depth} positions once")
    if order == list(range(depth)):
        order = None
    entry = list(orders.get(qid, [None] * len(documents.depths)))
    entry[run] = order
    if any(e is not None for e in entry):
        orders[qid] = entry
    else:
        orders.pop(qid, None)
    return judgments, orders


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
