"""The workbench with more than two runs, without a browser: the table of runs by measures, the gate over the
candidates, the sweep, and the uploads that bring several runs (bounded by ``data.MAX_RUNS``).

The means come from pytrec_eval; the letters and the gate from scipy's paired t-test and
statsmodels' Holm adjustment, on the same per-query values (the page is given the t-test).
"""

from __future__ import annotations

import base64

import numpy as np
import pytest
import pytrec_eval
from test_evaluation_cli_many_runs import LEAN, WEIGHTS, five_runs

from explainer.evaluation import read_qrels, read_run
from explainer.workbench import Workbench
from explainer.workbench import data as wb
from explainer.workbench.upload import UploadError

from support.oracles import multitest, stats

TTEST = {"test": "t-test", "n_bootstrap": 300}


@pytest.fixture(scope="module")
def sweep_files(tmp_path_factory):
    return five_runs(tmp_path_factory.mktemp("sweep"))


@pytest.fixture(scope="module")
def five(sweep_files):
    _, _, qrels_path, paths = sweep_files
    return Workbench(str(qrels_path), *map(str, paths), compare_options=TTEST)


@pytest.fixture(scope="module")
def from_zero(sweep_files):
    """The five runs with weight=0, which leans least on the judgments, as the baseline."""
    _, _, qrels_path, paths = sweep_files
    ordered = [str(paths[WEIGHTS.index(w)]) for w in sorted(WEIGHTS)]
    return Workbench(str(qrels_path), *ordered, compare_options=TTEST)


def per_query(qrels: dict, run: dict, measure: str, qids) -> np.ndarray:
    values = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return np.array([values[q][measure] if q in values else 0.0 for q in qids])


def test_the_runs_table_has_each_runs_mean_and_the_letters_of_the_runs_it_beats_by_holm(five, sweep_files):
    qrels, runs, _, _ = sweep_files
    table = wb.page_table(five.evaluated)
    many = table["many"]
    assert [r["letter"] for r in table["runs"]] == ["a", "b", "c", "d", "e"]
    assert [r["role"] for r in table["runs"]] == ["baseline", "run b", "run c", "run d", "run e"]
    ap = next(m for m in many["measures"] if m["name"] == "map")
    values = [per_query(qrels, runs[w], "map", table["qids"]) for w in WEIGHTS]
    assert [c["mean"] for c in ap["cells"]] == pytest.approx([v.mean() for v in values], abs=1e-12)
    # Each candidate against the baseline a: scipy's two-sided paired t-test, Holm over the four.
    raw = [stats.ttest_rel(v, values[0]).pvalue for v in values[1:]]
    adjusted = multitest.multipletests(raw, method="holm")[1]
    beats = [""] * 5
    for k, p in enumerate(adjusted, start=1):
        if p < 0.05:
            better, worse = (k, 0) if values[k].mean() > values[0].mean() else (0, k)
            beats[better] += "abcde"[worse]
    assert [c["beats"] for c in ap["cells"]] == beats
    assert any(beats)  # some marks to check
    assert "by Holm's step-down" in many["method"]


@pytest.mark.parametrize(
    ("shown", "order", "outcome"), [("five", WEIGHTS, "does not ship"), ("from_zero", sorted(WEIGHTS), "ships")]
)
def test_the_gate_of_each_candidate_is_its_one_sided_test_adjusted_over_the_candidates(
    request, sweep_files, shown, order, outcome
):
    # With weight=0.75 (the best) as the baseline no candidate ships; with weight=0 (the worst) each does.
    qrels, runs, _, _ = sweep_files
    table = wb.page_table(request.getfixturevalue(shown).evaluated)
    values = [per_query(qrels, runs[w], "ndcg_cut_10", table["qids"]) for w in order]
    raw = [stats.ttest_rel(v, values[0], alternative="greater").pvalue for v in values[1:]]
    adjusted = multitest.multipletests(raw, method="holm")[1]
    bounds = [stats.ttest_rel(v, values[0], alternative="greater").confidence_interval(0.95).low for v in values[1:]]
    expected = ["ships" if p < 0.05 and low > 0 else "does not ship" for p, low in zip(adjusted, bounds, strict=True)]
    gate = table["many"]["gate"]
    assert gate["outcomes"] == [None, *expected]
    assert set(expected) == {outcome}
    assert gate["correction"] == "Holm"
    for c, p in zip(table["comparisons"], adjusted, strict=True):
        assert f"adjusted over 4 candidates by Holm p = {p:.4f}" in c["gate"]["reason"]


def test_runs_that_name_a_weight_are_ordered_by_it_with_the_best_marked(five, sweep_files):
    qrels, runs, _, _ = sweep_files
    sweep = wb.page_table(five.evaluated)["many"]["sweep"]
    assert sweep["parameter"] == "weight"
    assert sweep["values"] == sorted(WEIGHTS)
    assert [WEIGHTS[i] for i in sweep["order"]] == sorted(WEIGHTS)
    ap = sweep["measures"]["map"]
    qids = wb.page_table(five.evaluated)["qids"]
    means = [per_query(qrels, runs[w], "map", qids).mean() for w in sorted(WEIGHTS)]
    assert [c["mean"] for c in ap["cells"]] == pytest.approx(means, abs=1e-12)
    assert sorted(WEIGHTS)[ap["best"]] == max(LEAN, key=LEAN.get) == 0.75
    assert ap["verdict"].startswith("best: weight=0.75, mean ")
    assert len(ap["steps"]) == 4


def test_two_runs_have_no_runs_table_and_keep_their_comparison():
    golden = Workbench.golden().evaluated
    table = wb.page_table(golden)
    assert table["many"] is None and table["comparisons"] == []
    assert [r["role"] for r in table["runs"]] == ["baseline", "candidate"]
    assert table["comparison"]["gate"]["measure"] == "ndcg_cut_10"


def test_a_notebook_takes_up_to_ten_runs(sweep_files):
    _, _, qrels_path, paths = sweep_files
    qrels, run = read_qrels(str(qrels_path)), read_run(str(paths[0]))
    assert len(Workbench(qrels, *[run] * 10, compare_options=TTEST).evaluated.evaluations) == 10
    with pytest.raises(ValueError, match="give one run to 10"):
        Workbench(qrels, *[run] * 11, compare_options=TTEST)


# -- uploads of several runs ---------------------------------------------------------------------


def test_a_candidate_joins_the_others_and_one_sent_again_under_its_name_takes_its_place():
    files = wb.with_file({}, "baseline", "a.run", "A")
    files = wb.with_file(files, "candidate", "b.run", "B")
    files = wb.with_file(files, "candidate", "c.run", "C")
    files = wb.with_file(files, "candidate", "b.run", "B2")
    assert files == {"baseline": ("a.run", "A"), "candidate": (("b.run", "B2"), ("c.run", "C"))}
    assert wb.runs_held(files) == 3
    assert wb.with_file(files, "baseline", "z.run", "Z")["baseline"] == ("z.run", "Z")


def start(workbench: Workbench, slot: str, name: str) -> None:
    data = base64.b64encode(b"q Q0 d 1 1.0 t\n").decode()
    workbench._start({"type": "start", "slot": slot, "name": name, "size": 15, "pieces": 1})
    workbench._piece({"type": "chunk", "slot": slot, "index": 0, "data": data})


def test_a_page_refuses_a_candidate_past_ten_runs_in_one_line_and_takes_one_sent_again():
    workbench = Workbench.golden()
    workbench._files = {"baseline": ("a.run", None), "candidate": tuple((f"c{i}.run", None) for i in range(9))}
    with pytest.raises(UploadError) as refused:
        start(workbench, "candidate", "new.run")
    assert refused.value.lines == [
        "new.run: a page takes 10 runs at most, a baseline and 9 candidates; "
        "compare more from the command line (relevance-explainer evaluate)"
    ]
    start(workbench, "candidate", "c3.run")  # the same name: it takes c3's place
    workbench._release()


def test_evaluate_serves_a_page_whose_uploads_keep_the_commands_gate_settings(sweep_files):
    # --serve's page keeps --margin, --gate-measure, --alpha and --correction for the files a
    # reader uploads there (they returned to the defaults).
    from explainer.cli import build_parser
    from explainer.evaluation import cli as evaluation_cli
    from explainer.evaluation import golden
    from explainer.workbench import cli as workbench_cli
    from explainer.workbench.upload_worker import Job, work

    paths = golden.paths()
    argv = ["evaluate", str(paths["qrels"]), str(paths["baseline"]), str(paths["candidate"]), "--serve"]
    args = build_parser().parse_args([*argv, "--margin", "0.05", "--gate-measure", "map", "--alpha", "0.1"])
    args.measure = list(workbench_cli.PAGE_MEASURES)
    report = evaluation_cli.report_from_args(args)
    workbench = workbench_cli._workbench_maker(args, report, {}, {})()
    assert workbench.evaluated.comparison.gate.margin == 0.05
    _, _, qrels_path, runs = sweep_files
    files = {"qrels": ("q", read_qrels(str(qrels_path))), "baseline": ("a", read_run(str(runs[0])))}
    loaded = workbench.evaluated.loaded
    job = Job("candidate", "b.run", runs[1].read_bytes(), files, loaded.measures, 1, workbench.compare_options)
    gate = work(job).evaluated.comparison.gate
    assert (gate.question, gate.margin, gate.alpha, gate.measures) == ("superiority", 0.05, 0.1, ("map",))
    assert "better by more than 0.0500" in gate.reason


def test_the_pairs_p_values_read_as_the_command_line_prints_them():
    # Forty queries the candidate wins every one of (RR 1 against 1/2 or 1/3): no permutation of
    # the 10,000 is as extreme, so the randomization test's p reads "< 0.0001", a bound, not the
    # 1 / 10,001 it is estimated at; the t-test's p is what it is, in two significant digits.
    qrels = {f"q{i:02d}": {"good": 1, "bad": 0, "worse": 0} for i in range(40)}
    base = {
        q: {"bad": 3.0, "good": 2.0} if i % 2 else {"bad": 3.0, "worse": 2.0, "good": 1.0} for i, q in enumerate(qrels)
    }
    candidate = {q: {"good": 2.0, "bad": 1.0} for q in qrels}
    rr = wb.page_table(Workbench(qrels, base, candidate).evaluated)["comparison"]["measures"]["recip_rank"]
    assert rr["n_permutations"] == 10_000 and not rr["exact"]
    assert rr["randomization_p"] == pytest.approx(1 / 10_001)
    assert rr["randomization_p_text"] == "< 0.0001"
    theirs = stats.ttest_rel([1.0] * 40, [1 / 3 if i % 2 == 0 else 1 / 2 for i in range(40)]).pvalue
    assert rr["t_p_text"] == f"{theirs:.1e}"
