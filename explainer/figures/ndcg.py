"""Figure 2: eight graded results, NDCG@k live, click to promote, exponential or linear gain."""

from __future__ import annotations

import param

from explainer import metrics
from explainer.figures.base import HERE, Count, Figure, FigureState, FigureView, module_source

MAX_GRADE = 3

# The article's list: grades in rank order, exponential gain, k = 8.
ARTICLE_GRADES = (1, 3, 0, 2, 0, 3, 1, 2)
ARTICLE_K = 8
ARTICLE_GAIN = "exponential"

QUERY = "cracked bracket"

# One title per document, in the article's order; a document keeps its title when it moves.
TITLES = (
    "Drawing: bracket P/N 7731-B, sheet 2",
    "Supplier notice: bracket P/N 7731-B cracks under cyclic load",
    "Work order 4502: repaint wing root fairing",
    "Maintenance log: crack found on engine mount bracket",
    "Training slides: torque wrench calibration",
    "Service bulletin: replace cracked brackets before 3,000 cycles",
    "Drawing: engine mount bracket, revision C",
    "Maintenance log: bracket re-torqued after crack check",
)

RESULT_COUNT = len(ARTICLE_GRADES)


class Grades(param.List):
    """A list of grades 0..MAX_GRADE, one per document."""

    def _validate(self, val):
        super()._validate(val)
        for doc, grade in enumerate(val or []):
            if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade <= MAX_GRADE:
                raise ValueError(f"{self.name}[{doc}] must be a grade from 0 to {MAX_GRADE}, got {grade!r}")


class Permutation(param.List):
    """An order of documents: each of 0..n-1 exactly once, rank 1 first."""

    def _validate(self, val):
        super()._validate(val)
        if val is not None and sorted(val) != list(range(len(val))):
            raise ValueError(f"{self.name} must hold each document 0..{len(val) - 1} once, got {val!r}")


class NdcgState(FigureState):
    """What the reader of figure 2 changes: each document's grade, their order, the cutoff and the gain."""

    fields = ("grades", "order", "k", "gain")

    grades = Grades(
        default=list(ARTICLE_GRADES),
        item_type=int,
        bounds=(RESULT_COUNT, RESULT_COUNT),
        doc="Each document's grade, 0 to 3, by document (not by rank).",
    )
    order = Permutation(
        default=list(range(RESULT_COUNT)),
        item_type=int,
        bounds=(RESULT_COUNT, RESULT_COUNT),
        doc="The documents in rank order: order[0] is at rank 1.",
    )
    k = Count(default=ARTICLE_K, bounds=(1, RESULT_COUNT), doc="The cutoff: the top k results count.")
    gain = param.Selector(default=ARTICLE_GAIN, objects=list(metrics.GAINS), doc="How a grade becomes a gain.")

    @property
    def ranked_grades(self) -> list[int]:
        """The grades in rank order, rank 1 first."""
        return [self.grades[doc] for doc in self.order]

    def promote(self, rank: int) -> None:
        """Move the result at ``rank`` (1-based) up one place; rank 1 stays where it is."""
        if not 1 <= rank <= RESULT_COUNT:
            raise ValueError(f"rank must be between 1 and {RESULT_COUNT}, got {rank!r}")
        if rank == 1:
            return
        order = list(self.order)
        order[rank - 2], order[rank - 1] = order[rank - 1], order[rank - 2]
        self.order = order

    def set_grade(self, rank: int, grade: int) -> None:
        """Give the result at ``rank`` (1-based) a new grade."""
        if not 1 <= rank <= RESULT_COUNT:
            raise ValueError(f"rank must be between 1 and {RESULT_COUNT}, got {rank!r}")
        grades = list(self.grades)
        grades[self.order[rank - 1]] = grade
        self.grades = grades

    @property
    def values(self) -> dict[str, float]:
        """DCG@k, ideal DCG@k and NDCG@k, from the metrics core."""
        ranked = self.ranked_grades
        return {
            "dcg": metrics.dcg_at_k(ranked, self.k, self.gain),
            "ideal_dcg": metrics.dcg_at_k(metrics.ideal_grades(ranked), self.k, self.gain),
            "ndcg": metrics.ndcg_at_k(ranked, self.k, self.gain),
        }


class NdcgView(FigureView):
    """Figure 2 in the browser."""

    titles = param.List(default=list(TITLES), item_type=str, doc="The document titles, by document.")

    _esm = module_source(HERE / "ndcg.js")


class NdcgFigure(Figure):
    """Figure 2: promote results, change grades and the gain, move k, or play the swaps to the ideal order."""

    state_class = NdcgState
    view_class = NdcgView
