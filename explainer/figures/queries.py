"""Figure 3: many queries. Each query's reciprocal rank (or average precision) as a bar, their
mean (MRR or MAP) and median, the worst queries called out, and two systems side by side."""

from __future__ import annotations

import param

from explainer import metrics
from explainer.figures.base import HERE, Figure, FigureState, FigureView, module_source

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


class Runs(param.List):
    """One system's results for several queries: for each query, its relevant ranks (1..DEPTH)."""

    __slots__ = ["min_queries"]

    def __init__(self, *, min_queries: int = 0, **params):
        self.min_queries = min_queries
        super().__init__(**params)

    def _validate(self, val):
        super()._validate(val)
        if val is None:
            return
        if not self.min_queries <= len(val) <= MAX_QUERIES:
            raise ValueError(f"{self.name} must have {self.min_queries} to {MAX_QUERIES} queries, got {len(val)}")
        for q, ranks in enumerate(val, start=1):
            ok = isinstance(ranks, (list, tuple)) and all(
                isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= DEPTH for r in ranks
            )
            if not ok or len(set(ranks)) != len(ranks):
                raise ValueError(
                    f"{self.name} query {q} must list distinct relevant ranks from 1 to {DEPTH}, got {ranks!r}"
                )


class QueriesState(FigureState):
    """What the reader of figure 3 changes: each system's relevant ranks per query, and the measure."""

    fields = ("a", "b", "measure")

    a = Runs(default=[list(r) for r in THREE_QUERIES], min_queries=1, doc="System A: relevant ranks per query.")
    b = Runs(default=[], min_queries=0, doc="System B, for a side-by-side comparison; empty for one system.")
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

    depth = param.Integer(default=DEPTH, constant=True)
    presets = param.Dict(default=PRESETS, constant=True)

    _esm = module_source(HERE / "queries.js")


class QueriesFigure(Figure):
    """Figure 3: a mean over queries hides the bad ones; compare two systems' MRR or MAP and median."""

    state_class = QueriesState
    view_class = QueriesView
