"""The shipped golden set: regenerated identically by its script, and shaped as the story's team's would be."""

from __future__ import annotations

import gzip

import numpy as np
import pytrec_eval

from explainer.evaluation import golden


def shipped(key: str) -> bytes:
    raw = golden.paths()[key].read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def test_the_script_regenerates_the_shipped_files_exactly():
    generated = golden.generate()
    for key in golden.FILES:
        assert shipped(key) == generated[key], key
    assert sum(p.stat().st_size for p in golden.paths().values()) < 300_000


def test_a_hundred_judged_queries_in_the_storys_domain():
    topics, documents, qrels, baseline, candidate = golden.load()
    assert len(topics) == 100 and topics["g001"] == "cracked bracket"
    assert all(len(text.split()) >= 2 for text in topics.values())
    assert {"WO", "SB", "SN", "ML", "DWG", "CMM", "AD"} == {d.split("-")[0] for d in documents}
    judged = qrels.to_dict()
    assert set(judged) == set(topics)
    grades = [g for docs in judged.values() for g in docs.values()]
    assert set(grades) == {0, 1, 2, 3}
    assert all(d in documents for docs in judged.values() for d in docs)
    assert baseline.qids == candidate.qids == tuple(sorted(topics))


def test_the_candidate_is_better_on_average_clearly_worse_on_a_few():
    qrels = pytrec_eval.parse_qrel(shipped("qrels").decode().splitlines())
    runs = [pytrec_eval.parse_run(shipped(key).decode().splitlines()) for key in ("baseline", "candidate")]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "num_rel", "num_rel_ret"})
    base, cand = (evaluator.evaluate(run) for run in runs)
    delta = np.array([cand[q]["ndcg_cut_10"] - base[q]["ndcg_cut_10"] for q in base])
    assert 0.02 <= delta.mean() <= 0.1
    assert (delta > 0).sum() > (delta < 0).sum() >= 20
    assert 5 <= (delta < -0.25).sum() <= 12  # a few clear losses
    # judged relevant documents the runs missed, and results nobody judged
    assert sum(r["num_rel"] - r["num_rel_ret"] for r in base.values()) >= 100
    top_10 = [(q, d) for q, docs in runs[1].items() for d in list(docs)[:10]]  # the file lists them by rank
    assert 0.05 <= sum(d not in qrels[q] for q, d in top_10) / len(top_10) <= 0.4
