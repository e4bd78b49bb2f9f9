"""Interactive figures that explain search-relevance metrics, and the metrics core behind them.

Every figure's class and state class is a public name here (``explainer.BinaryFigure``,
``explainer.BinaryState``, ...), taken from the registry in ``explainer.figures``; and the
evaluation workbench, ``explainer.Workbench(qrels, run, run2)``.
"""

from explainer import metrics
from explainer.figures import FIGURES
from explainer.workbench import Workbench

_PUBLIC = {cls.__name__: cls for page in FIGURES for cls in (page.figure, page.state_class)}
globals().update(_PUBLIC)

__all__ = [*sorted(_PUBLIC), "Workbench", "metrics"]
