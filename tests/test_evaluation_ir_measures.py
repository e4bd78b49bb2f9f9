"""The evaluation under ir_measures' names against ir_measures itself (ir-measures from PyPI).

Per query the values must be ir_measures'. Its means (``calc_aggregate``) count a judged query the
run has no result for as 0, as trec_eval's -c does, so they are ours with ``complete=True``; its
counts (NumQ, NumRet, NumRel) are sums over the run's judged queries, ours without it.
Judged@k and RR@k are checked on a run without tied scores and qrels without negative grades:
ir_measures' providers for them order ties otherwise than trec_eval (whose order we keep), and its
Judged@k counts a negative grade as judged (README, where the two differ).
"""

from __future__ import annotations

import shutil

import pytest
from evaluation_cases import collection

from explainer.evaluation.measures import Measure, evaluate

ir_measures = pytest.importorskip("ir_measures")

NAMES = [
    "P@10", "P(rel=2)@10", "R@100", "AP", "AP@100", "RR", "Rprec", "Bpref", "infAP", "Success@5",
    "IPrec@0.5", "NumRet", "NumRel", "NumQ", "nDCG@10", "nDCG", "SetP", "SetR", "SetF", "SetAP",
]  # fmt: skip
UNTIED = ["Judged@10", "Judged@3", "RR@10", "RR@3"]


def _theirs(names, qrels, run):
    parsed = [ir_measures.parse_measure(n) for n in names]
    per: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(parsed, qrels, run):
        per.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    means = {str(m): v for m, v in ir_measures.calc_aggregate(parsed, qrels, run).items()}
    return per, means


def _check(names, qrels, run, means_of=None):
    per, means = _theirs(names, qrels, run)
    chosen = [Measure.parse(n) for n in names]
    ours = evaluate(qrels, run, chosen)
    complete = evaluate(qrels, run, chosen, complete=True)
    checked = 0
    for name, m in zip(names, chosen, strict=True):
        for qid in ours.qids:
            assert ours.value(m, qid) == pytest.approx(per[name][qid], abs=1e-12), (name, qid)
            checked += 1
        if means_of is not None and name not in means_of:
            continue
        averaged = complete if m.family.average == "mean" else ours  # its counts are summed over the run's queries
        assert averaged.means[m.name] == pytest.approx(means[name], abs=1e-12), name
    return checked


@pytest.mark.parametrize("seed", [31, 32])
def test_ir_measures_names_give_ir_measures_numbers(seed):
    qrels, run = collection(seed)
    assert _check(NAMES, qrels, run) > 300


@pytest.mark.parametrize("seed", [31, 32])
def test_judged_at_k_and_rr_at_k_are_ir_measures_on_a_run_without_ties(seed):
    qrels, run = collection(seed)
    untied = {q: {d: float(len(docs) - i) for i, d in enumerate(sorted(docs))} for q, docs in run.items() if docs}
    # ir_measures' Judged counts a negative grade as judged, and fails on a query with no results:
    # both are left out here (README, where the two differ)
    judged = {q: {d: g for d, g in docs.items() if g >= 0} for q, docs in qrels.items()}
    # per query only: with the negative grades dropped, some queries have empty qrels, which ir_measures
    # and we count differently in a mean
    assert _check(UNTIED, judged, untied, means_of=()) > 50


ERR_NAMES = ["ERR@10", "ERR@3", "ERR@1000"]


@pytest.mark.parametrize("seed", [31, 32])
def test_err_at_k_is_ir_measures_err_which_runs_gdeval_through_perl(seed):
    if shutil.which("perl") is None:
        pytest.skip("ir_measures' ERR runs gdeval.pl, and Perl is not installed")
    qrels, run = collection(seed)
    # gdeval reads only numeric topics, and prints only those with a relevant judgment, to 5 decimals
    qrels = {q[1:]: docs for q, docs in qrels.items()}
    run = {q[1:]: docs for q, docs in run.items()}
    per, _ = _theirs(ERR_NAMES, qrels, run)
    chosen = [Measure.parse(n) for n in ERR_NAMES]
    ours = evaluate(qrels, run, chosen)
    checked = 0
    for name, m in zip(ERR_NAMES, chosen, strict=True):
        theirs = per[name]
        for qid in ours.qids:
            if qid in theirs:
                assert ours.value(m, qid) == pytest.approx(theirs[qid], abs=5.001e-6), (name, qid)  # 5 decimals
                checked += 1
            else:  # nothing relevant judged: gdeval prints no line, and ERR is 0
                assert not any(g > 0 for g in qrels[qid].values()) and ours.value(m, qid) == 0, (name, qid)
    assert checked > 50


@pytest.mark.parametrize("gains", [{0: 0, 1: 1, 2: 5, 3: 10}, {1: 3}, {0: 1, 1: 1, 2: 2}])
@pytest.mark.parametrize("seed", [31, 32])
def test_ndcg_with_gains_is_ir_measures_and_so_trec_eval_s_gain_pairs(seed, gains):
    """ir_measures maps the qrels' grades through ``gains`` (a grade it does not name keeps its own)
    and runs trec_eval's ndcg; we read it as trec_eval's pairs, ``ndcg.0=0,1=1,2=5,3=10``."""
    qrels, run = collection(seed)
    theirs = {x.query_id: x.value for x in ir_measures.iter_calc([ir_measures.nDCG(gains=gains)], qrels, run)}
    written = "nDCG(gains={" + ", ".join(f"{g}: {v}" for g, v in gains.items()) + "})"
    pairs = "ndcg." + ",".join(f"{g}={v}" for g, v in gains.items())
    for name in (written, pairs):
        m = Measure.parse(name)
        ours = evaluate(qrels, run, [m])
        assert len(ours.qids) > 20
        for qid in ours.qids:
            assert ours.value(m, qid) == pytest.approx(theirs[qid], abs=1e-12), (name, qid)
