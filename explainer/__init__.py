"""Interactive figures that explain search-relevance metrics, and the metrics core behind them."""

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.ndcg import NdcgFigure, NdcgState
from explainer.figures.queries import QueriesFigure, QueriesState
from explainer.figures.unjudged import UnjudgedFigure, UnjudgedState
from explainer.figures.which_measure import WhichMeasureFigure, WhichMeasureState

__all__ = [
    "BinaryFigure",
    "BinaryState",
    "NdcgFigure",
    "NdcgState",
    "QueriesFigure",
    "QueriesState",
    "UnjudgedFigure",
    "UnjudgedState",
    "WhichMeasureFigure",
    "WhichMeasureState",
    "metrics",
]
