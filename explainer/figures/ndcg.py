"""Figure 2: eight graded results, NDCG@k live, click to promote, exponential or linear gain."""

from __future__ import annotations

import param

from explainer import metrics
from explainer.catalog.grades import MAX_GRADE
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.binary import QUERY
from explainer.figures.params import Count, Grades, Permutation

# The article's list: grades in rank order, exponential gain, k = 8.
ARTICLE_GRADES = (1, 3, 0, 2, 0, 3, 1, 2)
ARTICLE_K = 8
ARTICLE_GAIN = "exponential"

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

# The story cuts the article's list short here, where a 0 at rank 3 and the 2s and a 3 below it
# pull NDCG down (tests/test_story.py checks that the sentence stays true of the list).
SHORT_K = 3


class GradedListState(FigureState):
    """A graded list the reader reorders and regrades: figure 2's eight results, shared by the conventions figure."""

    fields = ("grades", "order", "k")

    grades = Grades(
        default=list(ARTICLE_GRADES),
        highest=MAX_GRADE,
        bounds=(RESULT_COUNT, RESULT_COUNT),
        doc="Each document's grade, 0 to 3, by document (not by rank).",
    )
    order = Permutation(
        default=list(range(RESULT_COUNT)),
        length=RESULT_COUNT,
        doc="The documents in rank order: order[0] is at rank 1.",
    )
    k = Count(default=ARTICLE_K, bounds=(1, RESULT_COUNT), doc="The cutoff: the top k results count.")

    @property
    def ranked_grades(self) -> list[int]:
        """The grades in rank order, rank 1 first."""
        return [self.grades[doc] for doc in self.order]

    def promote(self, rank: int) -> None:
        """Move the result at ``rank`` (1-based) up one place; rank 1 stays where it is."""
        self._check_rank(rank)
        if rank > 1:
            order = list(self.order)
            order[rank - 2], order[rank - 1] = order[rank - 1], order[rank - 2]
            self.order = order

    def set_grade(self, rank: int, grade: int) -> None:
        """Give the result at ``rank`` (1-based) a new grade."""
        self._check_rank(rank)
        grades = list(self.grades)
        grades[self.order[rank - 1]] = grade
        self.grades = grades

    def _check_rank(self, rank: int) -> None:
        count = len(self.order)
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= count:
            raise ValueError(f"rank must be a whole number from 1 to {count}, got {rank!r}")


class NdcgState(GradedListState):
    """What the reader of figure 2 changes: each document's grade, their order, the cutoff and the gain."""

    fields = (*GradedListState.fields, "gain")

    gain = param.Selector(default=ARTICLE_GAIN, objects=list(metrics.GAINS), doc="How a grade becomes a gain.")

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
    query = param.String(default=QUERY)

    _esm = module_source(HERE / "ndcg.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "ndcg.css").read_text(encoding="utf-8")]


class NdcgFigure(Figure):
    """Figure 2: promote results, change grades and the gain, move k, or play the swaps to the ideal order."""

    state_class = NdcgState
    view_class = NdcgView


def story_numbers() -> dict[str, str]:
    """The numbers the story quotes about figure 2, from its default state."""
    f = metrics.format_number
    state = NdcgState()
    ranked = state.ranked_grades
    values = state.values
    swaps = sum(1 for i in range(len(ranked)) for j in range(i + 1, len(ranked)) if ranked[i] < ranked[j])
    return {
        "discount_2": f(metrics.discount(2)),
        "discount_3": f(metrics.discount(3)),
        "ndcg_grades": ", ".join(map(str, ranked)),
        "ndcg_k": str(state.k),
        "ndcg_dcg": f(values["dcg"]),
        "ndcg_ideal": ", ".join(map(str, metrics.ideal_grades(ranked))),
        "ndcg_idcg": f(values["ideal_dcg"]),
        "ndcg_value": f(values["ndcg"]),
        "ndcg_short_k": str(SHORT_K),
        "ndcg_at_short_k": f(metrics.ndcg_at_k(ranked, SHORT_K, state.gain)),
        "ndcg_linear": f(metrics.ndcg_at_k(ranked, state.k, "linear")),
        # The list with its top two results swapped (the 1 at rank 1 and the 3 under it).
        "ndcg_top_swapped": f(metrics.ndcg_at_k([ranked[1], ranked[0], *ranked[2:]], state.k, "exponential")),
        "ndcg_top_swapped_linear": f(metrics.ndcg_at_k([ranked[1], ranked[0], *ranked[2:]], state.k, "linear")),
        "ndcg_swaps": str(swaps),
    }


PAGE = FigurePage(
    name="ndcg",
    title="NDCG: graded relevance and position",
    caption="Eight graded results: click or tap one to move it up, change the gain, or play the swaps to the ideal order.",
    figure=NdcgFigure,
    shows="figure 2: eight graded results, DCG, ideal DCG and NDCG@k, a chart of DCG@k and NDCG@k at every k, and the swap animation",
    url_keys=(
        UrlKey("grades", "{grades[length]} grades {grades[min_grade]} to {grades[max_grade]} in rank order"),
        UrlKey("k", "{k[min]} to {k[max]}"),
        UrlKey("gain"),
        UrlKey(
            "order",
            "which of the {order[length]} documents sits at each rank, numbered 1 to {order[length]}"
            " (written once results have moved)",
        ),
    ),
    example="grades=1,3,0,2,0,3,1,2&k=8&gain=linear",
    story_numbers=story_numbers,
)
