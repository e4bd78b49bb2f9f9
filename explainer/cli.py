"""The command line: ``relevance-explainer [serve] [options]``, ``export DIR``, ``evaluate QRELS RUN [RUN2]``, ``screenshots``, ``picture [--chart] URL FILE``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import explainer
from explainer.evaluation.cli import add_evaluate_command, parse_command_line
from explainer.serve_options import (
    access_code,
    add_allow_origin_option,
    add_serving_options,
    announce_class_address,
    cannot_serve,
    server_config,
    shown_host,
    wants_browser,
)
from explainer.workbench.cli import add_workbench_options


def serve(args: argparse.Namespace) -> None:
    """Serve the pages until interrupted."""
    from explainer.server.serve import serve_pages

    classroom = class_config(args)  # before anything is printed: a bad plan stops here
    path = f"{args.prefix.rstrip('/')}/"
    base = f"http://{shown_host(args.address)}:{args.port}{path}"
    print(f"Serving the explainer on {base} (Ctrl+C stops it)", flush=True)
    shared = announce_class_address(args.address, args.port, f"{path}class" if classroom else path)
    if classroom is None and not is_loopback_address(args.address):
        print("Teaching? Serve with --class too: the class predicts together and follows the projector.", flush=True)
    code = access_code(args.access_code)
    if classroom is not None:
        announce_teacher(classroom.teacher, base)
    try:
        config = server_config(
            args,
            code,
            shared,
            allow_origins=tuple(args.allow_origin),
            prefix=args.prefix,
            num_procs=args.num_procs,
            pages=evaluate_pages(args, code),
            classroom=classroom,
        )
        serve_pages(config, show=args.browser and wants_browser())
    except OSError as error:
        raise cannot_serve(args, error) from None


def class_config(args: argparse.Namespace):
    """The class the server holds (``--class``, or ``--plan``), or None; a plan that cannot be read,
    or a class asked of several processes, exits with one line (code 2)."""
    if not (args.classroom or args.plan):
        return None
    if args.num_procs != 1:
        _usage_error(
            "--class: a class is held by one server process, so leave out --num-procs "
            "(one process holds a class of 300 and more: README 'Serving for a class')"
        )
    # The plan is opened before the pages are imported (Panel and Bokeh, a second or two), so that
    # a mistyped path stops at once.
    try:
        file = None if args.plan is None else open(args.plan, encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        _cannot_read_plan(args.plan, error)
    from explainer.classroom.plan import PlanError, read_plan, story_plan
    from explainer.pages import TITLES, story_figure_routes
    from explainer.server.class_config import ClassConfig

    titles = {route: title for route, title in TITLES.items() if route not in ("/", "/evaluate")}
    if file is None:
        return ClassConfig(plan=story_plan(story_figure_routes(), titles))
    try:
        with file:
            return ClassConfig(plan=read_plan(file, titles, source=args.plan))
    except PlanError as error:
        _usage_error(str(error))
    except (OSError, UnicodeError) as error:
        _cannot_read_plan(args.plan, error)
    return None


def _cannot_read_plan(path: str, error: Exception) -> None:
    _usage_error(f"--plan {path}: cannot be read ({getattr(error, 'strerror', None) or error})")


def _usage_error(text: str) -> None:
    """Stop with one line on standard error and exit code 2, as argparse does for a bad option."""
    print(f"relevance-explainer: error: {text}", file=sys.stderr)
    raise SystemExit(2)


def is_loopback_address(address: str) -> bool:
    from explainer.server.hosts import is_loopback

    return is_loopback(address)


def announce_teacher(teacher, base: str) -> None:
    """Print the teacher's one-time link and the teacher key (for /teach's form): never the key in an address."""
    print(f"Teacher: open {teacher.once_link(base)} on the projector's computer (the link works once);", flush=True)
    print(f"  anywhere else, open {base}teach and type the teacher key {teacher.key}", flush=True)


def evaluate_pages(args: argparse.Namespace, code: str | None) -> dict:
    """The /evaluate page ``serve`` serves in place of the default one, if any: served to the network
    (``--address``) with neither an access code nor ``--uploads``, the golden set without uploads."""
    from explainer.server.hosts import is_loopback

    if is_loopback(args.address) or code or args.uploads:
        return {}
    from explainer.pages import evaluate_page

    return {"/evaluate": lambda: evaluate_page(uploads=False)}


def _restart_on_c_malloc() -> None:
    """Start Python again for the server with PYTHONMALLOC=malloc, where that lets it give memory back.

    CPython's own allocator keeps freed objects' memory in 1 MiB arenas, and a few objects that
    outlive a session (a cache entry, a log record) pin whole arenas: the memory of closed
    sessions never went back to the system. On the C library's heap the server can hand back
    every free page (``server.memory.MALLOC_TRIM``, once sessions stop ending). The allocator is chosen
    when Python starts, hence the restart, which keeps the process (same PID) and its arguments.
    A PYTHONMALLOC the user set is left alone.
    """
    from explainer.server.memory import MALLOC_TRIM

    if MALLOC_TRIM is None or "PYTHONMALLOC" in os.environ:
        return
    sys.stdout.flush()
    os.execve(
        sys.executable,
        [sys.executable, "-m", "explainer.cli", *sys.argv[1:]],
        {**os.environ, "PYTHONMALLOC": "malloc"},
    )


def export(args: argparse.Namespace) -> None:
    """Write every page to DIR as a light, self-contained HTML file, with explainer.js and embed.html."""
    from explainer.export import export_site

    for path in export_site(args.dir):
        print(f"Wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")


def screenshots(args: argparse.Namespace) -> None:
    """Take the README's screenshots of each figure."""
    from explainer.tools.screenshots import take

    for path in take(args.dir):
        print(f"Wrote {path}")


def picture(args: argparse.Namespace) -> None:
    """Save each URL's figure as a picture for slides: PNG or SVG, as its file's extension says."""
    from explainer.tools.picture import PictureError, check_pairs, take

    try:
        for path in take(check_pairs(args.items), chart=args.chart):
            print(f"Wrote {path}")
    except PictureError as error:
        raise SystemExit(str(error)) from None


class _Version(argparse.Action):
    """``--version``: the version, read only when asked (argparse's own action wants it at start-up)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {explainer.__version__}")  # on standard output, as argparse's own action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="relevance-explainer",
        description="Interactive figures that explain search-relevance metrics.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command")
    serve_cmd = commands.add_parser("serve", help="serve the explainer (the default command)")
    add_serving_options(serve_cmd)
    add_allow_origin_option(serve_cmd)
    serve_cmd.add_argument(
        "--prefix", default="", metavar="/PATH", help="serve under this URL path, as behind a reverse proxy"
    )
    serve_cmd.add_argument(
        "--uploads",
        action="store_true",
        help="with --address and no --access-code: let anyone on the network upload files to /evaluate "
        "(without it, /evaluate shows the golden set only)",
    )
    serve_cmd.add_argument(
        "--num-procs", type=int, default=1, metavar="N", help="server processes to fork, for a large audience"
    )
    serve_cmd.add_argument(
        "--class",
        dest="classroom",
        action="store_true",
        help="hold a class: the teacher (with the teacher key printed at start) asks every phone to predict, sends "
        "the projector's figure to the class and steps through a plan; students join at /class (one process only)",
    )
    serve_cmd.add_argument(
        "--plan",
        metavar="FILE",
        help="with a class (it implies --class): the lecture plan, a figure link a line with an optional title after "
        "a tab, stepped through with Page Down and Page Up (default: the story's figures in order)",
    )
    serve_cmd.set_defaults(run=serve)
    export_cmd = commands.add_parser(
        "export",
        help="write the pages as light, self-contained HTML files that work offline, and explainer.js for documentation",
    )
    export_cmd.add_argument("dir", type=Path, metavar="DIR", help="directory to write the .html files to")
    export_cmd.set_defaults(run=export)
    shots_cmd = commands.add_parser("screenshots", help="take screenshots of each figure (needs the test tools)")
    shots_cmd.add_argument("dir", type=Path, nargs="?", default=Path("assets"), metavar="DIR", help="default: assets")
    shots_cmd.set_defaults(run=screenshots)
    picture_cmd = commands.add_parser(
        "picture",
        help="save each URL's figure as a picture for slides, as its own Save PNG and Save SVG buttons do (needs the test tools)",
    )
    picture_cmd.add_argument(
        "--chart",
        action="store_true",
        help="the figure's chart alone (plain SVG, which slide tools draw, or PNG), as its Save chart button saves it",
    )
    picture_cmd.add_argument(
        "items",
        nargs="+",
        metavar="URL FILE",
        help="a figure page (http:// served or file:// exported) and the .png or .svg file to write, repeatable",
    )
    picture_cmd.set_defaults(run=picture)
    add_workbench_options(add_evaluate_command(commands))
    parser.command_names = tuple(commands.choices)  # what main() tells apart from serve's options
    return parser


def main(argv: list[str] | None = None) -> None:
    """Run the command line; with no command, serve."""
    called_as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] not in (*parser.command_names, "-h", "--help", "--version"):
        argv.insert(0, "serve")
    args = parse_command_line(parser, argv)
    if called_as_program and args.run is serve:
        _restart_on_c_malloc()
    args.run(args)


if __name__ == "__main__":
    main()
