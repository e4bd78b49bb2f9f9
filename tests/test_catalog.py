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
from explainer.evaluation import gain_kernels, kernels
from explainer.evaluation import measures as evaluation
from explainer.evaluation.measures import Measure, evaluate

TRECS = [family for family in measures.FAMILIES if family.trec_eval]
COMPUTED = [f for f in TRECS if f.kernel is not None and f.params in ("", "cutoffs") and f.per_query]
"""The families computed here whose per-query value pytrec_eval prints as trec_eval prints it."""


@pytest.mark.parametrize("family", TRECS, ids=lambda f: f.key)
def test_trec_eval_prints_the_parameters_of_the_catalog_when_none_are_asked_for(family):
    if family.trec_eval not in pytrec_eval.supported_measures:
        pytest.skip(f"pytrec_eval's trec_eval 9.0.8 has no {family.trec_eval} (tests/trec_eval_10 has it)")
    qrels, run = collection(0)
    values = next(iter(pytrec_eval.RelevanceEvaluator(qrels, {family.trec_eval}).evaluate(run).values()))
    if family.params == "cutoffs":
        printed = sorted(int(m.group(1)) for name in values if (m := re.fullmatch(rf"{family.trec_eval}_(\d+)", name)))
        assert tuple(printed) == family.trec_eval_cutoffs
    elif family.params == "levels":
        assert sorted(values) == sorted(f"{family.trec_eval}_{x:3.2f}" for x in family.trec_eval_params)
    else:
        assert set(values) == {family.trec_eval} and family.trec_eval_cutoffs == ()


@pytest.mark.parametrize("level", [1, 2, 3])
def test_each_measure_under_trec_eval_s_name_is_trec_eval_s_number_and_the_level_changes_what_the_catalog_says(level):
    qrels, run = collection(3)
    ks = (1, 5, 10)
    chosen = [Measure(f.key, k) for f in COMPUTED for k in (ks if f.cut else (None,))]
    ours = evaluate(qrels, run, chosen, relevance_level=level)
    at_one = evaluate(qrels, run, chosen, relevance_level=1)
    cuts = ",".join(map(str, ks))
    wanted = {f"{f.trec_eval}.{cuts}" if f.cut else f.trec_eval for f in COMPUTED}
    wanted &= {w for w in wanted if w.split(".")[0] in pytrec_eval.supported_measures}
    trec = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level).evaluate(run)
    changed = set()
    for m in chosen:
        for qid in ours.qids:
            if m.family.trec_eval in pytrec_eval.supported_measures:
                assert ours.value(m, qid) == pytest.approx(trec[qid][m.name], abs=1e-12), (m.name, qid)
            if ours.value(m, qid) != at_one.value(m, qid):
                changed.add(m.key)
    moved_by_the_level = {f.key for f in COMPUTED if f.relevance_level}
    if level == 1:
        assert changed == set()
    else:  # every measure the level applies to moves on this collection, and no other
        assert changed == moved_by_the_level


def test_each_row_names_functions_that_exist_with_inputs_the_evaluation_gives():
    per_list = {"relevant", "judged", "grades", "k", "n_relevant", "judged_grades", "convention"}
    many = {
        "relevant",
        "grades",
        "offsets",
        "k",
        "n_relevant",
        "n_nonrelevant",
        "ideal",
        "ideal_offsets",
        "gain",
        "cut",
    }
    many |= {"values", "n_documents", "level", "pooled", "qrels_grades", "pairs"}
    level_inputs = {"relevant", "n_relevant", "pooled"}
    for f in measures.FAMILIES:
        if f.per_list is not None:
            assert callable(getattr(metrics, f.per_list.function, None) or getattr(evaluation, f.per_list.function))
            assert set(f.per_list.inputs) <= per_list, f.key
            assert ("k" in f.per_list.inputs) == f.cut, f.key
            assert bool(level_inputs & set(f.per_list.inputs)) == f.relevance_level, f.key
        if f.kernel is not None:
            assert callable(getattr(kernels, f.kernel.function, None) or getattr(gain_kernels, f.kernel.function)), (
                f.key
            )
            assert set(f.kernel.inputs) <= many, f.key
            # A kernel with an optional k (AP, RR, NDCG) is named with k only where the family is cut.
            assert ("k" in f.kernel.inputs) == f.cut or f.key in ("ndcg_uncut",), f.key
            # The level reaches a measure through its "relevant" and "n_relevant" inputs alone.
            assert bool(level_inputs & set(f.kernel.inputs)) == f.relevance_level, f.key


def test_a_measure_s_names_come_from_its_row():
    computed = [f for f in measures.TAUGHT] + [measures.BY_KEY[k] for k in ("judged", "hit_rate")]
    assert [Measure(f.key, 10 if f.cut else None).label for f in computed] == [
        "P@10",
        "R@10",
        "RR",
        "AP",
        "NDCG@10",
        "Judged@10",
        "Hit rate@10",
    ]
    cut = [f for f in TRECS if f.kernel is not None and f.params in ("", "cutoffs")]
    assert [Measure.parse(f.trec_eval + ("_5" if f.cut else "")).key for f in cut] == [f.key for f in cut]
    assert conventions.BY_KEY[conventions.DEFAULT_CONVENTION].trec_eval == measures.BY_KEY["ndcg"].trec_eval


def test_every_family_of_the_catalog_is_computed_by_a_kernel():
    assert [f.key for f in measures.FAMILIES if f.kernel is None] == []
