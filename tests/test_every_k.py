"""Every k at once: the charts of figures 1 and 2 (chart.js), and the step-throughs of figure 1's
AP terms and the unjudged figure's documents. Expected values come from explainer.metrics."""

from __future__ import annotations

import re

import pytest

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.conventions import DISAGREEING_MISSED, ConventionsState
from explainer.figures.ndcg import NdcgState
from explainer.figures.unjudged import OUTSIDE_JUDGED, UnjudgedState
from explainer.metrics import format_number as fmt

from support.expect import expect
from support.page import serious_violations
from support.server import wait_python

pytestmark = pytest.mark.browser


def chart_values(page, series: int, kind: str = "circle") -> list[float]:
    """The values a chart's series draws, k = 1 first (each mark carries the value it draws)."""
    marks = page.locator(f"g.kchart-s{series} {kind}")
    expect(marks.first).to_have_attribute("data-value", re.compile(r"."))
    return [float(v) for v in marks.evaluate_all("els => els.map((e) => e.dataset.value)")]


def wait_chart(page, series: int, expected: list[float], kind: str = "circle") -> None:
    """The chart's series comes to draw these values (it redraws after each change; the figure
    sits in a Panel component's shadow root, which the query walks into)."""
    page.wait_for_function(
        """([sel, expected]) => {
          const deep = (root) => [...root.querySelectorAll(sel),
            ...[...root.querySelectorAll("*")].filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot))];
          const got = deep(document).map((e) => Number(e.dataset.value));
          return got.length === expected.length && got.every((v, i) => Math.abs(v - expected[i]) < 1e-9);
        }""",
        arg=[f"g.kchart-s{series} {kind}", expected],
    )


def column_center(page, k: int) -> tuple[float, float]:
    """Where column k of the chart is on the screen."""
    box = page.locator("g.kchart-s0 circle, g.kchart-s0 rect").nth(k - 1).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# -- figure 1 -------------------------------------------------------------------------------------


def binary_expected(state: BinaryState) -> dict[str, list[float]]:
    grades, n = state.grades, state.n_relevant
    ks = range(1, len(grades) + 1)
    return {
        "precision": [metrics.precision_at_k(grades, k) for k in ks],
        "recall": [metrics.recall_at_k(grades, k, n) for k in ks],
    }


def test_the_binary_chart_draws_p_and_r_at_every_k_as_the_metrics_core_computes_them(page, server):
    page.goto(f"{server.url}/binary?relevant=1,4,5,9&missed=2&k=3")
    state = BinaryState(relevant=[r in (1, 4, 5, 9) for r in range(1, 13)], missed=2, k=3)
    expected = binary_expected(state)
    wait_chart(page, 0, expected["precision"])
    assert chart_values(page, 0) == pytest.approx(expected["precision"])
    assert chart_values(page, 1) == pytest.approx(expected["recall"])
    # AP's terms: a dot at each relevant rank, at the precision there.
    dots = page.locator(".kchart-dot")
    expect(dots).to_have_count(4)
    ranks = [int(v) for v in dots.evaluate_all("els => els.map((e) => e.dataset.k)")]
    assert ranks == metrics.relevant_ranks(state.grades)
    values = [float(v) for v in dots.evaluate_all("els => els.map((e) => e.dataset.value)")]
    assert values == pytest.approx([metrics.precision_at_k(state.grades, r) for r in ranks])
    ap = fmt(metrics.average_precision(state.grades, state.n_relevant))
    expect(page.locator(".kchart:not(.prchart) .kchart-legend")).to_have_text(
        "● the precision at each relevant rank. AP = (the sum of the 4 ● + 2 zeros for the relevant"
        f" documents the list missed) / 6 = {ap}, dividing by R = 6."
    )
    expect(page.locator(".metric[data-metric=ap] .metric-formula")).to_contain_text(f"= {ap}")
    # A flip redraws the chart from the new state.
    page.locator('.rl-row[data-rank="2"] button.rl-activate').click()
    flipped = BinaryState(relevant=[r in (1, 2, 4, 5, 9) for r in range(1, 13)], missed=1, k=3)
    wait_chart(page, 1, binary_expected(flipped)["recall"])
    wait_chart(page, 0, binary_expected(flipped)["precision"])


# A click writes the numbers at once and draws the rest in an animation-frame callback (kit's
# beforePaint); a callback asked for after the click runs after it, in the same frame, before the
# frame paints: what it reads is what that frame shows.
CLICK_THEN_NEXT_FRAME = """([row, watch, marks]) => new Promise((resolve) => {
  const deep = (root, sel) => [...root.querySelectorAll(sel),
    ...[...root.querySelectorAll("*")].filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot, sel))];
  const button = deep(document, `.rl-row[data-rank="${row}"] button.rl-activate`)[0];
  button.click();
  const numbers = deep(document, watch)[0].textContent;
  requestAnimationFrame(() => resolve({
    numbers,
    marks: marks.map((sel) => deep(document, sel).map((e) => Number(e.dataset.value))),
    titles: deep(document, ".rl-row .rl-title").map((e) => e.textContent),
  }));
})"""


def test_a_click_draws_the_chart_in_the_frame_that_paints_its_numbers(page, server):
    page.goto(f"{server.url}/binary?relevant=1,4,5,9&missed=2&k=3")
    state = BinaryState(relevant=[r in (1, 4, 5, 9) for r in range(1, 13)], missed=2, k=3)
    wait_chart(page, 0, binary_expected(state)["precision"])
    got = page.evaluate(
        CLICK_THEN_NEXT_FRAME,
        [2, ".metric[data-metric=ap] .metric-formula", ["g.kchart-s0 circle", "g.kchart-s1 circle"]],
    )
    flipped = BinaryState(relevant=[r in (1, 2, 4, 5, 9) for r in range(1, 13)], missed=1, k=3)
    assert got["numbers"].endswith(f"= {fmt(metrics.average_precision(flipped.grades, flipped.n_relevant))}")
    expected = binary_expected(flipped)
    assert got["marks"] == [pytest.approx(expected["precision"]), pytest.approx(expected["recall"])]


def test_a_promote_draws_the_rows_and_the_chart_in_the_frame_that_paints_its_numbers(page, server):
    page.goto(f"{server.url}/ndcg?grades=0,2,3,1,0,3,2,1&k=4")
    state = NdcgState(grades=[0, 2, 3, 1, 0, 3, 2, 1], k=4)
    wait_chart(page, 1, ndcg_expected(state)["ndcg"])
    titles = page.evaluate(CLICK_THEN_NEXT_FRAME.replace("button.click();", ""), [1, ".metric-formula", []])["titles"]
    got = page.evaluate(
        CLICK_THEN_NEXT_FRAME, [3, ".metric-ndcgText .metric-formula", ["g.kchart-s1 circle", "g.kchart-s0 rect"]]
    )
    promoted = NdcgState(grades=[0, 2, 3, 1, 0, 3, 2, 1], order=[0, 2, 1, 3, 4, 5, 6, 7], k=4)
    assert got["numbers"].endswith(fmt(metrics.ndcg_at_k(promoted.ranked_grades, 4, promoted.gain)))
    assert got["titles"] == [titles[0], titles[2], titles[1], *titles[3:]]
    expected = ndcg_expected(promoted)
    assert got["marks"] == [pytest.approx(expected["ndcg"]), pytest.approx(expected["dcg"])]


def test_clicking_dragging_and_keys_on_the_binary_chart_move_k_in_the_list_and_the_url(page, server):
    page.goto(f"{server.url}/binary")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 5")
    slider = page.get_by_role("slider", name="Cutoff k on the chart of P@k and R@k")
    expect(slider).to_have_attribute("aria-valuenow", "5")

    page.mouse.click(*column_center(page, 9))
    expect(handle).to_have_text("k = 9")
    expect(slider).to_have_attribute("aria-valuenow", "9")
    expect(page).to_have_url(re.compile(r"[?&]k=9\b"))

    x, y = column_center(page, 2)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(*column_center(page, 7), steps=6)
    expect(handle).to_have_text("k = 7")
    page.mouse.move(*column_center(page, 11), steps=6)
    page.mouse.up()
    expect(handle).to_have_text("k = 11")
    expect(page).to_have_url(re.compile(r"[?&]k=11\b"))

    slider.focus()
    slider.press("ArrowLeft")
    expect(handle).to_have_text("k = 10")
    slider.press("Home")
    expect(handle).to_have_text("k = 1")
    slider.press("End")
    expect(handle).to_have_text("k = 12")
    expect(slider).to_have_attribute("aria-valuetext", re.compile(r"^k = 12: P@12 "))
    expect(page).to_have_url(re.compile(r"[?&]k=12\b"))
    # The limits are the state class's: no k past the list.
    slider.press("ArrowRight")
    expect(page.locator(".metric[data-metric=precision] .metric-formula")).to_have_text(re.compile(r"^P@12 "))
    assert BinaryState.param.k.bounds == (1, 12)


def test_keys_on_the_chart_reach_python(page, serve_object):
    figure = BinaryFigure()
    page.goto(serve_object(figure))
    slider = page.get_by_role("slider", name="Cutoff k on the chart of P@k and R@k")
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    wait_python(figure, lambda: figure.state.k == 7, message="Python to see k = 7")


def test_stepping_through_ap_shows_one_term_a_step_and_ends_on_the_ap_card(page, server):
    page.goto(f"{server.url}/binary")
    state = BinaryState()
    grades, n = state.grades, state.n_relevant
    ranks = metrics.relevant_ranks(grades)
    status = page.locator(".player-status")
    step = page.get_by_role("button", name="One step of AP, one term at a time")
    handle = page.locator(".rl-cutoff-handle")
    total = 0.0
    for i, rank in enumerate(ranks, 1):
        step.click()
        precision = metrics.precision_at_k(grades, rank)
        total += precision
        hits = len(metrics.relevant_ranks(grades, rank))
        expect(status).to_have_text(
            f"Term {i} of {n}: P@{rank} = {hits} / {rank} = {fmt(precision)}. Sum so far {fmt(total)}."
        )
        expect(handle).to_have_text(f"k = {rank}")
    for i in range(len(ranks) + 1, n + 1):
        step.click()
        expect(status).to_have_text(
            f"Term {i} of {n}: a relevant document the list missed counts 0. Sum so far {fmt(total)}."
        )
    step.click()
    ap = metrics.average_precision(grades, n)
    expect(status).to_have_text(f"AP = {fmt(total)} / {n} = {fmt(ap)}")
    expect(page.locator(".metric[data-metric=ap] .metric-formula")).to_contain_text(f"/ {n} = {fmt(ap)}")


def test_a_readers_change_ends_the_ap_step_through(page, server):
    page.goto(f"{server.url}/binary")
    status = page.locator(".player-status")
    page.get_by_role("button", name="One step of AP, one term at a time").click()
    expect(status).to_have_text(re.compile(r"^Term 1 of "))
    page.locator('.rl-row[data-rank="1"] button.rl-activate').click()
    expect(status).to_have_text("")


# Figure 1's precision-recall view, for relevant=1,4,5,9&missed=2: R = 6, written out by hand.
PR_PRECISION = [1 / 1, 1 / 2, 1 / 3, 2 / 4, 3 / 5, 3 / 6, 3 / 7, 3 / 8, 4 / 9, 4 / 10, 4 / 11, 4 / 12]
PR_RECALL = [1 / 6, 1 / 6, 1 / 6, 2 / 6, 3 / 6, 3 / 6, 3 / 6, 3 / 6, 4 / 6, 4 / 6, 4 / 6, 4 / 6]
PR_AP = (1 / 1 + 2 / 4 + 3 / 5 + 4 / 9 + 0 + 0) / 6
# After a click on rank 2 (relevant now; one missed document fewer, so R stays 6).
FLIPPED_PRECISION = [1 / 1, 2 / 2, 2 / 3, 3 / 4, 4 / 5, 4 / 6, 4 / 7, 4 / 8, 5 / 9, 5 / 10, 5 / 11, 5 / 12]
FLIPPED_RECALL = [1 / 6, 2 / 6, 2 / 6, 3 / 6, 4 / 6, 4 / 6, 4 / 6, 4 / 6, 5 / 6, 5 / 6, 5 / 6, 5 / 6]
FLIPPED_AP = (1 / 1 + 2 / 2 + 3 / 4 + 4 / 5 + 5 / 9 + 0) / 6


def pr_points(page) -> tuple[list[float], list[float]]:
    """The precision-recall view's points, k = 1 first: their recalls and their precisions."""
    points = page.locator(".prchart-points circle")
    recall = points.evaluate_all("els => els.map((e) => Number(e.dataset.recall))")
    return recall, points.evaluate_all("els => els.map((e) => Number(e.dataset.precision))")


def wait_pr(page, recall: list[float], precision: list[float], ap: float) -> None:
    """The precision-recall view comes to draw these points and this AP line."""
    page.wait_for_function(
        """([recall, precision, ap]) => {
          const deep = (root, sel) => [...root.querySelectorAll(sel),
            ...[...root.querySelectorAll("*")].filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot, sel))];
          const points = deep(document, ".prchart-points circle");
          const line = deep(document, ".prchart-ap")[0];
          const near = (a, b) => Math.abs(a - b) < 1e-9;
          return points.length === recall.length && line && near(Number(line.dataset.value), ap) &&
            points.every((e, i) => near(Number(e.dataset.recall), recall[i]) && near(Number(e.dataset.precision), precision[i]));
        }""",
        arg=[recall, precision, ap],
    )


def centre_y(locator) -> float:
    box = locator.bounding_box()
    return box["y"] + box["height"] / 2


def assert_pr_drawn(page, relevant: list[int], k: int, ap: float) -> None:
    """Where the view draws its marks: the AP line at AP's height between precision 0 (a missed
    document's zero) and precision 1 (the point at k = 1, relevant), the current k ringed."""
    top = centre_y(page.locator('.prchart-points circle[data-k="1"]'))
    bottom = centre_y(page.locator(".prchart-missed circle").first)
    assert centre_y(page.locator(".prchart-ap")) == pytest.approx(bottom + (top - bottom) * ap, abs=1)
    emphasised = page.locator(".prchart-points circle.is-relevant").evaluate_all("els => els.map((e) => +e.dataset.k)")
    assert emphasised == relevant
    ring, point = page.locator(".prchart-current").bounding_box(), page.locator(f'.prchart-points circle[data-k="{k}"]')
    assert ring["x"] + ring["width"] / 2 == pytest.approx(
        point.bounding_box()["x"] + point.bounding_box()["width"] / 2, abs=1
    )
    assert centre_y(page.locator(".prchart-current")) == pytest.approx(centre_y(point), abs=1)


@pytest.mark.parametrize("mode", ["served", pytest.param("exported", marks=pytest.mark.slow)])
def test_the_precision_recall_view_draws_each_k_and_ap_as_the_mean_of_the_relevant_ranks_precision(
    page, server, exported_site, mode
):
    query = "?relevant=1,4,5,9&missed=2&k=3"
    page.goto(f"{server.url}/binary{query}" if mode == "served" else (exported_site / "binary.html").as_uri() + query)
    view = page.get_by_role("button", name="Precision-recall")
    expect(page.get_by_role("button", name="By k")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".prchart")).to_be_hidden()
    view.click()
    expect(view).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".prchart")).to_be_visible()
    expect(page.get_by_role("slider", name="Cutoff k on the chart of P@k and R@k")).to_be_hidden()
    wait_pr(page, PR_RECALL, PR_PRECISION, PR_AP)
    recall, precision = pr_points(page)
    assert recall == pytest.approx(PR_RECALL) and precision == pytest.approx(PR_PRECISION)
    expect(page.locator(".prchart-missed circle")).to_have_count(2)
    assert_pr_drawn(page, [1, 4, 5, 9], 3, PR_AP)
    expect(page.locator(".prchart-ap-label")).to_have_text(f"AP {PR_AP:.2f}")
    expect(page.locator(".prchart .kchart-legend")).to_have_text(
        f"AP = (1.00 + 0.50 + 0.60 + 0.44 + 0 + 0) / 6 = {PR_AP:.2f}: the mean of the precision at each"
        " relevant rank (●), and 0 for each relevant document never retrieved (○), the dashed line."
    )
    # The picture is an image whose name and description say its values.
    image = page.get_by_role("img", name="Precision against recall at each k, with AP as a line, k = 1 to 12")
    expect(image).to_have_accessible_description(
        re.compile(r"k = 3: R@3 0\.17, P@3 0\.33; k = 4 \(relevant\): R@4 0\.33, P@4 0\.50;")
    )
    expect(page.locator(".prchart .kchart-key")).to_have_text("R@3 0.17, P@3 0.33")

    # A click on a row: the points and the line follow.
    page.locator('.rl-row[data-rank="2"] button.rl-activate').click()
    wait_pr(page, FLIPPED_RECALL, FLIPPED_PRECISION, FLIPPED_AP)
    expect(page.locator(".prchart-missed circle")).to_have_count(1)
    assert_pr_drawn(page, [1, 2, 4, 5, 9], 3, FLIPPED_AP)
    expect(page.locator(".prchart-ap-label")).to_have_text(f"AP {FLIPPED_AP:.2f}")
    # A change of k on the list's marker: the ring moves to the point at the new k.
    marker = page.locator(".rl-cutoff")
    marker.focus()
    marker.press("ArrowDown")
    expect(page.locator(".rl-cutoff-handle")).to_have_text("k = 4")
    expect(page.locator(".prchart .kchart-key")).to_have_text(f"R@4 {3 / 6:.2f}, P@4 {3 / 4:.2f}")
    assert_pr_drawn(page, [1, 2, 4, 5, 9], 4, FLIPPED_AP)
    # The same numbers as the AP card, which the metrics core checks against trec_eval.
    assert FLIPPED_AP == pytest.approx(metrics.average_precision([1, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0], 6))
    expect(page.locator(".metric[data-metric=ap] .metric-formula")).to_contain_text(f"= {FLIPPED_AP:.2f}")
    if mode == "served":
        assert serious_violations(page) == []
    page.get_by_role("button", name="By k").click()
    expect(page.locator(".prchart")).to_be_hidden()
    expect(page.get_by_role("slider", name="Cutoff k on the chart of P@k and R@k")).to_be_visible()


def test_the_precision_recall_view_with_no_relevant_document_says_ap_is_0(page, server):
    page.goto(f"{server.url}/binary?relevant=&missed=0&k=2")
    page.get_by_role("button", name="Precision-recall").click()
    wait_pr(page, [0.0] * 12, [0.0] * 12, 0.0)
    expect(page.locator(".prchart-missed circle")).to_have_count(0)
    expect(page.locator(".prchart .kchart-legend")).to_have_text("AP = 0: no relevant document, found or missed.")


def touch_drag(page, context, start: tuple[float, float], end: tuple[float, float], steps: int = 10) -> None:
    """A finger's drag from start to end, as real touch events (Chromium makes them pointer events
    of pointerType "touch", and scrolls the page if the element lets the gesture pan)."""
    cdp = context.new_cdp_session(page)
    (x0, y0), (x1, y1) = start, end
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, steps + 1):
        point = {"x": x0 + (x1 - x0) * i / steps, "y": y0 + (y1 - y0) * i / steps}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize(("name", "start", "end"), [("binary", 2, 9), ("ndcg", 7, 2)])
def test_a_finger_dragging_across_the_chart_moves_k(browser, server, name, start, end):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/{name}")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 5" if name == "binary" else "k = 8")
    page.locator(".kchart-svg").first.scroll_into_view_if_needed()
    # The drag runs along the middle of the chart, from column `start` to column `end`.
    middle = centre_y(page.locator(".kchart-svg").first)
    page.touchscreen.tap(column_center(page, start)[0], middle)
    expect(handle).to_have_text(f"k = {start}")
    scrolled = page.evaluate("window.scrollX")
    touch_drag(page, context, (column_center(page, start)[0], middle), (column_center(page, end)[0], middle))
    expect(handle).to_have_text(f"k = {end}")
    expect(page.locator(".kchart-svg").first).to_have_attribute("aria-valuenow", str(end))
    expect(page).to_have_url(re.compile(rf"[?&]k={end}\b"))
    assert page.evaluate("window.scrollX") == scrolled, "the page moved sideways instead"
    context.close()


# -- figure 2 -------------------------------------------------------------------------------------


def ndcg_expected(state: NdcgState) -> dict[str, list[float]]:
    ranked = state.ranked_grades
    ks = range(1, len(ranked) + 1)
    return {
        "dcg": [metrics.dcg_at_k(ranked, k, state.gain) for k in ks],
        "ndcg": [metrics.ndcg_at_k(ranked, k, state.gain) for k in ks],
    }


@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_the_ndcg_chart_draws_dcg_and_ndcg_at_every_k_as_the_metrics_core_computes_them(page, server, gain):
    page.goto(f"{server.url}/ndcg?grades=0,2,3,1,0,3,2,1&k=4&gain={gain}")
    state = NdcgState(grades=[0, 2, 3, 1, 0, 3, 2, 1], k=4, gain=gain)
    expected = ndcg_expected(state)
    wait_chart(page, 1, expected["ndcg"])
    wait_chart(page, 0, expected["dcg"], kind="rect")
    expect(page.locator(".kchart-key")).to_contain_text(f"NDCG@4 {fmt(expected['ndcg'][3])}")
    expect(page.locator(".kchart-max")).to_have_text(fmt(max(expected["dcg"])))


def test_clicking_and_keys_on_the_ndcg_chart_move_k_in_the_list_and_the_url(page, server):
    page.goto(f"{server.url}/ndcg")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 8")
    page.mouse.click(*column_center(page, 3))
    expect(handle).to_have_text("k = 3")
    expect(page).to_have_url(re.compile(r"[?&]k=3\b"))
    slider = page.get_by_role("slider", name="Cutoff k on the chart of NDCG@k and DCG@k")
    slider.focus()
    slider.press("ArrowRight")
    expect(handle).to_have_text("k = 4")
    expect(page.locator(".metric-ndcgText .metric-formula")).to_have_text(re.compile(r"^NDCG@4 "))
    expect(page).to_have_url(re.compile(r"[?&]k=4\b"))


# -- the unjudged figure ----------------------------------------------------------------------------


def test_judging_one_document_a_step_ends_on_the_revealed_numbers(page, server):
    page.goto(f"{server.url}/unjudged")
    state = UnjudgedState()
    unjudged = [rank for rank, judged in enumerate(state.judged, 1) if not judged]
    status = page.locator(".player-status")
    step = page.get_by_role("button", name="One step of judging, one document at a time")
    judged = list(state.judged)
    for i, rank in enumerate(unjudged, 1):
        step.click()
        judged[rank - 1] = True
        values = UnjudgedState(judged=judged).values
        grade = state.grades[rank - 1]
        expect(status).to_have_text(
            f"Judged {i} of {len(unjudged)}: rank {rank} gets grade {grade}. NDCG@{state.k} = {fmt(values['ndcg'])}."
        )
        expect(page.locator(f'.rl-row[data-rank="{rank}"]')).to_have_attribute("data-grade", str(grade))
    step.click()
    revealed = UnjudgedState(reveal=True).values
    pool = list(state.grades) + list(OUTSIDE_JUDGED)
    assert revealed["ndcg"] == metrics.ndcg_at_k(state.grades, state.k, "exponential", judged=pool)
    expect(status).to_have_text(
        f"All judged: Judged@{state.k} {fmt(1.0)}, P@{state.k} {fmt(revealed['precision'])},"
        f" NDCG@{state.k} {fmt(revealed['ndcg'])}, as with the judge's grades revealed."
    )
    expect(page.locator(".metric-ndcgText .metric-formula")).to_contain_text(f"= {fmt(revealed['ndcg'])}")


# -- the conventions figure: k past the list ----------------------------------------------------


def test_the_conventions_figure_shows_ndcg_at_3_and_ndcg_at_10_disagreeing(page, server):
    """The same list with two sets of missed documents, each a link: NDCG@3 prefers the first, NDCG@10 the second."""
    trec = page.locator('tr[data-convention="linear-judged"] .conv-value')
    shown = {}
    for missed in DISAGREEING_MISSED:
        for k in (3, 10):
            page.goto(f"{server.url}/conventions?missed_grades={','.join(map(str, missed))}&k={k}")
            value = ConventionsState(missed_grades=list(missed), k=k).values["linear-judged"]
            expect(trec).to_have_text(fmt(value))
            expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
            expect(page.locator(".query-notice")).to_be_hidden()
            shown[missed, k] = value
    first, second = DISAGREEING_MISSED
    assert shown[first, 3] > shown[second, 3]
    assert shown[first, 10] < shown[second, 10]


def test_the_conventions_marker_goes_past_the_last_row_to_k_10_and_the_url_keeps_it(page, server):
    page.goto(f"{server.url}/conventions")
    marker = page.locator(".rl-cutoff")
    marker.focus()
    marker.press("End")
    expect(page.locator(".rl-cutoff-handle")).to_have_text("k = 10")
    expect(marker).to_have_attribute("aria-valuetext", "k = 10: the top 10 results count, past the list's 8")
    expect(page).to_have_url(re.compile(r"[?&]k=10\b"))
    state = ConventionsState(k=10)
    expect(page.locator('tr[data-convention="linear-judged"] .conv-value')).to_have_text(
        fmt(state.values["linear-judged"])
    )
    # Under the last row, not over it.
    last = page.locator('.rl-row[data-rank="8"]').bounding_box()
    assert marker.bounding_box()["y"] > last["y"] + last["height"]
    marker.press("ArrowUp")
    expect(page.locator(".rl-cutoff-handle")).to_have_text("k = 9")


# -- the light page ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["binary", pytest.param("ndcg", marks=pytest.mark.slow)])
def test_the_exported_light_page_draws_the_same_chart(page, exported_site, name):
    if name == "binary":
        page.goto((exported_site / "binary.html").as_uri() + "?relevant=3,4,9&missed=0&k=6")
        state = BinaryState(relevant=[r in (3, 4, 9) for r in range(1, 13)], missed=0, k=6)
        expected = binary_expected(state)
        wait_chart(page, 0, expected["precision"])
        wait_chart(page, 1, expected["recall"])
        ap = fmt(metrics.average_precision(state.grades, state.n_relevant))
        expect(page.locator(".kchart:not(.prchart) .kchart-legend")).to_have_text(
            f"● the precision at each relevant rank. AP = the mean of the 3 ● = {ap}."
        )
    else:
        page.goto((exported_site / "ndcg.html").as_uri() + "?grades=3,0,0,2,1,0,3,1&k=2&gain=linear")
        expected = ndcg_expected(NdcgState(grades=[3, 0, 0, 2, 1, 0, 3, 1], k=2, gain="linear"))
        wait_chart(page, 1, expected["ndcg"])
        wait_chart(page, 0, expected["dcg"], kind="rect")
    slider = page.locator(".kchart-svg")
    slider.focus()
    slider.press("ArrowRight")
    expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {7 if name == 'binary' else 3}")
