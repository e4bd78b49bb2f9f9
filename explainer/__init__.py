"""Interactive figures that explain search-relevance metrics, and the metrics core behind them.

Every figure's class and state class is a public name here (``explainer.BinaryFigure``,
``explainer.BinaryState``, ...), taken from the registry in ``explainer.figures``.
"""

from explainer import metrics
from explainer.figures import FIGURES

_PUBLIC = {cls.__name__: cls for page in FIGURES for cls in (page.figure, page.state_class)}
globals().update(_PUBLIC)

__all__ = [*sorted(_PUBLIC), "metrics"]
