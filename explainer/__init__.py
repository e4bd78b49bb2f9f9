"""Interactive figures that explain search-relevance metrics, and the metrics core behind them."""

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.conventions import ConventionsFigure, ConventionsState
from explainer.figures.ndcg import NdcgFigure, NdcgState
from explainer.figures.queries import QueriesFigure, QueriesState
from explainer.figures.recall_kinds import RecallKindsFigure, RecallKindsState
from explainer.figures.unjudged import UnjudgedFigure, UnjudgedState
from explainer.figures.which_measure import WhichMeasureFigure, WhichMeasureState

__all__ = [
    "BinaryFigure",
    "BinaryState",
    "ConventionsFigure",
    "ConventionsState",
    "NdcgFigure",
    "NdcgState",
    "QueriesFigure",
    "QueriesState",
    "RecallKindsFigure",
    "RecallKindsState",
    "UnjudgedFigure",
    "UnjudgedState",
    "WhichMeasureFigure",
    "WhichMeasureState",
    "metrics",
]
