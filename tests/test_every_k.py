"""Every k at once: the charts of figures 1 and 2 (chart.js), and the step-throughs of figure 1's
AP terms and the unjudged figure's documents. Expected values come from explainer.metrics."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.conventions import DISAGREEING_ORDERS, ConventionsState
from explainer.figures.ndcg import NdcgState
from explainer.figures.unjudged import OUTSIDE_JUDGED, UnjudgedState
from explainer.metrics import format_number as fmt

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
    expect(page.locator(".kchart-legend")).to_have_text(
        "● the precision at each relevant rank. AP = (the sum of the 4 ● + 2 zeros for the relevant"
        f" documents the list missed) / R = 6 = {ap}."
    )
    expect(page.locator(".metric[data-metric=ap] .metric-formula")).to_contain_text(f"= {ap}")
    # A flip redraws the chart from the new state.
    page.locator('.rl-row[data-rank="2"] button.rl-activate').click()
    flipped = BinaryState(relevant=[r in (1, 2, 4, 5, 9) for r in range(1, 13)], missed=1, k=3)
    wait_chart(page, 1, binary_expected(flipped)["recall"])
    wait_chart(page, 0, binary_expected(flipped)["precision"])


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
    """Two orders of the same documents, each a link: NDCG@3 prefers the first, NDCG@10 the second."""
    trec = page.locator('tr[data-convention="linear-judged"] .conv-value')
    shown = {}
    for order in DISAGREEING_ORDERS:
        for k in (3, 10):
            page.goto(f"{server.url}/conventions?order={','.join(str(d + 1) for d in order)}&k={k}")
            value = ConventionsState(order=list(order), k=k).values["linear-judged"]
            expect(trec).to_have_text(fmt(value))
            expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
            expect(page.locator(".query-notice")).to_be_hidden()
            shown[order, k] = value
    first, second = DISAGREEING_ORDERS
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
        expect(page.locator(".kchart-legend")).to_have_text(
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
