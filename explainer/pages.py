"""The pages the explainer serves and exports: the story page and one page per figure.

Each builder returns a fresh Panel object, so every served session and every export
gets its own figures. ``exported=True`` points links at the exported files
(``binary.html``) instead of the server's routes (``/binary``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import panel as pn

from explainer import metrics
from explainer.figures import conventions, recall_kinds
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.conventions import ConventionsFigure
from explainer.figures.ndcg import NdcgFigure, NdcgState
from explainer.figures.queries import QueriesFigure, QueriesState
from explainer.figures.recall_kinds import RecallKindsFigure
from explainer.figures.unjudged import OUTSIDE_JUDGED, UnjudgedFigure, UnjudgedState
from explainer.figures.which_measure import WhichMeasureFigure
from explainer.measures import MEASURES

HERE = Path(__file__).resolve().parent
PAGE_CSS = (HERE / "page.css").read_text(encoding="utf-8")
STORY = (HERE / "story.md").read_text(encoding="utf-8")

TITLE = "How good is this ranking? Search relevance measures, explained"

BINARY_CAPTION = "Twelve ranked results: click one to flip its relevance, drag the k marker to move the cutoff."
NDCG_CAPTION = "Eight graded results: click one to move it up, change the gain, or play the swaps to the ideal order."
QUERIES_CAPTION = "Many queries: each bar is one query's score, the lines are the mean and the median."
CONVENTIONS_CAPTION = (
    "One graded list and the relevant documents it missed: NDCG@k by five conventions. Focus a row for its arithmetic."
)
RECALL_KINDS_CAPTION = (
    "Press a neighbour to make the index miss it, or switch to a model that matches the wrong kind of text."
)
WHICH_CAPTION = "Choose a measure to see two lists it cannot tell apart, while other measures can."
UNJUDGED_CAPTION = (
    "Ten results, some never judged (?): count them as not relevant, leave them out, or reveal their grades."
)

# One entry per figure page: route name -> (title, caption, figure class).
FIGURE_PAGES = {
    "binary": ("Precision, recall, reciprocal rank and average precision", BINARY_CAPTION, BinaryFigure),
    "ndcg": ("NDCG: graded relevance and position", NDCG_CAPTION, NdcgFigure),
    "queries": ("MRR and MAP: what a mean over queries hides", QUERIES_CAPTION, QueriesFigure),
    "unjudged": ("Unjudged documents count as not relevant", UNJUDGED_CAPTION, UnjudgedFigure),
    "conventions": ("Why tools disagree on NDCG", CONVENTIONS_CAPTION, ConventionsFigure),
    "recall-kinds": ("Two kinds of recall", RECALL_KINDS_CAPTION, RecallKindsFigure),
    "which-measure": ("Which measure answers which question", WHICH_CAPTION, WhichMeasureFigure),
}


def _markdown(text: str) -> pn.pane.Markdown:
    return pn.pane.Markdown(text, stylesheets=[PAGE_CSS], sizing_mode="stretch_width", disable_anchors=True)


def _page(*objects) -> pn.Column:
    return pn.Column(*objects, stylesheets=[PAGE_CSS], css_classes=["page"], sizing_mode="stretch_width")


def figure_page(name: str):
    """One figure alone with its caption, for embedding: its state follows the URL query."""
    _, caption, figure_class = FIGURE_PAGES[name]
    return _page(figure_class(standalone=True, caption=caption))


def story_numbers() -> dict[str, str]:
    """The numbers the story's text quotes, computed from each figure's default state."""
    f = metrics.format_number
    binary = BinaryState()
    grades, k = binary.grades, binary.k
    ranks = metrics.relevant_ranks(grades)
    hits = len(metrics.relevant_ranks(grades, k))
    ndcg = NdcgState()
    ranked = ndcg.ranked_grades
    ideal = metrics.ideal_grades(ranked)
    values = ndcg.values
    swaps = sum(1 for i in range(len(ranked)) for j in range(i + 1, len(ranked)) if ranked[i] < ranked[j])
    return {
        "binary_ranks": ", ".join(map(str, ranks[:-1])) + f" and {ranks[-1]}",
        "binary_missed": str(binary.missed),
        "binary_r": str(binary.n_relevant),
        "binary_k": str(k),
        "binary_hits": str(hits),
        "binary_p": f(binary.values["precision"]),
        "binary_recall": f(binary.values["recall"]),
        "binary_first": str(ranks[0]),
        "binary_rr": f(binary.values["reciprocal_rank"]),
        "binary_ap": f(binary.values["average_precision"]),
        "discount_2": f(metrics.discount(2)),
        "discount_3": f(metrics.discount(3)),
        "ndcg_grades": ", ".join(map(str, ranked)),
        "ndcg_k": str(ndcg.k),
        "ndcg_dcg": f(values["dcg"]),
        "ndcg_ideal": ", ".join(map(str, ideal)),
        "ndcg_idcg": f(values["ideal_dcg"]),
        "ndcg_value": f(values["ndcg"]),
        "ndcg_at_3": f(metrics.ndcg_at_k(ranked, 3, ndcg.gain)),
        "ndcg_linear": f(metrics.ndcg_at_k(ranked, ndcg.k, "linear")),
        "ndcg_swaps": str(swaps),
        **_queries_numbers(),
        **_unjudged_numbers(),
        **conventions.story_numbers(),
        **recall_kinds.story_numbers(),
    }


def _unjudged_numbers() -> dict[str, str]:
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


def _queries_numbers() -> dict[str, str]:
    f = metrics.format_number
    state = QueriesState()
    three = state.summary("a")
    state.apply_preset("consistency")
    a, b = state.summary("a"), state.summary("b")
    return {
        "queries_first_hits": ", ".join(str(r[0]) for r in QueriesState().a[:-1]) + f" and {QueriesState().a[-1][0]}",
        "queries_mrr": f(three["mean"]),
        "queries_median": f(three["median"]),
        "consistency_a": f(a["mean"]),
        "consistency_b": f(b["mean"]),
        "consistency_a_median": f(a["median"]),
    }


def choose_list() -> str:
    """When to reach for each measure, as a Markdown list."""
    return "\n".join(f"- **{m.name}**: {m.use_when}" for m in MEASURES)


def _figure_links(name: str, exported: bool) -> pn.pane.Markdown:
    href = f"{name}.html" if exported else name
    return _markdown(
        f'<p class="figure-links"><a href="{href}">This figure on its own page</a> · '
        f'<a href="{href}?present=1">Presenter view</a></p>'
    )


def story_page(exported: bool = False):
    """The story page: the text with both figures in their places."""
    text = STORY.format_map(story_numbers())
    text = text.replace("<!-- list:choose -->", choose_list())
    parts = []
    for chunk in re.split(r"(<!-- figure:[\w-]+ -->)", text):
        marker = re.fullmatch(r"<!-- figure:([\w-]+) -->", chunk)
        if marker:
            name = marker.group(1)
            parts += [FIGURE_PAGES[name][2](), _figure_links(name, exported)]
        elif chunk.strip():
            parts.append(_markdown(chunk))
    return _page(*parts)


def pages(exported: bool = False) -> dict[str, tuple[str, Callable[[], pn.viewable.Viewable]]]:
    """Every page by name ("index" is the story): its title and a builder of a fresh copy."""
    # Plain functions, not partials: Panel's server only calls what is a function.
    every = {"index": (TITLE, lambda: story_page(exported=exported))}
    for name, (title, _, _) in FIGURE_PAGES.items():
        every[name] = (title, lambda name=name: figure_page(name))
    return every


# What the server serves: the story at /, each figure at /<name>; and each page's title.
ROUTES = {("/" if name == "index" else f"/{name}"): builder for name, (_, builder) in pages().items()}
TITLES = {("/" if name == "index" else f"/{name}"): title for name, (title, _) in pages().items()}
