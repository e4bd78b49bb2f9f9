"""The catalog's rows against trec_eval (through pytrec_eval): its names, its default cutoffs, its -l.

A row's names and flags are read by the evaluation, the figures and the story; here each is held
against what trec_eval itself does, so a row added for a new measure is checked the same way.
"""

from __future__ import annotations

import re

import pytest
import pytrec_eval
from evaluation_cases import collection

from explainer import metrics
from explainer.catalog import conventions, measures
from explainer.evaluation import kernels
from explainer.evaluation import measures as evaluation
from explainer.evaluation.measures import Measure, evaluate

TRECS = [family for family in measures.FAMILIES if family.trec_eval]


@pytest.mark.parametrize("family", TRECS, ids=lambda f: f.key)
def test_trec_eval_prints_the_cutoffs_of_the_catalog_when_none_are_asked_for(family):
    qrels, run = collection(0)
    values = next(iter(pytrec_eval.RelevanceEvaluator(qrels, {family.trec_eval}).evaluate(run).values()))
    if family.cut:
        printed = sorted(int(m.group(1)) for name in values if (m := re.fullmatch(rf"{family.trec_eval}_(\d+)", name)))
        assert tuple(printed) == family.trec_eval_cutoffs
    else:
        assert set(values) == {family.trec_eval} and family.trec_eval_cutoffs == ()


@pytest.mark.parametrize("level", [1, 2, 3])
def test_each_measure_under_trec_eval_s_name_is_trec_eval_s_number_and_the_level_changes_what_the_catalog_says(level):
    qrels, run = collection(3)
    ks = (1, 5, 10)
    chosen = [Measure(f.key, k) for f in measures.FAMILIES for k in (ks if f.cut else (None,))]
    ours = evaluate(qrels, run, chosen, relevance_level=level)
    at_one = evaluate(qrels, run, chosen, relevance_level=1)
    cuts = ",".join(map(str, ks))
    wanted = {f"{f.trec_eval}.{cuts}" if f.cut else f.trec_eval for f in TRECS}
    trec = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level).evaluate(run)
    changed = set()
    for m in chosen:
        for qid in ours.qids:
            if m.family.trec_eval:
                assert ours.value(m, qid) == pytest.approx(trec[qid][m.name], abs=1e-12), (m.name, qid)
            if ours.value(m, qid) != at_one.value(m, qid):
                changed.add(m.key)
    moved_by_the_level = {f.key for f in measures.FAMILIES if f.relevance_level}
    if level == 1:
        assert changed == set()
    else:  # every measure the level applies to moves on this collection, and no other
        assert changed == moved_by_the_level


def test_each_row_names_functions_that_exist_with_inputs_the_evaluation_gives():
    per_list = {"relevant", "judged", "grades", "k", "n_relevant", "judged_grades", "convention"}
    many = {"relevant", "grades", "offsets", "k", "n_relevant", "ideal", "ideal_offsets", "gain", "cut"}
    for f in measures.FAMILIES:
        assert callable(getattr(metrics, f.per_list.function, None) or getattr(evaluation, f.per_list.function))
        assert callable(getattr(kernels, f.kernel.function)), f.key
        assert set(f.per_list.inputs) <= per_list and set(f.kernel.inputs) <= many, f.key
        assert ("k" in f.kernel.inputs) == f.cut == ("k" in f.per_list.inputs), f.key
        # The level reaches a measure through its "relevant" input alone.
        assert ("relevant" in f.kernel.inputs) == f.relevance_level == ("relevant" in f.per_list.inputs), f.key


def test_a_measure_s_names_come_from_its_row():
    assert [Measure(f.key, 10 if f.cut else None).label for f in measures.FAMILIES] == [
        "P@10",
        "R@10",
        "RR",
        "AP",
        "NDCG@10",
        "Judged@10",
        "Hit rate@10",
    ]
    assert [Measure.parse(f.trec_eval + ("_5" if f.cut else "")).key for f in TRECS] == [f.key for f in TRECS]
    assert conventions.BY_KEY[conventions.DEFAULT_CONVENTION].trec_eval == measures.BY_KEY["ndcg"].trec_eval
