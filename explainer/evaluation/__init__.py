"""Evaluating real runs: trec_eval's formats and numbers, two systems compared, and a ship gate.

::

    from explainer.evaluation import compare, evaluate, read_qrels, read_run

    qrels = read_qrels("qrels.txt")              # or bytes, a file object, {qid: {docid: grade}}, ranx Qrels
    baseline = evaluate(qrels, read_run("a.run"), ["P@10", "ap", "ndcg@10"])
    candidate = evaluate(qrels, read_run("b.run.gz"), ["P@10", "ap", "ndcg@10"])
    baseline.means["ndcg_cut_10"]                # trec_eval's 'all' line
    baseline.query("q7").grades                  # one query's ranked grades, None unjudged
    result = compare(baseline, candidate, measure="ndcg@10", margin=0.01, alpha=0.05)
    result.gate.ships, result.measures["ndcg_cut_10"].sorted_deltas()

Modules: ``formats`` (reading), ``measures`` (per-query values), ``compare`` (statistics
and the gate), ``cli`` (the ``evaluate`` command), ``golden`` (the shipped golden set).
"""

from explainer.evaluation.compare import Comparison, Gate, MeasureComparison, compare
from explainer.evaluation.formats import InputError, Qrels, Run, read_qrels, read_run
from explainer.evaluation.measures import (
    DEFAULT_MEASURES,
    NDCG_CONVENTIONS,
    Evaluation,
    Measure,
    QueryDetail,
    Summary,
    evaluate,
)

__all__ = [
    "DEFAULT_MEASURES",
    "NDCG_CONVENTIONS",
    "Comparison",
    "Evaluation",
    "Gate",
    "InputError",
    "Measure",
    "MeasureComparison",
    "QueryDetail",
    "Qrels",
    "Run",
    "Summary",
    "compare",
    "evaluate",
    "read_qrels",
    "read_run",
]
