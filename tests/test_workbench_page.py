"""The workbench in Chromium: the table, the charts' query lists, one query in full, what-if changes.

Served from this process (``serve_object``), so each test reads the Python workbench as well as
the page. Expected numbers come from pytrec_eval on the golden set (with a test's changes
written into the qrels), from the comparison's own sorted differences, or from arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from explainer import metrics
from explainer.evaluation import golden
from explainer.workbench import Workbench, drill_down

from support.expect import expect
from support.oracles import statsmodels_power
from support.page import BAD_WORDS, watch_page
from support.server import on_server, wait_python

pytestmark = pytest.mark.browser

f4 = lambda x: metrics.format_number(x, 4)  # noqa: E731
TREC = {
    "P_10": "P.10",
    "recall_100": "recall.100",
    "recip_rank": "recip_rank",
    "map": "map",
    "ndcg_cut_10": "ndcg_cut.10",
}


def trec_values(qrels: dict, run: dict, qid: str) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator({qid: qrels[qid]}, set(TREC.values()))
    return evaluator.evaluate({qid: run[qid]})[qid]


@pytest.fixture(scope="module")
def files():
    topics, documents, qrels, baseline, candidate = golden.load()
    return {"topics": topics, "qrels": qrels.to_dict(), "runs": [baseline.to_dict(), candidate.to_dict()]}


class ShownWorkbench:
    """A served workbench open in a page, and the Python workbench behind it."""

    def __init__(self, page, workbench):
        self.page = page
        self.workbench = workbench
        self.rows = page.locator(".wb-row")
        self.count = page.locator(".wb-count")
        self.pane = page.locator(".wb-query")
        self.heading = page.locator(".wb-query .wb-heading")

    def open(self, qid: str) -> None:
        self.page.locator(".wb-search").fill(qid)
        self.page.locator(f'.wb-row[data-qid="{qid}"] .wb-link').click()
        expect(self.heading).to_contain_text(qid)
        expect(self.page.locator(".wb-figure .fig").first).to_be_visible()

    def value(self, measure: str, run: int):
        return self.page.locator(f'.wb-query-values tr[data-measure="{measure}"] td').nth(run)

    def mean(self, measure: str, run: int):
        return self.page.locator(f'.wb-summary .wb-means tr[data-measure="{measure}"] td').nth(run)

    def result(self, run: int, docid: str):
        return self.page.locator(f'.wb-list.wb-run-{run} .wb-result[data-docid="{docid}"]')

    def wait_python(self, condition, message: str) -> None:
        wait_python(self.workbench, lambda: condition(self.workbench.state), message=message)


@pytest.fixture
def shown(page, serve_object):
    workbench = Workbench.golden()
    seen = watch_page(page)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(serve_object(workbench))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    yield ShownWorkbench(page, workbench)
    assert seen["errors"] == [], seen["errors"]


def test_the_table_counts_every_query_and_draws_only_the_rows_in_view(shown):
    expect(shown.count).to_contain_text("100 queries")
    assert 5 < shown.rows.count() < 40
    shown.page.locator(".wb-grid").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    expect(shown.page.locator('.wb-row[data-qid="g100"]')).to_be_visible()
    assert shown.rows.count() < 40


def test_sorting_by_the_gate_measures_difference_twice_puts_the_worst_loss_first(shown):
    header = shown.page.locator(".wb-grid-head .wb-sort", has_text="NDCG@10 Δ")
    header.click()
    header.click()
    expect(shown.page.locator(".wb-grid-head [aria-sort=ascending]")).to_contain_text("NDCG@10 Δ")
    worst = [qid for qid, _ in shown.workbench.evaluated.comparison.measures["ndcg_cut_10"].sorted_deltas()[:6]]
    expect(shown.rows.locator(".wb-col-qid")).to_have_text(
        worst + [shown.rows.nth(i).get_attribute("data-qid") for i in range(6, shown.rows.count())]
    )


def test_searching_by_text_keeps_the_queries_that_mention_it(shown, files):
    shown.page.locator(".wb-search").fill("bracket")
    matching = [q for q, text in sorted(files["topics"].items()) if "bracket" in text]
    expect(shown.count).to_have_text(f"{len(matching)} of 100 queries match.")
    expect(shown.rows.locator(".wb-col-qid")).to_have_text(matching[:10] + matching[10 : shown.rows.count()])


def test_the_query_the_candidate_lost_most_on_opens_with_trec_evals_numbers_and_its_terms(shown, files):
    worst = shown.workbench.evaluated.comparison.measures["ndcg_cut_10"].sorted_deltas()[0][0]
    first = shown.page.locator(".wb-differ-list").first.locator(".wb-link").first
    expect(first).to_have_attribute("data-qid", worst)
    first.click()
    expect(shown.heading).to_have_text(f"{worst}: {files['topics'][worst]}")
    # Opened from its link, the query comes to the top of the screen once its lists have arrived
    # (before they do, the pane is one line at the foot of the page and cannot scroll up).
    expect(shown.page.locator(".wb-figure .fig").first).to_be_visible()
    shown.page.wait_for_function(
        "el => Math.abs(el.getBoundingClientRect().top) < 80", arg=shown.heading.element_handle(), timeout=5_000
    )
    for run in (0, 1):
        expected = trec_values(files["qrels"], files["runs"][run], worst)
        for name, trec in TREC.items():
            expect(shown.value(name, run)).to_have_text(f4(expected[trec.replace(".", "_")]))
    # The terms of the candidate's AP, as metrics.py writes them out.
    detail = drill_down.query_of(shown.workbench.evaluated, worst)
    grades = [detail["grades"][d] for d in detail["runs"][1]["docs"]]
    terms = " + ".join(f"{hits}/{rank}" for hits, rank in metrics.average_precision_terms(grades))
    n_relevant = sum(1 for g in detail["grades"] if g is not None and g >= 1)
    expected_ap = trec_values(files["qrels"], files["runs"][1], worst)["map"]
    expect(shown.page.locator(".wb-terms-run.wb-run-1 .wb-term", has_text="AP =")).to_have_text(
        f"AP = ({terms}) / {n_relevant} = {f4(expected_ap)}"
    )
    # Figure 1 on the baseline's list (all 30 results shown): trec_eval's AP to two decimals.
    baseline_ap = trec_values(files["qrels"], files["runs"][0], worst)["map"]
    expect(shown.page.locator(".wb-figure [data-metric=ap] .metric-formula")).to_contain_text(
        f"= {metrics.format_number(baseline_ap)}"
    )
    text = shown.pane.text_content()
    assert not BAD_WORDS.search(text), text


def test_a_link_that_names_a_query_opens_it_at_the_top_of_the_screen(page, server):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server.url}/evaluate?query=g044")
    heading = page.locator(".wb-query .wb-heading")
    expect(heading).to_have_text("g044: loose clamp nose gear supplier notice", timeout=30_000)
    expect(page.locator(".wb-figure .fig").first).to_be_visible()
    page.wait_for_function(
        "el => Math.abs(el.getBoundingClientRect().top) < 80", arg=heading.element_handle(), timeout=5_000
    )


def test_figure_1s_chart_of_thirty_ranks_labels_its_ks_without_overlap(shown):
    shown.open("g044")
    ticks = shown.page.locator(".wb-figure .kchart-svg").first.evaluate(
        """svg => [...svg.querySelectorAll('.kchart-tick[text-anchor="middle"]')]
            .filter(t => t.getBBox().width > 0 && getComputedStyle(t).display !== 'none')
            .map(t => { const b = t.getBoundingClientRect(); return [t.textContent, b.left, b.right]; })"""
    )
    assert [label for label, _, _ in ticks] == ["1", "5", "10", "15", "20", "25", "30"]
    for (_, _, right), (_, left, _) in zip(ticks, ticks[1:], strict=False):
        assert right < left


def unjudged_in_top(detail: dict, run: int, depth: int = 10) -> str:
    return next(detail["docs"][d] for d in detail["runs"][run]["docs"][:depth] if detail["grades"][d] is None)


def test_judging_an_unjudged_document_moves_the_querys_numbers_and_the_means(shown, files):
    qid = next(
        q
        for q in shown.workbench.evaluated.qids
        if any(drill_down.query_of(shown.workbench.evaluated, q)["grades"][d] is None for d in range(40))
        and any(
            drill_down.query_of(shown.workbench.evaluated, q)["grades"][d] is None
            for d in drill_down.query_of(shown.workbench.evaluated, q)["runs"][1]["docs"][:10]
        )
    )
    detail = drill_down.query_of(shown.workbench.evaluated, qid)
    docid = unjudged_in_top(detail, 1)
    shown.open(qid)
    row = shown.result(1, docid)
    expect(row).to_have_class("wb-result is-unjudged")
    row.locator("select.wb-grade").select_option("3")
    shown.wait_python(lambda s: s.judgments == {qid: {docid: 3}}, "the judgment to reach Python")
    expect(shown.result(1, docid)).to_have_class("wb-result is-relevant is-whatif")
    judged = {**files["qrels"], qid: {**files["qrels"][qid], docid: 3}}
    n = len(shown.workbench.evaluated.qids)
    for run in (0, 1):
        expected = trec_values(judged, files["runs"][run], qid)
        before = trec_values(files["qrels"], files["runs"][run], qid)
        for name, trec in TREC.items():
            key = trec.replace(".", "_")
            expect(shown.value(name, run)).to_contain_text(f4(expected[key]))
            old_mean = shown.workbench.evaluated.evaluations[run].means[name]
            expect(shown.mean(name, run)).to_have_text(f4(old_mean + (expected[key] - before[key]) / n))
    expect(shown.page.locator(".wb-whatif-note")).to_contain_text("what-if changes to 1 query")
    shown.page.locator(".wb-undo").click()
    shown.wait_python(lambda s: s.judgments == {}, "the undo to reach Python")
    expect(shown.mean("ndcg_cut_10", 1)).to_have_text(f4(shown.workbench.evaluated.evaluations[1].means["ndcg_cut_10"]))


def test_flipping_a_result_in_figure_1_judges_it_in_both_lists(shown):
    qid = "g001"
    shown.open(qid)
    detail = drill_down.query_of(shown.workbench.evaluated, qid)
    first = detail["runs"][0]["docs"][0]
    docid = detail["docs"][first]
    relevant = detail["grades"][first] is not None and detail["grades"][first] >= 1
    shown.page.locator('.wb-figure .fig-binary .rl-row[data-rank="1"] button').click()
    shown.wait_python(lambda s: s.judgments == {qid: {docid: 0 if relevant else 1}}, "the flip to reach Python")
    expect(shown.result(0, docid)).to_contain_text("✗ not relevant" if relevant else "✓ relevant")
    if first in detail["runs"][1]["docs"]:
        expect(shown.result(1, docid)).to_have_class(
            "wb-result is-relevant is-whatif" if not relevant else "wb-result is-whatif"
        )


def test_moving_a_result_up_in_the_second_figure_moves_it_in_its_list(shown):
    qid = "g003"
    shown.open(qid)
    detail = drill_down.query_of(shown.workbench.evaluated, qid)
    second = detail["docs"][detail["runs"][0]["docs"][1]]
    shown.page.locator('.wb-figure .fig-conventions .rl-row[data-rank="2"] button.rl-activate').click()
    # Until the move reaches Python, the query has no orders, or none for run 0: keep waiting then.
    shown.wait_python(lambda s: ((s.orders.get(qid) or [None])[0] or [])[:2] == [1, 0], "the move to reach Python")
    expect(shown.page.locator(".wb-list.wb-run-0 .wb-result").first).to_have_attribute("data-docid", second)
    # Figure 1 follows: the moved document is at rank 1 there too.
    expect(shown.page.locator('.wb-figure .fig-binary .rl-row[data-rank="1"]')).to_contain_text(second)


def test_a_state_python_sets_reaches_the_page(shown):
    on_server(shown.workbench.state.param.update, query="g050")
    expect(shown.heading).to_contain_text("g050")


def many_queries(n: int = 10_000, depth: int = 5):
    """n queries of `depth` results each, one relevant document a query at a rank that varies."""
    qrels = {f"q{i:05d}": {f"d{i}-{i % depth}": 1, f"d{i}-missed": 1} for i in range(n)}
    run = {f"q{i:05d}": {f"d{i}-{j}": float(depth - j) for j in range(depth)} for i in range(n)}
    run2 = {f"q{i:05d}": {f"d{i}-{j}": float(depth - (j + i) % depth) for j in range(depth)} for i in range(n)}
    return qrels, run, run2


@pytest.mark.slow
@pytest.mark.alone  # it times the frames of a scroll: CI runs it with the machine to itself
def test_ten_thousand_queries_open_and_scroll_with_only_the_rows_in_view_drawn(page, serve_object):
    workbench = Workbench(*many_queries(), compare_options={"n_permutations": 1000, "n_bootstrap": 1000})
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(serve_object(workbench))
    expect(page.locator(".wb-count")).to_contain_text("10,000 queries", timeout=60_000)
    scroller = page.locator(".wb-grid")
    # Each jump down the table: the time from moving the scroll position to the frame after the
    # rows were drawn, measured in the page.
    times = scroller.evaluate(
        """async (el) => {
            const times = [];
            for (let i = 1; i <= 20; i++) {
                const start = performance.now();
                el.scrollTop = (el.scrollHeight * i) / 20;
                await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
                times.push(performance.now() - start);
            }
            return times;
        }"""
    )
    expect(page.locator('.wb-row[data-qid="q09999"]')).to_be_visible()
    assert page.locator(".wb-row").count() < 40
    times.sort()
    assert times[len(times) // 2] < 50, times  # two frames at 60 Hz are 33 ms; a loaded machine is slower


def test_the_gate_measures_effect_and_power_and_the_queries_a_typed_difference_needs(shown, files):
    # The oracle: NDCG@10 per query from pytrec_eval, and statsmodels' power of the paired t-test.
    power = statsmodels_power.TTestPower()
    qrels, (baseline, candidate) = files["qrels"], files["runs"]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    ours = {run: evaluator.evaluate(r) for run, r in (("a", baseline), ("b", candidate))}
    differences = np.array([ours["b"][q]["ndcg_cut_10"] - ours["a"][q]["ndcg_cut_10"] for q in sorted(qrels)])
    sd = differences.std(ddof=1)
    mde = power.solve_power(nobs=len(differences), alpha=0.05, power=0.8, alternative="larger") * sd
    effect = shown.page.locator('.wb-power .wb-effect[data-measure="ndcg_cut_10"]')
    expect(effect.locator(".wb-subheading")).to_have_text("Effect size and power: NDCG@10")
    expect(effect).to_contain_text(f"d_z = +{differences.mean() / sd:.2f}")
    expect(effect).to_contain_text(f"finds a true gain of {mde:.4f}, the minimum detectable effect, 80% of the time")

    def fewest(gain: float) -> int:
        n = math.ceil(power.solve_power(effect_size=gain / sd, alpha=0.05, power=0.8, alternative="larger"))
        while power.power(gain / sd, n - 1, 0.05, alternative="larger") >= 0.8:
            n -= 1
        return n

    detect, needed = effect.locator(".wb-detect"), effect.locator(".wb-needed")
    expect(detect).to_have_value("0.0200")
    expect(needed).to_have_text(f"{fewest(0.02):,}, with differences as spread as this set's (it has 100).")
    detect.fill("0.05")
    expect(needed).to_have_text(f"{fewest(0.05):,}, with differences as spread as this set's (it has 100).")
    detect.fill("0")
    expect(needed).to_have_text("Type a difference above 0, H0's.")
    # What-if changes redraw the means, not the typed difference.
    detect.fill("0.03")
    shown.open("g044")
    grade = shown.page.locator(".wb-list.wb-run-1 .wb-result").first.locator("select.wb-grade")
    grade.select_option("0" if grade.input_value() == "3" else "3")
    expect(shown.page.locator(".wb-whatif-note")).to_be_visible()
    expect(detect).to_have_value("0.03")
    expect(needed).to_have_text(f"{fewest(0.03):,}, with differences as spread as this set's (it has 100).")
