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

import numpy as np

from explainer.metrics import _check_gain, _check_k


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
    index = np.flatnonzero(grades >= at_least)
    owner = np.searchsorted(offsets, index, side="right") - 1
    position = index - offsets[owner]
    if k is not None:
        top = position < k
        index, owner, position = index[top], owner[top], position[top]
    return index, owner, position


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
    """Judged@k of each list = (judged results in its top k) / k: ``precision_at_k`` of "is it judged".

    The share of the top k that somebody judged (grade >= 0), relevant or not; divides by
    ``k`` even when the list is shorter (ir_measures' ``Judged@k`` divides by the results returned
    when fewer than k came back).
    """
    k = _check_k(k)
    grades, offsets = _flat_lists(grades, offsets)
    return _per_list(offsets, _ranked(grades, offsets, 0, k)[1]) / k


def reciprocal_rank_batch(grades, offsets) -> np.ndarray:
    """RR of each list = 1 / (rank of its first relevant result) over the whole list; 0 if none."""
    grades, offsets = _flat_lists(grades, offsets)
    _, owner, position = _ranked(grades, offsets)
    out = np.zeros(len(offsets) - 1)
    owners, first = np.unique(owner, return_index=True)
    out[owners] = 1.0 / (position[first] + 1)
    return out


def average_precision_batch(grades, offsets, n_relevant) -> np.ndarray:
    """AP of each list = (sum of P@i over its relevant ranks i) / n_relevant[q]; 0 where n_relevant is 0.

    Over the whole list, as trec_eval's ``map``.
    """
    grades, offsets = _flat_lists(grades, offsets)
    n_relevant = _check_counts(n_relevant, offsets)
    _, owner, position = _ranked(grades, offsets)
    # hits so far at each relevant rank: its index among its list's relevant results, plus one
    first_of_owner = np.searchsorted(owner, owner, side="left")
    hits = np.arange(len(owner)) - first_of_owner + 1
    sums = _per_list(offsets, owner, hits / (position + 1))
    return np.divide(sums, n_relevant, out=np.zeros(len(sums)), where=n_relevant > 0)


def _dcg_batch(grades: np.ndarray, offsets: np.ndarray, k: int | None, gain: str) -> np.ndarray:
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
    k: int,
    ideal,
    ideal_offsets,
    gain: str = "exponential",
    cut_ideal: bool = True,
) -> np.ndarray:
    """NDCG@k of each list = DCG@k / ideal DCG; 0 where the ideal is 0.

    ``ideal[ideal_offsets[q]:ideal_offsets[q + 1]]`` holds the grades list q's ideal is
    made of: every judged document of the query for trec_eval's ``ndcg_cut_k`` (as
    ``ndcg_at_k(..., judged=...)``), or the list's own judged grades, a common shortcut in
    code examples (as ``ndcg_at_k`` without ``judged``). They are sorted high to low here.
    The ideal DCG is cut at k, unless ``cut_ideal`` is False (then it sums every ideal grade).
    """
    k = _check_k(k)
    _check_gain(gain)
    grades, offsets = _flat_lists(grades, offsets)
    ideal, ideal_offsets = _flat_lists(ideal, ideal_offsets)
    if len(ideal_offsets) != len(offsets):
        raise ValueError(f"ideal_offsets must describe {len(offsets) - 1} lists, got {len(ideal_offsets) - 1}")
    # Only grades >= 1 have gain: sort those of each list high to low.
    positive, owner, _ = _ranked(ideal, ideal_offsets)
    order = np.lexsort((-ideal[positive], owner))
    best = ideal[positive][order]
    best_offsets = np.zeros(len(ideal_offsets), dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=len(ideal_offsets) - 1), out=best_offsets[1:])
    top = _dcg_batch(grades, offsets, k, gain)
    bottom = _dcg_batch(best, best_offsets, k if cut_ideal else None, gain)
    return np.divide(top, bottom, out=np.zeros(len(top)), where=bottom > 0)
