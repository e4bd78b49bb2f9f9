"""``relevance-explainer evaluate``: trec_eval's -q table, the comparison, exit codes, clear errors."""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text

from explainer.evaluation import cli

from support.zeros import gzip_of_zeros


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
    code, out, err = call(
        paths["qrels"], paths["base"], "-q", "-m", "P.5", "-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank"
    )
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "map", "ndcg_cut.10", "recip_rank"}).evaluate(run)
    # trec_eval prints its measures in its own order (measures.c's te_trec_measures), not -m's.
    names = ["map", "recip_rank", "P_5", "ndcg_cut_10"]
    lines = [f"{n:<22}\t{q}\t{expected[q][n]:6.4f}" for q in sorted(expected) for n in names]
    lines += [f"{n:<22}\tall\t{np.mean([expected[q][n] for q in expected]):6.4f}" for n in names]
    assert out.splitlines() == lines
    n_run_only = sum(q not in qrels for q in run)
    n_qrels_only = sum(q not in run for q in qrels)
    assert n_run_only > 1 and n_qrels_only > 1
    assert (
        f"# {len(expected)} queries evaluated; {n_run_only} in the run have no judgments (skipped, as trec_eval "
        f"does); {n_qrels_only} judged have no results in the run (skipped, as trec_eval 9 does without -c; "
        "trec_eval 10 stops with exit code 4)\n"
    ) in err


def test_two_runs_compare_and_the_gate_sets_the_exit_code(tmp_path):
    _, _, _, paths = files(tmp_path)
    code, out, err = call(paths["qrels"], paths["base"], paths["cand"], "-m", "ndcg@5", "-m", "ndcg@10", "-m", "ap")
    assert code == 0, err
    # The default gate measure, NDCG@10, and the default question, superiority by 0.
    assert "# SHIPS on ndcg_cut_10: better by more than 0.0000 (superiority, H0: difference <= +0.0000); " in err
    assert "# baseline: base.run (run base)" in err and "# candidate: cand.run.gz (run cand)" in err
    assert "ndcg_cut_5" in out and "the candidate won most on" in err
    code, _, err = call(paths["qrels"], paths["base"], paths["cand"], "--margin", "0.9")
    assert code == 1 and "# DOES NOT SHIP on ndcg_cut_10: better by more than 0.9000" in err
    code, _, err = call(paths["qrels"], paths["cand"], paths["base"], "--gate-measure", "map", "--test", "t-test")
    assert code == 1 and "DOES NOT SHIP on map" in err and "t-test p =" in err


def test_the_gates_questions_on_the_command_line(tmp_path):
    _, _, _, paths = files(tmp_path)
    qrels, base, cand = paths["qrels"], paths["base"], paths["cand"]
    # A gate measure need not be in -m: it is evaluated too.
    code, out, err = call(qrels, base, cand, "-m", "P.5", "--gate-measure", "rr", "--gate-measure", "map")
    assert code == 0 and "SHIPS on recip_rank, map: " in err and "intersection-union test" in err
    assert [line.split()[0] for line in out.splitlines()] == ["P_5", "P_5"]  # the table: -m's measures
    # A run against itself: not shown better, but not worse by 0.01 either.
    code, _, err = call(qrels, base, base, "--non-inferiority", "0.01")
    assert code == 0 and "# SHIPS on ndcg_cut_10: not worse by 0.0100 or more (non-inferiority" in err
    code, _, err = call(qrels, base, base)
    assert code == 1 and "# DOES NOT SHIP on ndcg_cut_10" in err
    code, _, err = call(qrels, base, cand, "--two-sided")
    assert code == 0 and "# NO VERDICT on ndcg_cut_10: two-sided report (H0: difference = 0)" in err
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
    code, _, err = call(paths["qrels"], paths["base"], "-m", "nonsense")
    assert code == 2 and "unknown measure 'nonsense'" in err
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
    code, _, err = call(paths["qrels"], doubled)
    assert (
        code == 2 and "relevance-explainer evaluate --duplicates first (or last) keeps one" in err
    )  # the option it names is this one
    code, _, err = call(paths["qrels"], doubled, "--duplicates", "first")
    assert code == 0
    assert "# 1 duplicate docid line left out of the run" in err


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
    assert cli.main([str(paths["qrels"]), str(paths["base"]), "-m", "recip_rank"]) == 0
    assert "recip_rank            \tall\t" in capsys.readouterr().out


# -- every bad input: exit 2 and one line naming the file and the line (issue 27) ----------------


class Endless(io.RawIOBase):
    """``yes`` or ``/dev/zero`` on standard input, ended after ``limit`` bytes so that a broken reader fails, not hangs."""

    def __init__(self, unit: bytes, limit: int = 256 << 20):
        self.unit, self.left = unit, limit

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = (self.unit * (n // len(self.unit) + 2))[:n]
        self.left -= n
        return n


class Stdin:
    def __init__(self, raw):
        self.buffer = io.BufferedReader(raw)


def one_bad_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "", (code, err)
    assert err.count("\n") == 1 and err.startswith("relevance-explainer evaluate: "), err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            functools.partial(gzip_of_zeros, 1 << 30),
            "bad.run, line 1: expected lines of at most 8 MB; this one is longer",
        ),
        (b"\xef\xbb\xbfq1 Q0 d1 1 1 t\n", "bad.run, line 1: starts with a byte-order mark"),
        (b"", "bad.run: holds no results (it is empty, or blank and comment lines only)"),
        (b"# only a comment\n\n", "bad.run: holds no results"),
        (gzip.compress(gzip.compress(b"q1 Q0 d1 1 1 t\n")), "bad.run: is gzip inside gzip"),
        (b"q1 Q0 " + b"d" * 2000 + b" 1 1 t\n", "bad.run, line 1: expected a docid of at most 1,024 bytes"),
    ],
    ids=["a GiB of zeros, gzipped", "byte-order mark", "empty", "comments only", "gzip in gzip", "long docid"],
)
def test_every_bad_run_exits_2_with_one_line(tmp_path, content, message):
    _, _, _, paths = files(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_bytes(content() if callable(content) else content)
    assert message in one_bad_line(*call(paths["qrels"], bad))


def test_a_grade_beyond_64_bits_exits_2_naming_its_line(tmp_path):
    """On main: OverflowError, a traceback and exit 1, which a CI job reads as 'does not ship'."""
    _, _, _, paths = files(tmp_path)
    qrels = tmp_path / "big.qrels"
    qrels.write_bytes(b"q1 0 d1 1\nq1 0 d2 99999999999999999999\n")
    err = one_bad_line(*call(qrels, paths["base"]))
    assert "big.qrels, line 2: expected an integer grade in the 4th field, found a number beyond 64 bits" in err


def test_an_endless_input_stops_at_a_bound(tmp_path, monkeypatch):
    _, _, _, paths = files(tmp_path)
    err = one_bad_line(*call(paths["qrels"], "/dev/zero"))  # on main: a hang, growing without end
    assert "zero, line 1: expected lines of at most 8 MB" in err
    monkeypatch.setattr(sys, "stdin", Stdin(Endless(b"y\n")))
    assert "standard input, line 1: expected 6 fields" in one_bad_line(*call(paths["qrels"], "-"))
    from explainer.evaluation.formats import limits

    monkeypatch.setattr(limits, "MEMORY_BUDGET_BYTES", 4 << 20)
    monkeypatch.setattr(sys, "stdin", Stdin(Endless(b"q1 Q0 d1 1 1 t\n", 64 << 20)))  # yes 'q1 Q0 d1 1 1 t'
    assert "is the input endless?" in one_bad_line(*call(paths["qrels"], "-"))


def test_standard_input_reads_a_file_once(tmp_path, monkeypatch):
    qrels, run, _, paths = files(tmp_path)
    monkeypatch.setattr(sys, "stdin", Stdin(io.BytesIO(paths["base"].read_bytes())))
    code, out, err = call(paths["qrels"], "-", "-m", "map")
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert f"map                   \tall\t{np.mean([v['map'] for v in expected.values()]):6.4f}" in out
    assert "standard input (-) can be read for one file only" in one_bad_line(*call("-", "-"))


def test_memory_exhaustion_exits_2_naming_the_file(tmp_path, monkeypatch):
    _, _, _, paths = files(tmp_path)

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(cli, "read_run", exhausted)
    err = one_bad_line(*call(paths["qrels"], paths["base"]))
    assert err == "relevance-explainer evaluate: base.run: does not fit in this computer's memory\n"
    monkeypatch.undo()
    monkeypatch.setattr(cli, "evaluate", exhausted)
    assert "the evaluation does not fit in this computer's memory" in one_bad_line(*call(paths["qrels"], paths["base"]))


def test_text_from_a_file_is_printed_with_its_controls_escaped(tmp_path):
    """A qid holding 'cursor up, erase line' could turn '# DOES NOT SHIP' into another verdict on a terminal."""
    sneaky = "q\x1b[1A\x1b[2K\u202eSHIPS\u202c"
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"{sneaky} 0 d1 1\n{sneaky} 0 d2 0\nq2 0 d1 1\n", encoding="utf-8")
    base, cand = tmp_path / "base\x1b[2J.run", tmp_path / "cand.run"
    base.write_text(f"{sneaky} Q0 d1 1 2 t\n{sneaky} Q0 d2 2 1 t\nq2 Q0 d1 1 1 tag\x1b[31m\n", encoding="utf-8")
    cand.write_text(f"{sneaky} Q0 d2 1 2 t\n{sneaky} Q0 d1 2 1 t\nq2 Q0 d1 1 1 t\n", encoding="utf-8")
    code, out, err = call(qrels, base, cand, "-q", "-m", "P.1", "--gate-measure", "P@1")
    assert code == 1 and "# DOES NOT SHIP on P_1" in err
    assert not any(c in out + err for c in "\x1b\u202e\u202c")
    shown = "q\\x1b[1A\\x1b[2K\\u202eSHIPS\\u202c"
    assert f"P_1                   \t{shown}\t1.0000\n" in out  # the table, trec_eval's but escaped
    assert f"the candidate lost most on {shown} (-1.0000)" in err
    assert "# baseline: base\\x1b[2J.run (run tag\\x1b[31m)" in err


def test_escaped_writes_controls_bidi_and_undecodable_bytes_as_escapes():
    from explainer.evaluation.escaping import escaped

    assert escaped("d1\x00\x07\x1b\x7f\x85") == "d1\\x00\\x07\\x1b\\x7f\\x85"
    assert escaped("a\u202eb\u2066c\u200fd\u061ce\u2028") == "a\\u202eb\\u2066c\\u200fd\\u061ce\\u2028"
    assert escaped(b"d\xff".decode("utf-8", "surrogateescape")) == "d\\xff"  # a byte that was not UTF-8
    assert escaped("caf\u00e9 \u65e5\u672c \\x41") == "caf\u00e9 \u65e5\u672c \\x41"  # text and backslashes stay


# -- trec_eval's command line (issue 29) ------------------------------------------------------------


def test_m_takes_one_value_so_the_files_after_it_are_files(tmp_path):
    """On main, ``-m map QRELS RUN`` read QRELS and RUN as measures."""
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call("-m", "map", paths["qrels"], paths["base"])
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert out == f"map                   \tall\t{np.mean([v['map'] for v in expected.values()]):6.4f}\n"


def test_trec_evals_short_options_take_their_values_attached(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call("-q", "-mmap", "-l2", paths["qrels"], paths["base"])
    assert code == 0
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=2).evaluate(run)
    assert out.splitlines()[-1] == f"map                   \tall\t{np.mean([v['map'] for v in expected.values()]):6.4f}"
    assert len(out.splitlines()) == len(expected) + 1


def parse_and_run(capsys, *argv) -> tuple[int, str, str]:
    """The command as a shell runs it: argparse's own errors included (they exit by SystemExit)."""
    out, err = io.StringIO(), io.StringIO()
    parser = argparse.ArgumentParser()
    cli.add_evaluate_command(parser.add_subparsers(dest="command"))
    try:
        args = cli.parse_command_line(parser, ["evaluate", *map(str, argv)])
        code = cli.run(args, out, err)
    except SystemExit as stopped:
        code = stopped.code
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, err.getvalue() + captured.err


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["-R", "prefs"], "-R (trec_eval's other judgment formats"),
        (["-T", "trec_results"], "-T (trec_eval's other results formats)"),
        (["-Z", "zscores.txt"], "-Z (z-scores"),
        (["-D", "3"], "-D (trec_eval's debugging output)"),
        (["-o"], "-o (trec_eval's obsolete output format)"),
        (["-o", "-R", "qrels"], "-R (trec_eval's other judgment formats: prefs, qrels_prefs, qrels_jg); -o"),
    ],
)
def test_trec_evals_options_for_other_formats_stop_with_one_line_naming_them(tmp_path, capsys, argv, named):
    _, _, _, paths = files(tmp_path)
    code, out, err = parse_and_run(capsys, *argv, paths["qrels"], paths["base"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("relevance-explainer evaluate: not supported: ")
    assert named in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["-l", "two"], "argument -l/--level_for_rel/--relevance-level: invalid int value: 'two'"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["-m"], "argument -m/--measure: expected one argument"),
    ],
)
def test_a_bad_option_exits_2_with_one_line(tmp_path, capsys, argv, said):
    _, _, _, paths = files(tmp_path)
    code, out, err = parse_and_run(capsys, paths["qrels"], paths["base"], *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("relevance-explainer evaluate: ") and said in err, err


def test_files_missing_exit_2_with_one_line(capsys):
    code, out, err = parse_and_run(capsys, "-q")
    assert code == 2 and out == ""
    assert err == (
        "relevance-explainer evaluate: give the QRELS file and a RUN file "
        "(relevance-explainer evaluate -h lists the options)\n"
    )


def test_h_prints_the_help_and_with_m_each_measures_definition(capsys):
    code, out, err = parse_and_run(capsys, "-h")
    assert code == 0 and err == ""
    assert "trec_eval's options, as trec_eval takes them" in out and "--format" in out
    assert "Measures asked for" not in out
    code, out, _ = parse_and_run(capsys, "-h", "-m", "map")
    assert code == 0
    definition = out.split("Measures asked for:\n", 1)[1]
    assert definition.startswith(
        "map\n    Average precision: AP = (sum of P@i over the ranks i of the relevant results) / R\n"
    )
    code, out, err = parse_and_run(capsys, "-h", "-m", "nonsense_measure")
    assert code == 2 and "nonsense_measure" in err


def test_v_prints_the_version(capsys):
    from importlib.metadata import version

    code, out, _ = parse_and_run(capsys, "-v")
    assert code == 0 and out == f"relevance-explainer {version('relevance-explainer')}\n"


# -- bad input as trec_eval 10.0 meets it (issue #29, item 5), against its recorded output -------

RECORDED = __import__("pathlib").Path(__file__).parent / "trec_eval_10"


def test_crlf_line_ends_give_trec_eval_10_s_own_lines(tmp_path):
    """trec_eval takes a carriage return for a space (isspace, get_qrels.c, get_trec_results.c)."""
    for name in ("c21.qrels", "c21.run"):
        (tmp_path / name).write_bytes((RECORDED / name).read_bytes().replace(b"\n", b"\r\n"))
    code, out, _ = call(tmp_path / "c21.qrels", tmp_path / "c21.run", "-q", "-c", "-m", "all_trec")
    assert code == 0 and out == (RECORDED / "c21.c.txt").read_text()


def test_grades_with_a_fraction_count_by_their_whole_part_as_trec_eval_s_atol_reads_them(tmp_path):
    # every grade g written g.5 (-1 as -1.5): trec_eval reads each as g, so its output is the same
    lines = (RECORDED / "c21.qrels").read_text().splitlines()
    (tmp_path / "half.qrels").write_text("".join(f"{line}.5\n" for line in lines))
    code, out, err = call(tmp_path / "half.qrels", RECORDED / "c21.run", "-q", "-c", "-m", "all_trec")
    assert code == 0 and out == (RECORDED / "c21.c.txt").read_text()
    assert f"# {len(lines)} grades with a fraction read by the whole part, as trec_eval reads them (1.5 as 1)" in err


@pytest.mark.parametrize("grade", [b"high", b"1e3", b".", b"0x10"])
def test_a_grade_that_is_no_decimal_number_exits_2_with_one_line(tmp_path, grade):
    # trec_eval's atol would read these as 0, 1, 0 and 0 without a word
    _, _, _, paths = files(tmp_path)
    qrels = tmp_path / "odd.qrels"
    qrels.write_bytes(b"q1 0 d1 1\nq1 0 d2 " + grade + b"\n")
    err = one_bad_line(*call(qrels, paths["base"]))
    assert "odd.qrels, line 2: expected an integer grade in the 4th field" in err


def test_a_qrels_file_with_a_byte_order_mark_exits_2_with_one_line(tmp_path):
    # trec_eval reads the mark as part of the first qid, which then matches no result
    _, _, _, paths = files(tmp_path)
    qrels = tmp_path / "bom.qrels"
    qrels.write_bytes(b"\xef\xbb\xbf" + (RECORDED / "c21.qrels").read_bytes())
    assert "bom.qrels, line 1: starts with a byte-order mark" in one_bad_line(*call(qrels, paths["base"]))


def test_a_run_with_no_judged_query_exits_2_with_one_line_as_trec_eval_10_stops(tmp_path):
    qrels, run = tmp_path / "some.qrels", tmp_path / "other.run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    run.write_text("x1 Q0 a 1 3 r\nx2 Q0 b 1 2 r\n")
    err = one_bad_line(*call(qrels, run, "-m", "map"))
    assert "other.run: none of its 2 queries is judged in some.qrels, so there is nothing to evaluate" in err
    # with -c trec_eval evaluates each judged query as an empty list: every value 0, R from the qrels
    code, out, _ = call(qrels, run, "-c", "-q", "-m", "map", "-m", "num_rel", "-m", "num_q")
    assert code == 0
    assert out.splitlines() == [
        "num_rel               \tq1\t1",
        "map                   \tq1\t0.0000",
        "num_rel               \tq2\t1",
        "map                   \tq2\t0.0000",
        "num_q                 \tall\t2",
        "num_rel               \tall\t2",
        "map                   \tall\t0.0000",
    ]


def test_a_reader_that_stops_reading_ends_the_command_quietly_as_trec_eval_ends(tmp_path):
    """``evaluate ... | head``: standard output closed after one line. trec_eval is ended by SIGPIPE,
    which a shell reports as 128 + 13; the command exits so too, with no traceback."""
    import subprocess

    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    queries = range(400)  # some 400 x 100 lines of -q -m all_trec: far past a pipe's 64 KiB buffer
    qrels.write_text("".join(f"q{q} 0 d{d} {d % 3}\n" for q in queries for d in range(10)))
    run.write_text("".join(f"q{q} Q0 d{d} {d + 1} {-d} tag\n" for q in queries for d in range(20)))
    command = [sys.executable, "-m", "explainer.cli", "evaluate", "-q", "-m", "all_trec", str(qrels), str(run)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 128 + 13, err
    assert first.startswith(b"num_ret") and "Traceback" not in err and "BrokenPipe" not in err, err
