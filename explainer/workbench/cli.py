"""``relevance-explainer evaluate QRELS RUN [RUN2] --html FILE | --serve``: the workbench from the command line.

The evaluate command prints trec_eval's table and the comparison as before (and keeps its exit
codes); ``--html FILE`` then writes the whole workbench for those files as one self-contained
page that works offline (for internal documentation), and ``--serve`` serves it at /evaluate
and opens it. ``--topics`` and ``--documents`` add the queries' texts and the documents' titles.

Bad input exits 2 with one line, as the evaluate command does, before anything is printed or
written: also an id that is not UTF-8 (a page shows ids as text) and an ``--html`` path that
is a directory. The page is written to a temporary file beside the target and renamed, so
that no empty or half-written page is left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from explainer.serve_options import add_serving_options
from explainer.server.hosts import is_loopback

MAX_HTML_RESULTS = 500_000
"""A saved page carries every query's lists: at most this many result lines in all (some 25 MB)."""


def add_workbench_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--html``, ``--serve`` and their options to the evaluate command's parser."""
    group = parser.add_argument_group("the workbench: explore the runs query by query")
    group.add_argument("--topics", metavar="FILE", help="the queries' texts: qid, a tab, the text (one a line)")
    group.add_argument("--documents", metavar="FILE", help="the documents' titles: docid, a tab, the title")
    group.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="write the workbench for these files as one self-contained HTML page that works offline",
    )
    group.add_argument("--serve", action="store_true", help="serve the workbench for these files at /evaluate")
    add_serving_options(group, with_serve=True)
    parser.set_defaults(run=run_and_exit)


PAGE_MEASURES = ("P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10")
"""What ``--html`` and ``--serve`` show without ``-m``: P@10, R@100, RR, AP and NDCG@10, the page's
defaults, which it recomputes in the browser as a reader changes a judgment (trec_eval's
``official`` set holds measures the page does not compute)."""


# The exit code of a command whose reader went away (``evaluate ... | head``): a shell's code for a
# program ended by SIGPIPE, as trec_eval in the same pipe ends.
BROKEN_PIPE_EXIT = 128 + 13


def run_and_exit(args: argparse.Namespace) -> None:
    try:
        code = run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of standard output closed it: stop quietly, with nothing more written to it
        # (Python would flush the buffer again at exit and print a second error).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = BROKEN_PIPE_EXIT
    raise SystemExit(code)


def run(args: argparse.Namespace, out=None, err=None) -> int:
    """The evaluate command, then the workbench as asked; returns the exit code (2 on bad input)."""
    from explainer.evaluation import cli as evaluation_cli

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    early = evaluation_cli.stop_early(args, out, err)
    if early is not None:
        return early
    try:
        if args.html is not None and args.html.is_dir():
            raise ValueError(f"--html {args.html}: is a folder; name the file to write")
        if args.html or args.serve:
            from explainer.workbench.data import MAX_RUNS

            # Refused before any file is read: evaluating runs the page cannot show would be wasted.
            if (given := len(evaluation_cli.run_paths(args))) > MAX_RUNS:
                raise ValueError(
                    f"--html and --serve show at most {MAX_RUNS} runs, got {given}: compare more without them"
                )
            if not args.measure:
                # The page recomputes its measures live as judgments change: it shows those it knows.
                args.measure = list(PAGE_MEASURES)
        report = evaluation_cli.report_from_args(args, err)
        texts = [_texts(path, what) for path, what in ((args.topics, "topics"), (args.documents, "documents"))]
        if args.html or args.serve:
            _check_text_ids(args, report)
    except (ValueError, MemoryError) as error:  # InputError is a ValueError
        if isinstance(error, MemoryError):
            error = ValueError("the evaluation does not fit in this computer's memory")
        return evaluation_cli.bad_input(error, err)
    evaluation_cli.write_report(report, args, out, err)
    code = evaluation_cli.exit_code(report)
    if not (args.html or args.serve):
        return code
    workbench_of = _workbench_maker(args, report, *texts)
    if args.html:
        lines = sum(len(e.run) for e in report.evaluations)
        if lines > MAX_HTML_RESULTS:
            err.write(
                f"relevance-explainer evaluate: --html: the runs hold {lines:,} results, and a saved page holds at "
                f"most {MAX_HTML_RESULTS:,} (it carries every query's lists); serve them with --serve instead\n"
            )
            return evaluation_cli.EXIT_BAD_INPUT
        try:
            path = write_html(workbench_of(preload=True, uploads=False), args.html)
        except OSError as error:
            return evaluation_cli.bad_input(ValueError(f"--html {args.html}: cannot be written ({error})"), err)
        err.write(f"Wrote {path} ({path.stat().st_size / 1e6:.1f} MB)\n")
    if args.serve:
        serve(args, workbench_of)
    return code


def _texts(path: str | None, what: str) -> dict[str, str]:
    if path is None:
        return {}
    from explainer.workbench.upload import UploadError, read_texts

    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{Path(path).name}: cannot be read ({error.strerror or error})") from None
    try:
        return read_texts(Path(path).name, raw)
    except UploadError as error:
        raise ValueError("\n".join(error.lines)) from None


def _check_text_ids(args, report) -> None:
    """``InputError`` naming the file and line of the first qid or docid that is not UTF-8.

    trec_eval's table takes any bytes, and so does the evaluation; a page shows ids as text.
    The line is found by reading the file again (standard input cannot be: its line is not named).
    """
    from explainer.evaluation.formats import InputError

    paths = (args.run_file, args.run2_file, *(getattr(args, "more_runs", None) or ()))
    runs = zip(paths, report.evaluations, strict=False)
    files = [(args.qrels, report.evaluations[0].qrels), *((path, evaluation.run) for path, evaluation in runs)]
    for path, lines in files:
        try:
            bytes(lines.blob).decode("utf-8")
            "".join(lines.qids).encode("utf-8")
        except UnicodeError:
            raise InputError(
                lines.source,
                _first_line_not_utf8(path),
                "expected ids in UTF-8 for the workbench page (the table above takes any bytes, as trec_eval does)",
            ) from None


def _first_line_not_utf8(path: str) -> int | None:
    from explainer.evaluation.formats.blocks import STDIN, open_source

    if path == STDIN:
        return None
    _, chunks, _ = open_source(path, None, "file", None)
    for block, first_line in chunks:
        try:
            block.decode("utf-8")
        except UnicodeDecodeError as error:
            return first_line + block.count(b"\n", 0, error.start)
    return None


def _workbench_maker(args, report, topics: dict, documents: dict):
    """A function that makes a Workbench of the report's evaluations (each session gets its own)."""
    from explainer.evaluation import cli as evaluation_cli
    from explainer.workbench import Workbench
    from explainer.workbench.data import Evaluated, Loaded, compared

    evaluations = report.evaluations
    loaded = Loaded(
        qrels=evaluations[0].qrels,
        runs=tuple(e.run for e in evaluations),
        topics=topics,
        documents=documents,
        measures=evaluations[0].measures,
        relevance_level=evaluations[0].relevance_level,
    )
    # The gate's settings, for these runs and for the files a reader uploads to the served page.
    options = {**evaluation_cli.gate_options(args), "correction": args.correction}
    if report.comparison is not None:  # two runs: the comparison the command printed
        evaluated = Evaluated(loaded, evaluations, (report.comparison,))
    else:  # more: the page's table of runs against the baseline, whatever table the command printed
        evaluated = compared(loaded, evaluations, **options)

    def make(**view_options) -> Workbench:
        return Workbench(evaluated=evaluated, compare_options=options, **view_options)

    return make


def write_html(workbench, path: Path) -> Path:
    """The workbench as one self-contained page (``export.workbench_page``) written to ``path``."""
    from explainer.export import workbench_page

    page = workbench_page(workbench).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, page)
    return path


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it: ``path`` is whole or untouched."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def serve(args, workbench_of) -> None:
    """Serve the explainer with this workbench at /evaluate, and open it.

    Served beyond this computer, the workbench asks for an access code, made and printed here
    unless one was given: these are the reader's own judgments and runs.
    """
    from explainer.pages import evaluate_page
    from explainer.serve_options import (
        access_code,
        announce_class_address,
        cannot_serve,
        server_config,
        shown_host,
        wants_browser,
    )
    from explainer.server.serve import serve_pages

    url = f"http://{shown_host(args.address)}:{args.port}/evaluate"
    print(f"Serving the workbench on {url} (Ctrl+C stops it)", flush=True)
    shared = announce_class_address(args.address, args.port, "/evaluate")
    asked = args.access_code
    if asked is None and not is_loopback(args.address):
        asked = ""
    code = access_code(asked)
    if args.browser and wants_browser():
        import webbrowser

        from tornado.ioloop import IOLoop

        # Once the server's loop (this thread's) runs: the page, not the story at /.
        IOLoop.current().add_callback(lambda: webbrowser.open(url))
    try:
        config = server_config(args, code, shared, pages={"/evaluate": lambda: evaluate_page(workbench_of())})
        serve_pages(config)
    except OSError as error:
        raise cannot_serve(args, error) from None
