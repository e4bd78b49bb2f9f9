"""Figure 5: which measure answers which question, live. Each row of the table, when chosen,
shows two lists side by side that the measure cannot tell apart, while other measures can."""

from __future__ import annotations

from dataclasses import dataclass

import param

from explainer import metrics
from explainer.catalog.grades import MAX_GRADE
from explainer.catalog.measures import TAUGHT, UNJUDGED_CAVEAT
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.params import Grades

LENGTH = 8


@dataclass(frozen=True)
class Demo:
    """Two lists that one measure scores the same, and the measures shown beside it."""

    a: tuple
    b: tuple
    k: int
    n_relevant: int | None  # None: count the relevant results in each list
    shown: tuple[str, ...]
    graded: bool
    says: str
    note: str = ""  # what the numbers assume, under the table


# One demo per measure the figures teach (explainer.catalog.measures.TAUGHT), keyed the same way.
DEMOS = {
    "precision": Demo(
        a=(1, 1, 1, 0, 0, 0, 0, 0),
        b=(0, 0, 1, 1, 1, 0, 0, 0),
        k=5,
        n_relevant=3,
        shown=("precision", "recall", "rr", "ap"),
        graded=False,
        says="The same three relevant results, moved from the top down to ranks 3 to 5: P@5 stays put, and so "
        "does R@5; RR and AP fall.",
    ),
    "recall": Demo(
        a=(1, 1, 0, 0, 0, 0, 0, 0),
        b=(0, 0, 0, 1, 1, 0, 0, 0),
        k=5,
        n_relevant=4,
        shown=("recall", "precision", "rr", "ap"),
        graded=False,
        says="Two of the four relevant documents in the top 5, at the top or at the bottom: R@5 cannot tell, nor "
        "can P@5; RR and AP can.",
    ),
    "rr": Demo(
        a=(1, 0, 0, 0, 0, 0, 0, 0),
        b=(1, 1, 1, 1, 1, 0, 0, 0),
        k=5,
        n_relevant=5,
        shown=("rr", "precision", "recall", "ap"),
        graded=False,
        says="Both lists start with a relevant result; after it, one has nothing and the other four more. RR sees only the first.",
    ),
    "ap": Demo(
        a=(3, 1, 0, 1, 0, 0, 0, 0),
        b=(1, 3, 0, 1, 0, 0, 0, 0),
        k=5,
        n_relevant=None,
        shown=("ap", "precision", "ndcg"),
        graded=True,
        says="The best document (grade 3) at rank 1 or rank 2: AP only knows relevant or not, and P@5 does not "
        "look at order; NDCG counts the grade.",
        note="NDCG@5 here: gain 2^g − 1, ideal order from the list's own grades (figure 2's convention).",
    ),
    "ndcg": Demo(
        a=(1, 1, 0, 0, 0, 0, 0, 0),
        b=(3, 3, 0, 0, 0, 0, 0, 0),
        k=5,
        n_relevant=None,
        shown=("ndcg", "dcg", "precision"),
        graded=True,
        says="Each list in its best order: two 1s in A, two 3s in B. NDCG@5 divides each by its own ideal and "
        "scores both as perfect, and P@5 cannot tell them apart either; DCG@5, not normalised, shows that B's "
        "results are worth more.",
        note="NDCG@5 and DCG@5 here: gain 2^g − 1, ideal order from the list's own grades (figure 2's convention).",
    ),
}

assert set(DEMOS) == {m.key for m in TAUGHT}, "every measure the figures teach needs a demo"


class WhichMeasureState(FigureState):
    """What the reader of figure 5 changes: the chosen measure, and the two lists it compares."""

    fields = ("measure", "a", "b")

    measure = param.Selector(default="precision", objects=list(DEMOS), doc="The chosen row of the table.")
    a = Grades(
        default=list(DEMOS["precision"].a),
        highest=MAX_GRADE,
        unjudged=True,
        bounds=(LENGTH, LENGTH),
        doc="List A, rank 1 first: grades, None where unjudged.",
    )
    b = Grades(
        default=list(DEMOS["precision"].b),
        highest=MAX_GRADE,
        unjudged=True,
        bounds=(LENGTH, LENGTH),
        doc="List B, rank 1 first: grades, None where unjudged.",
    )

    def choose(self, measure: str) -> None:
        """Choose a row: its measure and the two lists of its demo."""
        if measure not in DEMOS:
            raise ValueError(f"measure must be one of {', '.join(DEMOS)}, got {measure!r}")
        demo = DEMOS[measure]
        self.param.update(measure=measure, a=list(demo.a), b=list(demo.b))

    def values(self, which: str) -> dict[str, float]:
        """Every measure the chosen demo shows, for list ``which`` ("a" or "b"), from the metrics core."""
        demo = DEMOS[self.measure]
        grades = list(getattr(self, which))
        binary = [None if g is None else int(g >= 1) for g in grades]
        in_list = sum(1 for g in binary if g)
        n = in_list if demo.n_relevant is None else max(demo.n_relevant, in_list)
        k = demo.k
        every = {
            "precision": metrics.precision_at_k(binary, k),
            "recall": metrics.recall_at_k(binary, k, n),
            "rr": metrics.reciprocal_rank(binary),
            "ap": metrics.average_precision(binary, n),
            "ndcg": metrics.ndcg_at_k(grades, k, "exponential"),
            "dcg": metrics.dcg_at_k(grades, k, "exponential"),
        }
        return {key: every[key] for key in demo.shown}


def _demos_for_js() -> dict:
    return {
        key: {
            "a": list(d.a),
            "b": list(d.b),
            "k": d.k,
            "n_relevant": d.n_relevant,
            "shown": list(d.shown),
            "graded": d.graded,
            "says": d.says,
            "note": d.note,
        }
        for key, d in DEMOS.items()
    }


class WhichMeasureView(FigureView):
    """Figure 5 in the browser."""

    demos = param.Dict(default=_demos_for_js(), constant=True)
    rows = param.List(
        default=[{"key": m.key, "name": m.name, "question": m.question, "blind_to": m.blind_to} for m in TAUGHT],
        constant=True,
    )

    _esm = module_source(HERE / "which_measure.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "which_measure.css").read_text(encoding="utf-8")]


class WhichMeasureFigure(Figure):
    """Figure 5: the table of measures, questions and blind spots; choose a row to see its blind spot."""

    state_class = WhichMeasureState
    view_class = WhichMeasureView


PAGE = FigurePage(
    name="which-measure",
    title="Which measure answers which question",
    caption="Choose a measure to see two lists it cannot tell apart; the table says which measures can. "
    + UNJUDGED_CAVEAT,
    figure=WhichMeasureFigure,
    shows="the table of measures; choosing one shows two lists it cannot tell apart",
    url_keys=(
        UrlKey("measure"),
        UrlKey(
            "a",
            "the first list: {a[length]} grades, {a[min_grade]} to {a[max_grade]} or `?` for unjudged"
            " (written once changed)",
        ),
        UrlKey("b", "the second list, the same way"),
    ),
    example="measure=ap",
)
