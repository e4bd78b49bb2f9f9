"""The workbench's queries table in Chromium: every heading over its numbers however it is scrolled,
and one query's view of a run with no results and of unjudged documents.

The table draws only the rows in view, in one scroller with the header stuck to its top and the
query column to its left. Each check reads the boxes the browser laid out: a heading's x-range
against its cells', and what is painted at a cell's centre (``elementFromPoint``), so a column
scrolled out from under its heading, hidden behind another or drawn blank fails. Expected counts
come from the qrels and the runs as dicts, not from the page's data.
"""

from __future__ import annotations

import re

import pytest

from explainer import metrics
from explainer.evaluation import golden
from explainer.workbench import Workbench

from support.expect import expect
from support.page import BAD_WORDS, watch_page

pytestmark = pytest.mark.browser

# What the table looks like to a reader, in the page: for the header and each row in view, each
# cell's x-range; for each column whose heading is wholly in view (right of the query column),
# whether the browser paints that heading and that cell at their centres and the cell's text.
LAYOUT_JS = """grid => {
  const box = (el) => el.getBoundingClientRect();
  const g = box(grid);
  // The scrollport, inside the border and any scrollbar.
  const right = g.left + grid.clientLeft + grid.clientWidth;
  const bottom = g.top + grid.clientTop + grid.clientHeight;
  const root = grid.getRootNode();
  const head = grid.querySelector('.wb-grid-head');
  const headings = [...head.querySelectorAll('.wb-cell')];
  const h = box(head);
  const rows = [...grid.querySelectorAll('.wb-row')].filter((r) => box(r).top >= h.bottom - 1 && box(r).bottom <= bottom);
  const shows = (el) => {
    const b = box(el);
    const hit = root.elementFromPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
    return Boolean(hit) && el.contains(hit);
  };
  const left = box(headings[0]).right;
  const columns = headings.map((cell, c) => {
    const b = box(cell);
    const inView = c === 0 || (b.left >= left - 1 && b.right <= right);
    return {
      c, label: cell.textContent, x: [b.left, b.right], inView,
      headingShown: inView && shows(cell),
      cells: rows.map((r) => {
        const cellBox = box(r.children[c]);
        return { x: [cellBox.left, cellBox.right], text: r.children[c].textContent.trim(), shown: inView && shows(r.children[c]) };
      }),
    };
  });
  return { grid: [g.left, g.top, g.right], headTop: h.top, rows: rows.length, scroll: [grid.scrollLeft, grid.scrollTop], columns };
}"""


def check_layout(grid, seen: set[int]) -> dict:
    """Assert that every heading is in view over its cells and every column in view is painted
    with a number or a name; adds the columns checked in view to ``seen``."""
    layout = grid.evaluate(LAYOUT_JS)
    left, top, _ = layout["grid"]
    assert layout["rows"] >= 5, layout["rows"]
    # The header stays at the top of the table, scrolled down or not (1 px: the border).
    assert abs(layout["headTop"] - (top + 1)) < 1.5, (layout["headTop"], top)
    for column in layout["columns"]:
        for cell in column["cells"]:
            assert cell["x"][0] == pytest.approx(column["x"][0], abs=1), (column["label"], layout["scroll"])
            assert cell["x"][1] == pytest.approx(column["x"][1], abs=1), (column["label"], layout["scroll"])
        if column["inView"]:
            seen.add(column["c"])
            assert column["headingShown"], (column["label"], layout["scroll"])
            assert all(cell["shown"] for cell in column["cells"]), (column["label"], layout["scroll"])
            assert all(cell["text"] for cell in column["cells"]), (column["label"], layout["scroll"])
    # The query column stays at the table's left edge, however far it is scrolled sideways.
    assert layout["columns"][0]["x"][0] == pytest.approx(left + 1, abs=1.5), layout["scroll"]
    return layout


@pytest.fixture(scope="module")
def golden_page(browser, object_server):
    """The golden set's workbench in one page for the module: the table checks reuse it."""
    context = browser.new_context()
    page = context.new_page()
    seen = watch_page(page)
    page.goto(object_server.serve(Workbench.golden()))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    yield page
    assert seen["errors"] == [], seen["errors"]
    context.close()
    object_server.release()


@pytest.mark.parametrize(
    "size",
    [
        pytest.param((1280, 800), id="1280x800"),
        pytest.param((390, 844), id="390x844"),
        # A second desktop width, a little wider: in the slow step (each size takes some 2.3 s).
        pytest.param((1440, 900), id="1440x900", marks=pytest.mark.slow),
    ],
)
def test_every_heading_stays_over_its_numbers_scrolled_down_sideways_by_wheel_and_by_keys(golden_page, size):
    page = golden_page
    page.set_viewport_size({"width": size[0], "height": size[1]})
    grid = page.locator(".wb-grid")
    grid.evaluate("g => { g.scrollTop = 0; g.scrollLeft = 0; g.scrollIntoView(); }")
    # The table draws the rows of its new size and scroll position a frame or more later (in CI a
    # check made at once found no row in view, the size before this one having left it scrolled).
    page.wait_for_function(f"g => ({LAYOUT_JS})(g).rows >= 5", arg=grid.element_handle())
    n_columns = page.locator(".wb-grid-head .wb-cell").count()
    # The golden set's table is wider than the screen at each size: it must scroll sideways.
    assert grid.evaluate("g => g.scrollWidth > g.clientWidth + 100")
    seen: set[int] = set()
    check_layout(grid, seen)

    def settled():
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

    # Down, as a mouse wheel or a trackpad scrolls it.
    box = grid.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.6)
    page.mouse.wheel(0, 600)
    page.wait_for_function("g => g.scrollTop >= 600", arg=grid.element_handle())
    settled()
    check_layout(grid, seen)
    # Sideways with a trackpad: wheel events with deltaX, a step at a time as a swipe sends them.
    for _ in range(4):
        page.mouse.wheel(90, 0)
    # Whatever scrolled (the table, or rows in a scroller of their own), the headings must follow.
    scrolled = "g => g.scrollLeft >= 300 || [...g.querySelectorAll('*')].some((e) => e.scrollLeft > 0)"
    page.wait_for_function(scrolled, arg=grid.element_handle(), timeout=5_000)
    settled()
    check_layout(grid, seen)
    assert grid.evaluate("g => g.scrollLeft") >= 300
    # Sideways as a script or a scrollbar sets it, to the far end: the last columns in view.
    grid.evaluate("g => { g.scrollLeft = g.scrollWidth; }")
    settled()
    layout = check_layout(grid, seen)
    assert layout["columns"][-1]["inView"], layout["scroll"]
    # By keys: the table focused, eight steps left and a page down.
    grid.focus()
    start = grid.evaluate("g => g.scrollLeft")
    for _ in range(8):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("PageDown")
    page.wait_for_function(f"g => g.scrollLeft < {start} && g.scrollTop > 700", arg=grid.element_handle())
    settled()
    check_layout(grid, seen)
    # By Tab through the headings' sort buttons: each one scrolls into view beside the query
    # column, not under it, and every column is then in view in turn.
    page.locator(".wb-grid-head .wb-sort").first.focus()
    for c in range(1, n_columns):
        page.keyboard.press("Tab")
        expect(page.locator(".wb-grid-head .wb-sort").nth(c)).to_be_focused()
        settled()
        layout = check_layout(grid, seen)
        assert layout["columns"][c]["inView"], (c, layout["scroll"])
    assert seen == set(range(n_columns))


def test_the_headings_read_whole_and_name_ap_and_ndcg(golden_page):
    page = golden_page
    page.set_viewport_size({"width": 1440, "height": 900})
    labels = [re.sub(r"\s+", " ", t).strip(" ▲▼") for t in page.locator(".wb-grid-head .wb-cell").all_text_contents()]
    for measure in ("AP", "NDCG@10"):
        assert [f"{measure} base", f"{measure} cand.", f"{measure} Δ"] == [
            x for x in labels if x.startswith(f"{measure} ")
        ]
    # No heading is cut: each fits its cell (a heading wraps rather than hides its end).
    clipped = page.locator(".wb-grid-head .wb-sort").evaluate_all(
        "els => els.filter((b) => b.scrollWidth > b.clientWidth + 1 || b.parentElement.scrollHeight > b.parentElement.clientHeight + 1).map((b) => b.textContent)"
    )
    assert clipped == []


# A collection made to show the query view's edge cases: q1 has results in both runs, with
# documents nobody judged; the candidate has no results for q2; the baseline finds nothing
# relevant for q3. Judged documents that no run retrieved: r, z and w (q1), a (q2).
QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1, "z": 0, "w": 0, "r": 3},
    "q2": {"a": 1, "m": 3},
    "q3": {"e": 1, "f": 0},
}
BASELINE = {"q1": {"a": 3.0, "x": 2.5, "b": 2.0, "y": 1.0}, "q2": {"m": 2.0, "u": 1.0}, "q3": {"f": 2.0, "v": 1.0}}
CANDIDATE = {"q1": {"c": 3.0, "a": 2.0, "x": 1.0}, "q3": {"e": 1.0}}


@pytest.fixture(scope="module")
def small_page(browser, object_server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    seen = watch_page(page)
    page.goto(object_server.serve(Workbench(QRELS, BASELINE, CANDIDATE)))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    yield page
    assert seen["errors"] == [], seen["errors"]
    context.close()
    object_server.release()


def open_query(page, qid: str) -> None:
    page.locator(f'.wb-row[data-qid="{qid}"] .wb-link').click()
    expect(page.locator(".wb-query .wb-heading")).to_contain_text(qid)
    expect(page.locator(".wb-terms-run").first).to_be_visible()


def test_a_run_with_no_results_says_no_results_in_the_values_the_terms_and_the_figures(small_page):
    page = small_page
    open_query(page, "q2")
    expect(page.locator(".wb-query-values thead th").nth(2)).to_have_text("candidate (no results)")
    relevant = sum(1 for g in QRELS["q2"].values() if g >= 1)
    expect(page.locator(".wb-terms-run.wb-run-1 .wb-term")).to_have_text(
        [f"No results for this query: every measure counts 0, and all {relevant} relevant documents are missed."]
    )
    expect(page.locator(".wb-list.wb-run-1")).to_contain_text("No results for this query")
    page.locator(".wb-run-switch .wb-run-button", has_text="candidate").click()
    expect(page.locator(".wb-figures")).to_have_text("No results for this query in this run: no list to show.")
    # The note about figures of the other run's list does not stay behind.
    expect(page.locator(".wb-figure-note")).to_have_text("")
    text = page.locator(".wb-query").text_content()
    for broken in ("= =", "rank none", "/ 0 ="):
        assert broken not in text, broken
    assert not BAD_WORDS.search(text), text
    page.locator(".wb-run-switch .wb-run-button", has_text="baseline").click()
    expect(page.locator(".wb-figure .fig").first).to_be_visible()


def test_a_query_a_run_has_no_result_for_is_said_counted_0_where_its_own_summary_skips_it(small_page):
    # The candidate has no results for judged q2: trec_eval without -c skips it in the candidate's
    # own summary; the page's means and comparison pair it with the baseline's and count it 0, and say so.
    notes = small_page.locator(".wb-summaries .wb-note")
    expect(notes).to_contain_text(
        [
            "baseline: 3 queries evaluated",
            "candidate: 2 queries evaluated; 1 judged has no results in the run (skipped",
            "candidate: 1 query has no result in this run: counted as 0 there, as trec_eval -c counts it",
        ]
    )
    # P@10 of the candidate over the three queries, q2 as 0: (0.2 + 0 + 0.1) / 3; skipped it would be 0.15.
    expect(small_page.locator('.wb-summary .wb-means tr[data-measure="P_10"] td').nth(1)).to_have_text(
        metrics.format_number((0.2 + 0 + 0.1) / 3, 4)
    )


def test_a_run_that_finds_nothing_relevant_says_so_rather_than_rank_none(small_page):
    page = small_page
    open_query(page, "q3")
    expect(page.locator(".wb-terms-run.wb-run-0 .wb-term").first).to_have_text(
        "R = 1: 0 retrieved, 1 missed. No relevant result retrieved."
    )
    assert "rank none" not in page.locator(".wb-query").text_content()


def unjudged(qrels: dict, run: dict, qid: str) -> set[str]:
    return {docid for docid in run.get(qid, {}) if docid not in qrels[qid]}


def ranked(run: dict, qid: str) -> list[str]:
    """A run's documents for a query, best score first (the golden runs and these have no ties)."""
    return sorted(run[qid], key=run[qid].get, reverse=True)


def check_figures(page, qrels: dict, run: dict, qid: str, level: int = 1) -> None:
    """The figures on a run's list (all of it shown) mark each result as the qrels judge it, and
    the conventions figure counts the query's judged documents and lists their grades."""
    docs = ranked(run, qid)
    judged = qrels[qid]
    binary, conventions = page.locator(".wb-figure").nth(0), page.locator(".wb-figure").nth(1)
    marks = [" ".join(t.split()) for t in binary.locator(".rl-activate .mark").all_text_contents()]
    assert marks == [
        "? unjudged" if d not in judged else "✓ relevant" if judged[d] >= level else "✗ not relevant" for d in docs
    ]
    grades = [" ".join(t.split()) for t in conventions.locator(".rl-activate .grade").all_text_contents()]
    assert [g == "? unjudged" for g in grades] == [d not in judged for d in docs]
    assert all(g.endswith(f" {judged[d]}") for g, d in zip(grades, docs, strict=True) if d in judged)
    outside = sum(1 for d in judged if d not in run[qid])
    ideal = ", ".join(map(str, sorted(judged.values(), reverse=True)))
    expect(conventions.locator(".conv-detail .metric-note")).to_contain_text(
        f"Ideal order {ideal}: from all {len(judged)} judged documents ({outside} not retrieved)"
    )


def test_unjudged_documents_are_marked_unjudged_and_the_judged_documents_counted_from_the_qrels(small_page):
    page = small_page
    open_query(page, "q1")
    for r, run in enumerate((BASELINE, CANDIDATE)):
        for docid in run["q1"]:
            mark = page.locator(f'.wb-list.wb-run-{r} .wb-result[data-docid="{docid}"] .wb-mark')
            grade = QRELS["q1"].get(docid)
            expect(mark).to_have_text(
                "? unjudged" if grade is None else "✓ relevant" if grade >= 1 else "✗ not relevant"
            )
    # Every judged document of the query: a, b and c in the lists, r missed, z and w judged 0 and
    # retrieved by neither run.
    judged = len(QRELS["q1"])
    for r in (0, 1):
        expect(page.locator(f".wb-terms-run.wb-run-{r} .wb-term", has_text="Ideal DCG")).to_contain_text(
            f"(from the {judged} judged documents of this query)"
        )
    n = len(unjudged(QRELS, BASELINE, "q1"))
    expect(page.locator(".wb-figure-note")).to_contain_text(
        f"{n} of these results are unjudged: the figures mark them unjudged (?) and count them as not relevant"
    )
    check_figures(page, QRELS, BASELINE, "q1")


def test_the_golden_sets_unjudged_results_and_judged_documents_counted_from_its_files(golden_page):
    topics, documents, qrels, baseline, candidate = golden.load()
    qrels, runs = qrels.to_dict(), [baseline.to_dict(), candidate.to_dict()]
    qid = "g003"
    page = golden_page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator(".wb-search").fill(qid)
    open_query(page, qid)
    for r in (0, 1):
        marked = page.locator(f".wb-list.wb-run-{r} .wb-result.is-unjudged").evaluate_all(
            "els => els.map((e) => e.dataset.docid)"
        )
        assert set(marked) == unjudged(qrels, runs[r], qid)
        expect(page.locator(f".wb-terms-run.wb-run-{r} .wb-term", has_text="Ideal DCG")).to_contain_text(
            f"(from the {len(qrels[qid])} judged documents of this query)"
        )
    assert len(runs[0][qid]) == 30  # the figures show all 30 results
    expect(page.locator(".wb-figure-note")).to_contain_text(
        f"{len(unjudged(qrels, runs[0], qid))} of these results are unjudged"
    )
    check_figures(page, qrels, runs[0], qid)
    page.locator(".wb-query .wb-close").click()
    page.locator(".wb-search").fill("")


def test_at_relevance_level_2_a_grade_1_document_no_run_retrieved_is_counted_once(browser, object_server):
    # d is graded 1: not relevant at level 2, judged all the same, and retrieved by neither run.
    # (q2: the statistics need two queries.)
    qrels = {"q1": {"a": 2, "b": 1, "d": 1, "z": 0}, "q2": {"e": 2}}
    baseline = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"e": 1.0}}
    candidate = {"q1": {"b": 2.0, "a": 1.0}, "q2": {"f": 1.0}}
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    seen = watch_page(page)
    page.goto(object_server.serve(Workbench(qrels, baseline, candidate, relevance_level=2)))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    open_query(page, "q1")
    for r in (0, 1):
        expect(page.locator(f".wb-terms-run.wb-run-{r} .wb-term", has_text="Ideal DCG")).to_contain_text(
            f"(from the {len(qrels['q1'])} judged documents of this query)"
        )
    check_figures(page, qrels, baseline, "q1", level=2)
    assert seen["errors"] == [], seen["errors"]
    context.close()
    object_server.release()
