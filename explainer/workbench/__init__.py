"""The evaluation workbench: a team's judged queries and runs, from the means to one query's terms.

``Workbench(qrels, run, run2)`` shows it in a notebook; the served page ``/evaluate`` and
``relevance-explainer evaluate ... --html FILE`` / ``--serve`` show the same view.
"""

from explainer.workbench.view import Workbench, WorkbenchState, WorkbenchView

__all__ = ["Workbench", "WorkbenchState", "WorkbenchView"]
