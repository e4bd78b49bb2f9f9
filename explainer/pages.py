"""The pages the explainer serves and exports."""

from __future__ import annotations

import panel as pn

from explainer.figures.binary import BinaryFigure
from explainer.figures.ndcg import NdcgFigure


def binary_page():
    """Figure 1 alone, for embedding."""
    return pn.Column(BinaryFigure(), sizing_mode="stretch_width")


def ndcg_page():
    """Figure 2 alone, for embedding."""
    return pn.Column(NdcgFigure(), sizing_mode="stretch_width")


def story_page():
    """The story page."""
    return pn.Column(
        pn.pane.Markdown("# Relevance explainer"), BinaryFigure(), NdcgFigure(), sizing_mode="stretch_width"
    )


ROUTES = {"/": story_page, "/binary": binary_page, "/ndcg": ndcg_page}
