"""``relevance-explainer evaluate``: trec_eval's -q table, the comparison, exit codes, clear errors."""

from __future__ import annotations

import argparse
import gzip
import io
from types import SimpleNamespace

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text

from explainer.evaluation import cli


class Terminal(io.StringIO):
    def isatty(self):
        return True


def files(tmp_path, seed=2):
    qrels, run = collection(seed, 24)
    run = {q: d for q, d in run.items() if d}
    rng = np.random.default_rng(seed)
    better = {q: {d: s + 3 * qrels.get(q, {}).get(d, 0) for d, s in docs.items()} for q, docs in run.items()}
    paths = {"qrels": tmp_path / "qrels.txt", "base": tmp_path / "base.run", "cand": tmp_path / "cand.run.gz"}
    paths["qrels"].write_text(qrels_text(qrels))
    paths["base"].write_text(run_text(run, rng, tag="base"))
    paths["cand"].write_bytes(gzip.compress(run_text(better, rng, tag="cand").encode()))
    return qrels, run, better, paths


def call(*argv):
    out, err = io.StringIO(), io.StringIO()
    parser = argparse.ArgumentParser()
    cli.add_evaluate_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["evaluate", *map(str, argv)])
    code = cli.run(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_one_run_prints_trec_evals_q_table(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, err = call(paths["qrels"], paths["base"], "-m", "P@5", "map", "ndcg_cut_10", "recip_rank")
    assert code == 0 and err == ""
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "map", "ndcg_cut.10", "recip_rank"}).evaluate(run)
    names = ["P_5", "map", "ndcg_cut_10", "recip_rank"]
    lines = [f"{n:<22}\t{q}\t{expected[q][n]:6.4f}" for q in sorted(expected) for n in names]
    lines += [f"{n:<22}\tall\t{np.mean([expected[q][n] for q in expected]):6.4f}" for n in names]
    table = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert table == lines
    n_run_only = sum(q not in qrels for q in run)
    n_qrels_only = sum(q not in run for q in qrels)
    assert n_run_only > 1 and n_qrels_only > 1
    assert (
        f"# {len(expected)} queries evaluated; {n_run_only} in the run have no judgments (skipped, as trec_eval "
        f"does); {n_qrels_only} judged have no results in the run (skipped, as trec_eval does without -c)\n"
    ) in out


def test_two_runs_compare_and_the_gate_sets_the_exit_code(tmp_path):
    _, _, _, paths = files(tmp_path)
    code, out, err = call(paths["qrels"], paths["base"], paths["cand"], "--measure", "ndcg", "ap", "--k", "5", "10")
    assert err == ""
    assert code == 0, out
    # The default gate measure, NDCG@10, and the default question, superiority by 0.
    assert "# SHIPS on ndcg_cut_10: better by more than 0.0000 (superiority, H0: difference <= +0.0000); " in out
    assert "# baseline: base.run (run base)" in out and "# candidate: cand.run.gz (run cand)" in out
    assert "ndcg_cut_5" in out and "the candidate won most on" in out
    code, out, _ = call(paths["qrels"], paths["base"], paths["cand"], "--margin", "0.9")
    assert code == 1 and "# DOES NOT SHIP on ndcg_cut_10: better by more than 0.9000" in out
    code, out, _ = call(paths["qrels"], paths["cand"], paths["base"], "--gate-measure", "map", "--test", "t-test")
    assert code == 1 and "DOES NOT SHIP on map" in out and "t-test p =" in out


def test_the_gates_questions_on_the_command_line(tmp_path):
    _, _, _, paths = files(tmp_path)
    qrels, base, cand = paths["qrels"], paths["base"], paths["cand"]
    # A gate measure need not be in -m: it is evaluated too.
    code, out, _ = call(qrels, base, cand, "-m", "P@5", "--gate-measure", "rr", "map")
    assert code == 0 and "SHIPS on recip_rank, map: " in out and "intersection-union test" in out
    # A run against itself: not shown better, but not worse by 0.01 either.
    code, out, _ = call(qrels, base, base, "--non-inferiority", "0.01")
    assert code == 0 and "# SHIPS on ndcg_cut_10: not worse by 0.0100 or more (non-inferiority" in out
    code, out, _ = call(qrels, base, base)
    assert code == 1 and "# DOES NOT SHIP on ndcg_cut_10" in out
    code, out, _ = call(qrels, base, cand, "--two-sided")
    assert code == 0 and "# NO VERDICT on ndcg_cut_10: two-sided report (H0: difference = 0)" in out
    code, _, err = call(qrels, base, cand, "--margin", "-0.01")
    assert code == 2 and "non-inferiority" in err


def test_the_exit_codes_of_the_outcomes():
    # The outcomes themselves are tested in test_evaluation_compare.py (undecided included).
    def code(outcome):
        return cli.exit_code(cli.Report((), SimpleNamespace(gate=SimpleNamespace(outcome=outcome))))

    assert [code(o) for o in ("ships", "does not ship", "undecided", None)] == [0, 1, 3, 0]
    assert cli.exit_code(cli.Report((), None)) == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2\n", "bad.run, line 2: expected 6 fields"),
        (b"q1 Q0 d1 1 high t\n", "bad.run, line 1: expected a number as the score"),
        (b"q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n", "bad.run, line 2: a docid listed twice"),
    ],
)
def test_bad_input_exits_2_with_the_file_and_line(tmp_path, content, message):
    _, _, _, paths = files(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_bytes(content)
    code, out, err = call(paths["qrels"], bad)
    assert code == 2 and out == ""
    assert err.startswith("relevance-explainer evaluate: ") and message in err
    assert "Traceback" not in err and "d1" not in err


def test_bad_options_exit_2(tmp_path):
    _, _, _, paths = files(tmp_path)
    code, _, err = call(paths["qrels"], paths["base"], "-m", "bpref")
    assert code == 2 and "unknown measure 'bpref'" in err
    code, _, err = call(paths["qrels"], paths["base"], paths["cand"], "--gate-measure", "ndcg@ten")
    assert code == 2 and "unknown measure 'ndcg@ten'" in err
    code, _, err = call(tmp_path / "absent", paths["base"])
    assert code == 2 and "absent: cannot be read" in err


def test_duplicates_can_be_kept_and_are_counted(tmp_path):
    _, _, _, paths = files(tmp_path)
    text = paths["base"].read_text()
    first = text.splitlines()[0]
    doubled = tmp_path / "doubled.run"
    doubled.write_text(text + first + "\n")
    code, out, _ = call(paths["qrels"], doubled, "--duplicates", "first")
    assert code == 0
    assert "# 1 duplicate docid line left out of the run" in out


def test_the_command_wired_into_a_parser_exits_with_its_code(tmp_path):
    _, _, _, paths = files(tmp_path)
    parser = argparse.ArgumentParser()
    sub = cli.add_evaluate_command(parser.add_subparsers(dest="command"))
    sub.add_argument("--html", metavar="FILE")  # another command can extend it
    args = parser.parse_args(["evaluate", str(paths["qrels"]), str(paths["base"]), str(paths["cand"]), "--margin", "2"])
    with pytest.raises(SystemExit) as stopped:
        args.run(args)
    assert stopped.value.code == 1


def test_a_progress_bar_only_on_a_terminal_and_only_after_a_second(monkeypatch):
    terminal, pipe = Terminal(), io.StringIO()
    bar = cli._ProgressBar("/x/run.txt", terminal)
    bar.update(10, 100)
    assert terminal.getvalue() == ""  # not yet a second
    monkeypatch.setattr(cli._ProgressBar, "DELAY", 0.0)
    bar = cli._ProgressBar("/x/run.txt", terminal)
    bar.update(50_000_000, 100_000_000)
    bar.close()
    assert "Reading run.txt [###############...............]  50% of 100 MB" in terminal.getvalue()
    quiet = cli._ProgressBar("/x/run.txt", pipe)
    quiet.update(50, 100)
    quiet.close()
    assert pipe.getvalue() == ""


def test_nothing_is_written_to_disk(tmp_path, monkeypatch):
    _, _, _, paths = files(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    code, _, _ = call(paths["qrels"], paths["base"], paths["cand"])
    assert code in (0, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_main_runs_the_command(tmp_path, capsys):
    _, _, _, paths = files(tmp_path)
    assert cli.main([str(paths["qrels"]), str(paths["base"]), "-m", "rr"]) == 0
    assert "recip_rank            \tall\t" in capsys.readouterr().out
