"""trec_eval's order: queries by qid, results by score then docid, and docids listed twice for one query."""

from __future__ import annotations

import numpy as np

from explainer.evaluation.formats.collector import Collector
from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.fields import NARROW
from explainer.evaluation.formats.memory import give_back_freed_memory
from explainer.evaluation.formats.numbers import strings

DUPLICATES = ("error", "first", "last")
"""What to do with a docid listed twice for one query: refuse (as trec_eval does), keep the first line, or the last."""


def pair_keys(qcode: np.ndarray, doc_hash: np.ndarray) -> np.ndarray:
    """One 64-bit key per (query, docid)."""
    with np.errstate(over="ignore"):
        return doc_hash ^ (qcode.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def check_duplicates(duplicates) -> None:
    if duplicates not in DUPLICATES:
        raise ValueError(f"duplicates must be one of {', '.join(map(repr, DUPLICATES))}, got {duplicates!r}")


def group(label: str, collector: Collector, duplicates: str, by_score: bool) -> dict:
    """Sort lines into queries (trec_eval's order), handle duplicates, order each query's results."""
    qcode = collector.take("qcode", np.int32)
    doc_hash = collector.take("hash", np.uint64)
    doc_len = collector.take("len", np.int32)
    doc_start = collector.take("start", np.int64)
    blob = collector.take("blob", np.uint8)
    value = collector.take("value", np.float64 if by_score else np.int64)
    n_read = len(qcode)
    _check_per_query(label, collector, qcode, "results" if by_score else "judgments")

    # Duplicates: the same docid twice for one query (hash first, then the bytes themselves).
    dropped = np.zeros(0, dtype=np.int64)
    pairs: list[tuple[int, int]] = []
    if n_read:
        ordered = pair_keys(qcode, doc_hash)
        ordered.sort()  # in place: one array of keys, not two
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        del ordered
        maybe = np.flatnonzero(np.isin(pair_keys(qcode, doc_hash), repeated)) if len(repeated) else repeated
        if len(maybe):
            groups: dict[tuple, list[int]] = {}
            for i in maybe.tolist():
                s, n = int(doc_start[i]), int(doc_len[i])
                groups.setdefault((int(qcode[i]), bytes(blob[s : s + n])), []).append(i)
            repeats = [sorted(g) for g in groups.values() if len(g) > 1]
            repeats.sort()
            pairs = [(collector.line_of(g[0]), collector.line_of(g[1])) for g in repeats]
            if repeats and duplicates == "error":
                first, second = pairs[0]
                what = "result" if by_score else "judgment"
                raise InputError(
                    label,
                    second,
                    f"a docid listed twice for one query (line {first} has the same {what}); trec_eval refuses "
                    f"such input ('duplicate docs'); relevance-explainer evaluate --duplicates first (or last) keeps "
                    f"one, as duplicates='first' does in Python "
                    f"({len(repeats)} such docid{'s' if len(repeats) > 1 else ''} in all)",
                )
            drop = [i for g in repeats for i in (g[1:] if duplicates == "first" else g[:-1])]
            dropped = np.asarray(sorted(drop), dtype=np.int64)

    # Queries in trec_eval's order: qids sorted byte by byte.
    names = sorted(collector.qid_code, key=lambda raw: raw)
    rank_of_code = np.empty(len(names), dtype=np.int32)
    for rank, raw in enumerate(names):
        rank_of_code[collector.qid_code[raw]] = rank
    qrank = rank_of_code[qcode] if len(qcode) else qcode
    if len(dropped):
        keep = np.ones(n_read, dtype=bool)
        keep[dropped] = False
        qrank, value, doc_hash, doc_start, doc_len = (a[keep] for a in (qrank, value, doc_hash, doc_start, doc_len))

    order = _order(qrank, value if by_score else None)
    if order is not None:
        qrank, value, doc_hash, doc_start, doc_len = (a[order] for a in (qrank, value, doc_hash, doc_start, doc_len))
    if by_score:
        ties = _break_ties(qrank, value, doc_start, doc_len, blob)
        if ties is not None:
            members, moved = ties
            for a in (value, doc_hash, doc_start, doc_len):
                a[members] = a[moved]
    offsets = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(qrank, minlength=len(names)), out=offsets[1:])
    del qrank
    give_back_freed_memory()
    common = dict(
        source=label,
        qids=tuple(raw.decode("utf-8", "surrogateescape") for raw in names),
        offsets=offsets,
        doc_hash=doc_hash,
        doc_start=doc_start,
        doc_len=doc_len,
        blob=blob,
        n_lines_read=n_read,
        n_duplicates=len(dropped),
        duplicate_lines=tuple(pairs),
    )
    return {"common": common, "value": value}


def _check_per_query(label: str, collector: Collector, qcode: np.ndarray, what: str) -> None:
    """``InputError`` at the first line that takes a query past the cap on its lines (none on the command line)."""
    cap = collector.caps.per_query
    if cap is None or not len(qcode):
        return
    counts = np.bincount(qcode)
    if int(counts.max()) <= cap:
        return
    order = np.argsort(qcode, kind="stable")
    first_of = np.cumsum(counts) - counts  # where each query's lines start in ``order``
    nth = np.arange(len(qcode)) - first_of[qcode[order]]  # each line's place among its query's
    beyond = int(order[nth == cap].min())
    raise InputError(
        label,
        collector.line_of(beyond),
        f"expected at most {cap:,} {what} for one query (the page's limit; the command line reads any number)",
    )


def _order(qrank: np.ndarray, score: np.ndarray | None) -> np.ndarray | None:
    """The permutation that groups lines by query (and sorts each by score, descending); None if already so."""
    if len(qrank) < 2:
        return None
    step = np.diff(qrank)
    if score is None:
        if (step >= 0).all():
            return None
        return np.argsort(qrank, kind="stable")
    if ((step > 0) | ((step == 0) & (np.diff(score) <= 0))).all():
        return None
    return np.lexsort((-score, qrank))


def _break_ties(qrank, score, doc_start, doc_len, blob) -> tuple[np.ndarray, np.ndarray] | None:
    """Order equal scores of a query by docid, the greater first, as trec_eval does; None if no ties.

    Returns ``(members, moved)``: the lines in ties, and which line each of their places takes.
    Docids are compared by their first ``NARROW`` bytes in bulk; only those that tie there and
    are longer are compared whole, so one long docid costs its own length.
    """
    if len(score) < 2:
        return None
    tied_next = (qrank[1:] == qrank[:-1]) & (score[1:] == score[:-1])
    if not tied_next.any():
        return None
    in_tie = np.zeros(len(score), dtype=bool)
    in_tie[:-1] |= tied_next
    in_tie[1:] |= tied_next
    members = np.flatnonzero(in_tie)
    starts_group = np.ones(len(members), dtype=bool)
    starts_group[1:] = ~tied_next[members[1:] - 1]
    group_of = np.cumsum(starts_group)
    lengths = doc_len[members]
    longest = int(lengths.max())
    width = min(longest, NARROW)
    prefix = np.zeros((len(members), max(width, 8)), dtype=np.uint8)
    for j in range(width):
        inside = lengths > j
        prefix[inside, j] = blob[doc_start[members[inside]] + j]
    if longest <= 8:  # each docid, zero-padded, as a big-endian number: ordered as its bytes are
        descending = ~prefix.view(">u8").ravel()
    else:
        _, rank = np.unique(strings(prefix), return_inverse=True)
        rank = rank.ravel().astype(np.int64)
        if longest > NARROW:
            rank = _refine_long(rank, group_of, lengths, doc_start[members], blob)
        descending = -rank
    return members, members[_within_groups(descending, group_of, starts_group)]


def _within_groups(key: np.ndarray, group_of: np.ndarray, starts_group: np.ndarray) -> np.ndarray:
    """The order that sorts each group (``group_of``, ascending and contiguous) by ``key``, ascending,
    equal keys as they stand; the groups stay in place.

    Most ties are of two results: such a pair is swapped or not by one comparison, and only the
    larger groups go through the sort (which cost more than the rest of the tie-break).
    """
    within = np.arange(len(key))
    size = np.bincount(group_of)[group_of]
    first = np.flatnonzero(starts_group & (size == 2))
    swap = first[key[first] > key[first + 1]]
    within[swap], within[swap + 1] = swap + 1, swap
    larger = np.flatnonzero(size > 2)
    within[larger] = larger[np.lexsort((key[larger], group_of[larger]))]
    return within


def _refine_long(rank: np.ndarray, group_of: np.ndarray, lengths: np.ndarray, starts: np.ndarray, blob) -> np.ndarray:
    """Ranks by the whole docid where docids of one tie share their first ``NARROW`` bytes and one is longer."""
    key = group_of.astype(np.int64) * (int(rank.max()) + 1) + rank
    long_keys = np.unique(key[lengths > NARROW])
    shared = np.flatnonzero(np.isin(key, long_keys))
    by_key: dict[int, list[int]] = {}
    for i in shared.tolist():
        by_key.setdefault(int(key[i]), []).append(i)
    refined = rank * (len(rank) + 1)  # room below each prefix rank for the whole docids' order
    for members in by_key.values():
        whole = sorted(members, key=lambda i: bytes(blob[int(starts[i]) : int(starts[i]) + int(lengths[i])]))
        for place, i in enumerate(whole):
            refined[i] += place
    return refined
