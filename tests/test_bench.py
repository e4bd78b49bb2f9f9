"""Smoke test of the benchmark: a --quick run finishes and writes every section, with numbers.

It checks that the measurements run, not how fast anything is: the machine running the
tests is shared, so the timings themselves mean nothing here. The benchmark runs in a
subprocess because it drives Playwright's sync API itself, which cannot nest inside the
one pytest-playwright may already have started in this process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from numbers import Number
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent / "bench" / "bench.py"


def _numbers(stats: dict) -> bool:
    return all(isinstance(stats[key], Number) for key in ("n", "median", "p95")) and stats["n"] > 0


@pytest.mark.slow  # a smoke run of the whole benchmark: about a minute
@pytest.mark.browser
def test_quick_benchmark_writes_every_section_with_numbers(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    results = json.loads(out.read_text())

    machine = results["machine"]
    for key in ("cpu", "cores", "ram_gb", "chromium", "python", "panel", "bokeh"):
        assert machine[key], key

    clicks = results["click_to_update"]
    assert set(clicks) == {"reference", "binary_served", "binary_file", "ndcg_served", "ndcg_file"}
    for key, part in clicks.items():
        assert _numbers(part["text_ms"]) and _numbers(part["layout_ms"]) and _numbers(part["frame_paced_text_ms"]), key
        assert _numbers(part["paint_ms"]) and 0 <= part["painted_next_frame"] <= 1, key
        assert part["frame_interval_ms"] > 0, key
        assert part["failures"] == 0, key

    tti = results["time_to_interactive"]
    first_visits = {"reference", "binary_served", "ndcg_served", "binary_file", "ndcg_file", "tags_file"}
    assert set(tti) == first_visits | {"binary_served_repeat", "ndcg_served_repeat"}
    assert all(_numbers(part["ms"]) for part in tti.values())

    sizes = results["export_sizes"]
    assert {"index.html", "binary.html", "ndcg.html", "embed.html", "explainer.js"} <= set(sizes)
    assert 0 < results["runtime_gzipped_bytes"] < sizes["explainer.js"]
    assert all(isinstance(size, int) and size > 0 for size in sizes.values())

    startup = results["startup"]
    assert len(startup["seconds"]) == 2 and all(t > 0 for t in startup["seconds"])
    assert startup["command"].startswith("relevance-explainer evaluate ")

    part = results["class"]["class"]
    assert part["students"] == 5
    for key in ("guess_to_projector_ms", "send_to_everyone_ms", "workbench_quiet_ms", "workbench_during_class_ms"):
        assert _numbers(part[key]), key
    for key in ("rss_before_mb", "rss_with_class_mb", "rss_after_leaving_mb", "per_student_kb", "workbench_ratio"):
        assert isinstance(part[key], Number), key

    many = results["many_runs"]
    assert (many["runs"], many["queries"], many["measures"], many["repeat"]) == (10, 100, 5, 1)
    for key in ("baseline_s", "all-pairs_s"):
        assert isinstance(many[key]["median"], Number) and many[key]["median"] > 0, key

    assert results["goals"] and all(goal["met"] in (True, False, None) for goal in results["goals"])
    # One table on stdout, with a line per goal.
    assert done.stdout.count("\n") >= len(results["goals"])
    assert "Measure" in done.stdout and "a guess -> on the projector" in done.stdout
    assert "Many runs: all 45 pairs" in done.stdout
