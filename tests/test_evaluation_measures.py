"""Evaluating whole runs: every measure, per query and as a mean, against trec_eval through pytrec_eval.

The collections (tests/evaluation_cases.py) hold ties, unjudged results, missed relevant
documents, negative grades, queries with nothing relevant, queries only in the run and
queries only in the qrels. pytrec_eval gets the same data as dicts and orders the results
itself, so the order (ties included) is checked too, not only the arithmetic.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text

from explainer.catalog import names
from explainer.evaluation import kernels
from explainer.evaluation.formats import read_run
from explainer.evaluation.measures import (
    DEFAULT_MEASURES,
    NDCG_CONVENTIONS,
    Measure,
    _KeyTable,
    evaluate,
    measures_for,
    ndcg_by_convention,
)
from explainer.figures import conventions as figure

SEEDS = range(8)
KS = (1, 2, 3, 5, 10, 20, 100)
APPROX = dict(abs=1e-12)


def trec(qrels, run, ks=KS, relevance_level=1) -> dict:
    cuts = ",".join(map(str, ks))
    wanted = {f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"success.{cuts}", "recip_rank", "map"}
    wanted |= {"num_rel", "num_rel_ret", "num_ret"}
    return pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=relevance_level).evaluate(run)


def ours(qrels, run, **options):
    measures = [Measure("rr"), Measure("ap")]
    for k in KS:
        measures += [Measure("precision", k), Measure("recall", k), Measure("ndcg", k), Measure("hit_rate", k)]
    return evaluate(qrels, run, measures, **options)


def relabel(qrels, mapping):
    return {q: {d: mapping(g) for d, g in docs.items()} for q, docs in qrels.items()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("relevance_level", [1, 2])
def test_every_query_equals_trec_eval(seed, relevance_level):
    qrels, run = collection(seed)
    expected = trec(qrels, run, relevance_level=relevance_level)
    result = ours(qrels, run, relevance_level=relevance_level)
    assert result.qids == tuple(sorted(expected))  # the same queries, in trec_eval's order
    for qid in result.qids:
        t = expected[qid]
        assert result.value("recip_rank", qid) == pytest.approx(t["recip_rank"], **APPROX), qid
        assert result.value("map", qid) == pytest.approx(t["map"], **APPROX), qid
        for k in KS:
            for ours_name, trec_name in (
                ("P", "P"),
                ("recall", "recall"),
                ("ndcg_cut", "ndcg_cut"),
                ("success", "success"),
            ):
                assert result.value(f"{ours_name}_{k}", qid) == pytest.approx(t[f"{trec_name}_{k}"], **APPROX), (
                    qid,
                    trec_name,
                    k,
                )
    for name in result.values:
        mean = np.mean([expected[q][name] for q in result.qids])
        assert result.means[name] == pytest.approx(mean, **APPROX), name


def test_the_collections_hold_every_edge():
    kinds = {"ties": 0, "unjudged": 0, "missed": 0, "negative": 0, "run_only": 0, "qrels_only": 0, "no_relevant": 0}
    for seed in SEEDS:
        qrels, run = collection(seed)
        for q, docs in run.items():
            scores = list(docs.values())
            kinds["ties"] += len(scores) != len(set(scores))
            kinds["unjudged"] += any(d not in qrels.get(q, {}) for d in docs)
            kinds["run_only"] += q not in qrels
        for q, docs in qrels.items():
            kinds["missed"] += any(g >= 1 and d not in run.get(q, {}) for d, g in docs.items())
            kinds["negative"] += any(g < 0 for g in docs.values())
            kinds["qrels_only"] += q not in run
            kinds["no_relevant"] += all(g < 1 for g in docs.values())
    assert all(n >= 20 for n in kinds.values()), kinds


@pytest.mark.parametrize("seed", SEEDS)
def test_exponential_gain_equals_trec_eval_on_relabelled_grades(seed):
    qrels, run = collection(seed)
    expected = trec(relabel(qrels, lambda g: 2**g - 1 if g >= 0 else g), run)
    result = evaluate(qrels, run, [Measure("ndcg", k, "exponential-judged") for k in KS])
    for qid in result.qids:
        for k in KS:
            assert result.value(f"ndcg_exponential-judged_{k}", qid) == pytest.approx(
                expected[qid][f"ndcg_cut_{k}"], **APPROX
            )


@pytest.mark.parametrize("seed", SEEDS)
def test_judged_at_k_is_trec_eval_precision_with_every_judgment_relevant_over_the_results_shown(seed):
    """Judged@k (ir_measures') is P@k x k / min(k, returned) when every judged document (grade >= 0)
    counts as relevant; a negative grade stays unjudged; 0 for an empty list. unj@k (trec_eval's) is
    (min(k, returned) - judged in the top k) / k."""
    qrels, run = collection(seed)
    expected = trec(relabel(qrels, lambda g: 1 if g >= 0 else g), run)
    result = evaluate(qrels, run, [Measure("judged", k) for k in KS] + [Measure("unj", k) for k in KS])
    for qid in result.qids:
        shown = len(run[qid])
        for k in KS:
            judged_in_top = expected[qid][f"P_{k}"] * k
            judged = judged_in_top / min(k, shown) if shown else 0.0
            assert result.value(f"judged_{k}", qid) == pytest.approx(judged, **APPROX)
            assert result.value(f"unj_{k}", qid) == pytest.approx((min(k, shown) - judged_in_top) / k, **APPROX)


def test_judged_at_k_of_a_short_wholly_judged_list_is_one_where_unj_is_zero():
    qrels = {"q": {f"d{i}": i % 2 for i in range(8)}}
    run = {"q": {f"d{i}": 10.0 - i for i in range(8)}}
    result = evaluate(qrels, run, ["Judged@10", "unj.10", "judged@10"])
    assert result.means["judged_10"] == 8 / 8 and result.means["unj_10"] == 0 / 10


@pytest.mark.parametrize("seed", SEEDS)
def test_files_give_what_dicts_give(seed):
    qrels, run = collection(seed)
    from_dicts = ours(qrels, run)
    nonempty = {q: docs for q, docs in run.items() if docs}  # a file cannot hold an empty query
    from_files = ours(qrels_text(qrels).encode(), run_text(nonempty, np.random.default_rng(seed)).encode())
    for qid in from_files.qids:
        for name in from_files.values:
            assert from_files.value(name, qid) == from_dicts.value(name, qid)


def test_queries_in_only_one_file_are_skipped_as_trec_eval_skips_them():
    qrels = {"both": {"a": 1}, "judged_only": {"b": 1}}
    run = {"both": {"a": 1.0}, "run_only": {"c": 1.0}}
    assert set(pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)) == {"both"}
    result = evaluate(qrels, run, ["ap"])
    assert result.qids == ("both",)
    assert result.summary.run_only == ("run_only",)
    assert result.summary.qrels_only == ("judged_only",)
    assert result.summary.lines()[0] == (
        "1 query evaluated; 1 in the run has no judgments (skipped, as trec_eval does); "
        "1 judged has no results in the run (skipped, as trec_eval 9 does without -c; trec_eval 10 stops with exit code 4)"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_complete_counts_judged_queries_without_results_as_zero_as_trec_eval_c_does(seed):
    """trec_eval -c (meas_avg.c): the mean divides by every query in the qrels; missing ones add 0."""
    qrels, run = collection(seed)
    expected = trec(qrels, run)
    result = ours(qrels, run, complete=True)
    assert result.qids == tuple(sorted(qrels))
    for name in ("map", "P_10", "ndcg_cut_10", "recip_rank"):
        assert result.means[name] == pytest.approx(sum(t[name] for t in expected.values()) / len(qrels), **APPROX)
        for q in qrels:
            if q not in run:
                assert result.value(name, q) == 0.0


@pytest.mark.parametrize("seed", SEEDS)
def test_each_query_recomputed_by_the_metrics_core_equals_the_batch(seed):
    qrels, run = collection(seed)
    measures = [Measure("rr"), Measure("ap")]
    for k in (1, 3, 10, 50):
        measures += [Measure(key, k) for key in ("precision", "recall", "judged", "hit_rate")]
        measures += [Measure("ndcg", k, c) for c in NDCG_CONVENTIONS]
    for level in (1, 2):
        result = evaluate(qrels, run, measures, relevance_level=level, complete=True)
        expected = trec(qrels, run, relevance_level=level)
        for qid in result.qids:
            detail = result.query(qid)
            for name, value in detail.values.items():
                assert result.value(name, qid) == pytest.approx(value, abs=1e-12), (qid, name)
            if qid in expected:
                assert detail.n_relevant == expected[qid]["num_rel"]
                assert detail.n_missed_relevant == expected[qid]["num_rel"] - expected[qid]["num_rel_ret"]
                assert len(detail.docids) == expected[qid]["num_ret"]


def test_a_query_in_detail():
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "z": 3, "y": 1, "n": -1}}
    run = {"q": {"a": 1.0, "b": 2.0, "c": 2.0, "u": 3.0, "n": 0.5}}
    detail = evaluate(qrels, run, ["P@2", "ap"]).query("q")
    assert detail.docids == ("u", "c", "b", "a", "n")  # c and b tie; "c" > "b"
    assert detail.scores == (3.0, 2.0, 2.0, 1.0, 0.5)
    assert detail.grades == (None, 1, 0, 2, None)  # n's negative grade: not judged
    assert detail.n_relevant == 5 - 1 and detail.judged_grades == (3, 2, 1, 1, 0)
    assert detail.missed == (("z", 3), ("y", 1))
    assert detail.n_missed_relevant == 2
    assert detail.values == {"P_2": 1 / 2, "map": (1 / 2 + 2 / 4) / 4}
    assert detail.in_run


def test_each_convention_computes_as_the_conventions_figure_does():
    rng = np.random.default_rng(5)
    for _ in range(200):
        ranked = [int(g) for g in rng.integers(0, 4, size=int(rng.integers(1, 9)))]
        missed = [int(g) for g in rng.integers(1, 4, size=int(rng.integers(0, 4)))]
        k = int(rng.integers(1, 10))
        for key, c in NDCG_CONVENTIONS.items():
            assert ndcg_by_convention(ranked, k, ranked + missed, key) == pytest.approx(
                figure.ndcg_by_convention(ranked, k, missed, c), abs=1e-12
            )


def test_measures_from_their_written_forms():
    assert Measure.parse("P@10") == Measure("precision", 10)
    assert Measure.parse("P_10") == Measure("precision", 10)
    assert Measure.parse("ndcg_cut_5") == Measure("ndcg", 5)
    assert Measure.parse("ndcg@5:exponential-list") == Measure("ndcg", 5, "exponential-list")
    assert Measure.parse("map") == Measure("ap") and Measure.parse("recip_rank") == Measure("rr")
    assert Measure.parse("success_3") == Measure("hit_rate", 3)
    assert [m.name for m in DEFAULT_MEASURES] == ["P_10", "recall_100", "recip_rank", "map", "ndcg_cut_10"]
    assert Measure("ndcg", 10, "exponential-list").name == "ndcg_exponential-list_10"
    assert [m.name for m in measures_for(["precision", "ap", "ndcg@3"], [5, 10])] == [
        "P_5",
        "P_10",
        "map",
        "ndcg_cut_3",
    ]
    assert Measure.parse("ap@10") == Measure("map_cut", 10) and Measure.parse("AP@10").name == "map_cut_10"
    assert Measure.parse("bpref") == Measure("bpref")
    for bad in ("P", "ndcg@0", "bpref@10", "ndcg@5:cubic", "Rndcg@10"):
        with pytest.raises(ValueError):
            Measure.parse(bad)


def test_bad_settings_are_clear():
    with pytest.raises(ValueError, match="relevance_level must be an integer >= 1"):
        evaluate({}, {}, relevance_level=0)
    with pytest.raises(ValueError, match="unknown measure"):
        evaluate({}, {}, ["bpref_x"])


def test_an_empty_query_given_as_a_dict_is_evaluated_as_pytrec_eval_does():
    qrels = {"q": {"a": 1}, "r": {"b": 1}}
    run = {"q": {}, "r": {"b": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    result = evaluate(qrels, run, ["ap"])
    assert result.qids == tuple(expected) == ("q", "r")
    assert result.values["map"].tolist() == [0.0, 1.0]
    assert len(read_run(run)) == 1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "options",
    [{}, {"relevance_level": 2}, {"judged_only": True}, {"max_results": 3}, {"complete": True, "relevance_level": 3}],
)
def test_every_all_trec_measure_is_the_same_with_the_scans_shared_as_each_scanning_afresh(monkeypatch, seed, options):
    # kernels.shared_scans lets the measures of one evaluation reuse the positions found in its
    # grades; without it (a context that keeps nothing) every kernel scans for itself
    qrels, run = collection(seed)
    chosen = [Measure.named(n) for n in names.parse("all_trec")]
    shared = evaluate(qrels, run, chosen, **options)
    monkeypatch.setattr(kernels, "shared_scans", contextlib.nullcontext)
    alone = evaluate(qrels, run, chosen, **options)
    for m in chosen:
        assert shared.values[m.name].tolist() == alone.values[m.name].tolist(), m.name


def test_the_key_table_finds_every_key_it_holds_and_none_it_does_not():
    # keys that share a table key's low 32 bits, or its high 32 bits, pass one of the two bitmaps
    # and must still be turned away; an oracle dict says where each key is
    rng = np.random.default_rng(9)
    table = np.unique(rng.integers(0, 1 << 63, size=5000, dtype=np.uint64))
    rng.shuffle(table)
    where = {int(k): i for i, k in enumerate(table.tolist())}
    low, high = table & np.uint64(0xFFFFFFFF), table >> np.uint64(32)
    near = np.concatenate([low | (high ^ np.uint64(1)) << np.uint64(32), (low ^ np.uint64(1)) | high << np.uint64(32)])
    keys = np.concatenate([table, near, rng.integers(0, 1 << 63, size=20000, dtype=np.uint64)])
    found = _KeyTable(table).find(keys)
    assert found.tolist() == [where.get(int(k), -1) for k in keys.tolist()]
