"""Generated ranked lists shared by the trec_eval and JavaScript comparisons.

``generated_cases(n, seed)`` returns ``n`` plain dicts (JSON-ready: ints, None, lists)::

    {
        "id": "c007-outside",          # index and kind, for test ids
        "kind": "outside",             # which edge the case was built to hit
        "grades": [2, None, 0, 1],     # the ranked list, rank 1 first; None = unjudged
        "outside": [3, 0],             # grades of judged documents the list missed
        "judged": [2, 0, 1, 3, 0],     # every judged grade for the query (list's + outside)
        "n_relevant": 3,               # judged grades >= 1
        "k": 6,                        # a cutoff, sometimes beyond the list
    }

The kinds rotate so that every few cases hit each edge trec_eval treats
specially: unjudged documents in the list, relevant documents outside it, a
cutoff past the end of the list, queries with no relevant document (judged,
all grade 0), queries with nothing judged at all, and empty lists.
"""

from __future__ import annotations

import numpy as np

KINDS = (
    "mixed",  # anything goes
    "unjudged",  # many documents in the list nobody judged
    "outside",  # at least one relevant document missing from the list
    "k_beyond",  # k larger than the list
    "no_relevant",  # judged documents, every grade 0: n_relevant is 0
    "rich",  # mostly relevant, high grades
    "nothing_judged",  # no judged document at all (all None, nothing outside)
    "empty",  # an empty ranked list, relevant documents outside it
)

# The grades 0..3 and how often each appears in an ordinary list.
GRADE_WEIGHTS = np.array([0.45, 0.25, 0.15, 0.15])


def _grades(rng: np.random.Generator, length: int, p_unjudged: float, weights=GRADE_WEIGHTS) -> list:
    out = []
    for _ in range(length):
        if rng.random() < p_unjudged:
            out.append(None)
        else:
            out.append(int(rng.choice(4, p=weights)))
    return out


def make_case(index: int, kind: str, grades: list, outside: list, k: int) -> dict:
    judged = [g for g in grades if g is not None] + list(outside)
    return {
        "id": f"c{index:03d}-{kind}",
        "kind": kind,
        "grades": list(grades),
        "outside": list(outside),
        "judged": judged,
        "n_relevant": sum(1 for g in judged if g >= 1),
        "k": int(k),
    }


def generated_cases(n: int = 300, seed: int = 20240611) -> list[dict]:
    """``n`` reproducible cases; the same ``(n, seed)`` always gives the same list."""
    rng = np.random.default_rng(seed)
    cases = []
    for index in range(n):
        kind = KINDS[index % len(KINDS)]
        length = int(rng.integers(1, 13))
        k = int(rng.integers(1, 16))
        n_outside = int(rng.integers(0, 5))
        if kind == "mixed":
            grades = _grades(rng, length, 0.15)
            outside = _grades(rng, n_outside, 0.0)
        elif kind == "unjudged":
            grades = _grades(rng, length, 0.6)
            outside = _grades(rng, n_outside, 0.0)
        elif kind == "outside":
            grades = _grades(rng, length, 0.15)
            outside = [int(rng.integers(1, 4))] + _grades(rng, n_outside, 0.0)
        elif kind == "k_beyond":
            grades = _grades(rng, length, 0.15)
            outside = _grades(rng, n_outside, 0.0)
            k = length + int(rng.integers(1, 8))
        elif kind == "no_relevant":
            # At least one judged grade-0 document, so trec_eval knows the query.
            grades = [None if rng.random() < 0.3 else 0 for _ in range(length)]
            outside = [0] * (n_outside + (0 if any(g == 0 for g in grades) else 1))
        elif kind == "rich":
            grades = _grades(rng, length, 0.05, weights=np.array([0.1, 0.2, 0.3, 0.4]))
            outside = _grades(rng, n_outside, 0.0, weights=np.array([0.1, 0.2, 0.3, 0.4]))
        elif kind == "nothing_judged":
            grades = [None] * length
            outside = []
        elif kind == "empty":
            grades = []
            outside = [int(rng.integers(1, 4))] + _grades(rng, n_outside, 0.0)
        else:  # pragma: no cover - KINDS and the branches above go together
            raise AssertionError(kind)
        cases.append(make_case(index, kind, grades, outside, k))
    return cases
