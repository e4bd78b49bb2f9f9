"""The class's results as CSV, for the teacher: every question, its true values and every guess.

One row per guess of a number: the question's number, its figure and state, the number's
label, its true value, and the guess. A student is a respondent number within a question (1, 2,
...), in an order drawn at random, so that the rows of one student's guesses on a question can
be read together while nothing names the student or links their answers across questions.
"""

from __future__ import annotations

import csv
import io
import random

from explainer.classroom.question import Question

COLUMNS = ("question", "figure", "state", "measure", "true_value", "respondent", "guess")


def results_csv(questions: list[Question]) -> str:
    """The CSV text of ``questions`` (a true value is written once its question is revealed)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for question in questions:
        students = list(question.guesses)
        random.SystemRandom().shuffle(students)
        for respondent, student in enumerate(students, 1):
            guess = question.guesses[student]
            for target in question.targets:
                value = guess.get(target.key)
                writer.writerow(
                    [
                        question.number,
                        question.route.removeprefix("/"),
                        question.query,
                        _safe(target.label),
                        f"{target.value:.4f}" if question.revealed else "",
                        respondent,
                        "" if value is None else f"{value:.4f}",
                    ]
                )
    return out.getvalue()


def _safe(text: str) -> str:
    """A label as a spreadsheet reads it: never a formula (a leading =, +, - or @ is quoted away)."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text
