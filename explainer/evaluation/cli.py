"""``relevance-explainer evaluate QRELS RUN [RUN2]``: trec_eval's per-query table, and two runs compared.

The table is trec_eval's ``-q`` layout (``%-22s\\t%s\\t%6.4f``: the measure's name padded
to 22, the qid, the value with 4 decimals; then each measure's ``all`` line), so its lines
can be compared with trec_eval's. Then ``#`` lines summarise what was evaluated and, with
RUN2, compare the runs (RUN is the baseline, RUN2 the candidate) and give the gate's verdict.

Exit codes: 0 when the candidate ships (or with one run, or a two-sided report), 1 when it
does not, 2 on bad input (one line on stderr with the file, the line and what was expected,
never a traceback): a malformed or empty file, one that cannot be read, one too large for
memory; 3 when the randomization test cannot tell at its cap of permutations. ``-`` reads a
file from standard input. Everything printed that came from a file (qids, run tags, names)
has its control and bidi characters escaped (``escaping.escaped``), so that a qid cannot
rewrite the verdict on the terminal.

Wiring: ``add_evaluate_command(subparsers)`` adds the command to an argparse parser and
returns its parser, so more options (``--html FILE``, ``--serve``) can be added to it;
their code can call ``report_from_args(args)`` for the evaluations and the comparison,
and ``exit_code(report)`` for the verdict.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from explainer.evaluation.compare import DEFAULT_GATE_MEASURE, TESTS, Comparison, compare
from explainer.evaluation.escaping import escaped
from explainer.evaluation.formats import DUPLICATES, InputError, Qrels, Run, read_qrels, read_run
from explainer.evaluation.formats.blocks import STDIN
from explainer.evaluation.measures import (
    CUT_KEYS,
    DEFAULT_CONVENTION,
    KEYS,
    NDCG_CONVENTIONS,
    Evaluation,
    Measure,
    evaluate,
    measures_for,
)

DEFAULT_KEYS = ("precision", "recall", "rr", "ap", "ndcg")
DEFAULT_KS = (10,)
EXIT_SHIPS, EXIT_DOES_NOT_SHIP, EXIT_BAD_INPUT, EXIT_UNDECIDED = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class Report:
    """What the command computed: one evaluation per run, and the comparison when there are two."""

    evaluations: tuple[Evaluation, ...]
    comparison: Comparison | None


def add_evaluate_command(subparsers) -> argparse.ArgumentParser:
    """Add ``evaluate`` to an argparse subparsers object; returns its parser (to add options to)."""
    parser = subparsers.add_parser(
        "evaluate",
        help="evaluate runs against qrels as trec_eval does; compare two runs and gate the candidate",
        description=(
            "Evaluate RUN (and RUN2) against QRELS as trec_eval does, printing its -q table; with RUN2, "
            "compare the two query by query (RUN is the baseline, RUN2 the candidate) and say whether RUN2 "
            "ships. Exit code 0: ships (or one run, or --two-sided); 1: does not ship; 2: bad input; "
            "3: undecided (the randomization test could not tell at --max-permutations)."
        ),
    )
    add_evaluate_arguments(parser)
    parser.set_defaults(run=_run_and_exit)
    return parser


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """The evaluate command's arguments, on any parser."""
    parser.add_argument(
        "qrels", metavar="QRELS", help="judgments: qid iter docid grade (plain or gzipped; - for standard input)"
    )
    parser.add_argument(
        "run_file", metavar="RUN", help="a run: qid Q0 docid rank score tag (plain or gzipped; - for standard input)"
    )
    parser.add_argument("run2_file", metavar="RUN2", nargs="?", help="a second run, the candidate, to compare")
    parser.add_argument(
        "--measure",
        "-m",
        nargs="+",
        action="extend",
        metavar="M",
        help=(
            f"measures: {', '.join(KEYS)}, each at every --k where it takes one, or with its own cutoff "
            "(P@5, ndcg@10, recall@100; trec_eval's names P_5, ndcg_cut_10, map, recip_rank work too); "
            f"default: {' '.join(DEFAULT_KEYS)}"
        ),
    )
    parser.add_argument(
        "--k",
        "-k",
        nargs="+",
        type=int,
        action="extend",
        metavar="K",
        help=f"cutoffs for {', '.join(CUT_KEYS)} (default: {' '.join(map(str, DEFAULT_KS))})",
    )
    parser.add_argument(
        "--ndcg-convention",
        choices=tuple(NDCG_CONVENTIONS),
        default=DEFAULT_CONVENTION,
        help="NDCG's gain and ideal (default: %(default)s, trec_eval's ndcg_cut)",
    )
    parser.add_argument(
        "--relevance-level",
        "-l",
        type=int,
        default=1,
        metavar="N",
        help="the lowest grade that counts as relevant, trec_eval's -l (default: %(default)s)",
    )
    parser.add_argument(
        "--complete",
        "-c",
        action="store_true",
        help="judged queries with no result in a run count 0, and means divide by every judged query (trec_eval -c)",
    )
    parser.add_argument(
        "--duplicates",
        choices=DUPLICATES,
        default="error",
        help="a docid listed twice for one query: refuse it as trec_eval does (default), or keep the first or last line",
    )
    gate = parser.add_argument_group(
        "comparing two runs",
        "The gate asks one question of each gate measure's mean difference (candidate - baseline): "
        "superiority by --margin M (the default, M = 0: ships when the one-sided test of H0: "
        "difference <= M rejects at --alpha and the matching lower confidence bound is above M), "
        "--non-inferiority M (ships unless worse by M or more: H0: difference <= -M), or --two-sided "
        "(a report, no verdict). With several gate measures it ships only when each one's test passes.",
    )
    gate.add_argument(
        "--gate-measure",
        nargs="+",
        action="extend",
        metavar="M",
        help=f"the measures the gate decides on, evaluated too when not in -m (default: {DEFAULT_GATE_MEASURE})",
    )
    question = gate.add_mutually_exclusive_group()
    question.add_argument(
        "--margin",
        type=float,
        default=0.0,
        metavar="M",
        help="superiority: ships when the candidate is shown better by more than M, in the measure's units "
        "(default: %(default)s)",
    )
    question.add_argument(
        "--non-inferiority",
        type=float,
        metavar="M",
        help="non-inferiority: ships unless the candidate is worse by M or more (a refactor, a cheaper model)",
    )
    question.add_argument(
        "--two-sided", action="store_true", help="a two-sided test of no difference and its interval, no verdict"
    )
    gate.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="the significance level of each gate measure's test: the most often a candidate that is not "
        "better ships (default: %(default)s)",
    )
    gate.add_argument(
        "--test", choices=TESTS, default="randomization", help="whose p-value the gate uses (default: %(default)s)"
    )
    gate.add_argument(
        "--permutations",
        type=int,
        default=10_000,
        metavar="N",
        help="random sign flips of the randomization test (default: %(default)s)",
    )
    gate.add_argument(
        "--max-permutations",
        type=int,
        metavar="N",
        help="while the gate's p-value's Monte Carlo interval holds alpha, draw more flips, up to N; "
        "still unsure at N, the verdict is undecided (default: 10 x --permutations)",
    )
    gate.add_argument(
        "--bootstrap",
        type=int,
        default=10_000,
        metavar="N",
        help="bootstrap resamples for the confidence interval (default: %(default)s)",
    )
    gate.add_argument(
        "--confidence", type=float, default=0.95, help="the interval's confidence level (default: %(default)s)"
    )
    gate.add_argument(
        "--seed", type=int, default=0, help="seed of the randomization test and the bootstrap (default: %(default)s)"
    )
    parser.add_argument(
        "--worst",
        type=int,
        default=5,
        metavar="N",
        help="list the N queries the candidate lost most on, and won most on (default: %(default)s)",
    )


def report_from_args(args: argparse.Namespace, progress_stream: TextIO | None = None) -> Report:
    """Read the files, evaluate, compare. Raises ``InputError`` or ``ValueError`` on bad input."""
    keys = args.measure or list(DEFAULT_KEYS)
    ks = args.k or list(DEFAULT_KS)
    measures = measures_for(keys, ks, args.ndcg_convention)
    stream = sys.stderr if progress_stream is None else progress_stream
    if [args.qrels, args.run_file, args.run2_file].count(STDIN) > 1:
        raise ValueError("standard input (-) can be read for one file only")
    qrels = _load(read_qrels, args.qrels, args.duplicates, stream)
    runs = [_load(read_run, path, args.duplicates, stream) for path in (args.run_file, args.run2_file) if path]
    gate_measures = ()
    if len(runs) == 2:
        gate_measures = tuple(
            Measure.parse(m, args.ndcg_convention) for m in (args.gate_measure or [DEFAULT_GATE_MEASURE])
        )
        measures = (*measures, *(m for m in gate_measures if m not in measures))
    evaluations = tuple(
        evaluate(qrels, run, measures, relevance_level=args.relevance_level, complete=args.complete) for run in runs
    )
    comparison = None
    if len(evaluations) == 2:
        comparison = compare(
            evaluations[0],
            evaluations[1],
            measure=gate_measures,
            **_question(args),
            alpha=args.alpha,
            test=args.test,
            n_permutations=args.permutations,
            max_permutations=args.max_permutations,
            n_bootstrap=args.bootstrap,
            confidence=args.confidence,
            seed=args.seed,
        )
    return Report(evaluations, comparison)


def _question(args: argparse.Namespace) -> dict:
    if args.two_sided:
        return {"question": "two-sided"}
    if args.non_inferiority is not None:
        return {"question": "non-inferiority", "margin": args.non_inferiority}
    return {"question": "superiority", "margin": args.margin}


def exit_code(report: Report) -> int:
    """0 when the candidate ships, or there is no candidate or no verdict; 1 when it does not ship; 3 undecided."""
    outcome = None if report.comparison is None else report.comparison.gate.outcome
    return {"does not ship": EXIT_DOES_NOT_SHIP, "undecided": EXIT_UNDECIDED}.get(outcome, EXIT_SHIPS)


def write_report(report: Report, out: TextIO, worst: int = 5) -> None:
    """Print each evaluation's trec_eval -q table and summary, then the comparison."""
    for i, evaluation in enumerate(report.evaluations):
        if len(report.evaluations) > 1:
            role = "baseline" if i == 0 else "candidate"
            out.write(f"# {role}: {escaped(evaluation.run.source)} (run {escaped(evaluation.name)})\n")
        write_table(evaluation, out)
        for line in evaluation.summary.lines():
            out.write(f"# {escaped(line)}\n")
        out.write("\n")
    if report.comparison is not None:
        c = report.comparison
        for line in c.lines():  # they name the runs, and some queries
            out.write(f"# {escaped(line)}\n")
        gate = c.measures[c.gate.measure]
        if worst > 0:
            ordered = gate.sorted_deltas()
            losses = [(q, d) for q, d in ordered if d < 0][:worst]
            wins = [(q, d) for q, d in reversed(ordered) if d > 0][:worst]
            for title, rows in (("lost most", losses), ("won most", wins)):
                if rows:
                    listed = ", ".join(f"{escaped(q)} ({d:+.4f})" for q, d in rows)
                    out.write(f"# {gate.measure}: the candidate {title} on {listed}\n")


def write_table(evaluation: Evaluation, out: TextIO) -> None:
    """trec_eval's -q table: every query's value of every measure, then the ``all`` lines.

    A qid with a control or bidi character is printed escaped (trec_eval prints it as it is).
    """
    names = [m.name for m in evaluation.measures]
    columns = [evaluation.values[name].tolist() for name in names]
    lines = []
    for i, qid in enumerate(map(escaped, evaluation.qids)):
        for name, column in zip(names, columns, strict=True):
            lines.append(f"{name:<22}\t{qid}\t{column[i]:6.4f}\n")
    for name in names:
        lines.append(f"{name:<22}\tall\t{evaluation.means[name]:6.4f}\n")
    out.writelines(lines)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command; returns its exit code (0 ships or one run, 1 does not ship, 2 bad input, 3 undecided)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    try:
        report = report_from_args(args, err)
    except (InputError, ValueError) as error:
        return bad_input(error, err)
    except MemoryError:
        return bad_input(ValueError("the evaluation does not fit in this computer's memory"), err)
    write_report(report, out, args.worst)
    return exit_code(report)


def bad_input(error: Exception, err: TextIO) -> int:
    """Say what was wrong in one line on ``err`` (escaped: it may quote a file's name); returns exit code 2."""
    text = "; ".join(str(error).split("\n"))  # a file's every bad line, on one line
    err.write(f"relevance-explainer evaluate: {escaped(text)}\n")
    return EXIT_BAD_INPUT


def _run_and_exit(args: argparse.Namespace) -> None:
    raise SystemExit(run(args))


def _load(reader, path: str, duplicates: str, stream: TextIO) -> Qrels | Run:
    """A file read, or ``InputError``: also when it holds no lines, or does not fit in memory."""
    bar = _ProgressBar(path, stream)
    label = "standard input" if path == STDIN else os.path.basename(path)
    try:
        lines = reader(path, duplicates=duplicates, progress=bar.update)
    except MemoryError:
        raise InputError(label, None, "does not fit in this computer's memory") from None
    finally:
        bar.close()
    if not len(lines):
        what = "judgments" if reader is read_qrels else "results"
        raise InputError(lines.source, None, f"holds no {what} (it is empty, or blank and comment lines only)")
    return lines


class _ProgressBar:
    """A progress bar on the terminal for loads that take more than a second; nothing when not a terminal."""

    DELAY = 1.0

    def __init__(self, path: str, stream: TextIO):
        self.label = escaped(os.path.basename(path))
        self.stream = stream
        self.enabled = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.shown = False
        self.last = 0.0

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.DELAY or now - self.last < 0.1:
            return
        self.last = now
        self.shown = True
        if total:
            share = min(done / total, 1.0)
            filled = int(share * 30)
            text = f"\rReading {self.label} [{'#' * filled}{'.' * (30 - filled)}] {share:4.0%} of {total / 1e6:,.0f} MB"
        else:
            text = f"\rReading {self.label}: {done / 1e6:,.0f} MB"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -m explainer.evaluation.cli QRELS RUN [RUN2] ...``: the command on its own."""
    parser = argparse.ArgumentParser(prog="relevance-explainer")
    commands = parser.add_subparsers(dest="command", required=True)
    add_evaluate_command(commands)
    args = parser.parse_args(["evaluate", *(sys.argv[1:] if argv is None else argv)])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
