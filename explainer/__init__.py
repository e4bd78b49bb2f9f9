"""Interactive figures that explain search-relevance metrics, and the metrics core behind them.

Every figure's class and state class is a public name here (``explainer.BinaryFigure``,
``explainer.BinaryState``, ...), taken from the registry in ``explainer.figures``; and the
evaluation workbench, ``explainer.Workbench(qrels, run, run2)``.

They load on first use: ``import explainer.evaluation`` (the command line's evaluate, a
script scoring ten million results) needs numpy only, not Panel and Bokeh, whose import
took seconds of every evaluation.
"""

import functools

from explainer import metrics as metrics  # the metrics core: numpy only, loaded at once


@functools.cache
def _version() -> str:
    """The version of the installed package: pyproject.toml's, the one place it is written
    (read on first use: importlib.metadata took a tenth of the evaluate command's start)."""
    from importlib.metadata import version

    return version("relevance-explainer")


@functools.cache
def _public() -> dict:
    from explainer.figures import FIGURES
    from explainer.workbench import Workbench

    names = {cls.__name__: cls for page in FIGURES for cls in (page.figure, page.state_class)}
    return {**names, "Workbench": Workbench}


def __getattr__(name: str):
    if name == "__version__":
        return _version()
    if name == "__all__":
        return [*sorted(_public()), "metrics"]
    if not name.startswith("_") and name in _public():
        return _public()[name]
    raise AttributeError(f"module 'explainer' has no attribute {name!r}")
