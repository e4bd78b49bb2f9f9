"""Effect size and power as a reader gets them: every number against scipy and statsmodels, the units first."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from explainer.evaluation import golden
from explainer.evaluation import significance as sig
from explainer.evaluation.compare import compare
from explainer.evaluation.effects import effect
from explainer.evaluation.measures import evaluate

from support.oracles import stats
from support.oracles import statsmodels_power as smpower

EXACT = 1e-10


def from_values(a, b):
    """Two evaluations whose recip_rank of query i is a[i] and b[i]."""
    qrels = {f"q{i:03d}": {"d": 1} for i in range(len(a))}
    base = evaluate(qrels, {q: {"d": 1.0} for q in qrels}, ["rr"])
    return [dataclasses.replace(base, values={"recip_rank": np.asarray(v, dtype=float)}) for v in (a, b)]


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(3)
    a = rng.random(80)
    b = np.clip(a + rng.normal(0.03, 0.12, 80), 0, 1)
    b[:10] = a[:10]  # ten ties
    row = compare(*from_values(a, b), n_bootstrap=3000, seed=4).measures["recip_rank"]
    return a, b, effect(row, alpha=0.05)


def test_the_difference_and_its_interval_are_in_the_measures_units(case):
    a, b, e = case
    d = b - a
    assert e.mean == pytest.approx(d.mean(), abs=EXACT)
    theirs = stats.bootstrap((d,), np.mean, n_resamples=3000, rng=np.random.default_rng(4)).confidence_interval
    assert (e.low, e.high) == (pytest.approx(theirs.low, abs=EXACT), pytest.approx(theirs.high, abs=EXACT))
    assert e.lines()[0] == (
        f"RR: mean difference {d.mean():+.4f} (candidate - baseline, in RR's units), "
        f"95% bootstrap interval (BCa) [{theirs.low:+.4f}, {theirs.high:+.4f}]"
    )


def test_then_d_z_and_wins_ties_and_losses(case):
    a, b, e = case
    d = b - a
    sd = math.sqrt(np.sum((d - d.mean()) ** 2) / (len(d) - 1))
    wins, ties, losses = int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0))
    assert ties == 10 and (e.wins, e.ties, e.losses) == (wins, ties, losses)
    assert e.sd == pytest.approx(sd, abs=EXACT) and e.d_z == pytest.approx(d.mean() / sd, abs=EXACT)
    assert e.lines()[1] == (
        f"d_z = {d.mean() / sd:+.2f} (the mean difference over the standard deviation of the 80 per-query "
        f"differences, {sd:.4f}); the candidate won {wins}, tied 10 and lost {losses} of 80 queries"
    )


def test_the_minimum_detectable_effect_is_statsmodels_t_test_power_solved(case):
    _, _, e = case
    solver = smpower.TTestPower()
    assert solver.power(effect_size=e.mde / e.sd, nobs=80, alpha=0.05, alternative="larger") == pytest.approx(
        0.8, abs=EXACT
    )
    solved = solver.solve_power(effect_size=None, nobs=80, alpha=0.05, power=0.8, alternative="larger") * e.sd
    assert e.mde == pytest.approx(solved, rel=1e-5)  # statsmodels' root-finder stops sooner
    assert e.lines()[2] == (
        f"Power: on 80 queries whose differences have a standard deviation of {e.sd:.4f}, the one-sided paired "
        f"t-test at alpha 0.05 (H0: difference <= 0) finds a true gain of {e.mde:.4f}, the minimum detectable "
        "effect, 80% of the time, and a larger gain more often"
    )


@pytest.mark.parametrize("difference", [0.01, 0.02, 0.05])
def test_the_queries_a_difference_needs_are_statsmodels_rounded_up(case, difference):
    _, _, e = case
    solver = smpower.TTestPower()
    n = solver.solve_power(effect_size=difference / e.sd, nobs=None, alpha=0.05, power=0.8, alternative="larger")
    assert e.queries_needed(difference) == math.ceil(n)
    lines = e.lines(difference)
    assert lines[3] == (
        f"To find a true gain of {difference:.4f} 80% of the time, the same test needs {math.ceil(n):,} queries "
        "whose differences have the same standard deviation (this set has 80)"
    )
    assert lines[-1] == sig.ASSUMPTIONS
    assert e.as_dict(difference)["power"]["queries_needed"] == math.ceil(n)


def test_the_json_holds_every_number_the_sentences_give(case):
    _, _, e = case
    out = e.as_dict()
    assert out["mean_difference"] == e.mean and out["interval"]["low"] == e.low and out["d_z"] == e.d_z
    assert (out["wins"], out["ties"], out["losses"], out["queries"]) == (e.wins, e.ties, e.losses, 80)
    assert out["power"]["minimum_detectable_effect"] == e.mde and out["power"]["alpha"] == 0.05
    assert "queries_needed" not in out["power"]


def test_equal_differences_have_no_d_z_and_no_power():
    a = np.linspace(0, 0.5, 6)
    e = effect(compare(*from_values(a, a + 0.1)).measures["recip_rank"])
    lines = e.lines(0.05)
    assert lines[1].startswith("d_z: none (every query differs by the same amount)")
    assert lines[2] == "Power: none to give (it needs at least two queries whose differences are not all the same)"
    assert len(lines) == 3
    with pytest.raises(ValueError, match="the difference to detect must be above 0"):
        effect(compare(*from_values(a, a + np.arange(6) / 10)).measures["recip_rank"]).queries_needed(0)


def test_the_golden_sets_ndcg_at_10():
    _, _, qrels, baseline, candidate = golden.load()
    a, b = (evaluate(qrels, run, ["ndcg@10"]) for run in (baseline, candidate))
    e = effect(compare(a, b, n_bootstrap=1000).measures["ndcg_cut_10"])
    d = b.values["ndcg_cut_10"] - a.values["ndcg_cut_10"]
    assert e.n == 100 and e.mean == pytest.approx(d.mean(), abs=EXACT)
    solver = smpower.TTestPower()
    sd = d.std(ddof=1)
    assert solver.power(effect_size=e.mde / sd, nobs=100, alpha=0.05, alternative="larger") == (
        pytest.approx(0.8, abs=EXACT)
    )
    # The README's sentence, from the oracles' numbers.
    interval = stats.bootstrap((d,), np.mean, n_resamples=10_000, rng=np.random.default_rng(0)).confidence_interval
    needed = math.ceil(solver.solve_power(effect_size=0.02 / sd, alpha=0.05, power=0.8, alternative="larger"))
    mde = solver.solve_power(effect_size=None, nobs=100, alpha=0.05, power=0.8, alternative="larger") * sd
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert (
        f"On the golden set's NDCG@10: a mean difference of {d.mean():+.4f}, 95% interval [{interval.low:+.4f}, "
        f"{interval.high:+.4f}]; d_z {d.mean() / sd:+.2f}, {int(np.sum(d > 0))} queries won and "
        f"{int(np.sum(d < 0))} lost; 100 queries whose differences have a standard deviation of {sd:.4f} detect a "
        f"true gain of {mde:.4f} (the minimum detectable effect) 80% of the time, and a gain of 0.02 would need "
        f"{needed:,} such queries"
    ) in readme
