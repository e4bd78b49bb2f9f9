"""Two kinds of recall: an approximate index against exact search, and a result list against judgments.

For one query, exact nearest-neighbour search over the collection's vectors returns ten
documents. The approximate index should return the same ten; the reader makes it miss
some (each miss is replaced by the next-nearest vector, as an index does). ANN recall@10
compares the index's ten with the exact ten and needs no judgment at all. Relevance
recall@10 compares the index's ten with the documents people judged relevant. With an
embedding model that matches the wrong kind of text, the exact neighbours themselves are
mostly not relevant: ANN recall stays 1.00 while the list is poor.
"""

from __future__ import annotations

import param

from explainer import metrics
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.binary import QUERY
from explainer.figures.params import Ranks

K = 10

# The documents people judged relevant for the query, R of them. The two drawings are relevant, if
# only just, as figure 2 grades them (1): a drawing of the bracket tells a mechanic something.
RELEVANT = (
    "Supplier notice: bracket P/N 7731-B cracks under cyclic load",
    "Maintenance log: crack found on engine mount bracket",
    "Service bulletin: inspect mount brackets for fatigue cracks",
    "Inspection report: bracket crack length 4 mm, left nacelle",
    "Work order 4518: replace cracked bracket, P/N 7731-B",
    "Engineering memo: crack growth in 7731-B brackets",
    "Drawing: bracket P/N 7731-B, sheet 2",
    "Drawing: engine mount bracket, revision C",
)

# Per embedding model: the exact top-10 neighbours of the query's vector, nearest first, and
# the next ten (neighbours 11 to 20), which an index returns in place of the ones it misses.
MODELS = {
    # A model suited to the queries: near in vector space means about cracked brackets.
    "suited": {
        "label": "suited to the queries",
        "neighbours": (
            RELEVANT[0],
            RELEVANT[1],
            RELEVANT[2],
            "Drawing: bracket P/N 7731-B, sheet 2",
            RELEVANT[3],
            "Maintenance log: crack in cabin floor panel",
            RELEVANT[4],
            "Service bulletin: cracked lavatory door hinge",
            "Drawing: engine mount bracket, revision C",
            "Inspection report: corrosion on wing bracket",
        ),
        "next": (
            "Maintenance log: crack in cargo door seal",
            "Drawing: lavatory door hinge assembly",
            "Work order 4502: repaint wing root fairing",
            "Inspection report: dent on left flap",
            "Training slides: crack detection with dye penetrant",
            "Parts catalogue: brackets, series 7700",
            "Maintenance log: cabin pressure test passed",
            "Service bulletin: replace worn seat tracks",
            "Drawing: nacelle fairing, revision A",
            "Work order 4471: replace cabin light lens",
        ),
    },
    # A model that matches the wrong kind of text: catalogue and order lines that mention
    # brackets sit nearest, and reports about cracks sit far away.
    "mismatched": {
        "label": "matches the wrong kind of text",
        "neighbours": (
            "Parts catalogue: brackets, series 7700",
            "Purchase order: 40 × bracket P/N 7731-B",
            "Drawing: bracket P/N 7731-B, sheet 2",
            RELEVANT[0],
            "Drawing: engine mount bracket, revision C",
            "Inventory count: mount brackets, hangar 3",
            "Price list: brackets and clamps",
            RELEVANT[4],
            "Parts catalogue: fasteners and washers, series 200",
            "Shipping note: brackets to line station",
        ),
        "next": (
            "Parts catalogue: clamps, series 300",
            "Purchase order: 12 × mount bracket bolts",
            "Inventory count: clamps, hangar 3",
            "Price list: fasteners, 2024",
            "Drawing: wing bracket, revision B",
            "Shipping note: clamps to line station",
            "Parts catalogue: hinges, series 400",
            "Purchase order: 6 × hinge P/N 2210",
            "Inventory count: hinges, hangar 1",
            "Supplier notice: new packaging for hydraulic seals",
        ),
    },
}
MODEL_NAMES = tuple(MODELS)
DEFAULT_MODEL = "suited"


class RecallKindsState(FigureState):
    """What the reader of the two-recalls figure changes: the embedding model, and which neighbours the index misses."""

    fields = ("model", "missed_neighbours")

    model = param.Selector(
        default=DEFAULT_MODEL, objects=list(MODEL_NAMES), doc="The embedding model behind the vectors."
    )
    missed_neighbours = Ranks(
        default=[],
        deepest=K,
        noun="neighbour rank",
        bounds=(0, K),
        doc="Ranks (1 to 10) of the exact nearest neighbours that the approximate index fails to return.",
    )

    def toggle(self, rank: int) -> None:
        """The index misses neighbour ``rank`` if it found it, and finds it if it missed it."""
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= K:
            raise ValueError(f"rank must be a whole number from 1 to {K}, got {rank!r}")
        missed = set(self.missed_neighbours) ^ {rank}
        self.missed_neighbours = sorted(missed)

    @property
    def index_results(self) -> list[str]:
        """The index's top 10: each exact neighbour it found, or in its place the next-nearest document."""
        data = MODELS[self.model]
        substitutes = iter(data["next"])
        return [
            next(substitutes) if rank in self.missed_neighbours else title
            for rank, title in enumerate(data["neighbours"], 1)
        ]

    @property
    def values(self) -> dict[str, float]:
        """ANN recall@10, relevance recall@10 and precision@10, from the metrics core."""
        exact = set(MODELS[self.model]["neighbours"])
        results = self.index_results
        is_neighbour = [int(title in exact) for title in results]
        is_relevant = [int(title in RELEVANT) for title in results]
        return {
            "ann_recall": metrics.recall_at_k(is_neighbour, K, K),
            "recall": metrics.recall_at_k(is_relevant, K, len(RELEVANT)),
            "precision": metrics.precision_at_k(is_relevant, K),
        }


def story_numbers() -> dict[str, str]:
    """The numbers the story quotes about this figure: both models, with a perfect index."""
    f = metrics.format_number
    suited = RecallKindsState(model="suited").values
    mismatched = RecallKindsState(model="mismatched").values
    relevant_found = round(mismatched["recall"] * len(RELEVANT))
    return {
        "recall_kinds_k": str(K),
        "recall_kinds_r": str(len(RELEVANT)),
        "recall_kinds_suited_recall": f(suited["recall"]),
        "recall_kinds_mismatched_ann": f(mismatched["ann_recall"]),
        "recall_kinds_mismatched_found": str(relevant_found),
        "recall_kinds_mismatched_recall": f(mismatched["recall"]),
        "recall_kinds_mismatched_precision": f(mismatched["precision"]),
    }


class RecallKindsView(FigureView):
    """The two-recalls figure in the browser."""

    query = param.String(default=QUERY)
    relevant = param.List(default=list(RELEVANT), item_type=str, doc="Titles of the documents judged relevant.")
    models = param.Dict(
        default={
            name: {"label": d["label"], "neighbours": list(d["neighbours"]), "next": list(d["next"])}
            for name, d in MODELS.items()
        },
        doc="Per model: its label, its exact top-10 neighbours and the next ten.",
    )

    _esm = module_source(HERE / "recall_kinds.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "recall_kinds.css").read_text(encoding="utf-8")]


class RecallKindsFigure(Figure):
    """Two kinds of recall: make the index miss neighbours, or switch to a model that matches the wrong text."""

    state_class = RecallKindsState
    view_class = RecallKindsView


PAGE = FigurePage(
    name="recall-kinds",
    title="Two kinds of recall",
    caption="Press a neighbour to make the index miss it, or switch to a model that matches the wrong kind of text.",
    figure=RecallKindsFigure,
    shows="ANN recall against relevance recall: a perfect index can still return a poor list",
    url_keys=(
        UrlKey("model"),
        UrlKey(
            "missed_neighbours",
            "ranks (1 to {missed_neighbours[max_rank]}) of the exact neighbours the index misses",
        ),
    ),
    example="model=mismatched&missed_neighbours=",
    story_numbers=story_numbers,
)
