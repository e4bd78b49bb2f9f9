"""``relevance-explainer evaluate QRELS RUN [RUN2 ...]``: trec_eval's command line, its table, and runs compared.

trec_eval's options work as trec_eval takes them (``-q``, ``-m measure[.params]`` once per
measure, ``-c``, ``-l N``, ``-n``, ``-J``, ``-M N``, ``-N N``, ``-h [-m M]``, ``-v``), and the
table it prints is trec_eval's: the same lines, names and number formats, so that a script
that reads trec_eval's output reads this one. trec_eval's options for other file formats and
outputs (``-R``, ``-T``, ``-Z``, ``-D``, ``-o``) are refused by name. With RUN2, the runs are
compared query by query (RUN is the baseline, RUN2 the candidate) and the gate says whether
RUN2 ships. With more runs (or ``--all-pairs``, ``--sweep NAME``), each candidate is compared
with the baseline (``many_runs``, its p-values adjusted by ``--correction``), or every pair,
or a sweep's settings in order (``sweep``), and the gate asks its question of each candidate:
the command ships only when every one does. ``--format json|csv`` writes the same numbers for
machines (``writers/``).

Standard output carries the table (or the JSON document, or the CSV) and nothing else; the
summary of what was evaluated, the comparison and the verdict go to standard error (and into
the JSON). Exit codes: 0 when the candidate ships (every candidate, with several; or with one
run, or a two-sided report), 1 when it (any of them) does not, 2 on bad input or a bad option
(one line on stderr, never a traceback), 3 when the randomization test cannot tell at its cap
of permutations (and no candidate failed). ``-`` reads a file from
standard input. Text from a file (qids, run tags, names) is printed with its control and bidi
characters escaped (``escaping.escaped``), so that a qid cannot rewrite the verdict.

Wiring: ``add_evaluate_command(subparsers)`` adds the command to an argparse parser and returns
its parser, so more options (``--html FILE``, ``--serve``) can be added to it; their code calls
``stop_early(args, out, err)`` first (help, version, refused options), then
``report_from_args(args)``, ``write_report(report, args, out, err)`` and ``exit_code(report)``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, replace
from typing import TextIO

from explainer.catalog import measures as catalog
from explainer.catalog import names
from explainer.catalog.measures import NICKNAMES
from explainer.evaluation.candidates import candidate_gates
from explainer.evaluation.compare import (
    CORRECTION_NAMES,
    DEFAULT_GATE_MEASURE,
    TESTS,
    Comparison,
)
from explainer.evaluation.escaping import escaped
from explainer.evaluation.formats import DUPLICATES, InputError, Qrels, Run, read_qrels, read_run
from explainer.evaluation.formats.blocks import STDIN
from explainer.evaluation.many_runs import ManyRuns, gate_outcome, gate_summary, letter, many_runs
from explainer.evaluation.measures import (
    CUT_KEYS,
    DEFAULT_CONVENTION,
    NDCG_CONVENTIONS,
    Evaluation,
    Measure,
    evaluate,
)
from explainer.evaluation.run_names import distinct_names
from explainer.evaluation.significance import ASSUMPTIONS, CORRECTIONS
from explainer.evaluation.sweep import Sweep, check_parameter, sweep
from explainer.evaluation.writers import FORMATS

DEFAULT_MEASURES = "official"
"""What trec_eval computes without ``-m``, and so does this command."""
RUNID = "runid"
"""trec_eval's line that names the run: not a measure, but ``-m`` and the nicknames ask for it by this name."""
EXIT_SHIPS, EXIT_DOES_NOT_SHIP, EXIT_BAD_INPUT, EXIT_UNDECIDED = 0, 1, 2, 3
PROGRAM = "relevance-explainer evaluate"

REFUSED = {
    "rel_info_format": "-R (trec_eval's other judgment formats: prefs, qrels_prefs, qrels_jg)",
    "results_format": "-T (trec_eval's other results formats)",
    "zscore": "-Z (z-scores against a file of means)",
    "debug_level": "-D (trec_eval's debugging output)",
    "old_format": "-o (trec_eval's obsolete output format)",
}
"""trec_eval's options this command does not take, by their argparse ``dest``: what each is."""


@dataclass(frozen=True, eq=False)
class Report:
    """What the command computed: one evaluation per run, each run's name and file, and the comparisons.

    ``comparison``: two runs' comparison and gate (None with one run, with more than two, and
    with ``--all-pairs`` or ``--sweep``, which print the table instead).
    ``candidates``: each candidate against the baseline with its gate (with two runs or more;
    with more than two, the gates' p-values adjusted over the candidates by ``correction``).
    ``many``: the table of runs by measures (more than two runs, ``--all-pairs`` or
    ``--sweep``); ``sweep``: the runs in order of ``--sweep``'s parameter.
    """

    evaluations: tuple[Evaluation, ...]
    comparison: Comparison | None
    names: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    qrels_file: str = ""
    candidates: tuple[Comparison, ...] = ()
    many: ManyRuns | None = None
    sweep: Sweep | None = None


def add_evaluate_command(subparsers) -> argparse.ArgumentParser:
    """Add ``evaluate`` to an argparse subparsers object; returns its parser (to add options to)."""
    parser = subparsers.add_parser(
        "evaluate",
        add_help=False,  # -h is trec_eval's: the help, and with -m each measure's definition
        help="evaluate runs against qrels as trec_eval does, with its command line; compare two runs and gate the candidate",
        usage=f"{PROGRAM} [-q] [-m MEASURE[.PARAMS]]... [-c] [-l N] [-n] [-J] [-M N] [options] QRELS RUN [RUN2 ...]",
        description=(
            "Evaluate RUN (and RUN2 ...) against QRELS as trec_eval does: its options, its measures and "
            "its table on standard output, one block per run (without -m, trec_eval's 'official' measures). "
            "With RUN2, compare the runs query by query (RUN is the baseline, RUN2 and any after it the "
            "candidates) and say whether each candidate ships; the summary, the comparison and the verdict "
            "go to standard error, and into --format json. With more than two runs, standard error also "
            "holds the table of runs by measures, its significance letters and the correction named "
            "(--correction, --all-pairs, --sweep). Exit code 0: ships (with several candidates: every one "
            "ships), or one run, or --two-sided; 1: does not ship (with several: any candidate does not); "
            "2: bad input or option; 3: undecided (the randomization test could not tell at "
            "--max-permutations, and no candidate failed)."
        ),
    )
    # One line for a bad option, as for a bad file, where argparse prints its usage first.
    parser.error = lambda message: _option_error(message)
    add_evaluate_arguments(parser)
    parser.set_defaults(run=_run_and_exit, evaluate_parser=parser)
    return parser


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, but an argument the evaluate command does not know is one line
    of its own, as its other errors are (the top-level parser would print its usage first)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        if getattr(args, "evaluate_parser", None) is not None:
            _option_error(f"unrecognized arguments: {' '.join(unknown)}")
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _option_error(message: str):
    sys.stderr.write(f"{PROGRAM}: {escaped(message)} ({PROGRAM} -h lists the options)\n")
    raise SystemExit(EXIT_BAD_INPUT)


def add_evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    """The evaluate command's arguments, on any parser."""
    # Optional here, so that -h and -v need no files; report_from_args says when they are missing.
    parser.add_argument(
        "qrels",
        metavar="QRELS",
        nargs="?",
        help="judgments: qid iter docid grade (plain or gzipped; - for standard input)",
    )
    parser.add_argument(
        "run_file",
        metavar="RUN",
        nargs="?",
        help="a run: qid Q0 docid rank score tag (plain or gzipped; - for standard input)",
    )
    parser.add_argument("run2_file", metavar="RUN2", nargs="?", help="a second run, the candidate, to compare")
    parser.add_argument(
        "more_runs",
        metavar="RUNn",
        nargs="*",
        help="more candidates: each is compared with RUN, the baseline, and the gate ships only when every one does",
    )
    trec = parser.add_argument_group("trec_eval's options, as trec_eval takes them")
    trec.add_argument("-h", "--help", action="store_true", help="print this help; with -m, each measure's definition")
    trec.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    trec.add_argument(
        "-q",
        "--query_eval_wanted",
        dest="query_eval",
        action="store_true",
        help="print every query's values before the summary's 'all' lines",
    )
    trec.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE[.PARAMS]",
        help=(
            "a measure to compute, once per -m, repeatable: trec_eval's name with its parameters after a dot "
            "(P.5,10, ndcg_cut.10, map, recip_rank), ir_measures' name (nDCG@10, P@10, AP, RR@10), or a "
            "nickname (official, all_trec, set); default: official"
        ),
    )
    trec.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        "--complete",
        dest="complete",
        action="store_true",
        help="judged queries with no result in a run count 0, and means divide by every judged query",
    )
    trec.add_argument(
        "-l",
        "--level_for_rel",
        "--relevance-level",
        dest="relevance_level",
        type=int,
        default=1,
        metavar="N",
        help="the lowest grade that counts as relevant (default: %(default)s)",
    )
    trec.add_argument(
        "-n", "--nosummary", dest="summary", action="store_false", help="leave out the summary's 'all' lines"
    )
    trec.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="judged_only",
        action="store_true",
        help="drop every unjudged document from the runs before computing (trec_eval warns: rarely what you want)",
    )
    trec.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="max_results",
        type=int,
        metavar="N",
        help="use only each query's top N results",
    )
    trec.add_argument(
        "-N",
        "--Number_docs_in_coll",
        dest="n_documents",
        type=int,
        metavar="N",
        help="the number of documents in the collection (trec_eval's utility measure reads it)",
    )
    for flags, dest, takes_value in (
        (("-R", "--Rel_info_format"), "rel_info_format", True),
        (("-T", "--Results_format"), "results_format", True),
        (("-Z", "--Zscore"), "zscore", True),
        (("-D", "--Debug_level"), "debug_level", True),
        (("-o", "--Output_old_results_format"), "old_format", False),
    ):
        if takes_value:
            trec.add_argument(*flags, dest=dest, metavar="X", help=argparse.SUPPRESS)
        else:
            trec.add_argument(*flags, dest=dest, action="store_true", help=argparse.SUPPRESS)
    ours = parser.add_argument_group("this command's own options")
    ours.add_argument(
        "--format",
        choices=FORMATS,
        default="trec",
        help="standard output: trec_eval's lines (default), one JSON document, or CSV rows run,qid,measure,value",
    )
    ours.add_argument(
        "--k",
        "-k",
        nargs="+",
        type=int,
        action="extend",
        metavar="K",
        help=f"cutoffs for a measure -m names without any ({', '.join(CUT_KEYS)}), in place of trec_eval's",
    )
    ours.add_argument(
        "--ndcg-convention",
        choices=tuple(NDCG_CONVENTIONS),
        default=DEFAULT_CONVENTION,
        help="NDCG's gain and ideal (default: %(default)s, trec_eval's ndcg_cut)",
    )
    ours.add_argument(
        "--duplicates",
        choices=DUPLICATES,
        default="error",
        help="a docid listed twice for one query: refuse it as trec_eval does (default), or keep the first or last line",
    )
    ours.add_argument(
        "--worst",
        type=int,
        default=5,
        metavar="N",
        help="list the N queries the candidate lost most on, and won most on (default: %(default)s)",
    )
    _add_gate_arguments(parser)


def _add_gate_arguments(parser: argparse.ArgumentParser) -> None:
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
        action="append",
        metavar="M",
        help=f"a measure the gate decides on, once per flag, repeatable; evaluated too when not in -m "
        f"(default: {DEFAULT_GATE_MEASURE})",
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
        help="while the gate's p-value's Monte Carlo interval holds alpha (with several candidates, the "
        "interval adjusted by --correction), draw more flips, up to N; still unsure at N, the verdict is "
        "undecided (default: 10 x --permutations)",
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
        "--detect",
        type=float,
        metavar="D",
        help="also say how many queries the gate's t-test needs to find a true difference D (in the measure's "
        "units) 80%% of the time, with the standard deviation of the differences measured on these queries",
    )
    gate.add_argument(
        "--seed", type=int, default=0, help="seed of the randomization test and the bootstrap (default: %(default)s)"
    )
    many = parser.add_argument_group(
        "comparing many runs",
        "With more than two runs (or --all-pairs, --sweep), each candidate is compared with RUN, the baseline: "
        "the table of runs by "
        "measures (standard error) gives each run's mean, its interval and the letters of the runs it is "
        "better than, by the two-sided test of no difference with adjusted p-values. The gate asks its "
        "question of each candidate, its p-values adjusted over the candidates by --correction too; the "
        "exit code is 0 only when every candidate ships.",
    )
    many.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="adjusting the p-values over the candidates: holm (the default: the chance of any false "
        "'better' at most alpha), bh (Benjamini-Hochberg: the expected share of false ones at most alpha) "
        "or none",
    )
    layout = many.add_mutually_exclusive_group()
    layout.add_argument(
        "--all-pairs",
        action="store_true",
        help="the table tests every pair of runs, by the randomised Tukey HSD over the query-by-run matrix",
    )
    layout.add_argument(
        "--sweep",
        metavar="NAME",
        help="the runs are settings of parameter NAME (NAME=0.3 in each file name or run tag): ordered by it, "
        "each tested against the next, the best marked, and whether it can be told from its neighbours",
    )


# -- before any file is read: help, version, refused options --------------------------------------


def stop_early(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """The exit code when the command ends before reading a file (``-h``, ``-v``, a refused option,
    files missing), having printed what it ends with; None when it goes on."""
    if args.help:
        out.write(args.evaluate_parser.format_help())
        if args.measure:
            try:
                out.write(measures_help(_asked_measures(args)))
            except ValueError as error:
                return bad_input(error, err)
        return EXIT_SHIPS
    if args.version:
        from importlib.metadata import version

        out.write(f"relevance-explainer {version('relevance-explainer')}\n")
        return EXIT_SHIPS
    refused = [what for dest, what in REFUSED.items() if getattr(args, dest)]
    if refused:
        err.write(f"{PROGRAM}: not supported: {'; '.join(refused)}. This command reads qrels and TREC runs only.\n")
        return EXIT_BAD_INPUT
    if args.qrels is None or args.run_file is None:
        err.write(f"{PROGRAM}: give the QRELS file and a RUN file ({PROGRAM} -h lists the options)\n")
        return EXIT_BAD_INPUT
    return None


def measures_help(measures) -> str:
    """Each measure's definition, as ``-h -m M`` prints it after the help: its name, formula and names in other tools."""
    lines = ["", "Measures asked for:"]
    for m in measures:
        f = m.family
        lines.append(f"{m.name}")
        lines.append(f"    {f.name}: {f.formula}")
        names = [
            f"trec_eval: {f.trec_eval}" if f.trec_eval else "trec_eval: none",
            f"ir_measures: {f.ir_measures or 'none'}",
        ]
        lines.append(f"    {'; '.join(names)}")
    return "\n".join(lines) + "\n"


# -- the evaluation -----------------------------------------------------------------------------


def _asked_measures(args: argparse.Namespace) -> tuple[Measure, ...]:
    """The measures ``-m`` asks for (without ``-m``, trec_eval's default), in trec_eval's order."""
    found: list[Measure] = []
    for text in args.measure or [DEFAULT_MEASURES]:
        if text == RUNID:
            continue
        for named in _with_cutoffs(names.parse(text), text, args.k):
            if named.key == "ndcg" and named.scheme != "ir_measures" and named.convention == DEFAULT_CONVENTION:
                named = replace(named, convention=args.ndcg_convention)  # ours and trec_eval's NDCG@k
            measure = Measure.named(named)
            if measure not in found:
                found.append(measure)
    return tuple(sorted(found, key=_trec_eval_order))


def _with_cutoffs(parsed: tuple, text: str, ks: list[int] | None) -> tuple:
    """``--k``'s cutoffs in place of the defaults, for a family named bare (``-m P --k 5 10`` is ``P.5,10``)."""
    one_family = len({n.key for n in parsed}) == 1 and all(n.family.cut for n in parsed)
    if not ks or not one_family or any(c in text for c in ".@(:"):
        return parsed
    if parsed[0].scheme == "trec_eval":
        return names.parse(f"{text}.{','.join(map(str, ks))}")
    return tuple(n for k in ks for n in names.parse(f"{text}@{k}"))


def _asks_for_runid(args: argparse.Namespace) -> bool:
    """Whether the table has trec_eval's ``runid`` line: ``-m runid``, or a nickname that holds it."""
    return any(t == RUNID or RUNID in NICKNAMES.get(t, ()) for t in (args.measure or [DEFAULT_MEASURES]))


_ORDER = {f.key: i for i, f in enumerate(catalog.FAMILIES)}


def _trec_eval_order(m: Measure):
    """trec_eval prints its measures in its own order, not -m's: the catalog's, then each family's parameters."""
    return (_ORDER[m.key], m.k or 0, m.level or 0.0)


def run_paths(args: argparse.Namespace) -> list[str]:
    """The run files named on the command line, in order: one run each."""
    return [p for p in (args.run_file, args.run2_file, *(getattr(args, "more_runs", None) or ())) if p]


def report_from_args(args: argparse.Namespace, progress_stream: TextIO | None = None) -> Report:
    """Read the files, evaluate, compare. Raises ``InputError`` or ``ValueError`` on bad input."""
    asked = _asked_measures(args)
    stream = sys.stderr if progress_stream is None else progress_stream
    paths = run_paths(args)
    if [args.qrels, *paths].count(STDIN) > 1:
        raise ValueError("standard input (-) can be read for one file only")
    tabled = _tabled(args, len(paths))
    if tabled and len(paths) < 2:
        flag = "--sweep" if getattr(args, "sweep", None) else "--all-pairs"
        raise ValueError(f"{flag} compares runs: give at least two")
    if getattr(args, "sweep", None):
        check_parameter(args.sweep)
    _check_detect(args)
    qrels = _load(read_qrels, args.qrels, args.duplicates, stream)
    runs = [_load(read_run, path, args.duplicates, stream) for path in paths]
    measures = asked
    if len(runs) >= 2:
        measures = (*measures, *(m for m in gate_options(args)["measure"] if m not in measures))
    evaluations = tuple(
        evaluate(
            qrels,
            run,
            measures,
            relevance_level=args.relevance_level,
            complete=args.complete,
            judged_only=args.judged_only,
            max_results=args.max_results,
            n_documents=args.n_documents or 0,
        )
        for run in runs
    )
    for evaluation in evaluations:
        if why := evaluation.summary.nothing_evaluated():
            raise ValueError(why)
    names = distinct_names([e.name for e in evaluations], paths)
    if len(evaluations) < 2:
        return Report(evaluations, None, names, tuple(paths), args.qrels)
    settings = {
        "test": args.test,
        "alpha": args.alpha,
        "n_permutations": args.permutations,
        "n_bootstrap": args.bootstrap,
        "confidence": args.confidence,
        "seed": args.seed,
    }
    swept = table = None
    # The table's cells are means of the per-query values: of the measures whose all line is one.
    tabled_evaluations = tuple(
        replace(e, measures=tuple(m for m in e.measures if m.family.average == "mean")) for e in evaluations
    )
    if args.sweep:
        swept = sweep(tabled_evaluations, args.sweep, sources=paths, correction=args.correction, **settings)
        swept = replace(swept, runs=replace(swept.runs, names=tuple(names[i] for i in swept.order)))
        table = swept.runs
    elif args.all_pairs:  # the Tukey HSD makes its own correction (many_runs refuses a t-test with it)
        table = replace(many_runs(tabled_evaluations, "all-pairs", **settings), names=tuple(names))
    elif tabled:
        table = many_runs(tabled_evaluations, "baseline", correction=args.correction, **settings)
        table = replace(table, names=tuple(names))
    candidates = candidate_gates(evaluations, table, args.correction, names, **gate_options(args))
    two = None if tabled else candidates[0]
    return Report(evaluations, two, names, tuple(paths), args.qrels, candidates, table, swept)


def _check_detect(args: argparse.Namespace) -> None:
    """``ValueError`` unless ``--detect D`` is a difference the gate's test can be asked to find."""
    detect = getattr(args, "detect", None)
    if detect is None:
        return
    question = _question(args)
    shift = -question["margin"] if question["question"] == "non-inferiority" else question.get("margin", 0.0)
    if question["question"] == "two-sided":
        if not (math.isfinite(detect) and detect != 0):
            raise ValueError(f"--detect takes a difference other than 0, in the measure's units, got {detect!r}")
    elif not (math.isfinite(detect) and detect > shift):
        raise ValueError(
            f"--detect takes a true difference above H0's {shift:g} (the gate's), in the measure's units, "
            f"got {detect!r}"
        )


def _tabled(args: argparse.Namespace, n_runs: int) -> bool:
    """Whether the runs get the table of runs by measures: more than two, or ``--all-pairs`` or ``--sweep``."""
    return n_runs > 2 or bool(getattr(args, "all_pairs", False)) or bool(getattr(args, "sweep", None))


def gate_options(args: argparse.Namespace) -> dict:
    """The gate's settings as ``compare`` takes them: its measures, question and margin, alpha, test and draws."""
    return {
        "measure": tuple(Measure.parse(m, args.ndcg_convention) for m in (args.gate_measure or [DEFAULT_GATE_MEASURE])),
        **_question(args),
        "alpha": args.alpha,
        "test": args.test,
        "n_permutations": args.permutations,
        "max_permutations": args.max_permutations,
        "n_bootstrap": args.bootstrap,
        "confidence": args.confidence,
        "seed": args.seed,
    }


def _question(args: argparse.Namespace) -> dict:
    if args.two_sided:
        return {"question": "two-sided"}
    if args.non_inferiority is not None:
        return {"question": "non-inferiority", "margin": args.non_inferiority}
    return {"question": "superiority", "margin": args.margin}


def exit_code(report: Report) -> int:
    """0 when every candidate ships, or there is no candidate or no verdict; 1 when any does not ship;
    3 when none fails and one is undecided."""
    candidates = report.candidates or ([] if report.comparison is None else [report.comparison])
    outcome = gate_outcome(candidates) if candidates else None
    return {"does not ship": EXIT_DOES_NOT_SHIP, "undecided": EXIT_UNDECIDED}.get(outcome, EXIT_SHIPS)


# -- what is printed ----------------------------------------------------------------------------


def write_report(report: Report, args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
    """The table (or JSON, or CSV) on ``out``; the summary, the comparison and the verdict on ``err``."""
    printed = [_printed(e, set(_asked_measures(args))) for e in report.evaluations]
    runid = _asks_for_runid(args)
    if args.format == "json":
        from explainer.evaluation.writers import json_report

        doc = json_report.document(
            replace(report, evaluations=tuple(printed)),
            options_of(args),
            queries=args.query_eval,
            exit_code=exit_code(report),
            generator=_generator(),
            detect=getattr(args, "detect", None),
        )
        json_report.write(doc, out)
    elif args.format == "csv":
        from explainer.evaluation.writers import csv_table

        csv_table.write_header(out)
        for evaluation, name in zip(printed, report.names, strict=True):
            csv_table.write_rows(evaluation, name, out, queries=args.query_eval, summary=args.summary, runid=runid)
    else:
        from explainer.evaluation.writers import trec_lines

        for evaluation in printed:
            trec_lines.write_lines(evaluation, out, queries=args.query_eval, summary=args.summary, runid=runid)
    write_notes(report, err, args.worst, detect=getattr(args, "detect", None))


def write_notes(report: Report, err: TextIO, worst: int = 5, detect: float | None = None) -> None:
    """The ``#`` lines for people: each run's summary, then the comparison, each gate measure's
    effect and power (with ``detect``, the queries that difference needs) and the verdict."""
    two = len(report.evaluations) > 1
    many = report.many is not None
    for i, evaluation in enumerate(report.evaluations):
        if two:
            role = "baseline" if i == 0 else "candidate"
            if many:
                role += f" {letter(i)}"
            name = report.names[i] if report.names else evaluation.name
            err.write(f"# {role}: {escaped(evaluation.run.source)} (run {escaped(name)})\n")
        for line in evaluation.summary.lines():
            err.write(f"# {escaped(line)}\n")
    if many:
        write_many_notes(report, err, detect)
        return
    if report.comparison is None:
        return
    c = report.comparison
    for line in c.lines(detect):  # they name the runs, and some queries
        err.write(f"# {escaped(line)}\n")
    gate = c.measures[c.gate.measure]
    if worst > 0:
        ordered = gate.sorted_deltas()
        losses = [(q, d) for q, d in ordered if d < 0][:worst]
        wins = [(q, d) for q, d in reversed(ordered) if d > 0][:worst]
        for title, rows in (("lost most", losses), ("won most", wins)):
            if rows:
                listed = ", ".join(f"{escaped(q)} ({d:+.4f})" for q, d in rows)
                err.write(f"# {gate.measure}: the candidate {title} on {listed}\n")


def write_many_notes(report: Report, err: TextIO, detect: float | None = None) -> None:
    """The ``#`` lines of more than two runs (or ``--all-pairs``, ``--sweep``): the table of runs by
    measures (or the sweep), then each candidate's effect and power on each gate measure and its
    verdict against the baseline (the power's assumptions once), then the gate's."""
    lines = report.sweep.lines() if report.sweep is not None else report.many.lines()
    for line in lines:
        err.write(f"# {escaped(line)}\n")
    candidates = report.candidates
    gate = candidates[0].gate
    if gate.question == "two-sided":
        err.write("# The gate: a two-sided report of each candidate against the baseline a, no verdict\n")
    elif len(candidates) > 1:
        err.write(
            f"# The gate: each of the {len(candidates)} candidates against the baseline a, its one-sided "
            f"p-values adjusted over the candidates by {CORRECTION_NAMES[gate.correction]}; "
            "exit code 0 only when every candidate ships\n"
        )
    for i, c in enumerate(candidates, start=1):
        err.write(f"# {letter(i)} - a ({escaped(c.candidate_name)} against {escaped(c.baseline_name)}):\n")
        for line in c.effect_lines(detect):
            if line != ASSUMPTIONS:
                err.write(f"#   {escaped(line)}\n")
        err.write(f"# {letter(i)} {escaped(c.candidate_name)}: {escaped(c.gate.reason)}\n")
    err.write(f"# {ASSUMPTIONS}\n")
    err.write(f"# {escaped(gate_summary(candidates))}\n")


def _printed(evaluation: Evaluation, asked: set[Measure]) -> Evaluation:
    """The evaluation as its table prints it: the measures asked for (a gate measure alone is not)."""
    measures = tuple(m for m in evaluation.measures if m in asked)
    return replace(evaluation, measures=measures)


def options_of(args: argparse.Namespace) -> dict:
    """The options that shaped the numbers, for the JSON: trec_eval's, this command's, the gate's."""
    return {
        "measures": list(args.measure or []),
        "query_eval": args.query_eval,
        "summary": args.summary,
        "complete": args.complete,
        "relevance_level": args.relevance_level,
        "judged_only": args.judged_only,
        "max_results": args.max_results,
        "n_documents": args.n_documents,
        "k": list(args.k or []),
        "ndcg_convention": args.ndcg_convention,
        "duplicates": args.duplicates,
        "gate": {
            "measures": list(args.gate_measure or [DEFAULT_GATE_MEASURE]),
            "question": _question(args)["question"],
            "margin": _question(args).get("margin", 0.0),
            "alpha": args.alpha,
            "test": args.test,
            "permutations": args.permutations,
            "max_permutations": args.max_permutations,
            "bootstrap": args.bootstrap,
            "confidence": args.confidence,
            "seed": args.seed,
            "detect": getattr(args, "detect", None),
        },
        "many_runs": {
            "correction": getattr(args, "correction", "holm"),
            "all_pairs": bool(getattr(args, "all_pairs", False)),
            "sweep": getattr(args, "sweep", None),
        },
    }


def _generator() -> str:
    from importlib.metadata import version

    return f"relevance-explainer {version('relevance-explainer')}"


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command; returns its exit code (0 ships or one run, 1 does not ship, 2 bad input, 3 undecided)."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    early = stop_early(args, out, err)
    if early is not None:
        return early
    try:
        report = report_from_args(args, err)
    except (InputError, ValueError) as error:
        return bad_input(error, err)
    except MemoryError:
        return bad_input(ValueError("the evaluation does not fit in this computer's memory"), err)
    write_report(report, args, out, err)
    return exit_code(report)


def bad_input(error: Exception, err: TextIO) -> int:
    """Say what was wrong in one line on ``err`` (escaped: it may quote a file's name); returns exit code 2."""
    text = "; ".join(str(error).split("\n"))  # a file's every bad line, on one line
    err.write(f"{PROGRAM}: {escaped(text)}\n")
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
    """``python -m explainer.evaluation.cli QRELS RUN [RUN2 ...] ...``: the command on its own."""
    parser = argparse.ArgumentParser(prog="relevance-explainer")
    commands = parser.add_subparsers(dest="command", required=True)
    add_evaluate_command(commands)
    args = parse_command_line(parser, ["evaluate", *(sys.argv[1:] if argv is None else argv)])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
