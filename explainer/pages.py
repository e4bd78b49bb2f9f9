"""The pages the explainer serves and exports."""

from __future__ import annotations

import panel as pn

from explainer.figures.binary import BinaryFigure
from explainer.figures.ndcg import NdcgFigure

BINARY_CAPTION = "Twelve ranked results: click one to flip its relevance, drag the k marker to move the cutoff."
NDCG_CAPTION = "Eight graded results: click one to move it up, change the gain, or play the swaps to the ideal order."


def binary_page():
    """Figure 1 alone, for embedding."""
    return pn.Column(BinaryFigure(standalone=True, caption=BINARY_CAPTION), sizing_mode="stretch_width")


def ndcg_page():
    """Figure 2 alone, for embedding."""
    return pn.Column(NdcgFigure(standalone=True, caption=NDCG_CAPTION), sizing_mode="stretch_width")


def story_page():
    """The story page."""
    return pn.Column(
        pn.pane.Markdown("# Relevance explainer"), BinaryFigure(), NdcgFigure(), sizing_mode="stretch_width"
    )


ROUTES = {"/": story_page, "/binary": binary_page, "/ndcg": ndcg_page}
