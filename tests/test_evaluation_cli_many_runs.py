"""``relevance-explainer evaluate QRELS RUN1 ... RUNn``: many runs in one command, a sweep, the gate's exit codes.

The adjusted p-values are held to statsmodels' ``multipletests`` on the same raw p-values; the
sweep's order and best setting to the means pytrec_eval computes; the exit codes to the golden
set's numbers (README: the margin's interval of the NDCG@10 gain, [+0.0068, +0.1118], is not
above 0.05).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import math
import re

import jsonschema
import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text
from test_evaluation_outputs import closed, readme_schema

from explainer.evaluation import cli, golden

from support.oracles import multitest
from support.oracles import statsmodels_power as smpower

WEIGHTS = (0.75, 0.0, 1.5, 0.25, 3.0)
"""Five settings of a parameter, given out of order."""
LEAN = {0.0: 0.0, 0.25: 1.0, 0.75: 3.0, 1.5: 1.5, 3.0: 0.5}
"""How much each setting's scores lean on the judgments: most at 0.75, so the best is inside the sweep."""


def five_runs(tmp_path, seed=5):
    """A qrels file and five runs named ``weight=W.run`` (tags ``sysW``), each leaning on the grades by ``LEAN[W]``."""
    qrels, run = collection(seed, 30)
    run = {q: d for q, d in run.items() if d}
    rng = np.random.default_rng(seed)
    (tmp_path / "qrels.txt").write_text(qrels_text(qrels))
    runs, paths = {}, []
    for w in WEIGHTS:
        noise = {q: {d: float(rng.normal(0, 0.5)) for d in docs} for q, docs in run.items()}
        scored = {
            q: {d: s + LEAN[w] * qrels.get(q, {}).get(d, 0) + noise[q][d] for d, s in docs.items()}
            for q, docs in run.items()
        }
        path = tmp_path / f"weight={w:g}.run"
        path.write_text(run_text(scored, rng, tag=f"sys{w:g}"))
        runs[w] = scored
        paths.append(path)
    return qrels, runs, tmp_path / "qrels.txt", paths


def parsed(*argv):
    parser = argparse.ArgumentParser()
    cli.add_evaluate_command(parser.add_subparsers(dest="command"))
    return parser.parse_args(["evaluate", *map(str, argv)])


def call(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.run(parsed(*argv), out, err)
    return code, out.getvalue(), err.getvalue()


FAST = ("--permutations", "2000", "--bootstrap", "500")


def test_five_runs_compare_in_one_command_with_the_correction_named(tmp_path):
    qrels, runs, qrels_path, paths = five_runs(tmp_path)
    code, out, err = call(qrels_path, *paths, "-m", "ndcg_cut.10", "-m", "map", *FAST)
    assert code in (0, 1)
    # Standard output: trec_eval's table, one block per run, in the order given.
    blocks = [out.splitlines()[i : i + 2] for i in range(0, 10, 2)]
    assert len(out.splitlines()) == 10
    for w, block in zip(WEIGHTS, blocks, strict=True):
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(runs[w])
        assert block[0] == f"{'map':<22}\tall\t{np.mean([v['map'] for v in theirs.values()]):6.4f}"
    assert "adjusted over the 4 candidates of each measure by Holm's step-down" in err
    assert "# Runs: a = sys0.75 (baseline); b = sys0; c = sys1.5; d = sys0.25; e = sys3" in err
    assert re.search(r"^#   pair .* p \(rand\.\) +p \(Holm\)$", err, re.M)
    assert "# The gate: each of the 4 candidates against the baseline a, its one-sided p-values adjusted " in err
    for i in "bcde":
        assert f"\n# {i} sys" in err
    code, _, err = call(qrels_path, *paths, "-m", "map", "--correction", "bh", *FAST)
    assert "by Benjamini-Hochberg (the false discovery rate at most alpha)" in err
    assert "adjusted over 4 candidates by Benjamini-Hochberg p = " in err


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bh", "fdr_bh"), ("none", None)])
def test_the_adjusted_p_values_are_statsmodels_multipletests_of_the_raw_ones(tmp_path, correction, method):
    _, _, qrels_path, paths = five_runs(tmp_path)
    paths = [paths[WEIGHTS.index(w)] for w in sorted(WEIGHTS)]  # the baseline leans least on the judgments
    report = cli.report_from_args(parsed(qrels_path, *paths, "-m", "map", "--correction", correction, *FAST))
    pairs = report.many.pairs["map"]
    raw = np.array([p.p for p in pairs])
    theirs = raw if method is None else multitest.multipletests(raw, method=method)[1]
    assert [p.p_adjusted for p in pairs] == pytest.approx(theirs.tolist(), abs=1e-12)
    # The gate's own one-sided p-values, adjusted over the candidates by the same correction.
    gates = [c.gate.verdicts[0] for c in report.candidates]
    raw = np.array([v.p for v in gates])
    assert np.sum(raw < 0.05) >= 2  # some to adjust
    theirs = raw if method is None else multitest.multipletests(raw, method=method)[1]
    assert [v.p_adjusted for v in gates] == pytest.approx(theirs.tolist(), abs=1e-12)
    for c, v in zip(report.candidates, gates, strict=True):
        alone = v.low > v.shift and v.p < 0.05
        assert c.gate.ships == (alone and v.p_adjusted < 0.05)


def test_a_sweep_orders_the_runs_by_its_parameter_and_marks_the_best(tmp_path):
    qrels, runs, qrels_path, paths = five_runs(tmp_path)
    code, _, err = call(qrels_path, *paths, "-m", "map", "--sweep", "weight", *FAST)
    assert code in (0, 1)
    rows = re.findall(r"^# +([\d.]+)  (sys\S+) +(\d\.\d{4}) \[[^]]*\](  best)?", err, re.M)[:5]  # map's
    assert [float(r[0]) for r in rows] == sorted(WEIGHTS)
    assert [r[1] for r in rows] == [f"sys{w:g}" for w in sorted(WEIGHTS)]
    means = {}
    for w in WEIGHTS:
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(runs[w])
        means[w] = np.mean([v["map"] for v in theirs.values()])
    assert [float(r[2]) for r in rows] == pytest.approx([means[w] for w in sorted(WEIGHTS)], abs=5e-5)
    best = max(means, key=means.get)
    assert best == 0.75  # LEAN's most
    assert [r[3] == "  best" for r in rows] == [w == best for w in sorted(WEIGHTS)]
    assert "# Sweep of weight over 5 settings, in order of weight: " in err
    assert re.search(
        rf"^#   best: weight={best:g}, mean {means[best]:.4f}; (better than|not distinguishable)", err, re.M
    )


def test_a_run_against_itself_is_not_inferior_by_0_01_and_ships(tmp_path):
    _, _, qrels_path, paths = five_runs(tmp_path)
    code, _, err = call(qrels_path, paths[0], paths[0], paths[0], "--non-inferiority", "0.01", *FAST)
    assert code == cli.EXIT_SHIPS == 0, err
    assert "# SHIPS: every candidate ships (ships b, c)" in err


def test_the_golden_set_does_not_ship_better_by_more_than_0_05(tmp_path):
    files = golden.paths()
    code, _, err = call(
        files["qrels"], files["baseline"], files["candidate"], "--margin", "0.05", "--gate-measure", "ndcg@10"
    )
    assert code == cli.EXIT_DOES_NOT_SHIP == 1
    assert "# DOES NOT SHIP on ndcg_cut_10: better by more than 0.0500 (superiority, H0: difference <= +0.0500)" in err


def test_with_many_candidates_one_that_fails_fails_the_command(tmp_path):
    files = golden.paths()
    code, _, err = call(files["qrels"], files["baseline"], files["candidate"], files["baseline"], *FAST)
    assert code == 1
    assert "# DOES NOT SHIP: not every candidate ships (ships b; does not ship c)" in err


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (("--sweep", "alpha"), "names no setting of alpha"),
        (("--sweep", "w t"), "a sweep's parameter is a name of letters"),
        (("--all-pairs", "--test", "t-test"), "randomised Tukey HSD, a randomization test"),
        (("--all-pairs", "--sweep", "weight"), "not allowed with argument"),
        (("--correction", "bonferroni"), "invalid choice: 'bonferroni'"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, extra, said):
    _, _, qrels_path, paths = five_runs(tmp_path)
    try:
        code, _, err = call(qrels_path, *paths[:3], *extra, *FAST)
    except SystemExit as stop:  # argparse's errors go to the real stderr
        code, err = stop.code, capsys.readouterr().err
    assert code == cli.EXIT_BAD_INPUT == 2
    assert said in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_the_sweep_and_all_pairs_need_two_runs(tmp_path):
    _, _, qrels_path, paths = five_runs(tmp_path)
    code, _, err = call(qrels_path, paths[0], "--all-pairs")
    assert code == 2 and err == "relevance-explainer evaluate: --all-pairs compares runs: give at least two\n"


def test_all_pairs_tests_every_pair_by_the_randomised_tukey_hsd(tmp_path):
    _, _, qrels_path, paths = five_runs(tmp_path)
    code, _, err = call(qrels_path, *paths[:3], "-m", "map", "--all-pairs", *FAST)
    assert "all 3 pairs of 3 runs: the randomised Tukey HSD over the query-by-run matrix" in err
    # map's three pairs, then ndcg_cut_10's (the gate's measure, evaluated too)
    assert len(re.findall(r"^#   [a-c] - [a-c]  [+-]\d\.\d{4}  p ", err, re.M)) == 6


# -- two runs: the effect first, then its size, then power (issue #30, item 4) -----------------------


def golden_differences(measure="ndcg_cut_10"):
    """The golden set's per-query differences candidate - baseline, from pytrec_eval (an independent oracle)."""
    files = golden.paths()
    qrels, base, cand = {}, {}, {}
    for line in gzip.open(files["qrels"], "rt"):
        q, _, doc, grade = line.split()
        qrels.setdefault(q, {})[doc] = int(grade)
    for path, run in ((files["baseline"], base), (files["candidate"], cand)):
        for line in gzip.open(path, "rt"):
            q, _, doc, _, score, _ = line.split()
            run.setdefault(q, {})[doc] = float(score)
    theirs = [pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(r) for r in (base, cand)]
    return files, np.array([theirs[1][q][measure] - theirs[0][q][measure] for q in sorted(qrels)])


def test_two_runs_say_the_difference_first_then_d_z_then_power_then_the_queries_a_difference_needs():
    files, d = golden_differences()
    sd = float(np.std(d, ddof=1))
    code, _, err = call(
        files["qrels"], files["baseline"], files["candidate"], "-m", "ndcg_cut.10", "--detect", "0.02", *FAST
    )
    assert code == 0
    lines = [line[2:] for line in err.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("NDCG@10: mean difference"))
    assert lines[start].startswith(
        f"NDCG@10: mean difference {d.mean():+.4f} (candidate - baseline, in NDCG@10's units)"
    )
    assert lines[start + 1].startswith(f"d_z = {d.mean() / sd:+.2f} (the mean difference over the standard deviation")
    assert lines[start + 1].endswith(
        f"won {np.sum(d > 0)}, tied {np.sum(d == 0)} and lost {np.sum(d < 0)} of 100 queries"
    )
    solver = smpower.TTestPower()
    mde = solver.solve_power(effect_size=None, nobs=100, alpha=0.05, power=0.8, alternative="larger") * sd
    assert re.fullmatch(
        rf"Power: on 100 queries .* of {sd:.4f}, the one-sided paired t-test at alpha 0.05 \(H0: difference <= 0\) "
        rf"finds a true gain of {mde:.4f}, the minimum detectable effect, 80% of the time, .*",
        lines[start + 2],
    )
    n = math.ceil(solver.solve_power(effect_size=0.02 / sd, nobs=None, alpha=0.05, power=0.8, alternative="larger"))
    assert lines[start + 3].startswith(
        f"To find a true gain of 0.0200 80% of the time, the same test needs {n:,} queries"
    )
    assert lines[start + 4].startswith("Power is the paired t-test's") and lines[start + 4].count(". ") == 0
    assert lines[start + 5].startswith("SHIPS on ndcg_cut_10")
    assert sum("Power" in line for line in lines) == 2  # one copy of the power sentence: effects'


def test_with_a_margin_the_power_and_the_queries_are_of_the_gates_own_test():
    files, d = golden_differences()
    sd = float(np.std(d, ddof=1))
    code, _, err = call(
        files["qrels"], files["baseline"], files["candidate"], "--margin", "0.05", "--detect", "0.1", *FAST
    )
    assert code == 1
    solver = smpower.TTestPower()
    mde = solver.solve_power(effect_size=None, nobs=100, alpha=0.05, power=0.8, alternative="larger") * sd
    assert f"(H0: difference <= +0.0500) finds a true difference of {0.05 + mde:+.4f}, H0's +0.0500 plus the " in err
    n = math.ceil(solver.solve_power(effect_size=0.05 / sd, nobs=None, alpha=0.05, power=0.8, alternative="larger"))
    assert f"# To find a true difference of +0.1000 80% of the time, the same test needs {n:,} queries" in err


@pytest.mark.parametrize(("correction", "level"), [("holm", 0.05 / 4), ("bh", 0.05 / 4), ("none", 0.05)])
def test_each_of_many_candidates_gets_its_effect_and_the_power_of_the_level_its_correction_holds_it_to(
    tmp_path, correction, level
):
    """Holm and Benjamini-Hochberg ship any candidate whose p is under alpha / (the number of candidates),
    whatever the others' p: each candidate's power is at least that of the test at that level."""
    qrels, runs, qrels_path, paths = five_runs(tmp_path)
    code, _, err = call(qrels_path, *paths, "-m", "map", "--correction", correction, "--detect", "0.05", *FAST)
    lines = [line[2:] for line in err.splitlines()]
    solver = smpower.TTestPower()
    theirs = {w: pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(runs[w]) for w in WEIGHTS}
    for i, w in enumerate(WEIGHTS[1:], start=1):
        at = lines.index(f"{'abcde'[i]} - a (sys{w:g} against sys{WEIGHTS[0]:g}):")
        d = np.array([theirs[w][q]["ndcg_cut_10"] - theirs[WEIGHTS[0]][q]["ndcg_cut_10"] for q in sorted(theirs[w])])
        sd = float(np.std(d, ddof=1))
        assert lines[at + 1].startswith(f"  NDCG@10: mean difference {d.mean():+.4f} (candidate - baseline")
        mde = solver.solve_power(effect_size=None, nobs=len(d), alpha=level, power=0.8, alternative="larger") * sd
        assert f" the one-sided paired t-test at alpha {level:g} (H0: difference <= 0" in lines[at + 3]
        assert f" finds a true gain of {mde:.4f}, the minimum detectable effect, 80% of the time" in lines[at + 3]
        assert ("the strictest level" in lines[at + 3]) == (correction != "none")
        n = solver.solve_power(effect_size=0.05 / sd, nobs=None, alpha=level, power=0.8, alternative="larger")
        assert lines[at + 4].startswith(
            f"  To find a true gain of 0.0500 80% of the time, the same test needs {math.ceil(n):,} "
        )
        assert lines[at + 5].startswith(f"{'abcde'[i]} sys{w:g}: ")
    assert sum(line.startswith("Power is the paired t-test's") for line in lines) == 1


@pytest.mark.parametrize(("question", "detect"), [((), "0"), (("--margin", "0.05"), "0.02"), (("--two-sided",), "0")])
def test_a_difference_the_test_cannot_be_asked_to_find_exits_2(question, detect):
    files = golden.paths()
    code, out, err = call(files["qrels"], files["baseline"], files["candidate"], *question, "--detect", detect)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--detect takes " in err


# -- the JSON: candidates, many_runs and sweep (issue #30, item 5) ------------------------------------


def run_json(*argv):
    code, out, err = call(*argv, "--format", "json")
    return code, json.loads(out), err


@pytest.mark.parametrize(
    "extra",
    [[], ["--all-pairs"], ["--sweep", "weight"], ["--two-sided"], ["--non-inferiority", "0.01", "--detect", "0.02"]],
    ids=["against the baseline", "all pairs", "sweep", "two-sided", "non-inferiority, detect"],
)
def test_the_json_of_many_runs_is_what_the_readmes_schema_says(tmp_path, extra):
    _, _, qrels_path, paths = five_runs(tmp_path)
    schema = closed(readme_schema())
    code, doc, err = run_json(qrels_path, *paths, "-m", "map", *FAST, *extra)
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    assert doc["exit_code"] == code and doc["comparison"] is None
    assert [r["role"] for r in doc["runs"]] == ["baseline"] + ["candidate"] * 4
    assert (doc["sweep"] is None) == ("--sweep" not in extra)
    verdicts = doc["candidates"]["verdicts"]
    assert [v["letter"] for v in verdicts] == list("bcde")
    for v in verdicts:  # each candidate's reason is the line on standard error
        assert f"# {v['letter']} {v['name']}: {v['reason']}\n" in err
    assert doc["candidates"]["reason"] in err


def test_the_json_holds_the_numbers_of_the_text(tmp_path):
    qrels, runs, qrels_path, paths = five_runs(tmp_path)
    paths = [paths[WEIGHTS.index(w)] for w in sorted(WEIGHTS)]
    code, doc, err = run_json(qrels_path, *paths, "-m", "map", "--detect", "0.05", *FAST)
    many = doc["many_runs"]
    assert many["correction"] == "holm" and "Holm's step-down" in many["method"]
    pairs = next(m for m in many["measures"] if m["measure"] == "map")["pairs"]
    raw = [p["p"] for p in pairs]
    assert [p["p_adjusted"] for p in pairs] == pytest.approx(multitest.multipletests(raw, method="holm")[1], abs=1e-12)
    for p, w in zip(pairs, sorted(WEIGHTS)[1:], strict=True):
        theirs = [pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(runs[x]) for x in (0.0, w)]
        d = np.array([theirs[1][q]["map"] - theirs[0][q]["map"] for q in sorted(theirs[0])])
        assert p["mean_difference"] == pytest.approx(d.mean(), abs=1e-12)
        assert (p["wins"], p["ties"], p["losses"]) == (np.sum(d > 0), np.sum(d == 0), np.sum(d < 0))
    candidates = doc["candidates"]
    assert candidates["correction"] == "holm"
    gate_p = [v["comparison"]["gate"]["measures"][0]["p"] for v in candidates["verdicts"]]
    adjusted = [v["comparison"]["gate"]["measures"][0]["p_adjusted"] for v in candidates["verdicts"]]
    assert adjusted == pytest.approx(multitest.multipletests(gate_p, method="holm")[1], abs=1e-12)
    for v in candidates["verdicts"]:
        (e,) = v["effects"]
        assert e["measure"] == "ndcg_cut_10" and e["power"]["difference"] == 0.05
        # Holm over 4 candidates: the power is of the test at 0.05 / 4, the level that ships whatever the others' p.
        n = smpower.TTestPower().solve_power(
            effect_size=0.05 / e["sd_of_differences"], nobs=None, alpha=0.05 / 4, power=0.8, alternative="larger"
        )
        assert e["power"]["queries_needed"] == math.ceil(n)
        assert "adjusted over 4 candidates by Holm p = " in v["reason"]
    outcomes = [v["outcome"] for v in candidates["verdicts"]]
    assert candidates["outcome"] == ("ships" if set(outcomes) == {"ships"} else "does not ship")
    assert code == (0 if candidates["outcome"] == "ships" else 1)


def test_the_sweeps_json_names_the_best_and_its_neighbours(tmp_path):
    qrels, runs, qrels_path, paths = five_runs(tmp_path)
    _, doc, err = run_json(qrels_path, *paths, "-m", "map", "--sweep", "weight", *FAST)
    sweep = doc["sweep"]
    assert [s["value"] for s in sweep["settings"]] == sorted(WEIGHTS)
    assert [r["name"] for r in doc["many_runs"]["runs"]] == [f"sys{w:g}" for w in sorted(WEIGHTS)]
    (measure,) = [m for m in sweep["measures"] if m["measure"] == "map"]
    mean = {w: np.mean([v["map"] for v in pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(runs[w]).values()])
            for w in WEIGHTS}  # fmt: skip
    assert measure["best"] == 0.75 and measure["best_run"] == "sys0.75"
    assert measure["mean"] == pytest.approx(mean[0.75], abs=1e-12)
    assert [n["value"] for n in measure["neighbours"]] == [0.25, 1.5]
    for n in measure["neighbours"]:
        assert n["difference"] == pytest.approx(mean[0.75] - mean[n["value"]], abs=1e-12)
        assert n["distinguishable"] == (n["p_adjusted"] < 0.05)
    assert f"#   {measure['verdict']}\n" in err


def test_the_page_takes_ten_runs_and_says_so_for_more_before_reading_any(tmp_path):
    import subprocess
    import sys

    _, _, qrels_path, paths = five_runs(tmp_path)
    eleven = [*paths, *paths, tmp_path / "not-there.run"]  # never opened: the count stops it first
    done = subprocess.run(
        [sys.executable, "-m", "explainer.cli", "evaluate", qrels_path, *eleven, "--html", tmp_path / "page.html"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and not (tmp_path / "page.html").exists()
    assert done.stderr == (
        "relevance-explainer evaluate: --html and --serve show at most 10 runs, got 11: compare more without them\n"
    )


def test_the_table_holds_the_measures_whose_all_line_is_a_mean(tmp_path):
    # num_ret's all line is a sum and gm_map's a geometric mean: a cell's arithmetic mean would not be either.
    _, _, qrels_path, paths = five_runs(tmp_path)
    code, out, err = call(qrels_path, *paths[:3], "-m", "num_ret", "-m", "gm_map", "-m", "map", *FAST)
    header = next(line for line in err.splitlines() if line.startswith("# run "))
    assert header.split()[2:] == ["map", "ndcg_cut_10"]
    assert [line.split()[0] for line in out.splitlines()] == ["num_ret", "map", "gm_map"] * 3
