"""The benchmark: how fast the figures answer, served, from an exported light file, and as tags on a page.

``./serve.sh bench [--out bench.json] [--quick] [--sizes | --many-runs]`` drives the system Chromium
through Playwright, prints one table (each figure against its goal) and writes the same
figures as JSON. ``--quick`` runs every measurement with tiny counts, for the smoke test.

What is measured, and how (every time in milliseconds):

- **Click to updated metrics**, inside the page. A loop in the page clicks a row
  (``element.click()``), and a MutationObserver on the metrics readout takes
  ``performance.now()`` when its text has changed; Playwright only starts the loop, so
  none of its overhead is counted. A second time, "with layout", adds the style and
  layout the change costs (forced by reading a box). Between clicks the loop waits for
  the next frame and 50 ms more, still faster than a reader clicks; a second series
  clicks once a frame, as a dragged marker's moves come, where a click can meet the
  browser still painting the previous one. All pages stay open and take turns, a share
  of the clicks each per round, so the reference and the figures meet the same moments
  of a shared machine. Measured on figure 1 (``/binary``: a click flips a
  row and rewrites the formulas), figure 2 (``/ndcg``: a click on ranks 2 to 8 promotes a
  result and changes the NDCG line; pairs of equal grades are skipped, since swapping
  them changes nothing), served and from the exported files, and on
  ``assets/bench-reference.html``, a plain-DOM page that does the least a page can do.
  Each figure is also reported as a multiple of that floor. ``performance.now()`` is
  coarsened to 0.1 ms in pages that are not cross-origin isolated, so the floor is
  known only to about 0.1 ms.
- **Click to the next painted frame**, in the same loop: once the text has changed, a
  ``requestAnimationFrame`` callback notes when the frame that paints it runs. The update
  made the very next frame when that callback ran within one frame interval of the click
  (the page's own, the median gap of 30 frames, plus a quarter for timer jitter): a click
  whose work, or whose send to Python, held the page past a frame shows as a later frame.
  Reported as the share of clicks, for the reference, the served and the light pages.
- **The class** (``class_bench.py``), on a server started with ``--class``: simulated students
  (browserless pages of the class channel) join, guess and follow; a guess's time to the
  projector, a send's time to every phone, the workbench's round trip (the one page that still
  sends a reader's changes to Python) while the class is quiet and while it is busy, and the
  server's memory before, with and after the class. With ``--largest``, larger classes in turn
  until one misses a goal.
- **Time to interactive**: from navigation start until the metrics text is present and a
  click changes it, taken in the page by an init script that watches every shadow root
  as it is attached and clicks as soon as the text appears (on a page of tags, once every
  tag has drawn its figure). Each load is a fresh browser context (empty cache): a first
  visit. The reference page, the light files, a documentation page with all seven figures
  as tags (the export's ``embed.html``, which includes ``explainer.js`` from its file) and
  the served pages take turns, one load each per round, so that the ratios to the reference
  compare loads made at the same moments of a shared machine. Served pages are light pages (no
  session on the server); they are also loaded as repeat visits (one context, HTTP and code
  caches warm), for information.
- **Start-up of the command line**: ``relevance-explainer evaluate`` on the golden set's qrels and
  baseline (100 queries), start to exit, as a CI job runs it (``startup.py``).
- **Exported file sizes**: ``relevance-explainer export DIR``, every file it writes, and
  explainer.js gzipped, as a web server would send it.
- **Many runs compared**: ``many_runs_bench.py``, once the servers have stopped: ten runs
  of 100 queries and five measures, nine candidates against the baseline and all 45 pairs,
  with 10,000 permutations and bootstrap resamples; medians of five, in seconds.

Progress goes to stderr with the machine's load average; the machine may be shared,
so compare medians, and runs made when it was quiet.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the tests' support package, when run as a script

import class_bench  # noqa: E402  (beside this script)
import many_runs_bench  # noqa: E402
from startup import STARTUP_GOAL_S, measure_startup  # noqa: E402

from support.bokeh_client import summarize  # noqa: E402
from support.budgets import LIGHT_FIGURE_MAX_BYTES, LIGHT_STORY_MAX_BYTES, RUNTIME_MAX_BYTES  # noqa: E402
from support.server import ROOT, Server  # noqa: E402

REFERENCE_PAGE = ROOT / "assets" / "bench-reference.html"

# The goals.
CLICK_P95_MS = 16.0
CLICK_VS_REFERENCE = 1.5
TTI_SERVED_MS = 800.0
TTI_LIGHT_VS_REFERENCE = 1.5  # a light figure file's first visit, as a multiple of the reference page's
TTI_TAGS_VS_REFERENCE = 3.0  # a documentation page with every figure as a tag, likewise
PAINTED_NEXT_FRAME_SHARE = 0.99
FRAME_JITTER = 1.25  # a frame "runs within one interval" of a click up to this many intervals

# The JavaScript the benchmark runs in its pages, each file's opening comment says what it does.
HARNESS_JS, TTI_HOOK_JS = ((HERE / name).read_text(encoding="utf-8") for name in ("harness.js", "tti_hook.js"))


@dataclass(frozen=True)
class Config:
    """How much of everything to measure."""

    clicks: int = 300  # measured clicks per page, after the warm-up
    warmup_clicks: int = 20  # clicks first made and discarded, so the JIT and caches are warm
    click_rounds: int = 5  # the pages take turns, each round a share of every page's clicks
    click_pause_ms: float = 50.0  # after the next frame, before a reader's next click
    loads: int = 20  # page loads per time-to-interactive series
    students: int = 300  # the class (class_bench.py)
    largest_class: tuple[int, ...] = (600, 1000, 1500, 2000)  # tried in turn until one misses a goal
    many_runs_repeat: int = 5  # times each many-runs comparison is timed (many_runs_bench.py)
    many_runs_resamples: int = 10_000  # its permutations and bootstrap resamples
    startup_runs: int = 10  # runs of the evaluate command, timed start to exit


FULL = Config()
QUICK = Config(
    clicks=10,
    warmup_clicks=2,
    click_rounds=2,
    loads=1,
    students=5,
    largest_class=(),
    many_runs_repeat=1,
    many_runs_resamples=200,
    startup_runs=2,
)


_STARTED = time.monotonic()
LOAD_AVERAGES: list[float] = []  # the 1-minute load average at each step: how noisy the machine was


def _log(message: str) -> None:
    """Progress goes to stderr, so stdout holds only the table."""
    LOAD_AVERAGES.append(round(os.getloadavg()[0], 2))
    print(f"[bench {time.monotonic() - _STARTED:6.1f} s] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# The server under test
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------

# The figures' click measurements: which rows to click and which text must change.
BINARY = {"ranks": list(range(1, 13)), "watch": ".metric-formula", "promote": False}
NDCG = {"ranks": list(range(2, 9)), "watch": ".metric-ndcgText .metric-formula", "promote": True}
REFERENCE = {"ranks": list(range(1, 6)), "watch": ".metric-formula", "promote": False}


def _open(browser, url: str, init_scripts: tuple[str, ...] = ()):
    """A page in a fresh context with the harness (and ``init_scripts``), loaded and drawn."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    for script in (HARNESS_JS, *init_scripts):
        context.add_init_script(script=script)
    page = context.new_page()
    page.goto(url, timeout=120_000)
    page.wait_for_function("() => window.__bench.ready()", polling=50, timeout=120_000)
    page.wait_for_timeout(500)  # let start-up messages and deferred work settle
    return context, page


def measure_clicks(browser, pages: dict[str, tuple[str, dict[str, Any]]], config: Config) -> dict[str, Any]:
    """Click-to-updated-metrics times on every page, measured in the pages, taken in turns.

    All pages stay open, and each round gives every page its share of the clicks, in a
    rotating order: the reference and the figures meet the same moments of a shared
    machine, so their ratio does not depend on which page happened to run while it was
    busy. Two paces: a reader's (the next frame, then ``click_pause_ms``: faster than
    anyone clicks), and one click per frame, as the moves of a dragged marker come, where a
    click can meet the browser still painting the one before.
    """
    opened = {key: _open(browser, url) for key, (url, _) in pages.items()}
    samples = {key: {"textMs": [], "layoutMs": [], "paintMs": [], "frameTextMs": [], "failures": 0} for key in pages}
    intervals = {key: page.evaluate("() => window.__bench.frameInterval()") for key, (_, page) in opened.items()}
    rounds = max(1, config.click_rounds)
    try:
        for pause_ms, text_key in ((config.click_pause_ms, "textMs"), (0, "frameTextMs")):
            for round_ in range(rounds):
                keys = list(pages)
                shift = round_ % len(keys)
                for key in keys[shift:] + keys[:shift]:
                    _, page = opened[key]
                    result = page.evaluate(
                        "(options) => window.__bench.clicks(options)",
                        {
                            **pages[key][1],
                            "count": config.clicks // rounds,
                            "warmup": config.warmup_clicks if round_ == 0 else 0,
                            "pauseMs": pause_ms,
                        },
                    )
                    samples[key][text_key] += result["textMs"]
                    if text_key == "textMs":
                        samples[key]["layoutMs"] += result["layoutMs"]
                        samples[key]["paintMs"] += result["paintMs"]
                    samples[key]["failures"] += result["failures"]
    finally:
        for context, _ in opened.values():
            context.close()
    return {
        key: {
            "url": pages[key][0],
            "text_ms": summarize(got["textMs"]),
            "layout_ms": summarize(got["layoutMs"]),
            "frame_paced_text_ms": summarize(got["frameTextMs"]),
            "paint_ms": summarize(got["paintMs"]),
            "frame_interval_ms": round(intervals[key], 2),
            "painted_next_frame": _share(got["paintMs"], FRAME_JITTER * intervals[key]),
            "failures": got["failures"],
        }
        for key, got in samples.items()
    }


def _share(samples: list[float], limit: float) -> float | None:
    """The share of ``samples`` at or under ``limit``."""
    return round(sum(sample <= limit for sample in samples) / len(samples), 4) if samples else None


def _load_until_interactive(page, url: str) -> dict[str, Any]:
    """Navigate ``page`` (whose context has TTI_HOOK_JS) to ``url``; the page's own times of the load."""
    page.goto(url, wait_until="commit", timeout=120_000)
    page.wait_for_function("() => window.__benchTti && window.__benchTti.ready !== null", polling=100, timeout=120_000)
    return page.evaluate(
        "() => ({ ready: __benchTti.ready, misses: __benchTti.misses,"
        " dcl: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? null })"
    )


def _tti_summary(url: str, results: list[dict[str, Any]], repeat_visits: bool) -> dict[str, Any]:
    return {
        "url": url,
        "repeat_visits": repeat_visits,
        "ms": summarize([r["ready"] for r in results]),
        "dom_content_loaded_ms": summarize([r["dcl"] for r in results if r["dcl"]]),
        "clicks_without_change": sum(r["misses"] for r in results),
    }


def _tti_context(browser):
    made = browser.new_context(viewport={"width": 1280, "height": 900})
    made.add_init_script(script=TTI_HOOK_JS)
    return made


def measure_first_visits(browser, urls: dict[str, str], loads: int) -> dict[str, Any]:
    """Time to interactive on a first visit (a fresh context each load) of every page, taking turns.

    Each round loads every page once, in a rotating order, so that every page meets the same
    moments of a shared machine and the ratios between them hold when it is busy.
    """
    results: dict[str, list[dict[str, Any]]] = {key: [] for key in urls}
    keys = list(urls)
    for round_ in range(loads):
        shift = round_ % len(keys)
        for key in keys[shift:] + keys[:shift]:
            fresh = _tti_context(browser)
            try:
                results[key].append(_load_until_interactive(fresh.new_page(), urls[key]))
            finally:
                fresh.close()
    return {key: _tti_summary(urls[key], got, repeat_visits=False) for key, got in results.items()}


def measure_repeat_visits(browser, url: str, loads: int) -> dict[str, Any]:
    """Time to interactive over ``loads`` visits again in one context, after loads that fill its HTTP and code caches."""
    shared = _tti_context(browser)
    try:
        page = shared.new_page()
        for _ in range(2):  # V8 caches a script's compiled code once it has seen it load twice
            _load_until_interactive(page, url)
        results = [_load_until_interactive(page, url) for _ in range(loads)]
    finally:
        shared.close()
    return _tti_summary(url, results, repeat_visits=True)


def export_files(workdir: Path) -> subprocess.Popen:
    """Start ``relevance-explainer export`` into workdir/export."""
    return subprocess.Popen(
        [sys.executable, "-m", "explainer.cli", "export", str(workdir / "export")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def machine(browser_version: str) -> dict[str, Any]:
    """What the numbers were measured on."""
    import bokeh
    import panel
    import psutil

    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "chromium": browser_version,
        "python": platform.python_version(),
        "panel": panel.__version__,
        "bokeh": bokeh.__version__,
        "platform": platform.platform(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


# --------------------------------------------------------------------------------------
# Goals and the table
# --------------------------------------------------------------------------------------


def _met(ok: bool | None) -> str:
    return "-" if ok is None else ("met" if ok else "NOT MET")


# The pages whose clicks are timed, as the table names them.
CLICK_PAGE_LABELS = {
    "reference": "reference page",
    "binary_served": "/binary served",
    "binary_file": "binary.html (light) from file",
    "ndcg_served": "/ndcg served",
    "ndcg_file": "ndcg.html (light) from file",
}

# The pages whose first visit is timed, as the table names them, and the goal of each: a median
# under a time in ms, or under a multiple of the reference page's median of the same run.
FIRST_VISIT_PAGES = {
    "reference": ("reference page from file", None, None),
    "binary_file": ("binary.html (light) from file", None, TTI_LIGHT_VS_REFERENCE),
    "ndcg_file": ("ndcg.html (light) from file", None, TTI_LIGHT_VS_REFERENCE),
    "tags_file": ("embed.html: all seven figures as tags", None, TTI_TAGS_VS_REFERENCE),
    "binary_served": ("/binary served", TTI_SERVED_MS, None),
    "ndcg_served": ("/ndcg served", TTI_SERVED_MS, None),
}


def size_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The exported files' rows of the table, against their budgets (tests/support/budgets.py)."""
    rows = []
    for name, size in results["export_sizes"].items():
        limit = {"index.html": LIGHT_STORY_MAX_BYTES, "explainer.js": RUNTIME_MAX_BYTES, "embed.html": None}.get(
            name, LIGHT_FIGURE_MAX_BYTES
        )
        label = f"Exported file {name}"
        if name == "explainer.js":
            label += f" ({results['runtime_gzipped_bytes'] / 1e3:.0f} kB gzipped)"
        goal = "" if limit is None else f"<= {limit / 1e3:g} kB"
        ok = None if limit is None else size <= limit
        rows.append(
            {
                "measure": label,
                "median": None,
                "p95": None,
                "value": round(size / 1e3, 1),
                "unit": "kB",
                "goal": goal,
                "met": ok,
            }
        )
    return rows


def export_sizes(export_dir: Path) -> dict[str, Any]:
    """Each exported page's and explainer.js's bytes, and explainer.js gzipped, as a web server would send it."""
    written = sorted([*export_dir.glob("*.html"), export_dir / "explainer.js"])
    return {
        "export_sizes": {p.name: p.stat().st_size for p in written},
        "runtime_gzipped_bytes": len(gzip.compress((export_dir / "explainer.js").read_bytes(), 9)),
    }


def startup_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The evaluate command's start to exit on a small file, against its goal."""
    startup = results["startup"]
    ms = sorted(1000 * t for t in startup["seconds"])
    median = 1000 * startup["median_s"]
    limit = 1000 * STARTUP_GOAL_S
    return [
        {
            "measure": f"evaluate, start to exit, 100 queries ({len(ms)} runs; p95: the slowest)",
            "median": median,
            "p95": ms[-1],
            "value": None,
            "unit": "ms",
            "goal": f"median < {limit:g} ms",
            "met": median < limit,
        }
    ]


def sizes_table(results: dict[str, Any]) -> str:
    """``--sizes``: the exported files' rows alone, as the whole table prints them."""
    return rows_table(size_rows(results))


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every line of the table: a measure, its median and p95 (or one value), its goal and whether it is met."""
    rows: list[dict[str, Any]] = []

    def add(measure, median=None, p95=None, value=None, goal="", ok=None, unit="ms"):
        rows.append(
            {"measure": measure, "median": median, "p95": p95, "value": value, "unit": unit, "goal": goal, "met": ok}
        )

    def add_ratio(measure, value, reference, limit):
        """A value as a multiple of the reference page's (the floor, known to 0.1 ms), against ``limit``."""
        ratio = value / max(reference, 0.1) if value is not None and reference is not None else None
        add(
            measure,
            value=None if ratio is None else round(ratio, 2),
            unit="x",
            goal=f"<= {limit:g}x",
            ok=ratio is not None and ratio <= limit,
        )

    clicks = results["click_to_update"]
    reference = clicks["reference"]["text_ms"]["p95"]
    add("Click -> metrics text changed, reference page (floor)", clicks["reference"]["text_ms"]["median"], reference)
    for key, label in CLICK_PAGE_LABELS.items():
        if key == "reference":
            continue
        text = clicks[key]["text_ms"]
        ok = text["p95"] is not None and text["p95"] <= CLICK_P95_MS and clicks[key]["failures"] == 0
        goal = f"p95 <= {CLICK_P95_MS:g} ms"
        add(f"Click -> metrics text changed, {label}", text["median"], text["p95"], goal=goal, ok=ok)
        add_ratio("  p95 as a multiple of the reference p95", text["p95"], reference, CLICK_VS_REFERENCE)
    for key, label in CLICK_PAGE_LABELS.items():
        layout = clicks[key]["layout_ms"]
        add(f"Click -> text changed + style and layout, {label}", layout["median"], layout["p95"])
    for key, label in CLICK_PAGE_LABELS.items():
        paced = clicks[key]["frame_paced_text_ms"]
        add(f"One click per frame (a drag) -> text changed, {label}", paced["median"], paced["p95"])
    for key, label in CLICK_PAGE_LABELS.items():
        share = clicks[key]["painted_next_frame"]
        add(
            f"Clicks painted in the very next frame, {label}",
            value=None if share is None else round(100 * share, 1),
            unit="%",
            goal=f">= {PAINTED_NEXT_FRAME_SHARE:.0%}",
            ok=share is not None and share >= PAINTED_NEXT_FRAME_SHARE,
        )

    tti = results["time_to_interactive"]
    reference_load = tti["reference"]["ms"]["median"]
    for key, (label, limit, multiple) in FIRST_VISIT_PAGES.items():
        median = tti[key]["ms"]["median"]
        goal, ok = "", None
        if limit is not None:
            goal, ok = f"median < {limit:g} ms", median is not None and median < limit
        add(f"Navigation -> interactive, {label}", median, tti[key]["ms"]["p95"], goal=goal, ok=ok)
        if multiple is not None:
            add_ratio("  median as a multiple of the reference page's", median, reference_load, multiple)
    for key, label in (("binary_served_repeat", "/binary served"), ("ndcg_served_repeat", "/ndcg served")):
        add(f"Navigation -> interactive, {label}, repeat visit", tti[key]["ms"]["median"], tti[key]["ms"]["p95"])

    rows += size_rows(results)
    rows += startup_rows(results)

    rows += class_bench.rows(results["class"])
    rows += many_runs_bench.rows(results["many_runs"])
    return rows


def _number(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def table(results: dict[str, Any]) -> str:
    """The report: the machine, then one table of every measure against its goal."""
    m = results["machine"]
    lines = [
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GiB RAM; Chromium {m['chromium']}; "
        f"Python {m['python']}, Panel {m['panel']}, Bokeh {m['bokeh']}",
        "1-minute load average during the run (the machine is shared): "
        f"{m['load_average_during_run'][0]:g} to {m['load_average_during_run'][1]:g}",
        f"Counts: {results['config']['clicks']} clicks per page after {results['config']['warmup_clicks']} warm-up, "
        f"{results['config']['loads']} loads per page, a class of {results['config']['students']} students; "
        "times in ms",
        "",
    ]
    return "\n".join(lines) + "\n" + rows_table(results["goals"])


def rows_table(rows: list[dict[str, Any]]) -> str:
    """Rows of measures as the table prints them: a header, a rule, a line a measure."""
    lines = []
    header = ("Measure", "median", "p95/value", "goal", "result")
    body = []
    for row in rows:
        if row["unit"] != "ms":  # a single value, with its unit
            median, p95 = "", f"{_number(row['value'])} {row['unit']}"
        else:
            median, p95 = _number(row["median"]), _number(row["p95"])
        body.append((row["measure"], median, p95, row["goal"], _met(row["met"]) if row["goal"] else ""))
    widths = [max(len(r[i]) for r in (header, *body)) for i in range(len(header))]
    fmt = f"{{:<{widths[0]}}}  {{:>{widths[1]}}}  {{:>{widths[2]}}}  {{:<{widths[3]}}}  {{}}"
    lines.append(fmt.format(*header))
    lines.append("-" * (sum(widths) + 8 + 6))
    lines += [fmt.format(*row).rstrip() for row in body]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


def run(config: Config = FULL, out: Path | None = Path("bench.json")) -> dict[str, Any]:
    """Run every measurement, print the table, write the JSON to ``out``; returns the results."""
    from playwright.sync_api import sync_playwright

    from explainer.tools.browser import launch_args

    started = time.monotonic()
    results: dict[str, Any] = {"config": asdict(config)}
    with tempfile.TemporaryDirectory(prefix="explainer-bench-") as tmp:
        workdir = Path(tmp)
        # What only waits starts at once: the export and the measured server.
        exporting = export_files(workdir)
        server = Server(wait=False)
        try:
            server.wait_ready()
            _log("server up")
            if exporting.wait(timeout=300) != 0:
                raise RuntimeError(f"relevance-explainer export failed:\n{exporting.stderr.read()}")
            export_dir = workdir / "export"
            _log("exported")
            results.update(export_sizes(export_dir))
            _log("evaluate's start-up")
            results["startup"] = measure_startup(config.startup_runs)

            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(**launch_args())
                results["machine"] = machine(browser.version)

                _log("click to updated metrics")
                pages = {
                    "reference": (REFERENCE_PAGE.as_uri(), REFERENCE),
                    "binary_served": (f"{server.url}/binary", BINARY),
                    "binary_file": ((export_dir / "binary.html").as_uri(), BINARY),
                    "ndcg_served": (f"{server.url}/ndcg", NDCG),
                    "ndcg_file": ((export_dir / "ndcg.html").as_uri(), NDCG),
                }
                results["click_to_update"] = measure_clicks(browser, pages, config)

                _log("time to interactive")
                first_visits = {key: pages[key][0] for key in ("reference", "binary_file", "ndcg_file")}
                first_visits["tags_file"] = (export_dir / "embed.html").as_uri()
                first_visits.update({key: pages[key][0] for key in ("binary_served", "ndcg_served")})
                results["time_to_interactive"] = measure_first_visits(browser, first_visits, config.loads)
                for key in ("binary_served", "ndcg_served"):
                    results["time_to_interactive"][f"{key}_repeat"] = measure_repeat_visits(
                        browser, pages[key][0], config.loads
                    )

                browser.close()
        finally:
            server.stop()
            if exporting.poll() is None:
                exporting.kill()

    _log(f"a class of {config.students}, on a server of its own")
    results["class"] = class_bench.run_class(config.students, config.largest_class)

    _log("many runs compared (statistics, no browser)")
    results["many_runs"] = many_runs_bench.measure(config.many_runs_repeat, config.many_runs_resamples)
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["machine"]["load_average_during_run"] = [min(LOAD_AVERAGES), max(LOAD_AVERAGES)]
    results["duration_s"] = round(time.monotonic() - started, 1)
    results["goals"] = goals(results)
    print(table(results))
    if out is not None:
        out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        _log(f"wrote {out}")
    return results


def main(argv: list[str] | None = None) -> None:
    """``./serve.sh bench [--out FILE] [--quick] [--sizes | --many-runs]``."""
    parser = argparse.ArgumentParser(prog="./serve.sh bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=Path("bench.json"), help="where to write the JSON (default %(default)s)"
    )
    parser.add_argument("--quick", action="store_true", help="tiny counts and short waits, for a smoke test")
    parser.add_argument(
        "--sizes", action="store_true", help="only export the files and print their sizes (seconds, no browser)"
    )
    parser.add_argument(
        "--many-runs", action="store_true", help="only compare many runs and print those rows (seconds, no browser)"
    )
    parser.add_argument(
        "--startup", action="store_true", help="only time the evaluate command's start-up (seconds, no browser)"
    )
    parser.add_argument(
        "--class", dest="classroom", action="store_true", help="only the class (class_bench.py), no browser"
    )
    args = parser.parse_args(argv)
    if args.sizes:
        print(sizes_table(measure_sizes()))
        return
    if args.many_runs:
        config = QUICK if args.quick else FULL
        result = many_runs_bench.measure(config.many_runs_repeat, config.many_runs_resamples)
        print(rows_table(many_runs_bench.rows(result)))
        return
    if args.startup:
        print(rows_table(startup_rows({"startup": measure_startup(FULL.startup_runs)})))
        return
    if args.classroom:
        config = QUICK if args.quick else FULL
        print(rows_table(class_bench.rows(class_bench.run_class(config.students, config.largest_class))))
        return
    run(QUICK if args.quick else FULL, args.out)


def measure_sizes() -> dict[str, Any]:
    """The export's sizes alone (``--sizes``): they depend on the code only, not on the machine."""
    with tempfile.TemporaryDirectory(prefix="explainer-sizes-") as tmp:
        exporting = export_files(Path(tmp))
        if exporting.wait(timeout=300) != 0:
            raise RuntimeError(f"relevance-explainer export failed:\n{exporting.stderr.read()}")
        return export_sizes(Path(tmp) / "export")


if __name__ == "__main__":
    main()
