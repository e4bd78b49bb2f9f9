"""The evaluation workbench: a team's judged queries and runs, from the means to one query's terms.

``Workbench(qrels, run, run2)`` shows it in a notebook; the served page ``/evaluate`` and
``relevance-explainer evaluate ... --html FILE`` / ``--serve`` show the same view.

The names load on first use, so that the command line's ``evaluate`` (which imports
``workbench.cli`` for its options) does not import Panel and Bokeh, seconds of every run.
"""

__all__ = ["Workbench", "WorkbenchState", "WorkbenchView"]


def __getattr__(name: str):
    if name in __all__:
        from explainer.workbench import view

        return getattr(view, name)
    raise AttributeError(f"module 'explainer.workbench' has no attribute {name!r}")
