"""The parameter types figures' states are made of, each with the limits the browser needs.

A state class declares its fields with these types and their bounds; ``limits_of`` turns a
field into the plain dict that the figure's view hands to JavaScript (``model.limits``), so a
bound such as 12 results or grade 3 is written once, here in Python, and never in a .js file.
Every type refuses a wrong value with ValueError naming the field.
"""

from __future__ import annotations

from typing import Any

import param


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Count(param.Integer):
    """A whole number within bounds; unlike param.Integer, True and False are refused."""

    def _validate_value(self, val, allow_None):
        if isinstance(val, bool):
            raise ValueError(f"{self.name} must be a whole number, not {val!r}")
        super()._validate_value(val, allow_None)

    def limits(self) -> dict[str, int]:
        low, high = self.bounds
        return {"min": low, "max": high}


class _Sized(param.List):
    """A list whose length lies within ``bounds`` (``(n, n)`` for exactly n)."""

    def size_limits(self) -> dict[str, int]:
        low, high = self.bounds
        return {"length": low} if low == high else {"min_length": low, "max_length": high}


class Flags(_Sized):
    """One yes-or-no per rank, rank 1 first: ``Flags(length=12)``; with ``unjudged``, None marks a
    rank whose document nobody judged (a real query's list: the measures count it as a no)."""

    __slots__ = ["unjudged"]

    def __init__(self, *, length: int, unjudged: bool = False, **params):
        self.unjudged = unjudged
        super().__init__(bounds=(length, length), **params)

    def _validate(self, val):
        super()._validate(val)
        for rank, flag in enumerate(val or [], start=1):
            if flag is None and self.unjudged:
                continue
            if not isinstance(flag, bool):
                what = "True or False" + (" or None" if self.unjudged else "")
                raise ValueError(f"{self.name} at rank {rank} must be {what}, got {flag!r}")

    def limits(self) -> dict[str, Any]:
        return {**self.size_limits(), "unjudged": self.unjudged}


class Grades(_Sized):
    """Grades from ``lowest`` to ``highest``, one per document; with ``unjudged``, None marks a document nobody judged."""

    __slots__ = ["lowest", "highest", "unjudged"]

    def __init__(self, *, lowest: int = 0, highest: int, unjudged: bool = False, **params):
        self.lowest = lowest
        self.highest = highest
        self.unjudged = unjudged
        super().__init__(**params)

    def _validate(self, val):
        super()._validate(val)
        for doc, grade in enumerate(val or []):
            if grade is None and self.unjudged:
                continue
            if not _is_whole(grade) or not self.lowest <= grade <= self.highest:
                what = f"a grade from {self.lowest} to {self.highest}" + (" or None" if self.unjudged else "")
                raise ValueError(f"{self.name}[{doc}] must be {what}, got {grade!r}")

    def limits(self) -> dict[str, Any]:
        return {**self.size_limits(), "min_grade": self.lowest, "max_grade": self.highest, "unjudged": self.unjudged}


class Permutation(_Sized):
    """An order of documents: each of 0..n-1 exactly once, rank 1 first."""

    def __init__(self, *, length: int, **params):
        super().__init__(item_type=int, bounds=(length, length), **params)

    def _validate(self, val):
        super()._validate(val)
        if val is not None and sorted(val) != list(range(len(val))):
            raise ValueError(f"{self.name} must hold each document 0..{len(val) - 1} once, got {val!r}")

    def limits(self) -> dict[str, int]:
        return self.size_limits()


def _check_ranks(name: str, ranks: Any, deepest: int, noun: str) -> None:
    what = f"{name} must list distinct {noun}s from 1 to {deepest}"
    if not isinstance(ranks, (list, tuple)):
        raise ValueError(f"{what}, got {ranks!r}")
    for rank in ranks:
        if not _is_whole(rank) or not 1 <= rank <= deepest:
            raise ValueError(f"{what}, got {rank!r} in {ranks!r}")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"{what}; it names a {noun} twice: {ranks!r}")


class Ranks(_Sized):
    """Distinct ranks from 1 to ``deepest``, as many as ``bounds`` allows; ``noun`` says what they rank."""

    __slots__ = ["deepest", "noun"]

    def __init__(self, *, deepest: int, noun: str = "rank", **params):
        self.deepest = deepest
        self.noun = noun
        super().__init__(**params)

    def _validate(self, val):
        super()._validate(val)
        if val is not None:
            _check_ranks(self.name, val, self.deepest, self.noun)

    def limits(self) -> dict[str, int]:
        return {**self.size_limits(), "max_rank": self.deepest}


class RankLists(_Sized):
    """Several queries' relevant ranks: for each query, distinct ranks from 1 to ``deepest``."""

    __slots__ = ["deepest"]

    def __init__(self, *, deepest: int, **params):
        self.deepest = deepest
        super().__init__(**params)

    def _validate(self, val):
        low, high = self.bounds
        if val is not None and isinstance(val, list) and not low <= len(val) <= high:
            raise ValueError(f"{self.name} must have {low} to {high} queries, got {len(val)}")
        super()._validate(val)
        for query, ranks in enumerate(val or [], start=1):
            _check_ranks(f"{self.name} query {query}", ranks, self.deepest, "relevant rank")

    def limits(self) -> dict[str, int]:
        low, high = self.bounds
        return {"min_queries": low, "max_queries": high, "max_rank": self.deepest}


def limits_of(parameter: param.Parameter) -> dict[str, Any]:
    """What the browser must know to keep a field valid: its bounds, lengths or options."""
    if hasattr(parameter, "limits"):
        return parameter.limits()
    if isinstance(parameter, param.Selector):
        return {"options": list(parameter.objects)}
    return {}
