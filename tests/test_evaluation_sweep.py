"""A sweep of one parameter: settings read from names, runs in their order, the best and its neighbours, on generated runs."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from explainer.evaluation.formats import read_qrels, read_run
from explainer.evaluation.measures import evaluate
from explainer.evaluation.sweep import named_parameter, parameter_values, setting_of, sweep

from support.oracles import multitest, stats


def runs_from_values(matrix, names):
    """Evaluations whose recip_rank of query i is ``matrix[i, j]`` for the run named ``names[j]``."""
    qrels = {f"q{i:03d}": {"d": 1} for i in range(matrix.shape[0])}
    base = evaluate(qrels, {q: {"d": 1.0} for q in qrels}, ["rr"])
    return [
        dataclasses.replace(base, values={"recip_rank": matrix[:, j].copy()}, run=dataclasses.replace(base.run, name=n))
        for j, n in enumerate(names)
    ]


# The true mean of each weight: it peaks at 0.5, with 0.3 just under it and 0.7 well under.
TRUE_MEANS = {0.1: 0.30, 0.3: 0.50, 0.5: 0.505, 0.7: 0.35, 0.9: 0.20}


def weight_sweep(seed: int = 1, n: int = 60):
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 0.1, n)
    given = [0.7, 0.1, 0.5, 0.9, 0.3]  # not in order: the sweep orders them
    matrix = np.column_stack([TRUE_MEANS[w] + difficulty + rng.normal(0, 0.03, n) for w in given])
    return matrix, given, runs_from_values(matrix, [f"hybrid weight={w}" for w in given])


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("hybrid_weight=0.3.run", [0.3]),
        ("runs/weight=1e-3.txt.gz", [0.001]),
        ("w=.5 weight=-2", [-2.0]),
        ("bm25weight=0.3", []),  # the name stands on its own
        ("weight=0.2,weight=0.4", [0.2, 0.4]),
        ("weights=0.3", []),
    ],
)
def test_a_setting_is_read_as_name_equals_number(text, found):
    assert parameter_values("weight", text) == found


def test_a_run_names_exactly_one_setting():
    assert setting_of("weight", ["hybrid", "runs/weight=0.3.txt"]) == 0.3
    assert setting_of("weight", ["weight=0.3", "runs/weight=0.30.txt"]) == 0.3  # the same number twice
    with pytest.raises(ValueError, match=r"run 'hybrid' names no setting of weight \(as weight=0.3 in its file"):
        setting_of("weight", ["hybrid", "a.txt"])
    with pytest.raises(ValueError, match="names two settings of weight: weight=0.3 and weight=0.5"):
        setting_of("weight", ["weight=0.3", "weight=0.5.txt"])
    with pytest.raises(ValueError, match="a sweep's parameter is a name"):
        parameter_values("we ight", "we ight=3")


def test_the_runs_are_ordered_by_their_setting_with_each_ones_mean():
    matrix, given, evaluations = weight_sweep()
    result = sweep(evaluations, "weight", test="t-test", n_bootstrap=500)
    assert result.values == (0.1, 0.3, 0.5, 0.7, 0.9)
    assert result.order == tuple(given.index(w) for w in result.values)
    assert result.runs.names == tuple(f"hybrid weight={w}" for w in result.values)
    cells = result.runs.cells["recip_rank"]
    assert [c.mean for c in cells] == pytest.approx([matrix[:, given.index(w)].mean() for w in result.values])
    assert all(c.low < c.mean < c.high for c in cells)


def test_the_best_is_marked_and_tested_against_its_neighbours_after_holm():
    matrix, given, evaluations = weight_sweep()
    result = sweep(evaluations, "weight", test="t-test", n_bootstrap=500)
    column = {w: matrix[:, given.index(w)] for w in given}
    ordered = sorted(given)
    raw = [stats.ttest_rel(column[b], column[a]).pvalue for a, b in zip(ordered, ordered[1:], strict=False)]
    adjusted = multitest.multipletests(raw, method="holm")[1]
    steps = result.runs.pairs["recip_rank"]
    assert [p.p_adjusted for p in steps] == pytest.approx(list(adjusted), abs=1e-10)
    assert result.values[result.best("recip_rank")] == 0.5
    below, above = result.neighbours("recip_rank", 2)
    assert (below.first, below.second, above.first, above.second) == (1, 2, 2, 3)
    # 0.5 against 0.3: 0.005 apart, within the noise; against 0.7: 0.155 apart.
    assert not below.significant(0.05) and above.significant(0.05)
    verdict = result.verdict("recip_rank")
    assert verdict.startswith(f"best: weight=0.5, mean {column[0.5].mean():.4f}; better than weight=0.7 (adjusted p ")
    assert verdict.endswith(f"not distinguishable from weight=0.3 (adjusted p {adjusted[1]:.4f}) at alpha 0.05")
    text = "\n".join(result.lines())
    assert (
        "Sweep of weight over 5 settings, in order of weight: 60 queries paired; each of 5 runs against the next"
        in text
    )
    marked = [line for line in text.splitlines() if "]  best" in line]
    assert len(marked) == 1 and marked[0].startswith("     0.5  hybrid weight=0.5  ")
    assert text.splitlines()[-1] == "  " + verdict


def test_the_setting_can_come_from_the_file_name(tmp_path):
    qrels = read_qrels({"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}})
    paths, evaluations = [], []
    for i, w in enumerate((0.2, 0.1, 0.3)):
        path = tmp_path / f"hybrid.weight={w}.run"
        docs = ["x", "d1", "d2"][i:] + ["y"]
        lines = [f"q1 Q0 {d} {r + 1} {10 - r} hybrid\n" for r, d in enumerate(docs)] + ["q2 Q0 d3 1 5 hybrid\n"]
        path.write_text("".join(lines))
        paths.append(str(path))
        evaluations.append(evaluate(qrels, read_run(str(path)), ["rr", "P@2"]))
    assert {e.name for e in evaluations} == {"hybrid"}  # the tag names the run: the setting is in the path
    with pytest.raises(ValueError, match="run 'hybrid' names no setting of weight"):
        sweep(evaluations, "weight")
    result = sweep(evaluations, "weight", sources=paths, n_permutations=100, n_bootstrap=100)
    assert result.values == (0.1, 0.2, 0.3) and result.order == (1, 0, 2)
    assert [m.name for m in result.runs.measures] == ["recip_rank", "P_2"]


def test_two_runs_with_one_setting_or_too_few_runs_are_refused():
    matrix = np.random.default_rng(2).random((10, 3))
    with pytest.raises(ValueError, match="runs 'a weight=0.3' and 'b weight=0.3' both have weight=0.3"):
        sweep(runs_from_values(matrix, ["a weight=0.3", "b weight=0.3", "c weight=1"]), "weight")
    with pytest.raises(ValueError, match="at least two runs"):
        sweep(runs_from_values(matrix[:, :1], ["weight=1"]), "weight")
    with pytest.raises(ValueError, match="one entry a run: 1 for 3 runs"):
        sweep(runs_from_values(matrix, ["weight=1", "weight=2", "weight=3"]), "weight", sources=["x"])


def test_the_sweeps_json_gives_the_settings_in_order_and_each_measures_best():
    matrix, given, evaluations = weight_sweep()
    result = sweep(evaluations, "weight", test="t-test", n_bootstrap=200)
    out = json.loads(json.dumps(result.as_dict()))
    assert [s["value"] for s in out["settings"]] == [0.1, 0.3, 0.5, 0.7, 0.9]
    assert out["settings"][2]["run"] == "hybrid weight=0.5"
    (measure,) = out["measures"]
    column = {w: matrix[:, given.index(w)] for w in given}
    assert (measure["measure"], measure["best"], measure["best_run"]) == ("recip_rank", 0.5, "hybrid weight=0.5")
    assert measure["mean"] == pytest.approx(column[0.5].mean(), abs=1e-12)
    assert measure["verdict"] == result.verdict("recip_rank")
    for neighbour, w in zip(measure["neighbours"], (0.3, 0.7), strict=True):
        d = column[0.5] - column[w]
        assert (neighbour["value"], neighbour["run"]) == (w, f"hybrid weight={w}")
        assert neighbour["difference"] == pytest.approx(d.mean(), abs=1e-12)
        # Holm over the four neighbouring pairs; the t-test's p of each pair is scipy's.
        assert neighbour["p"] == pytest.approx(stats.ttest_rel(column[0.5], column[w]).pvalue, rel=1e-9)
        assert neighbour["distinguishable"] == (neighbour["p_adjusted"] < 0.05)
    assert out["runs"]["design"] == "neighbours" and len(out["runs"]["measures"][0]["pairs"]) == 4


def test_the_parameter_every_run_names_once_with_settings_all_different_is_found():
    assert named_parameter([["sys", "weight=0.25.run"], ["x", "weight=0.5.run"], ["y", "weight=1.run"]]) == "weight"
    # A written name first, then the part after its dots, dashes or underscores, as runs name it.
    assert named_parameter([["hybrid_weight=0.3"], ["hybrid_weight=0.5"]]) == "hybrid_weight"
    assert named_parameter([["runA.weight=0.3"], ["runB.weight=0.5"]]) == "weight"
    # k names the same setting twice; b differs: b.
    assert named_parameter([["k=1 b=0.4"], ["k=1 b=0.75"]]) == "b"
    # None: a run names none, or two settings, or two runs the same.
    assert named_parameter([["weight=0.3"], ["bm25"]]) is None
    assert named_parameter([["weight=0.3 weight=0.4"], ["weight=0.5"]]) is None
    assert named_parameter([["weight=0.3"], ["weight=0.30"]]) is None
    assert named_parameter([]) is None
