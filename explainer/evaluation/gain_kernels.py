"""The many-query kernels of the measures that read gains: ndcg, ndcg_rel, Rndcg, G, rbp, ERR, and relstring.

Flat lists as in ``explainer.evaluation.kernels``: ``grades[offsets[q]:offsets[q + 1]]`` is list q,
rank 1 first, -1 a document not in the qrels, -2 one there with a negative grade. Each list's
query's judgments are ``qrels_grades[ideal_offsets[q]:ideal_offsets[q + 1]]``, negative grades
included. A judged grade's gain is the grade itself unless ``pairs`` (trec_eval's ``-m
ndcg.1=0,2=3``) gives it another; the first pair for a grade wins, as in trec_eval's
gain_init.c. The ideal order is every judgment with a positive gain, best first.
"""

from __future__ import annotations

import numpy as np

from explainer.evaluation.kernels import _flat_lists, _per_list, _ranked, _safe_divide, shared
from explainer.metrics import _check_k

RBP_PERSISTENCE = 0.9
"""rbp's and rbp_resid's p when ``-m rbp.p=...`` gives none (m_rbp.c)."""


def gain_table(pairs) -> dict[int, float]:
    """The grade -> gain overrides of trec_eval's ``name=number`` pairs; names that are not whole
    numbers (rbp's ``p``) are not gains. The first pair for a grade wins."""
    table: dict[int, float] = {}
    for name, value in pairs:
        if name.lstrip("+").isdigit():
            table.setdefault(int(name), float(value))
    return table


def persistence(pairs) -> float:
    """rbp's p: the last ``p=`` pair, else 0.9 (m_rbp.c reads every pair and keeps the last)."""
    p = RBP_PERSISTENCE
    for name, value in pairs:
        if name == "p":
            p = float(value)
    return p


def _gains(grades: np.ndarray, table: dict[int, float]) -> np.ndarray:
    """Each grade's gain: the grade, or its pair's; an unjudged result (< 0) has none."""
    out = np.where(grades >= 0, grades, 0).astype(np.float64)
    for level, gain in table.items():
        out[grades == level] = gain
    return out


def _owner(offsets: np.ndarray, index: np.ndarray) -> np.ndarray:
    return np.searchsorted(offsets, index, side="right") - 1


def _results(grades, offsets, table):
    """The results with a gain other than 0: flat index, list, 0-based rank, gain. (Only a judged
    result has a gain: the few judged ones are looked at, not all.)"""
    index, owner, rank = _ranked(grades, offsets, 0)
    gains = _gains(grades[index], table)
    some = gains != 0
    return index[some], owner[some], rank[some], gains[some]


def _ideal(qrels_grades, ideal_offsets, table):
    """Each list's ideal: the positive gains of its query's judgments, best first, flat, with their
    offsets and 0-based ranks (sorted once per gain table within ``kernels.shared_scans``)."""
    question = ("ideal", tuple(sorted(table.items())))
    return shared(question, qrels_grades, ideal_offsets, lambda: _sorted_ideal(qrels_grades, ideal_offsets, table))


def _sorted_ideal(qrels_grades, ideal_offsets, table):
    judged = np.flatnonzero(qrels_grades >= 0)
    gains = _gains(qrels_grades[judged], table)
    owner = _owner(ideal_offsets, judged)
    positive = gains > 0
    gains, owner = gains[positive], owner[positive]
    order = np.lexsort((-gains, owner))
    best, owner = gains[order], owner[order]
    best_offsets = np.zeros(len(ideal_offsets), dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(ideal_offsets) - 1), out=best_offsets[1:])
    return best, best_offsets, owner, np.arange(len(best)) - best_offsets[owner]


def _running(values: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """The running sum of ``values`` within each list (``owner`` sorted), inclusive."""
    total = np.cumsum(values)
    start = np.searchsorted(owner, owner, side="left")
    return total - np.where(start > 0, total[start - 1], 0.0) if len(total) else total


def _prefix(values: np.ndarray, owner: np.ndarray, rank: np.ndarray, upto: np.ndarray, list_of: np.ndarray):
    """For each list_of[j], the sum of its ``values`` at ranks below ``upto[j]``."""
    running = _running(values, owner)
    # the entries of list_of[j] with rank < upto[j] are a run of the flat arrays: find its end
    key = (owner.astype(np.int64) << 32) + rank
    end = np.searchsorted(key, (np.asarray(list_of, dtype=np.int64) << 32) + upto, side="left")
    begin = np.searchsorted(owner, list_of, side="left")
    return np.where(end > begin, running[np.maximum(end - 1, 0)] if len(running) else 0.0, 0.0)


def _inputs(grades, offsets, qrels_grades, ideal_offsets):
    grades, offsets = _flat_lists(grades, offsets)
    qrels_grades, ideal_offsets = _flat_lists(qrels_grades, ideal_offsets)
    if len(ideal_offsets) != len(offsets):
        raise ValueError(f"ideal_offsets must describe {len(offsets) - 1} lists, got {len(ideal_offsets) - 1}")
    return grades, offsets, qrels_grades, ideal_offsets


def ndcg_gains_batch(grades, offsets, qrels_grades, ideal_offsets, pairs=()) -> np.ndarray:
    """trec_eval's ndcg (m_ndcg.c): DCG of the whole list / DCG of the ideal order, DCG = sum over
    ranks i of gain_i / log2(i + 1); 0 where the ideal's is 0. A negative gain counts in the list's
    DCG; the ideal holds only the positive ones."""
    grades, offsets, qrels_grades, ideal_offsets = _inputs(grades, offsets, qrels_grades, ideal_offsets)
    table = gain_table(pairs)
    _, owner, rank, gain = _results(grades, offsets, table)
    best, _, best_owner, best_rank = _ideal(qrels_grades, ideal_offsets, table)
    top = _per_list(offsets, owner, gain / np.log2(rank + 2.0))
    bottom = _per_list(offsets, best_owner, best / np.log2(best_rank + 2.0))
    return _safe_divide(top, bottom)


def ndcg_rel_batch(grades, offsets, qrels_grades, ideal_offsets, pairs=()) -> np.ndarray:
    """trec_eval's ndcg_rel (m_ndcg_rel.c): NDCG at the rank of each result with a positive gain (the
    list's DCG to there over the ideal's to there), and for each of the R' ideal documents beyond
    those, NDCG at the list's end; summed and divided by R', the judgments with a positive gain."""
    grades, offsets, qrels_grades, ideal_offsets = _inputs(grades, offsets, qrels_grades, ideal_offsets)
    table = gain_table(pairs)
    n = len(offsets) - 1
    _, owner, rank, gain = _results(grades, offsets, table)
    best, best_offsets, best_owner, best_rank = _ideal(qrels_grades, ideal_offsets, table)
    r_ideal = np.diff(best_offsets)
    dcg_so_far = _running(gain / np.log2(rank + 2.0), owner)
    ideal_step = best / np.log2(best_rank + 2.0)
    found = gain > 0
    lists = owner[found]
    ideal_so_far = _prefix(ideal_step, best_owner, best_rank, np.minimum(rank[found] + 1, r_ideal[lists]), lists)
    with np.errstate(divide="ignore", invalid="ignore"):
        at_found = _per_list(offsets, lists, dcg_so_far[found] / ideal_so_far)
    dcg = _per_list(offsets, owner, gain / np.log2(rank + 2.0))
    idcg = _per_list(offsets, best_owner, ideal_step)
    missed = r_ideal - _per_list(offsets, lists)
    total = at_found + missed * _safe_divide(dcg, idcg)
    ok = (r_ideal > 0) & (total > 0)
    return np.divide(total, r_ideal, out=np.zeros(n), where=ok)


def rndcg_batch(grades, offsets, qrels_grades, ideal_offsets, n_relevant, pairs=()) -> np.ndarray:
    """trec_eval's Rndcg (m_Rndcg.c): the mean of NDCG@p over the ranks p where the ideal order's gain
    changes (each level's end, the ideal's end included), and at the list's end when the list is
    longer than the ideal by two or more; 0 where R, the relevant documents at the level, is 0."""
    grades, offsets, qrels_grades, ideal_offsets = _inputs(grades, offsets, qrels_grades, ideal_offsets)
    table = gain_table(pairs)
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    _, owner, rank, gain = _results(grades, offsets, table)
    best, best_offsets, best_owner, best_rank = _ideal(qrels_grades, ideal_offsets, table)
    r_ideal = np.diff(best_offsets)
    step = gain / np.log2(rank + 2.0)
    ideal_step = best / np.log2(best_rank + 2.0)
    # the ranks p (1-based ends of a gain level) of each list's ideal: a change of gain, or its end
    last = np.r_[best_rank[1:] == 0, True] if len(best) else np.zeros(0, dtype=bool)
    changes = last | np.r_[best[1:] != best[:-1], True][: len(best)]
    lists, ends = best_owner[changes], best_rank[changes] + 1
    # the list's end, where it runs on past the rank after the ideal's end: m_Rndcg.c's loop over
    # the ideal steps past that rank too, so a list one longer than the ideal has no point at its end
    longer = np.flatnonzero((lengths > r_ideal + 1) & (r_ideal > 0))
    lists = np.r_[lists, longer]
    ends = np.r_[ends, lengths[longer]]
    dcg = _prefix(step, owner, rank, np.minimum(ends, lengths[lists]), lists)
    idcg = _prefix(ideal_step, best_owner, best_rank, np.minimum(ends, r_ideal[lists]), lists)
    points = _per_list(offsets, lists)
    total = _per_list(offsets, lists, _safe_divide(dcg, idcg))
    return np.divide(total, points, out=np.zeros(n), where=(points > 0) & (np.asarray(n_relevant) > 0))


def g_batch(grades, offsets, qrels_grades, ideal_offsets, pairs=()) -> np.ndarray:
    """trec_eval's G (m_G.c): (1 / the ideal's total gain) x sum over ranks i of
    gain_i / log2(2 + C_i - S_i), S_i the list's gain to rank i and C_i the ideal's, each ideal
    gain counted as at least 1 and every rank past the ideal's end as 1."""
    grades, offsets, qrels_grades, ideal_offsets = _inputs(grades, offsets, qrels_grades, ideal_offsets)
    table = gain_table(pairs)
    _, owner, rank, gain = _results(grades, offsets, table)
    best, best_offsets, best_owner, best_rank = _ideal(qrels_grades, ideal_offsets, table)
    r_ideal = np.diff(best_offsets)
    so_far = _running(gain, owner)
    inside = np.minimum(rank + 1, r_ideal[owner])
    cost = _prefix(np.maximum(best, 1.0), best_owner, best_rank, inside, owner) + (rank + 1 - inside)
    top = _per_list(offsets, owner, gain / np.log2(2.0 + cost - so_far))
    return _safe_divide(top, _per_list(offsets, best_owner, best))


def rbp_batch(grades, offsets, qrels_grades, ideal_offsets, pairs=()) -> np.ndarray:
    """trec_eval's rbp (m_rbp.c): (1 - p) x sum over ranks i of gain_i x p^(i - 1), p = 0.9 unless a
    ``p=`` pair says otherwise. When a gain of the query's grades (0 up to its highest judged grade,
    and every pair's) lies outside 0..1, each is scaled by (gain - lowest) / (highest - lowest)."""
    grades, offsets, qrels_grades, ideal_offsets = _inputs(grades, offsets, qrels_grades, ideal_offsets)
    table = gain_table(pairs)
    p = persistence(pairs)
    n = len(offsets) - 1
    # each query's highest judged grade: its grades are 0 up to it (m_rbp.c scales over them all)
    judged = np.flatnonzero(qrels_grades >= 0)
    top_grade = np.full(n, -1, dtype=np.int64)
    np.maximum.at(top_grade, _owner(ideal_offsets, judged), qrels_grades[judged])
    low, high = _default_extremes(top_grade, set(table))
    given = list(table.values())
    low_gain = np.where(low >= 0, low, np.inf).astype(np.float64)
    high_gain = np.where(high >= 0, high, -np.inf).astype(np.float64)
    if given:
        low_gain = np.minimum(low_gain, min(given))
        high_gain = np.maximum(high_gain, max(given))
    scale = (low_gain < 0) | (high_gain > 1)
    # every judged result: scaled, a gain of 0 may not stay 0 (an unjudged result's stays 0)
    index, owner, rank = _ranked(grades, offsets, 0)
    gain = _gains(grades[index], table)
    s = scale[owner]
    spread = (high_gain - low_gain)[owner]
    gain = np.where(s, np.divide(gain - low_gain[owner], spread, out=np.zeros(len(gain)), where=spread > 0), gain)
    return (1.0 - p) * _per_list(offsets, owner, gain * p ** rank.astype(np.float64))


def _default_extremes(top_grade: np.ndarray, paired: set[int]) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and the highest grade from 0 to ``top_grade`` that no pair gives a gain (their
    gain is the grade), per query; -1 where there is none."""
    low = 0
    while low in paired:
        low += 1
    lowest = np.where(top_grade >= low, low, -1)
    highest = top_grade.copy()
    for _ in range(len(paired)):
        highest = np.where(np.isin(highest, list(paired)), highest - 1, highest)
    return lowest, np.where(highest >= 0, highest, -1)


def relstring_batch(grades, offsets, values=()) -> np.ndarray:
    """trec_eval's relstring (m_relstring.c): each list's first n grades as characters, n = 10
    unless given: the grade 0 to 9, ``>`` above 9, ``-`` not in the qrels, ``.`` in them with a
    negative grade. An array of strings, one per list."""
    grades, offsets = _flat_lists(grades, offsets)
    length = int(values[0]) if len(values) else 10
    # only each list's first n results are read: the others' marks are never made
    shown = np.minimum(np.diff(offsets), max(length, 0))
    starts = np.zeros(len(shown) + 1, dtype=np.int64)
    np.cumsum(shown, out=starts[1:])
    head = grades[np.arange(int(starts[-1])) + np.repeat(offsets[:-1] - starts[:-1], shown)]
    marks = np.where(head > 9, ord(">"), np.where(head >= 0, ord("0") + head, np.where(head == -1, 45, 46)))
    text = marks.astype(np.uint8).tobytes().decode("ascii")
    out = np.empty(len(offsets) - 1, dtype=object)
    for q, (a, b) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True)):
        out[q] = text[a:b]
    return out


ERR_TOP_GRADE = 4
"""gdeval's MAX_JUDGMENT, which ir_measures' ERR runs: grades go from 0 to 4, and a grade g stops
the reader with probability (2^g - 1) / 2^4."""


def err_at_k_batch(grades, offsets, k: int) -> np.ndarray:
    """ERR@k (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009), as gdeval.pl computes it for
    ir_measures: sum over ranks i <= k of R_i / i x prod over j < i of (1 - R_j), with
    R = (2^grade - 1) / 16; an unjudged result or a grade below 1 has R = 0. A grade above 4 is
    refused, as gdeval refuses it."""
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    if len(grades) and int(grades.max()) > ERR_TOP_GRADE:
        raise ValueError(
            f"ERR@{k} reads grades 0 to {ERR_TOP_GRADE}, as gdeval (ir_measures' ERR) does; "
            f"the qrels grade a returned document {int(grades.max())}"
        )
    index, owner, rank = _ranked(grades, offsets, 1, k)
    stop = (2.0 ** grades[index] - 1.0) / 2.0**ERR_TOP_GRADE
    # the chance the reader gets past every earlier result: a running product within each list,
    # taken as a running sum of logs (1 - R is at least 1/16, never 0)
    passed = np.exp(_running(np.log1p(-stop), owner) - np.log1p(-stop))
    return _per_list(offsets, owner, stop * passed / (rank + 1.0))
