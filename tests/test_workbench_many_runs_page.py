"""The workbench with five runs in Chromium: the table of runs, the sweep's order, the two runs the page compares,
and several candidates uploaded at once.

Expected means and per-query values come from pytrec_eval on the runs' files.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import pytrec_eval
from test_evaluation_cli_many_runs import LEAN, WEIGHTS, five_runs
from test_workbench_table import ranked
from test_workbench_upload import drop, fork_server  # noqa: F401 (a fixture)

from explainer import metrics
from explainer.workbench import Workbench

from support.expect import expect
from support.page import BAD_WORDS, watch_page

pytestmark = pytest.mark.browser

f4 = lambda x: metrics.format_number(x, 4)  # noqa: E731
QUICK = {"test": "t-test", "n_bootstrap": 300}
ORDER = sorted(WEIGHTS)  # the runs given in the order of their weight: weight=0 is the baseline a


@pytest.fixture(scope="module")
def sweep_files(tmp_path_factory):
    return five_runs(tmp_path_factory.mktemp("sweep"))


def mean_of(qrels: dict, run: dict, measure: str) -> float:
    values = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return float(np.mean([v[measure] for v in values.values()]))


@pytest.fixture
def five(page, serve_object, sweep_files):
    _, _, qrels_path, paths = sweep_files
    workbench = Workbench(str(qrels_path), *(str(paths[WEIGHTS.index(w)]) for w in ORDER), compare_options=QUICK)
    workbench.view.on_page = True  # as on /evaluate: the page's link holds what it shows
    seen = watch_page(page)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(serve_object(workbench))
    expect(page.locator(".wb-runs-table tbody tr")).to_have_count(5, timeout=30_000)
    yield page
    assert seen["errors"] == [], seen["errors"]
    assert not BAD_WORDS.search(page.locator(".wb").inner_text())


def test_the_runs_table_has_each_runs_mean_and_the_pair_picked_drives_the_summary_and_the_lists(five, sweep_files):
    qrels, runs, _, _ = sweep_files
    page = five
    rows = page.locator(".wb-runs-table tbody tr")
    expect(rows.locator("th")).to_have_text([f"{letter} sys{w:g}" for letter, w in zip("abcde", ORDER, strict=True)])
    column = [h.strip() for h in page.locator(".wb-runs-table thead th").all_inner_texts()].index("AP")
    for i, w in enumerate(ORDER):
        expect(rows.nth(i).locator("td").nth(column - 1).locator(".wb-runs-mean")).to_have_text(
            f4(mean_of(qrels, runs[w], "map"))
        )
    expect(page.locator(".wb-runs-gate")).to_contain_text("The gate over the candidates, Holm:")
    # a and c: the summary compares them, with c's verdict; a query's lists are theirs.
    page.locator(".wb-pair-select").nth(1).select_option("2")
    means = page.locator('.wb-summary .wb-means tr[data-measure="map"] td')
    expect(means.nth(1)).to_have_text(f4(mean_of(qrels, runs[ORDER[2]], "map")))
    expect(page.locator(".wb-summary .wb-means thead th").nth(2)).to_have_text("run c")
    expect(page.locator(".wb-summary .wb-gate")).to_contain_text("adjusted over 4 candidates by Holm")
    qid = "q0"
    page.locator(".wb-search").fill(qid)
    page.locator(f'.wb-row[data-qid="{qid}"] .wb-link').click()
    expect(page.locator(".wb-list h3")).to_have_text(["baseline: sys0", "run c: sys0.75"])
    for r, w in ((0, ORDER[0]), (1, ORDER[2])):
        shown = page.locator(f".wb-list.wb-run-{r} .wb-result").evaluate_all("els => els.map(e => e.dataset.docid)")
        assert shown == ranked(runs[w], qid)[: len(shown)] and shown
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(runs[ORDER[2]])[qid]["map"]
    expect(page.locator('.wb-query-values tr[data-measure="map"] td').nth(1)).to_have_text(f4(theirs))
    # b and c, neither the baseline: no test between them, and the page says so.
    page.locator(".wb-pair-select").nth(0).select_option("1")
    expect(page.locator(".wb-summary .wb-gate")).to_be_hidden()
    expect(page.locator(".wb-untested")).to_contain_text("run b and run c are not tested against each other")
    expect(page.locator(".wb-list h3")).to_have_text(["run b: sys0.25", "run c: sys0.75"])


def test_a_link_names_the_two_runs_compared_and_opens_on_them(five):
    page = five
    selects = page.locator(".wb-pair-select")
    runs = page.locator(".wb-summary .wb-means thead th")
    page.goto(page.url.split("?")[0] + "?pair=d,b&query=q0")
    expect(selects.nth(0)).to_have_value("1", timeout=30_000)
    expect(selects.nth(1)).to_have_value("3")
    expect(runs.nth(1)).to_have_text("run b")
    expect(runs.nth(2)).to_have_text("run d")
    expect(page.locator(".wb-list h3")).to_have_text(["run b: sys0.25", "run d: sys1.5"])
    # The reader's pick goes into the link, beside the open query; a reload shows it again.
    selects.nth(0).select_option("0")
    expect(page).to_have_url(re.compile(r"\?pair=a,d&query=q0$"))
    page.reload()
    expect(selects.nth(0)).to_have_value("0", timeout=30_000)
    expect(selects.nth(1)).to_have_value("3")
    expect(runs.nth(1)).to_have_text("baseline")
    expect(runs.nth(2)).to_have_text("run d")
    # The first two are what a link without a pair shows: the link names none.
    selects.nth(1).select_option("1")
    expect(page).to_have_url(re.compile(r"\?query=q0$"))
    # A link naming runs the page does not have shows the first two.
    page.goto(page.url.split("?")[0] + "?pair=a,z")
    expect(page.locator(".wb-runs-table tbody tr")).to_have_count(5, timeout=30_000)
    expect(selects.nth(0)).to_have_value("0")
    expect(selects.nth(1)).to_have_value("1")


def test_the_runs_order_by_their_weight_with_the_best_setting_marked(five, sweep_files):
    qrels, runs, _, _ = sweep_files
    page = five
    page.locator(".wb-runs-order button", has_text="By weight").click()
    rows = page.locator(".wb-runs-table tbody tr")
    expect(rows.locator("th")).to_have_text([f"{w:g}" for w in ORDER])
    best = max(ORDER, key=lambda w: mean_of(qrels, runs[w], "map"))
    assert best == max(LEAN, key=LEAN.get)
    column = [h.strip() for h in page.locator(".wb-runs-table thead th").all_inner_texts()].index("AP")
    expect(rows.nth(ORDER.index(best)).locator("td").nth(column - 1).locator(".wb-runs-best")).to_have_text("best")
    expect(page.locator(".wb-runs-table .wb-runs-best")).to_have_count(
        len(page.locator(".wb-runs-table thead th").all()) - 2
    )
    expect(page.locator(".wb-runs-verdicts li", has_text="AP: best")).to_contain_text(
        f"AP: best: weight={best:g}, mean {f4(mean_of(qrels, runs[best], 'map'))}"
    )


@pytest.mark.usefixtures("fork_server")
def test_several_candidates_dropped_at_once_join_the_baseline_as_runs_b_c_d(page, serve_object, sweep_files):
    _, _, qrels_path, paths = sweep_files
    seen = watch_page(page)
    page.goto(serve_object(Workbench.golden()))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    page.locator(".wb-upload summary").click()
    drop(page, "qrels", "team.qrels", qrels_path.read_bytes())
    drop(page, "baseline", "weight=0.run", paths[WEIGHTS.index(0.0)].read_bytes())
    expect(page.locator(".wb-status")).to_contain_text("Showing your files.", timeout=30_000)
    chosen = [paths[WEIGHTS.index(w)] for w in (1.5, 0.25, 0.75)]
    page.locator('.wb-drop[data-slot="candidate"] input[type=file]').set_input_files(
        [{"name": p.name, "mimeType": "text/plain", "buffer": p.read_bytes()} for p in chosen]
    )
    expect(page.locator(".wb-status")).to_contain_text("Showing your files (4 runs).", timeout=60_000)
    # In the order of their names, numbers read as numbers: 0.25, 0.75, 1.5; an upload goes by its file's name.
    expect(page.locator(".wb-runs-table tbody th")).to_have_text(
        ["a weight=0.run", "b weight=0.25.run", "c weight=0.75.run", "d weight=1.5.run"]
    )
    assert seen["errors"] == [], seen["errors"]
