"""The metrics core: every number the explainer shows comes from here.

Pure functions over a ranked list of grades, following trec_eval's conventions:

- ``grades`` are in rank order, rank 1 first: integers >= 0, or ``None`` for a
  document nobody judged, which counts as not relevant with gain 0.
- A document is relevant when its grade is >= 1.
- ``n_relevant`` is R, the number of documents judged relevant for the query,
  including those the list missed (trec_eval counts it from the qrels).
- ``k`` is a cutoff >= 1; it may be larger than the list (missing ranks are not
  relevant, and precision still divides by ``k``).

``metrics.js`` beside this file is the browser twin, with the same names in
camelCase; the test suite checks the two against each other and against
trec_eval. Bad arguments raise ``ValueError`` naming the argument and value.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from numbers import Integral, Real

import numpy as np

Grade = int | None

GAINS = ("exponential", "linear")
"""Gain functions: ``exponential`` is 2^g - 1 (0, 1, 3, 7 for grades 0..3), ``linear`` is g."""


# -- validation ---------------------------------------------------------------


def _is_int(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _check_k(k, name: str = "k") -> int:
    if not _is_int(k) or k < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {k!r}")
    return int(k)


def _check_grades(grades, name: str = "grades", allow_unjudged: bool = True) -> list[Grade]:
    if isinstance(grades, (str, bytes)) or not isinstance(grades, (Sequence, np.ndarray)):
        raise ValueError(f"{name} must be a sequence of grades, got {grades!r}")
    checked: list[Grade] = []
    for rank, grade in enumerate(grades, start=1):
        if grade is None and allow_unjudged:
            checked.append(None)
        elif _is_int(grade) and grade >= 0:
            checked.append(int(grade))
        else:
            what = "an integer >= 0" + (" or None" if allow_unjudged else "")
            raise ValueError(f"{name}[{rank - 1}] (rank {rank}) must be {what}, got {grade!r}")
    return checked


def _check_gain(gain) -> str:
    if gain not in GAINS:
        raise ValueError(f"gain must be one of {', '.join(map(repr, GAINS))}, got {gain!r}")
    return gain


def _relevant_mask(grades: list[Grade]) -> np.ndarray:
    return np.array([g is not None and g >= 1 for g in grades], dtype=bool)


def _check_n_relevant(n_relevant, grades: list[Grade]) -> int:
    in_list = int(_relevant_mask(grades).sum())
    if not _is_int(n_relevant) or n_relevant < in_list:
        raise ValueError(
            f"n_relevant must be an integer >= the {in_list} relevant results in the list, got {n_relevant!r}"
        )
    return int(n_relevant)


# -- building blocks that the figures show ------------------------------------


def gain_value(grade: Grade, gain: str = "exponential") -> float:
    """The gain of one grade: ``2**grade - 1`` (exponential) or ``grade`` (linear); 0 if unjudged."""
    _check_gain(gain)
    if grade is None:
        return 0.0
    if not _is_int(grade) or grade < 0:
        raise ValueError(f"grade must be an integer >= 0 or None, got {grade!r}")
    return float(2**grade - 1) if gain == "exponential" else float(grade)


def discount(rank: int) -> float:
    """The position discount of a rank: ``1 / log2(rank + 1)``; rank 1 counts in full."""
    _check_k(rank, "rank")
    return float(1.0 / np.log2(rank + 1))


def relevant_ranks(grades: Sequence[Grade], k: int | None = None) -> list[int]:
    """The ranks (1-based) of the relevant results, within the top ``k`` when it is given."""
    checked = _check_grades(grades)
    depth = len(checked) if k is None else min(_check_k(k), len(checked))
    return [int(r) + 1 for r in np.flatnonzero(_relevant_mask(checked[:depth]))]


def ideal_grades(grades: Sequence[Grade]) -> list[int]:
    """The best possible order of the judged grades: high to low, unjudged left out."""
    return sorted((g for g in _check_grades(grades) if g is not None), reverse=True)


def dcg_terms(grades: Sequence[Grade], k: int, gain: str = "exponential") -> list[float]:
    """The discounted gain of each rank in the top ``k``: ``gain(g_i) / log2(i + 1)``."""
    checked = _check_grades(grades)
    depth = min(_check_k(k), len(checked))
    _check_gain(gain)
    return [gain_value(g, gain) * discount(i) for i, g in enumerate(checked[:depth], start=1)]


# -- the measures -------------------------------------------------------------


def precision_at_k(grades: Sequence[Grade], k: int) -> float:
    """P@k = (relevant results in the top k) / k.

    Divides by ``k`` even when the list is shorter, as trec_eval's ``P_k`` does.
    """
    k = _check_k(k)
    return len(relevant_ranks(grades, k)) / k


def recall_at_k(grades: Sequence[Grade], k: int, n_relevant: int) -> float:
    """R@k = (relevant results in the top k) / n_relevant; 0 when n_relevant is 0.

    ``n_relevant`` is R, the documents judged relevant for the query, those the list missed included.
    """
    checked = _check_grades(grades)
    n_relevant = _check_n_relevant(n_relevant, checked)
    hits = len(relevant_ranks(checked, k))
    return hits / n_relevant if n_relevant else 0.0


def reciprocal_rank(grades: Sequence[Grade], k: int | None = None) -> float:
    """RR = 1 / (rank of the first relevant result), within the top ``k`` if given; 0 if none."""
    ranks = relevant_ranks(grades, k)
    return 1.0 / ranks[0] if ranks else 0.0


def hit_rate_at_k(grades: Sequence[Grade], k: int) -> float:
    """Hit rate@k = 1 if any relevant result is in the top k, else 0 (trec_eval's ``success_k``)."""
    return 1.0 if relevant_ranks(grades, _check_k(k)) else 0.0


def average_precision_terms(grades: Sequence[Grade], k: int | None = None) -> list[tuple[int, int]]:
    """The terms of average precision as ``(hits so far, rank)`` pairs, one per relevant rank.

    Each term's value is hits / rank, the precision at that rank: the list with
    ranks 2, 3, 5 relevant gives ``[(1, 2), (2, 3), (3, 5)]``.
    """
    return [(hits, rank) for hits, rank in enumerate(relevant_ranks(grades, k), start=1)]


def average_precision(grades: Sequence[Grade], n_relevant: int, k: int | None = None) -> float:
    """AP = (sum of P@i over each relevant rank i, i <= k if given) / n_relevant; 0 if n_relevant is 0.

    Divides by R, the documents judged relevant for the query, found or not (not by
    min(k, n_relevant)), as trec_eval's ``map`` and ``map_cut_k`` do.
    """
    checked = _check_grades(grades)
    n_relevant = _check_n_relevant(n_relevant, checked)
    terms = average_precision_terms(checked, k)
    if n_relevant == 0:
        return 0.0
    return sum(hits / rank for hits, rank in terms) / n_relevant


def dcg_at_k(grades: Sequence[Grade], k: int, gain: str = "exponential") -> float:
    """DCG@k = sum over ranks i <= min(k, len) of gain(g_i) / log2(i + 1)."""
    return float(sum(dcg_terms(grades, k, gain)))


def ndcg_at_k(
    grades: Sequence[Grade],
    k: int,
    gain: str = "exponential",
    judged: Sequence[int] | None = None,
) -> float:
    """NDCG@k = DCG@k / ideal DCG@k; 0 when the ideal is 0.

    The ideal is the grades of ``judged`` (every judged document for the query,
    those in the list included) sorted high to low, cut at ``k``, as trec_eval's
    ``ndcg_cut_k`` does. Without ``judged`` the ideal comes from the list's own
    grades.
    """
    checked = _check_grades(grades)
    k = _check_k(k)
    _check_gain(gain)
    if judged is None:
        ideal = ideal_grades(checked)
    else:
        ideal = sorted(_check_grades(judged, "judged", allow_unjudged=False), reverse=True)
        missing = _missing_from(ideal, [g for g in checked if g is not None])
        if missing:
            raise ValueError(
                f"judged must include the grades of the judged results in the list; "
                f"it lacks {missing}, got {list(judged)!r}"
            )
    best = dcg_at_k(ideal, k, gain)
    return dcg_at_k(checked, k, gain) / best if best else 0.0


def _missing_from(pool: list[int], wanted: list[int]) -> list[int]:
    """The grades of ``wanted`` that ``pool`` does not hold, counted with multiplicity."""
    left = list(pool)
    missing = []
    for g in wanted:
        if g in left:
            left.remove(g)
        else:
            missing.append(g)
    return missing


def mean_reciprocal_rank(rankings: Sequence[Sequence[Grade]]) -> float:
    """MRR = the mean of the reciprocal ranks of several queries' rankings; 0 for no queries."""
    rankings = _check_rankings(rankings)
    return float(np.mean([reciprocal_rank(r) for r in rankings])) if rankings else 0.0


def mean_average_precision(rankings: Sequence[Sequence[Grade]], n_relevants: Sequence[int]) -> float:
    """MAP = the mean of the average precisions of several queries; 0 for no queries.

    ``n_relevants[q]`` is query q's R, its number of documents judged relevant.
    """
    rankings = _check_rankings(rankings)
    if isinstance(n_relevants, (str, bytes)) or not isinstance(n_relevants, (Sequence, np.ndarray)):
        raise ValueError(f"n_relevants must be a sequence of integers, got {n_relevants!r}")
    if len(n_relevants) != len(rankings):
        raise ValueError(f"n_relevants must have one count per ranking ({len(rankings)}), got {len(n_relevants)}")
    if not rankings:
        return 0.0
    return float(np.mean([average_precision(r, n) for r, n in zip(rankings, n_relevants, strict=True)]))


def median(values: Sequence[Real]) -> float:
    """The middle of the values (the mean of the two middle ones for an even count); 0 for none.

    Shown beside MRR and MAP: a mean can hide a group of queries that fail.
    """
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise ValueError(f"values must be a sequence of numbers, got {values!r}")
    ordered = sorted(float(v) for v in values)
    if not ordered:
        return 0.0
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _check_rankings(rankings) -> list:
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, (Sequence, np.ndarray)):
        raise ValueError(f"rankings must be a sequence of grade lists, got {rankings!r}")
    return list(rankings)


# -- how numbers are written ----------------------------------------------------


def format_number(value: Real, digits: int = 2) -> str:
    """Write a metric the way the figures do: fixed ``digits`` decimals, halves rounded up.

    Rounds the exact binary value half up, as JavaScript's ``toFixed`` does, so
    Python and the browser write every number with the same digits.
    """
    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(float(value)).quantize(quantum, rounding=ROUND_HALF_UP))
