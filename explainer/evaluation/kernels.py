"""The many-query kernels: each measure of many ranked lists in one vectorised call.

The lists are given flat: ``grades`` holds every list's grades one after the other, rank 1
first, and list q is ``grades[offsets[q]:offsets[q + 1]]``. A negative grade stands for an
unjudged document (``None`` in ``explainer.metrics``). Each kernel returns one value per list,
equal to its ``explainer.metrics`` function applied to that list (the test suite checks it, and
both against trec_eval); ``explainer.catalog.measures`` says which kernel computes which measure.
The readable per-list functions stay in ``explainer.metrics``, the twin of ``metrics.js``: these
kernels have no twin, as the browser evaluates one query at a time.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from explainer.metrics import _check_gain, _check_k

KEPT_BYTES = 128 << 20
"""The most ``shared_scans`` keeps. The answers are small where judgments are few among the results
(a few megabytes for ten million results); where nearly all are judged, the answers past this are
computed afresh each time, as without the context, rather than held all evaluation long."""


class _Kept:
    """What ``shared_scans`` keeps: answers by (question, array id), and the bytes they take."""

    def __init__(self):
        self.answers: dict = {}
        self.nbytes = 0


_SCANS: contextvars.ContextVar[_Kept | None] = contextvars.ContextVar("kernel_scans", default=None)


@contextlib.contextmanager
def shared_scans():
    """Within it, the kernels scan each grades array once per threshold, not once per measure.

    An evaluation asks some hundred measures of the same ten million grades; each used to find
    the relevant (or judged) positions afresh. Inside this context the positions found are kept,
    with the arrays they were found in, and given again for the same array object and offsets.
    The arrays must not change while it lasts (an evaluation's do not); it keeps ``KEPT_BYTES`` at most.
    """
    token = _SCANS.set(_Kept())
    try:
        yield
    finally:
        _SCANS.reset(token)


def _flat_lists(grades, offsets) -> tuple[np.ndarray, np.ndarray]:
    """Validated flat grades and offsets."""
    grades = np.asarray(grades)
    offsets = np.asarray(offsets)
    if grades.ndim != 1 or not np.issubdtype(grades.dtype, np.integer):
        raise ValueError(f"grades must be a flat array of integers, got {grades.dtype} with shape {grades.shape}")
    if (
        offsets.ndim != 1
        or len(offsets) < 1
        or not np.issubdtype(offsets.dtype, np.integer)
        or offsets[0] != 0
        or offsets[-1] != len(grades)
        or (np.diff(offsets) < 0).any()
    ):
        raise ValueError(f"offsets must rise from 0 to len(grades) = {len(grades)}, got {offsets!r}")
    return grades, offsets.astype(np.int64)


def _ranked(
    grades: np.ndarray, offsets: np.ndarray, at_least: int = 1, k: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The flat positions of the grades >= ``at_least`` (in the top ``k`` of their list, if given),
    with the list each is in and its 0-based rank there.

    Only these few positions get an owner and a rank: most of a long run is not relevant,
    and giving all ten million results a rank cost more than the measures themselves.
    """
    index, owner, position = _scan(grades, offsets, at_least)
    if k is not None:
        top = position < k
        index, owner, position = index[top], owner[top], position[top]
    return index, owner, position


def _scan(grades: np.ndarray, offsets: np.ndarray, at_least: int, exactly: bool = False):
    """The flat positions of the grades >= ``at_least`` (== it if ``exactly``), their lists and ranks."""

    def scan():
        index = np.flatnonzero(grades == at_least if exactly else grades >= at_least)
        owner = np.searchsorted(offsets, index, side="right") - 1
        return index, owner, index - offsets[owner]

    return shared(("scan", at_least, exactly), grades, offsets, scan)


def shared(question, grades: np.ndarray, offsets: np.ndarray, compute):
    """``compute()``, which reads only ``grades`` and ``offsets`` to answer ``question`` (a hashable
    name); within ``shared_scans`` the answer is kept and given again for the same array object and
    offsets. Its arrays are shared then: callers must not change them."""
    scans = _SCANS.get()
    if scans is None:
        return compute()
    key = (question, id(grades))
    kept = scans.answers.get(key)
    if kept is not None and kept[0] is grades and np.array_equal(kept[1], offsets):
        return kept[2]
    found = compute()
    size = offsets.nbytes + sum(a.nbytes for a in found)
    if scans.nbytes + size <= KEPT_BYTES:
        scans.answers[key] = (grades, offsets.copy(), found)  # the array is kept: its id names no other meanwhile
        scans.nbytes += size
    return found


def _per_list(offsets: np.ndarray, owner: np.ndarray, weights=None) -> np.ndarray:
    """Sum ``weights`` (or count) into the lists given by ``owner``."""
    return np.bincount(owner, weights=weights, minlength=len(offsets) - 1).astype(np.float64)


def _check_counts(n_relevant, offsets: np.ndarray) -> np.ndarray:
    n_relevant = np.asarray(n_relevant)
    if n_relevant.shape != (len(offsets) - 1,) or not np.issubdtype(n_relevant.dtype, np.integer):
        raise ValueError(f"n_relevant must hold one integer per list ({len(offsets) - 1}), got {n_relevant!r}")
    return n_relevant


def precision_at_k_batch(grades, offsets, k: int) -> np.ndarray:
    """P@k of each list = (relevant results in its top k) / k, as ``precision_at_k``."""
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    return _per_list(offsets, _ranked(grades, offsets, 1, k)[1]) / k


def recall_at_k_batch(grades, offsets, k: int, n_relevant) -> np.ndarray:
    """R@k of each list = (relevant results in its top k) / n_relevant[q]; 0 where n_relevant is 0."""
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    hits = _per_list(offsets, _ranked(grades, offsets, 1, k)[1])
    return np.divide(hits, n_relevant, out=np.zeros(len(hits)), where=n_relevant > 0)


def hit_rate_at_k_batch(grades, offsets, k: int) -> np.ndarray:
    """Hit rate@k of each list = 1 if any relevant result is in its top k, else 0 (trec_eval's ``success_k``)."""
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    return (_per_list(offsets, _ranked(grades, offsets, 1, k)[1]) > 0).astype(np.float64)


def judged_at_k_batch(grades, offsets, k: int) -> np.ndarray:
    """Judged@k of each list = (judged results in its top k) / min(k, results returned); 0 for an empty list.

    ir_measures' ``Judged@k``: the share of what was shown that somebody judged (grade >= 0),
    relevant or not, so a short list wholly judged scores 1. trec_eval's ``unj.k`` divides the
    unjudged by k instead (``unjudged_at_k_batch``).
    """
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    shown = np.minimum(np.diff(offsets), k)
    judged = _per_list(offsets, _ranked(grades, offsets, 0, k)[1])
    return np.divide(judged, shown, out=np.zeros(len(judged)), where=shown > 0)


def unjudged_at_k_batch(grades, offsets, k: int) -> np.ndarray:
    """unj@k of each list = (unjudged results in its top k) / k, trec_eval's ``unj.k`` (m_unjudged.c).

    Unjudged: not in the qrels, or there with a negative grade (in the pool, not judged).
    """
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    shown = np.minimum(np.diff(offsets), k)
    judged = _per_list(offsets, _ranked(grades, offsets, 0, k)[1])
    return (shown - judged) / k


def reciprocal_rank_batch(grades, offsets, k: int | None = None) -> np.ndarray:
    """RR of each list = 1 / (rank of its first relevant result), over the whole list or its top ``k``; 0 if none."""
    k = None if k is None else _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    _, owner, position = _ranked(grades, offsets, 1, k)
    out = np.zeros(len(offsets) - 1)
    owners, first = np.unique(owner, return_index=True)
    out[owners] = 1.0 / (position[first] + 1)
    return out


def average_precision_batch(grades, offsets, n_relevant, k: int | None = None) -> np.ndarray:
    """AP of each list = (sum of P@i over its relevant ranks i) / n_relevant[q]; 0 where n_relevant is 0.

    Over the whole list, as trec_eval's ``map``, or over its top ``k``, as ``map_cut.k``.
    """
    k = None if k is None else _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    _, owner, position = _ranked(grades, offsets, 1, k)
    # hits so far at each relevant rank: its index among its list's relevant results, plus one
    first_of_owner = np.searchsorted(owner, owner, side="left")
    hits = np.arange(len(owner)) - first_of_owner + 1
    sums = _per_list(offsets, owner, hits / (position + 1))
    return np.divide(sums, n_relevant, out=np.zeros(len(sums)), where=n_relevant > 0)


def _dcg_batch(grades: np.ndarray, offsets: np.ndarray, k: int | None, gain: str) -> np.ndarray:
    """DCG of each list, over its top ``k`` (None: all of it)."""
    index, owner, position = _ranked(grades, offsets, 1, k)
    g = grades[index].astype(np.float64)
    gains = 2.0**g - 1.0 if gain == "exponential" else g
    return _per_list(offsets, owner, gains / np.log2(position + 2.0))


def dcg_at_k_batch(grades, offsets, k: int, gain: str = "exponential") -> np.ndarray:
    """DCG@k of each list = sum over its ranks i <= k of gain(g_i) / log2(i + 1), as ``dcg_at_k``."""
    k = _check_k(k)
    _check_gain(gain)
    grades, offsets = _flat_lists(grades, offsets)
    return _dcg_batch(grades, offsets, k, gain)


def ndcg_at_k_batch(
    grades,
    offsets,
    k: int | None,
    ideal,
    ideal_offsets,
    gain: str = "exponential",
    cut_ideal: bool = True,
) -> np.ndarray:
    """NDCG@k of each list = DCG@k / ideal DCG; 0 where the ideal is 0. With ``k`` None, the whole
    list over the whole ideal (trec_eval's ``ndcg``).

    ``ideal[ideal_offsets[q]:ideal_offsets[q + 1]]`` holds the grades list q's ideal is
    made of: every judged document of the query for trec_eval's ``ndcg_cut_k`` (as
    ``ndcg_at_k(..., judged=...)``), or the list's own judged grades, a common shortcut in
    code examples (as ``ndcg_at_k`` without ``judged``). They are sorted high to low here.
    The ideal DCG is cut at k, unless ``cut_ideal`` is False (then it sums every ideal grade).
    """
    k = None if k is None else _check_k(k)
    _check_gain(gain)
    grades, offsets = _flat_lists(grades, offsets)
    ideal, ideal_offsets = _flat_lists(ideal, ideal_offsets)
    if len(ideal_offsets) != len(offsets):
        raise ValueError(f"ideal_offsets must describe {len(offsets) - 1} lists, got {len(ideal_offsets) - 1}")
    best, best_offsets = shared("best first", ideal, ideal_offsets, lambda: _best_first(ideal, ideal_offsets))
    top = _dcg_batch(grades, offsets, k, gain)
    bottom = _dcg_batch(best, best_offsets, k if cut_ideal and k is not None else None, gain)
    return np.divide(top, bottom, out=np.zeros(len(top)), where=bottom > 0)


def _best_first(ideal: np.ndarray, ideal_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each list's grades >= 1 (only those have gain), sorted high to low, flat, and their offsets."""
    positive, owner, _ = _ranked(ideal, ideal_offsets)
    order = np.lexsort((-ideal[positive], owner))
    best_offsets = np.zeros(len(ideal_offsets), dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(ideal_offsets) - 1), out=best_offsets[1:])
    return ideal[positive][order], best_offsets


# -- counts and the measures of the returned set -------------------------------------------


def count_queries_batch(offsets) -> np.ndarray:
    """1 for each list: summed, trec_eval's ``num_q``."""
    return np.ones(len(offsets) - 1)


def returned_batch(offsets) -> np.ndarray:
    """The results each list returned, trec_eval's ``num_ret``."""
    return np.diff(np.asarray(offsets)).astype(np.float64)


def n_relevant_batch(n_relevant) -> np.ndarray:
    """R of each list, trec_eval's ``num_rel``."""
    return np.asarray(n_relevant, dtype=np.float64)


def relevant_returned_batch(grades, offsets) -> np.ndarray:
    """The relevant results each list returned, trec_eval's ``num_rel_ret``."""
    grades, offsets = _flat_lists(grades, offsets)
    return _per_list(offsets, _ranked(grades, offsets, 1)[1])


def judged_nonrelevant_returned_batch(grades, offsets) -> np.ndarray:
    """The results each list returned that were judged not relevant (grade 0 in the binary grades),
    trec_eval's ``num_nonrel_judged_ret``."""
    grades, offsets = _flat_lists(grades, offsets)
    return _per_list(offsets, _scan(grades, offsets, 0, exactly=True)[1])


def _safe_divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    bottom = np.asarray(bottom, dtype=np.float64)
    return np.divide(top, bottom, out=np.zeros(len(top)), where=bottom > 0)


def set_precision_batch(grades, offsets) -> np.ndarray:
    """set_P = (relevant returned) / (returned); 0 for an empty list."""
    return _safe_divide(relevant_returned_batch(grades, offsets), returned_batch(offsets))


def set_recall_batch(grades, offsets, n_relevant) -> np.ndarray:
    """set_recall = (relevant returned) / R; 0 where R is 0."""
    n_relevant = _check_counts(n_relevant, np.asarray(offsets))
    return _safe_divide(relevant_returned_batch(grades, offsets), n_relevant)


def set_relative_precision_batch(grades, offsets, n_relevant) -> np.ndarray:
    """set_relative_P = (relevant returned) / min(R, returned); 0 where either is 0."""
    n_relevant = _check_counts(n_relevant, np.asarray(offsets))
    return _safe_divide(relevant_returned_batch(grades, offsets), np.minimum(n_relevant, returned_batch(offsets)))


def set_ap_batch(grades, offsets, n_relevant) -> np.ndarray:
    """set_map = (relevant returned)^2 / (returned x R); 0 where either is 0."""
    n_relevant = _check_counts(n_relevant, np.asarray(offsets))
    hits = relevant_returned_batch(grades, offsets)
    return _safe_divide(hits * hits, returned_batch(offsets) * n_relevant)


def set_f_batch(grades, offsets, n_relevant, values=()) -> np.ndarray:
    """set_F = (b + 1) P R / (b P + R), P and R set precision and recall, b = values[0] (1 by default)."""
    beta = float(values[0]) if len(values) else 1.0
    p = set_precision_batch(grades, offsets)
    r = set_recall_batch(grades, offsets, n_relevant)
    return _safe_divide((beta + 1.0) * p * r, beta * p + r)


def utility_batch(grades, offsets, n_relevant, values=(), n_documents: int = 0) -> np.ndarray:
    """utility = a (relevant returned) + b (non-relevant returned) + c (relevant missed) + d (the rest
    of the collection), with ``values`` = (a, b, c, d), (1, -1, 0, 0) by default, and
    ``n_documents`` the collection's size (trec_eval's ``-N``, 0 by default)."""
    a, b, c, d = (float(v) for v in values) if len(values) else (1.0, -1.0, 0.0, 0.0)
    n_relevant = _check_counts(n_relevant, np.asarray(offsets))
    hits = relevant_returned_batch(grades, offsets)
    returned = returned_batch(offsets)
    return a * hits + b * (returned - hits) + c * (n_relevant - hits) + d * (n_documents + hits - returned - n_relevant)


# -- rank-based measures over the relevant results ----------------------------------------


def r_precision_batch(grades, offsets, n_relevant) -> np.ndarray:
    """Rprec = (relevant results in the top R) / R; 0 where R is 0."""
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    _, owner, position = _ranked(grades, offsets, 1)
    inside = position < n_relevant[owner]
    return _safe_divide(_per_list(offsets, owner[inside]), n_relevant)


def relative_precision_batch(grades, offsets, k: int, n_relevant) -> np.ndarray:
    """relative_P@k = (relevant results in the top k) / min(R, k); 0 where R is 0."""
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    hits = _per_list(offsets, _ranked(grades, offsets, 1, k)[1])
    return _safe_divide(hits, np.minimum(n_relevant, k))


def _nonrelevant_above(grades: np.ndarray, offsets: np.ndarray, judged: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each relevant result, its list and the non-relevant results above it in that list:
    the judged non-relevant (grade 0) if ``judged``, else every result that is not relevant."""
    index, owner, position = _ranked(grades, offsets, 1)
    first_of_owner = np.searchsorted(owner, owner, side="left")
    relevant_above = np.arange(len(owner)) - first_of_owner
    if not judged:
        return owner, position - relevant_above
    return owner, _count_above(grades, offsets, 0, index, owner)


def _count_above(grades: np.ndarray, offsets: np.ndarray, value: int, index: np.ndarray, owner: np.ndarray):
    """For each flat position in ``index`` (of list ``owner``), the results of grade ``value`` above it
    in its list, counted among the (few) positions of that grade."""
    marked = _scan(grades, offsets, value, exactly=True)[0]
    return np.searchsorted(marked, index) - np.searchsorted(marked, offsets[owner])


def bpref_batch(grades, offsets, n_relevant, n_nonrelevant) -> np.ndarray:
    """bpref = (1/R) sum over the relevant results r of 1 - min(n_r, R) / min(N, R), where n_r counts
    the judged non-relevant results above r and N the query's judged non-relevant documents
    (m_bpref.c); a term is 1 when n_r is 0. Unjudged results count for nothing."""
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    n_nonrelevant = _check_counts(n_nonrelevant, offsets)
    owner, above = _nonrelevant_above(grades, offsets, judged=True)
    r = n_relevant[owner]
    bottom = np.minimum(n_nonrelevant[owner], r).astype(np.float64)
    terms = 1.0 - np.divide(np.minimum(above, r), bottom, out=np.zeros(len(owner)), where=above > 0)
    return _safe_divide(_per_list(offsets, owner, terms), n_relevant)


def binary_g_batch(grades, offsets, n_relevant) -> np.ndarray:
    """binG = (1/R) sum over the relevant results r of 1 / log2(2 + the results above r that are not
    relevant, judged or not) (m_binG.c); 0 where R is 0."""
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    owner, above = _nonrelevant_above(grades, offsets, judged=False)
    return _safe_divide(_per_list(offsets, owner, 1.0 / np.log2(2.0 + above)), n_relevant)


# -- interpolated precision, precision at multiples of R, inferred AP, RBP's residual -------


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """C's lround for x >= 0: halves go up (numpy's round takes them to the even neighbour)."""
    whole = np.floor(x)
    return (whole + (x - whole >= 0.5)).astype(np.int64)


def interpolated_precision_batch(grades, offsets, n_relevant, level: float) -> np.ndarray:
    """iprec_at_recall_x of each list = the highest precision at a relevant rank whose relevant
    results so far reach c = round(x R) (at least 1); 0 when fewer than c relevant were returned.

    trec_eval 10.0 rounds x R to the nearest whole number (m_iprec_at_recall.c); 9 added 0.9 and
    truncated. Past the last relevant result precision only falls, so relevant ranks suffice.
    """
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    _, owner, position = _ranked(grades, offsets, 1)
    first_of_owner = np.searchsorted(owner, owner, side="left")
    hits = np.arange(len(owner)) - first_of_owner + 1
    precision = hits / (position + 1.0)
    # the best precision from each relevant rank down, within its list: a running maximum taken
    # backwards, each list lifted above the lists after it (which the backward run meets first)
    # so that none leaks into another
    lift = 2.0 * (len(offsets) - owner)
    best_below = np.maximum.accumulate((precision + lift)[::-1])[::-1] - lift
    wanted = np.maximum(_round_half_away(float(level) * n_relevant), 1)
    at = np.flatnonzero(hits == wanted[owner])
    out = np.zeros(len(offsets) - 1)
    out[owner[at]] = best_below[at]
    return out


def eleven_point_batch(grades, offsets, n_relevant, values=()) -> np.ndarray:
    """11pt_avg = the mean of iprec_at_recall over ``values``, the recall levels (0.0, 0.1, ..., 1.0 by default)."""
    levels = [float(v) for v in values] if len(values) else [i / 10 for i in range(11)]
    return np.mean([interpolated_precision_batch(grades, offsets, n_relevant, x) for x in levels], axis=0)


def precision_at_r_multiple_batch(grades, offsets, n_relevant, level: float) -> np.ndarray:
    """Rprec_mult_x of each list = P@c with c = floor(x R + 0.9) (m_Rprec_mult.c); 0 where c is 0."""
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    cut = np.floor(float(level) * n_relevant + 0.9).astype(np.int64)
    _, owner, position = _ranked(grades, offsets, 1)
    hits = _per_list(offsets, owner[position < cut[owner]])
    return _safe_divide(hits, cut)


def inferred_ap_batch(grades, offsets, n_relevant) -> np.ndarray:
    """infAP (Yilmaz and Aslam; m_infap.c): for each relevant result at 0-based rank j, 1 if j is 0,
    else 1/(j+1) + j/(j+1) x (a/j) x (r + e)/(r + n + 2e), where r, n and u count the relevant, judged
    non-relevant and pooled-but-unjudged (grade -2) results above it, a = r + n + u, e = 0.00001;
    summed and divided by R. Results outside the pool (-1) count only in j."""
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    index, owner, position = _ranked(grades, offsets, 1)
    first_of_owner = np.searchsorted(owner, owner, side="left")
    r = (np.arange(len(owner)) - first_of_owner).astype(np.float64)

    n = _count_above(grades, offsets, 0, index, owner).astype(np.float64)
    u = _count_above(grades, offsets, -2, index, owner).astype(np.float64)
    j = position.astype(np.float64)
    e = 0.00001
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r + n + u) / j) * ((r + e) / (r + n + 2 * e))
    terms = np.where(position == 0, 1.0, later)
    return _safe_divide(_per_list(offsets, owner, terms), n_relevant)


def rbp_residual_batch(grades, offsets, pairs=()) -> np.ndarray:
    """rbp_resid = p^n + (1 - p) x (sum over the unjudged ranks i of p^(i - 1)), p = 0.9 unless a
    ``p=`` pair says otherwise, n the results returned; 0 when none is unjudged (m_rbp_resid.c)."""
    grades, offsets = _flat_lists(grades, offsets)
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = float(value)
    lengths = np.diff(offsets)
    powers = p ** np.arange(int(lengths.max(initial=0)), dtype=np.float64)
    judged, judged_owner, _ = _scan(grades, offsets, 0)  # few; every other result is unjudged
    unjudged = lengths - np.bincount(judged_owner, minlength=len(lengths))
    sums = np.zeros(len(lengths))
    # a slice of lists at a time: each result's p^rank from a table (the same doubles as computed
    # one by one), the judged ones' set to 0, summed in rank order as one sum over the unjudged
    # would be (adding 0.0 changes no sum)
    for a, b in _slices(offsets, _RBP_SLICE):
        lo, hi = int(offsets[a]), int(offsets[b])
        weights = powers[np.arange(hi - lo) - np.repeat(offsets[a:b] - lo, lengths[a:b])]
        first, stop = np.searchsorted(judged, (lo, hi))
        weights[judged[first:stop] - lo] = 0.0
        sums[a:b] = np.bincount(np.repeat(np.arange(b - a), lengths[a:b]), weights=weights, minlength=b - a)
    tail = p ** lengths.astype(np.float64)
    return np.where(unjudged > 0, tail + (1 - p) * sums, 0.0)


_RBP_SLICE = 1 << 20
"""Results per slice of ``rbp_residual_batch``: its temporaries stay a few megabytes."""


def _slices(offsets: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Runs of whole lists ``(first, stop)`` of about ``size`` results each (a longer list alone)."""
    firsts = np.searchsorted(offsets, np.arange(size, int(offsets[-1]), size), side="right") - 1
    edges = sorted({0, *firsts.tolist()}) + [len(offsets) - 1]
    return [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
