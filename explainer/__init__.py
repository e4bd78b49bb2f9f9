"""Interactive figures that explain search-relevance metrics, and the metrics core behind them."""

from explainer import metrics

__all__ = ["metrics"]
