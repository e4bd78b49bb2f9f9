"""The many-query kernels (explainer.evaluation.kernels) against the metrics core, list by list.

The metrics core is checked by hand and against trec_eval (test_metrics.py, test_metrics_trec.py);
each kernel must give, for every list of a flat batch, what its readable function gives for that list.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from metric_cases import generated_cases

from explainer import metrics
from explainer.evaluation import gain_kernels, kernels
from explainer.evaluation.measures import judged_at_k


def test_the_kernels_equal_the_metrics_core_on_many_lists():
    cases = generated_cases(300, 7)
    grades = [[-1 if g is None else g for g in c["grades"]] for c in cases]
    offsets = np.zeros(len(cases) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in grades], out=offsets[1:])
    flat = np.array([g for gs in grades for g in gs], dtype=np.int64)
    n_rel = np.array([c["n_relevant"] for c in cases])
    judged = [c["judged"] for c in cases]
    judged_offsets = np.zeros(len(cases) + 1, dtype=np.int64)
    np.cumsum([len(j) for j in judged], out=judged_offsets[1:])
    judged_flat = np.array([g for js in judged for g in js], dtype=np.int64)
    for k in (1, 3, 5, 12, 20):
        batch = {
            "p": kernels.precision_at_k_batch(flat, offsets, k),
            "r": kernels.recall_at_k_batch(flat, offsets, k, n_rel),
            "hit": kernels.hit_rate_at_k_batch(flat, offsets, k),
            "judged": kernels.judged_at_k_batch(flat, offsets, k),
            "dcg": kernels.dcg_at_k_batch(flat, offsets, k, "linear"),
            "ndcg_lin": kernels.ndcg_at_k_batch(flat, offsets, k, judged_flat, judged_offsets, "linear"),
            "ndcg_exp_list": kernels.ndcg_at_k_batch(flat, offsets, k, flat, offsets, "exponential"),
        }
        for i, c in enumerate(cases):
            g = c["grades"]
            assert batch["p"][i] == pytest.approx(metrics.precision_at_k(g, k), abs=1e-12)
            assert batch["r"][i] == pytest.approx(metrics.recall_at_k(g, k, c["n_relevant"]), abs=1e-12)
            assert batch["hit"][i] == metrics.hit_rate_at_k(g, k)
            assert batch["judged"][i] == pytest.approx(judged_at_k([int(g_ is not None) for g_ in g], k))
            assert batch["dcg"][i] == pytest.approx(metrics.dcg_at_k(g, k, "linear"), abs=1e-12)
            assert batch["ndcg_lin"][i] == pytest.approx(
                metrics.ndcg_at_k(g, k, "linear", judged=c["judged"]), abs=1e-12
            )
            assert batch["ndcg_exp_list"][i] == pytest.approx(metrics.ndcg_at_k(g, k), abs=1e-12)
    rr = kernels.reciprocal_rank_batch(flat, offsets)
    ap = kernels.average_precision_batch(flat, offsets, n_rel)
    for i, c in enumerate(cases):
        assert rr[i] == pytest.approx(metrics.reciprocal_rank(c["grades"]), abs=1e-12)
        assert ap[i] == pytest.approx(metrics.average_precision(c["grades"], c["n_relevant"]), abs=1e-12)


def test_the_kernels_check_their_arguments():
    with pytest.raises(ValueError, match="offsets must rise from 0"):
        kernels.precision_at_k_batch(np.array([1, 0]), np.array([0, 1]), 1)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        kernels.precision_at_k_batch(np.array([1]), np.array([0, 1]), 0)
    with pytest.raises(ValueError, match="n_relevant must hold one integer per list"):
        kernels.recall_at_k_batch(np.array([1]), np.array([0, 1]), 1, np.array([1, 2]))
    with pytest.raises(ValueError, match="grades must be a flat array of integers"):
        kernels.precision_at_k_batch(np.array([0.5]), np.array([0, 1]), 1)


def _flat(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(g) for g in lists], out=offsets[1:])
    return np.array([g for gs in lists for g in gs], dtype=np.int64), offsets


def _mixed_lists(seed: int, n: int = 120) -> list[list[int]]:
    """Lists of every length from 0 to 40: grades 0 to 12, -1 (not in the qrels), -2 (a negative grade)."""
    rng = np.random.default_rng(seed)
    return [rng.choice([-1, -1, -1, -2, 0, 0, 1, 2, 3, 11], size=int(rng.integers(0, 41))).tolist() for _ in range(n)]


@pytest.mark.parametrize("slice_size", [1, 7, 1 << 20])
@pytest.mark.parametrize("pairs", [(), (("p", 0.5),)])
def test_rbp_resid_is_m_rbp_resid_c_s_sum_over_the_unjudged_ranks(monkeypatch, slice_size, pairs):
    # the oracle: m_rbp_resid.c's loop, one list at a time (slices of a few lists and of one list
    # each exercise the kernel's slicing)
    monkeypatch.setattr(kernels, "_RBP_SLICE", slice_size)
    lists = _mixed_lists(3)
    p = 0.5 if pairs else 0.9
    values = kernels.rbp_residual_batch(*_flat(lists), pairs)
    for got, grades in zip(values, lists, strict=True):
        unjudged = [i for i, g in enumerate(grades) if g < 0]
        expected = p ** len(grades) + (1 - p) * sum(p**i for i in unjudged) if unjudged else 0.0
        assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("values", [(), (3,), (0,), (50,)])
def test_relstring_marks_each_list_s_first_results(values):
    lists = _mixed_lists(4)
    n = values[0] if values else 10
    mark = {-1: "-", -2: "."} | {g: str(g) for g in range(10)}
    got = gain_kernels.relstring_batch(*_flat(lists), values)
    assert got.tolist() == ["".join(mark.get(g, ">") for g in grades[:n]) for grades in lists]


def test_shared_scans_answer_again_only_for_the_same_array_and_offsets():
    grades, offsets = _flat(_mixed_lists(5))
    fresh = kernels.precision_at_k_batch(grades, offsets, 5)
    with kernels.shared_scans():
        assert (kernels.precision_at_k_batch(grades, offsets, 5) == fresh).all()
        again = kernels.precision_at_k_batch(grades, offsets, 5)  # from what the first call found
        assert (again == fresh).all()
        other = grades.copy()
        other[other >= 1] = 0  # another array, equal in shape: scanned for itself
        assert (kernels.precision_at_k_batch(other, offsets, 5) == 0).all()
        merged = np.r_[offsets[:1], offsets[2:]]  # the same array, the first two lists as one
        expected = [
            metrics.precision_at_k([g if g >= 0 else None for g in grades[a:b]], 5) for a, b in pairwise(merged)
        ]
        assert kernels.precision_at_k_batch(grades, merged, 5).tolist() == pytest.approx(expected, abs=1e-12)


def test_shared_scans_keep_no_more_than_their_budget(monkeypatch):
    grades, offsets = _flat(_mixed_lists(6))
    fresh = kernels.average_precision_batch(grades, offsets, np.full(len(offsets) - 1, 5))
    monkeypatch.setattr(kernels, "KEPT_BYTES", 2 * offsets.nbytes)  # room for no answer
    with kernels.shared_scans():
        kept = kernels._SCANS.get()
        for _ in range(2):
            again = kernels.average_precision_batch(grades, offsets, np.full(len(offsets) - 1, 5))
            assert again.tolist() == fresh.tolist()
        assert kept.answers == {} and kept.nbytes == 0
    monkeypatch.setattr(kernels, "KEPT_BYTES", 128 << 20)
    with kernels.shared_scans():
        kernels.average_precision_batch(grades, offsets, np.full(len(offsets) - 1, 5))
        kept = kernels._SCANS.get()
        assert len(kept.answers) == 1 and 0 < kept.nbytes <= 128 << 20
