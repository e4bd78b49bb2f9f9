"""Figure 1: twelve ranked results, a movable cutoff k, and live P@k, R@k, RR and AP."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import param

from explainer import metrics
from explainer.figures.base import HERE, Figure, FigurePage, FigureState, FigureView, UrlKey, module_source
from explainer.figures.params import Count, Flags

RESULT_COUNT = 12

# The article's list: ranks 2, 3, 5, 8 and 11 relevant, one relevant result missed, k = 5.
ARTICLE_RELEVANT_RANKS = (2, 3, 5, 8, 11)
ARTICLE_MISSED = 1
ARTICLE_K = 5

# The query every figure's results answer, from the article.
QUERY = "cracked bracket"

# Plausible results for the query, in the article's domain: aircraft-part maintenance.
TITLES = (
    "Work order 4471: replace cabin light lens",
    "Supplier notice: bracket P/N 7731-B cracks under cyclic load",
    "Maintenance log: crack found on engine mount bracket",
    "Drawing: lavatory door hinge assembly",
    "Service bulletin: inspect mount brackets for fatigue cracks",
    "Work order 4502: repaint wing root fairing",
    "Parts catalogue: fasteners and washers, series 200",
    "Inspection report: bracket crack length 4 mm, left nacelle",
    "Training slides: torque wrench calibration",
    "Supplier notice: new packaging for hydraulic seals",
    "Work order 4518: replace cracked bracket, P/N 7731-B",
    "Maintenance log: cabin pressure test passed",
)


class BinaryState(FigureState):
    """What the reader of figure 1 changes: which ranks are relevant, the cutoff k, the missed count, the chart shown."""

    fields = ("relevant", "k", "missed", "chart")
    # The article's list is all judged; a real query's list (for_list) marks a rank nobody judged
    # with None in ``relevant``: shown as unjudged, counted as not relevant, as trec_eval counts it.

    relevant = Flags(
        default=[rank in ARTICLE_RELEVANT_RANKS for rank in range(1, RESULT_COUNT + 1)],
        length=RESULT_COUNT,
        doc="Relevance of each rank, rank 1 first.",
    )
    k = Count(default=ARTICLE_K, bounds=(1, RESULT_COUNT), doc="The cutoff: the top k results count.")
    missed = Count(
        default=ARTICLE_MISSED, bounds=(0, RESULT_COUNT), doc="Relevant results that the list did not retrieve."
    )
    # Which chart of every k shows: part of the state, so that a teacher's link keeps it.
    chart = param.Selector(
        default="by-k",
        objects=["by-k", "precision-recall"],
        doc="The chart of every k: by k (it moves k) or precision against recall (AP as a mean).",
    )

    def flip(self, rank: int) -> None:
        """Toggle the relevance of the result at ``rank`` (1-based), keeping R where it can.

        A flip stands for another ranking of the same collection, so R, the number of
        documents judged relevant for the query, stays put: a result turned relevant is one of
        the missed documents now retrieved, and a result turned not relevant leaves its
        relevant document among the missed. R grows only when nothing missed is left to
        bring in, and shrinks only when the missed count is already at its maximum.
        """
        count = len(self.relevant)
        if not 1 <= rank <= count:
            raise ValueError(f"rank must be between 1 and {count}, got {rank!r}")
        relevant = list(self.relevant)
        relevant[rank - 1] = not relevant[rank - 1]  # an unjudged rank (None) flips to relevant: judged
        step = -1 if relevant[rank - 1] else 1
        low, high = self.param.missed.bounds
        missed = min(max(self.missed + step, low), high)
        self.param.update(relevant=relevant, missed=missed)

    @classmethod
    def for_list(cls, relevant: Sequence[bool | None], missed: int, k: int = ARTICLE_K) -> type[BinaryState]:
        """A state class for a real query's list: ``relevant`` (a flag per rank, None where nobody
        judged the document) and k are its defaults, and its ``missed`` count is data, fixed, not a setting.

        With ``missed`` fixed, a flip is a judgment: R follows it, where the article's figure
        keeps R and moves the missed count. Classes are made once per list.
        """
        flags = tuple(None if r is None else bool(r) for r in relevant)
        return _binary_for_list(cls, flags, int(missed), int(k))

    @property
    def grades(self) -> list[int | None]:
        """The list as binary grades, rank 1 first, None where unjudged (the metrics count it as 0)."""
        return [None if r is None else int(r) for r in self.relevant]

    @property
    def n_relevant(self) -> int:
        """R: relevant results in the list plus the ones it missed."""
        return sum(r is True for r in self.relevant) + self.missed

    @property
    def values(self) -> dict[str, float]:
        """The four measures the figure shows, from the metrics core."""
        grades, k, n = self.grades, self.k, self.n_relevant
        return {
            "precision": metrics.precision_at_k(grades, k),
            "recall": metrics.recall_at_k(grades, k, n),
            "rr": metrics.reciprocal_rank(grades),
            "ap": metrics.average_precision(grades, n),
        }


@functools.lru_cache(maxsize=512)
def _binary_for_list(cls, relevant: tuple[bool | None, ...], missed: int, k: int) -> type[BinaryState]:
    length = len(relevant)
    if not length:
        raise ValueError("a list for figure 1 needs at least one result")
    return cls._made_for(
        f"a list of {length} results, {missed} relevant missed",
        relevant=Flags(
            default=list(relevant),
            length=length,
            unjudged=True,
            doc="Relevance of each rank, rank 1 first: None where unjudged.",
        ),
        k=Count(default=min(max(k, 1), length), bounds=(1, length), doc=cls.param.k.doc),
        missed=Count(
            default=missed, bounds=(missed, missed), doc="Relevant documents the list did not retrieve: data."
        ),
    )


class BinaryView(FigureView):
    """Figure 1 in the browser."""

    titles = param.List(default=list(TITLES), item_type=str, doc="The result titles, rank 1 first.")
    query = param.String(default=QUERY)

    _esm = module_source(HERE / "binary.js")
    _stylesheets = [*FigureView._stylesheets, (HERE / "binary.css").read_text(encoding="utf-8")]


class BinaryFigure(Figure):
    """Figure 1: click a result to flip its relevance, move the cutoff, watch P@k, R@k, RR and AP."""

    state_class = BinaryState
    view_class = BinaryView


def story_numbers() -> dict[str, str]:
    """The numbers the story quotes about figure 1, from its default state."""
    f = metrics.format_number
    state = BinaryState()
    ranks = metrics.relevant_ranks(state.grades)
    values = state.values
    return {
        "binary_ranks": ", ".join(map(str, ranks[:-1])) + f" and {ranks[-1]}",
        "binary_missed": str(state.missed),
        "binary_r": str(state.n_relevant),
        "binary_k": str(state.k),
        "binary_hits": str(len(metrics.relevant_ranks(state.grades, state.k))),
        "binary_p": f(values["precision"]),
        "binary_recall": f(values["recall"]),
        "binary_first": str(ranks[0]),
        "binary_rr": f(values["rr"]),
        "binary_ap": f(values["ap"]),
    }


PAGE = FigurePage(
    name="binary",
    title="Precision, recall, reciprocal rank and average precision",
    caption="Twelve ranked results: click or tap one to flip its relevance, drag the k marker to move the cutoff.",
    figure=BinaryFigure,
    shows="figure 1: twelve results, a cutoff k, P@k, R@k, RR and AP, a chart of P@k and R@k at every k or of precision against recall with AP as the mean of the precision at each relevant document's rank (0 for one the list missed), AP term by term",
    url_keys=(
        UrlKey("relevant", "relevant ranks, comma-separated (empty for none)"),
        UrlKey("missed", "relevant documents the list missed, {missed[min]} to {missed[max]}"),
        UrlKey("k", "{k[min]} to {k[max]}"),
        UrlKey("chart", "the chart of every k: `by-k` (the default, not written) or `precision-recall`"),
    ),
    example="relevant=2,3,5,8,11&missed=1&k=5",
    story_numbers=story_numbers,
)
