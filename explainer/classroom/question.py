"""A question put to the class: predict the hidden numbers of one figure in one state, then reveal them.

The teacher's page names the numbers and their true values (``messages.Target``: its figure
computed them with the metrics core's JavaScript twin). Each student's last guess is kept under
the student's id until the question is revealed; the projector sees only the guesses' values,
sorted, and only once ``MIN_ANSWERS`` students have answered, so that no one's guess can be told.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from explainer.classroom.messages import Refused, Target

# The projector shows a distribution once this many students have answered: with one or two,
# everyone would know whose guess was whose.
MIN_ANSWERS = 3
# A guess "within" this of the true value counts as close on the projector (the share it shows).
CLOSE = 0.05


@dataclass
class Question:
    """One question: its number in the class, its figure (route and query), its targets, the guesses."""

    number: int
    route: str
    query: str
    targets: tuple[Target, ...]
    guesses: dict[str, dict[str, float | None]] = field(default_factory=dict)  # student id -> key -> guess
    revealed: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(target.key for target in self.targets)

    def guess(self, student: str, values: dict[str, float | None]) -> None:
        """Keep ``student``'s guess (their last one counts); refused once revealed or for another number."""
        if self.revealed:
            raise Refused("question-closed")
        if not set(values) <= set(self.keys):
            raise Refused("not-a-target")
        self.guesses[student] = {key: values.get(key) for key in self.keys}

    @property
    def answered(self) -> int:
        return len(self.guesses)

    def values(self, key: str) -> list[float]:
        """Every guess of the number ``key``, sorted (whoever made them)."""
        return sorted(guess[key] for guess in self.guesses.values() if guess.get(key) is not None)

    def spread(self) -> dict[str, list[float]] | None:
        """Each number's guesses, sorted, rounded to 4 decimals, or None while fewer than ``MIN_ANSWERS`` answered."""
        if self.answered < MIN_ANSWERS:
            return None
        return {key: [round(value, 4) for value in self.values(key)] for key in self.keys}

    def summary(self, key: str) -> dict[str, float | int | None]:
        """How the class guessed ``key``: how many, their median, and once revealed the share within ``CLOSE``."""
        values = self.values(key)
        truth = next(target.value for target in self.targets if target.key == key)
        close = sum(abs(value - truth) <= CLOSE + 1e-9 for value in values)
        return {
            "guesses": len(values),
            "median": statistics.median(values) if values else None,
            "within": close / len(values) if values and self.revealed else None,
        }

    def public(self, with_values: bool) -> dict:
        """The question as a page is told of it: each target's key and label, and its value only
        ``with_values`` (the teacher's pages, or anyone once revealed)."""
        targets = [
            {"key": t.key, "label": t.label, **({"value": t.value} if with_values or self.revealed else {})}
            for t in self.targets
        ]
        return {
            "question": self.number,
            "route": self.route,
            "query": self.query,
            "targets": targets,
            "revealed": self.revealed,
        }
