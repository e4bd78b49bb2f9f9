"""Figure 4: unjudged documents. Some results carry no judgment ("?"); every measure counts them
as not relevant, so a system that finds documents nobody judged is scored too low."""

from __future__ import annotations

import param

from explainer import metrics
from explainer.catalog.grades import MAX_GRADE
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.binary import QUERY
from explainer.figures.params import Count, Flags, Grades

# A new system's top ten for "cracked bracket": the grade a judge gives each result once asked.
ARTICLE_GRADES = (3, 2, 3, 0, 2, 1, 3, 0, 1, 2)
# Three of the ten were never judged (near the 31.8% of TAS-B's top ten on TREC-COVID in BEIR).
ARTICLE_UNJUDGED_RANKS = (2, 3, 7)
# Documents judged for the query that this system did not return (found by the systems judged earlier).
OUTSIDE_JUDGED = (3, 2, 2, 1, 0, 0)

RESULT_COUNT = len(ARTICLE_GRADES)
POLICIES = ("nonrelevant", "condensed")

TITLES = (
    "Supplier notice: bracket P/N 7731-B cracks under cyclic load",
    "Engineering query 212: crack growth rate in 7731-B brackets",
    "Field report: two cracked mount brackets found at line check",
    "Work order 4502: repaint wing root fairing",
    "Maintenance log: crack found on engine mount bracket",
    "Drawing: engine mount bracket, revision C",
    "Fatigue test summary: bracket fails at 41,000 cycles",
    "Training slides: torque wrench calibration",
    "Parts catalogue: mount brackets and bushings",
    "Maintenance log: bracket re-torqued after crack check",
)


class UnjudgedState(FigureState):
    """What the reader of figure 4 changes: grades, which results are judged, the cutoff, and the two controls."""

    fields = ("grades", "judged", "k", "unjudged_as", "reveal")

    grades = Grades(
        default=list(ARTICLE_GRADES),
        highest=MAX_GRADE,
        bounds=(RESULT_COUNT, RESULT_COUNT),
        doc="The grade a judge gives each result, rank 1 first, known or not yet.",
    )
    judged = Flags(
        default=[rank not in ARTICLE_UNJUDGED_RANKS for rank in range(1, RESULT_COUNT + 1)],
        length=RESULT_COUNT,
        doc="Whether each result has been judged.",
    )
    k = Count(default=RESULT_COUNT, bounds=(1, RESULT_COUNT), doc="The cutoff.")
    unjudged_as = param.Selector(
        default="nonrelevant",
        objects=list(POLICIES),
        doc="nonrelevant: an unjudged result counts as not relevant (trec_eval's and most tools' default); "
        "condensed: unjudged results are left out and the rest move up.",
    )
    reveal = param.Boolean(default=False, doc="Show and use the grades a judge later gives the unjudged results.")

    @property
    def scored_grades(self) -> list[int | None]:
        """The list as the measures see it: None for an unjudged result, unless revealed."""
        return [g if (j or self.reveal) else None for g, j in zip(self.grades, self.judged, strict=True)]

    @property
    def values(self) -> dict[str, float]:
        """Judged@k, P@k and NDCG@k under the current controls, from the metrics core."""
        scored = self.scored_grades
        judged_pool = [g for g in scored if g is not None] + list(OUTSIDE_JUDGED)
        ranked = [g for g in scored if g is not None] if self.unjudged_as == "condensed" else scored
        top = scored[: self.k]
        return {
            "judged": sum(g is not None for g in top) / self.k,
            "precision": metrics.precision_at_k(ranked, self.k),
            "ndcg": metrics.ndcg_at_k(ranked, self.k, "exponential", judged=judged_pool),
        }


class UnjudgedView(FigureView):
    """Figure 4 in the browser."""

    titles = param.List(default=list(TITLES), item_type=str, constant=True)
    query = param.String(default=QUERY)
    outside = param.List(default=list(OUTSIDE_JUDGED), item_type=int, constant=True)

    _esm = module_source(HERE / "unjudged.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "unjudged.css").read_text(encoding="utf-8")]


class UnjudgedFigure(Figure):
    """Figure 4: results nobody judged count as not relevant; reveal their grades and watch NDCG rise."""

    state_class = UnjudgedState
    view_class = UnjudgedView


def story_numbers() -> dict[str, str]:
    """The numbers the story quotes about figure 4: its default state, before and after the reveal."""
    f = metrics.format_number
    state = UnjudgedState()
    before = state.values
    state.reveal = True
    after = state.values
    return {
        "unjudged_count": str(state.judged.count(False)),
        "unjudged_k": str(state.k),
        "unjudged_outside": str(len(OUTSIDE_JUDGED)),
        "unjudged_ndcg_before": f(before["ndcg"]),
        "unjudged_ndcg_after": f(after["ndcg"]),
        "unjudged_p_before": f(before["precision"]),
        "unjudged_p_after": f(after["precision"]),
    }


PAGE = FigurePage(
    name="unjudged",
    title="By default, unjudged documents count as not relevant",
    caption="Ten results, some never judged (?): count them as not relevant, leave them out, or reveal their grades.",
    figure=UnjudgedFigure,
    shows="a list with unjudged results: count them as not relevant, leave them out, or reveal their grades, all at once or one by one",
    url_keys=(
        UrlKey("grades", "{grades[length]} grades {grades[min_grade]} to {grades[max_grade]}"),
        UrlKey("unjudged", "ranks nobody judged"),
        UrlKey("k", "{k[min]} to {k[max]}"),
        UrlKey("unjudged_as"),
        UrlKey("reveal", "`0` or `1`"),
    ),
    example="unjudged=2,3,7&reveal=1",
    story_numbers=story_numbers,
)
