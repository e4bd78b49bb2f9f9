"""Figure 3: many queries. Each query's reciprocal rank (or average precision) as a bar, their
mean (MRR or MAP) and median, the worst queries called out, and two systems side by side."""

from __future__ import annotations

import param

from explainer import metrics
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.params import RankLists

DEPTH = 20
MAX_QUERIES = 8
MEASURES = ("rr", "ap")

# Presets from the lesson transcript (article 003).
# First hits at ranks 1, 3 and 10: MRR = (1 + 1/3 + 1/10) / 3 = 0.48.
THREE_QUERIES = [[1], [3], [10]]
# System A: rank 1 on two queries and rank 20 on four (MRR 0.37); system B: rank 2 on all six (MRR 0.50).
CONSISTENCY_A = [[1], [1], [20], [20], [20], [20]]
CONSISTENCY_B = [[2], [2], [2], [2], [2], [2]]

PRESETS = {
    "three": {"a": THREE_QUERIES, "b": []},
    "consistency": {"a": CONSISTENCY_A, "b": CONSISTENCY_B},
}


class QueriesState(FigureState):
    """What the reader of figure 3 changes: each system's relevant ranks per query, and the measure."""

    fields = ("a", "b", "measure")

    a = RankLists(
        default=[list(r) for r in THREE_QUERIES],
        deepest=DEPTH,
        bounds=(1, MAX_QUERIES),
        doc="System A: relevant ranks per query.",
    )
    b = RankLists(
        default=[],
        deepest=DEPTH,
        bounds=(0, MAX_QUERIES),
        doc="System B, for a side-by-side comparison; empty for one system.",
    )
    measure = param.Selector(
        default="rr", objects=list(MEASURES), doc="rr: reciprocal rank and MRR; ap: average precision and MAP."
    )

    def apply_preset(self, name: str) -> None:
        """Load one of the article's examples: "three" queries, or the "consistency" comparison."""
        if name not in PRESETS:
            raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {name!r}")
        self.param.update(**{k: [list(r) for r in v] for k, v in PRESETS[name].items()})

    @staticmethod
    def grades(ranks: list[int]) -> list[int]:
        """A query's binary grades down to DEPTH, from its relevant ranks."""
        return [int(rank in ranks) for rank in range(1, DEPTH + 1)]

    def per_query(self, system: str) -> list[float]:
        """Each query's reciprocal rank or average precision (every relevant document is in the list)."""
        runs = getattr(self, system)
        if self.measure == "rr":
            return [metrics.reciprocal_rank(self.grades(r)) for r in runs]
        return [metrics.average_precision(self.grades(r), len(r)) for r in runs]

    def summary(self, system: str) -> dict[str, float]:
        """The mean (MRR or MAP, from the metrics core) and the median of one system's queries."""
        runs = getattr(self, system)
        rankings = [self.grades(r) for r in runs]
        if self.measure == "rr":
            mean = metrics.mean_reciprocal_rank(rankings)
        else:
            mean = metrics.mean_average_precision(rankings, [len(r) for r in runs])
        return {"mean": mean, "median": metrics.median(self.per_query(system))}


class QueriesView(FigureView):
    """Figure 3 in the browser."""

    presets = param.Dict(default=PRESETS, constant=True)

    _esm = module_source(HERE / "queries.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "queries.css").read_text(encoding="utf-8")]


class QueriesFigure(Figure):
    """Figure 3: a mean over queries hides the bad ones; compare two systems' MRR or MAP and median."""

    state_class = QueriesState
    view_class = QueriesView


def story_numbers() -> dict[str, str]:
    """The numbers the story quotes about figure 3: the three-query preset, then the consistency one."""
    f = metrics.format_number
    state = QueriesState()
    first_hits = [str(ranks[0]) for ranks in state.a]
    three = state.summary("a")
    state.apply_preset("consistency")
    a, b = state.summary("a"), state.summary("b")
    a_values = state.per_query("a")
    a_first = [min(ranks) for ranks in state.a]
    return {
        "queries_first_hits": ", ".join(first_hits[:-1]) + f" and {first_hits[-1]}",
        "queries_mrr": f(three["mean"]),
        "queries_median": f(three["median"]),
        "consistency_a": f(a["mean"]),
        "consistency_b": f(b["mean"]),
        "consistency_a_median": f(a["median"]),
        "consistency_a_count": str(len(a_values)),
        "consistency_a_top_rank": str(min(a_first)),
        "consistency_a_top_count": str(a_first.count(min(a_first))),
        "consistency_a_bottom_rank": str(max(a_first)),
        "consistency_a_bottom_count": str(a_first.count(max(a_first))),
        "consistency_b_rank": str(min(state.b[0])),
        "consistency_a_lowest": f(min(a_values)),
        "consistency_a_lowest_count": str(a_values.count(min(a_values))),
    }


PAGE = FigurePage(
    name="queries",
    title="MRR and MAP: what a mean over queries hides",
    caption="Many queries: each bar is one query's score, the lines are the mean and the median.",
    figure=QueriesFigure,
    shows="MRR and MAP over several queries, with the median and the lowest queries; two systems side by side",
    url_keys=(
        UrlKey("a", "each query's relevant ranks (1 to {a[max_rank]}), queries split by `|`"),
        UrlKey("b", "the same for a second system, empty for one system"),
        UrlKey("measure"),
    ),
    example="a=1,2|1|20&b=2|2|2&measure=rr",
    story_numbers=story_numbers,
)
