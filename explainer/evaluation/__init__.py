"""Evaluating real runs: trec_eval's formats and numbers, two systems compared, and a ship gate.

::

    from explainer.evaluation import compare, effect, evaluate, many_runs, read_qrels, read_run, sweep

    qrels = read_qrels("qrels.txt")              # or bytes, a file object, {qid: {docid: grade}}, ranx Qrels
    baseline = evaluate(qrels, read_run("a.run"), ["P@10", "ap", "ndcg@10"])
    candidate = evaluate(qrels, read_run("b.run.gz"), ["P@10", "ap", "ndcg@10"])
    baseline.means["ndcg_cut_10"]                # trec_eval's 'all' line
    baseline.query("q7").grades                  # one query's ranked grades, None unjudged
    result = compare(baseline, candidate, measure="ndcg@10", margin=0.01, alpha=0.05)
    result.gate.ships, result.measures["ndcg_cut_10"].sorted_deltas()
    effect(result.measures["ndcg_cut_10"]).lines(difference=0.02)  # the difference, d_z, power
    table = many_runs([baseline, candidate, other])  # or many_runs(runs, "all-pairs")
    table.marks("ndcg_cut_10", 1)                # the letters of the runs run b is better than
    sweep(runs, "weight").best("ndcg_cut_10")    # runs named weight=0.1, weight=0.3, ...

Modules: ``formats`` (reading), ``measures`` (per-query values), ``compare`` (two runs:
statistics and the gate), ``candidates`` (the gate over several candidates, adjusted), ``many_runs`` (many runs: against the
baseline or every pair),
``sweep`` (runs ordered by a parameter's setting), ``effects`` (effect size and power in
words), ``cli`` (the ``evaluate`` command), ``golden`` (the shipped golden set).
"""

from explainer.evaluation.compare import Comparison, Gate, MeasureComparison, compare
from explainer.evaluation.effects import Effect, effect
from explainer.evaluation.formats import InputError, Qrels, Run, read_qrels, read_run
from explainer.evaluation.many_runs import ManyRuns, many_runs
from explainer.evaluation.measures import (
    DEFAULT_MEASURES,
    NDCG_CONVENTIONS,
    Evaluation,
    Measure,
    QueryDetail,
    Summary,
    evaluate,
)
from explainer.evaluation.sweep import Sweep, sweep

__all__ = [
    "DEFAULT_MEASURES",
    "NDCG_CONVENTIONS",
    "Comparison",
    "Effect",
    "Evaluation",
    "Gate",
    "InputError",
    "ManyRuns",
    "Measure",
    "MeasureComparison",
    "QueryDetail",
    "Qrels",
    "Run",
    "Summary",
    "Sweep",
    "compare",
    "effect",
    "evaluate",
    "many_runs",
    "read_qrels",
    "read_run",
    "sweep",
]
