"""Many runs compared at once: each candidate against the baseline, or every pair, against scipy, statsmodels and brute force."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest

from explainer.evaluation.compare import compare
from explainer.evaluation.formats import read_run
from explainer.evaluation.many_runs import letter, many_runs
from explainer.evaluation.measures import evaluate

from support.oracles import multitest, stats

EXACT = 1e-10  # the same method on the same data


def runs_from_values(matrix, names=None):
    """Evaluations whose recip_rank of query i is ``matrix[i, j]`` for run j: the statistics' inputs, as they are."""
    matrix = np.asarray(matrix, dtype=float)
    qrels = {f"q{i:03d}": {"d": 1} for i in range(matrix.shape[0])}
    base = evaluate(qrels, {q: {"d": 1.0} for q in qrels}, ["rr"])
    names = names or [f"run{j}" for j in range(matrix.shape[1])]
    return [
        dataclasses.replace(
            base, values={"recip_rank": matrix[:, j].copy()}, run=dataclasses.replace(base.run, name=names[j])
        )
        for j in range(matrix.shape[1])
    ]


def noisy_runs(seed: int, n: int, gains, sd: float = 0.1) -> np.ndarray:
    """A query-by-run matrix: a shared per-query difficulty, each run's gain, and per-run noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n)
    return np.column_stack([difficulty + gain + rng.normal(0, sd, n) for gain in gains])


def test_runs_are_paired_by_query_and_a_missing_query_counts_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    full = {"q1": {"a": 1.0}, "q2": {"x": 2.0, "b": 1.0}, "q3": {"c": 1.0}}
    partial = {"q1": {"x": 2.0, "a": 1.0}, "q3": {"c": 1.0}}  # no result for q2
    evaluations = [evaluate(qrels, read_run(run, name=name), ["rr"]) for run, name in ((full, "f"), (partial, "p"))]
    result = many_runs(evaluations, n_permutations=100, n_bootstrap=100)
    assert result.qids == ("q1", "q2", "q3")
    assert result.scores["recip_rank"].tolist() == [[1.0, 0.5], [0.5, 0.0], [1.0, 1.0]]
    assert result.missing == ((), ("q2",))
    assert "1 query has no result in b: counted as 0 there" in "\n".join(result.lines())


@pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh"), ("none", None)])
def test_each_candidate_against_the_baseline_is_scipys_t_test_adjusted_as_statsmodels_adjusts(ours, theirs):
    matrix = noisy_runs(1, 40, [0.0, 0.04, 0.01, -0.05, 0.03])
    result = many_runs(runs_from_values(matrix), correction=ours, test="t-test", n_permutations=200, n_bootstrap=200)
    raw = [stats.ttest_rel(matrix[:, j], matrix[:, 0]).pvalue for j in range(1, 5)]
    adjusted = raw if theirs is None else multitest.multipletests(raw, method=theirs)[1]
    pairs = result.pairs["recip_rank"]
    assert [(p.first, p.second) for p in pairs] == [(0, 1), (0, 2), (0, 3), (0, 4)]
    assert [p.p for p in pairs] == pytest.approx(raw, abs=EXACT)
    assert [p.p_adjusted for p in pairs] == pytest.approx(list(adjusted), abs=EXACT)
    assert [p.mean_difference for p in pairs] == pytest.approx(
        [matrix[:, j].mean() - matrix[:, 0].mean() for j in range(1, 5)], abs=EXACT
    )
    assert result.correction == ours


def test_the_randomization_p_values_are_scipys_exact_enumeration_then_holms():
    matrix = noisy_runs(2, 10, [0.0, 0.08, 0.02, -0.06])  # 2^10 sign patterns: every one is enumerated
    result = many_runs(runs_from_values(matrix), n_permutations=2**10, n_bootstrap=200)
    raw = [
        stats.permutation_test(
            (matrix[:, j] - matrix[:, 0],), np.mean, permutation_type="samples", n_resamples=np.inf
        ).pvalue
        for j in range(1, 4)
    ]
    pairs = result.pairs["recip_rank"]
    assert result.exact
    assert [p.p for p in pairs] == pytest.approx(raw, abs=EXACT)
    assert [p.p_adjusted for p in pairs] == pytest.approx(
        list(multitest.multipletests(raw, method="holm")[1]), abs=EXACT
    )


def test_each_cell_is_the_runs_mean_with_scipys_bootstrap_interval():
    matrix = noisy_runs(3, 50, [0.0, 0.05, -0.02])
    result = many_runs(runs_from_values(matrix), n_permutations=500, n_bootstrap=2000, confidence=0.9, seed=5)
    for j, cell in enumerate(result.cells["recip_rank"]):
        theirs = stats.bootstrap(
            (matrix[:, j],), np.mean, n_resamples=2000, confidence_level=0.9, rng=np.random.default_rng(5)
        ).confidence_interval
        assert cell.mean == pytest.approx(matrix[:, j].mean(), abs=EXACT)
        assert (cell.low, cell.high) == (pytest.approx(theirs.low, abs=EXACT), pytest.approx(theirs.high, abs=EXACT))
        assert cell.interval_method == "BCa"


def test_the_marks_name_the_runs_a_run_is_significantly_better_than():
    # b far above the baseline a, c the same as a, d far below: b beats a, a beats d, c beats nothing.
    matrix = noisy_runs(4, 60, [0.0, 0.2, 0.0, -0.2], sd=0.02)
    matrix[:, 2] = matrix[:, 0]
    result = many_runs(runs_from_values(matrix, ["base", "better", "same", "worse"]), test="t-test", n_bootstrap=200)
    assert [result.marks("recip_rank", i) for i in range(4)] == ["d", "a", "", ""]
    assert [c.beats for c in result.cells["recip_rank"]] == [(3,), (0,), (), ()]
    text = "\n".join(result.lines())
    assert "Runs: a = base (baseline); b = better; c = same; d = worse" in text
    rows = [line for line in text.splitlines() if line.startswith(("a base", "b better", "c same"))]
    assert rows[0].endswith("] d") and rows[1].endswith("] a") and rows[2].endswith("]")


def test_the_same_pair_gives_the_same_row_as_comparing_the_two_runs():
    matrix = noisy_runs(5, 30, [0.0, 0.03, 0.05])
    evaluations = runs_from_values(matrix)
    result = many_runs(evaluations, n_permutations=3000, n_bootstrap=500, seed=2)
    ours = result.pair("recip_rank", 0, 2).comparison
    theirs = compare(evaluations[0], evaluations[2], n_permutations=3000, n_bootstrap=500, seed=2).measures[
        "recip_rank"
    ]
    for field in ("t_p", "randomization_p", "wins", "ties", "losses"):
        assert getattr(ours, field) == getattr(theirs, field), field
    # The pairs' intervals come from one resampling of every pair, by the same draws: equal but for rounding.
    assert (ours.ci_low, ours.ci_high) == (pytest.approx(theirs.ci_low, abs=EXACT), pytest.approx(theirs.ci_high))


def brute_force_tukey(matrix: np.ndarray) -> np.ndarray:
    """The randomised Tukey HSD by enumeration: each query's run labels in every order, counted by hand."""
    n, k = matrix.shape
    observed = np.abs(matrix.mean(axis=0)[:, None] - matrix.mean(axis=0)[None, :])
    counts = np.zeros((k, k))
    total = 0
    for orders in itertools.product(itertools.permutations(range(k)), repeat=n):
        shuffled = np.array([matrix[i, list(order)] for i, order in enumerate(orders)])
        means = shuffled.mean(axis=0)
        counts += (means.max() - means.min()) >= observed - 1e-12
        total += 1
    return counts / total


def test_every_pair_is_the_randomised_tukey_hsd_enumerated_by_hand():
    matrix = np.array([[0.2, 0.5, 0.9], [0.1, 0.4, 0.3], [0.6, 0.8, 1.0], [0.0, 0.3, 0.7]])
    result = many_runs(runs_from_values(matrix), "all-pairs", n_permutations=6**4, n_bootstrap=200)
    expected = brute_force_tukey(matrix)
    assert result.exact and result.correction == "tukey-hsd"
    pairs = result.pairs["recip_rank"]
    assert [(p.first, p.second) for p in pairs] == [(0, 1), (0, 2), (1, 2)]
    for p in pairs:
        assert p.p == p.p_adjusted == pytest.approx(expected[p.first, p.second], abs=EXACT)
        assert p.comparison is None
    assert [p.mean_difference for p in pairs] == pytest.approx([0.275, 0.5, 0.225], abs=EXACT)
    assert "all 3 pairs of 3 runs: the randomised Tukey HSD" in "\n".join(result.lines())


def test_the_tukey_hsd_marks_only_what_holds_over_every_pair():
    matrix = noisy_runs(6, 80, [0.0, 0.0, 0.15, 0.01], sd=0.05)
    result = many_runs(runs_from_values(matrix), "all-pairs", n_permutations=2000, n_bootstrap=200)
    # c is far above the other three; a, b and d are within noise of each other.
    assert [result.marks("recip_rank", i) for i in range(4)] == ["", "", "abd", ""]
    assert len(result.pairs["recip_rank"]) == 6


def test_neighbours_compare_each_run_with_the_next():
    matrix = noisy_runs(7, 40, [0.0, 0.02, 0.1])
    result = many_runs(runs_from_values(matrix), "neighbours", test="t-test", n_bootstrap=200)
    raw = [stats.ttest_rel(matrix[:, j + 1], matrix[:, j]).pvalue for j in range(2)]
    pairs = result.pairs["recip_rank"]
    assert [(p.first, p.second) for p in pairs] == [(0, 1), (1, 2)]
    assert [p.p_adjusted for p in pairs] == pytest.approx(list(multitest.multipletests(raw, method="holm")[1]))
    assert "each of 3 runs against the next" in result.method()


def test_the_report_says_how_the_pairs_were_tested_and_corrected():
    matrix = noisy_runs(8, 20, [0.0, 0.1, 0.0])
    text = "\n".join(many_runs(runs_from_values(matrix), correction="bh", n_bootstrap=200).lines())
    assert (
        "20 queries paired; each of 2 candidates against the baseline a: the paired randomization test "
        "(10,000 random sign flips, seed 0), two-sided (H0: no difference); p-values adjusted over the 2 "
        "candidates of each measure by Benjamini-Hochberg (the false discovery rate at most alpha)"
    ) in text
    assert "recip_rank: mean difference (second - first), * adjusted p < 0.05" in text
    assert "  b - a " in text and "  c - a " in text and "p (BH)" in text


def test_bad_settings_are_refused_with_what_was_wrong():
    evaluations = runs_from_values(noisy_runs(9, 10, [0.0, 0.1]))
    with pytest.raises(ValueError, match="at least two evaluations"):
        many_runs(evaluations[:1])
    with pytest.raises(ValueError, match="it takes no correction, got 'holm'"):
        many_runs(evaluations, "all-pairs", correction="holm")
    with pytest.raises(ValueError, match="not a t-test"):
        many_runs(evaluations, "all-pairs", test="t-test")
    with pytest.raises(ValueError, match="correction must be one of 'holm', 'bh', 'none'"):
        many_runs(evaluations, correction="bonferroni")
    with pytest.raises(ValueError, match="design must be one of"):
        many_runs(evaluations, "every")
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        many_runs(evaluations, alpha=1.5)
    other = dataclasses.replace(evaluations[1], measures=())
    with pytest.raises(ValueError, match="share no measure"):
        many_runs([evaluations[0], other])


@pytest.mark.parametrize(("index", "name"), [(0, "a"), (1, "b"), (25, "z"), (26, "aa"), (27, "ab"), (701, "zz")])
def test_runs_are_lettered_as_spreadsheet_columns(index, name):
    assert letter(index) == name


def test_the_json_holds_every_cell_and_pair_with_its_letters():
    matrix = noisy_runs(4, 60, [0.0, 0.2, 0.0, -0.2], sd=0.02)
    matrix[:, 2] = matrix[:, 0]
    result = many_runs(runs_from_values(matrix, ["base", "better", "same", "worse"]), test="t-test", n_bootstrap=200)
    out = json.loads(json.dumps(result.as_dict()))  # plain data: json takes it as it is
    assert (out["design"], out["test"], out["correction"], out["queries"]) == ("baseline", "t-test", "holm", 60)
    assert [r["letter"] + " " + r["name"] for r in out["runs"]] == ["a base", "b better", "c same", "d worse"]
    (measure,) = out["measures"]
    assert [c["better_than"] for c in measure["cells"]] == [["d"], ["a"], [], []]
    assert [c["mean"] for c in measure["cells"]] == pytest.approx(matrix.mean(axis=0).tolist(), abs=EXACT)
    # scipy gives nan for two equal runs; the t-test here calls every difference 0 no evidence: p = 1.
    raw = [stats.ttest_rel(matrix[:, j], matrix[:, 0]).pvalue for j in (1, 3)]
    assert [measure["pairs"][i]["p"] for i in (0, 2)] == pytest.approx(raw, abs=EXACT)
    assert measure["pairs"][1]["p"] == 1.0
    assert [(p["first"], p["second"], p["significant"]) for p in measure["pairs"]] == [
        ("a", "b", True),
        ("a", "c", False),
        ("a", "d", True),
    ]
    assert measure["pairs"][1]["d_z"] is None  # equal runs: no spread of differences
    assert "Holm's step-down" in out["method"]
