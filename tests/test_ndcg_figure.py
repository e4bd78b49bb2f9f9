"""Figure 2 (NDCG) in a real Chromium: what a reader sees and does, and its sync with Python.

Every expected number is computed here with explainer.metrics and format_number (or written
out as arithmetic), never read back from the page.
"""

from __future__ import annotations

import re

import pytest

from explainer import metrics
from explainer.figures.ndcg import TITLES, NdcgFigure, NdcgState
from explainer.metrics import format_number as fmt

from support.expect import expect
from support.expected import dcg_sum_text, ranked
from support.page import ShownFigure
from support.server import on_server, wait_until

pytestmark = pytest.mark.browser

ARTICLE = [1, 3, 0, 2, 0, 3, 1, 2]
IDENTITY = list(range(8))
# -- expected texts, from the metrics core ---------------------------------------------------


def ndcg_text(grades, k, gain):
    dcg = metrics.dcg_at_k(grades, k, gain)
    ideal = metrics.dcg_at_k(metrics.ideal_grades(grades), k, gain)
    return f"NDCG@{k} = {fmt(dcg)} / {fmt(ideal)} = {fmt(metrics.ndcg_at_k(grades, k, gain))}"


def sum_text(name, grades, k, gain):
    """'DCG@k = g/log2(2) + g/log2(3) + ... = total', gains over log2(rank + 1)."""
    return f"{name}@{k} = {dcg_sum_text(grades, k, gain)}"


def announcement(grades, k, gain):
    dcg = metrics.dcg_at_k(grades, k, gain)
    ideal = metrics.dcg_at_k(metrics.ideal_grades(grades), k, gain)
    return f"NDCG@{k} {fmt(metrics.ndcg_at_k(grades, k, gain))}: DCG {fmt(dcg)}, ideal DCG {fmt(ideal)}"


def cumulative(terms):
    total, sums = 0.0, []
    for term in terms:
        total += term
        sums.append(total)
    return sums


def first_inversion(grades):
    return next((i for i in range(len(grades) - 1) if grades[i] < grades[i + 1]), -1)


# -- the page ----------------------------------------------------------------------------------


class Fig(ShownFigure):
    """One served NdcgFigure: its list, arithmetic, ideal table and player, and the figure itself."""

    root_class = ".fig-ndcg"

    def __init__(self, page, figure):
        super().__init__(page, figure)
        self.ndcg = page.locator(".metric-ndcgText .metric-formula")
        self.dcg = page.locator(".metric-dcgText .metric-formula")
        self.idcg = page.locator(".metric-idcgText .metric-formula")
        self.status = page.locator(".player-status")
        self.play = page.locator(".player button").first
        self.step = page.get_by_role("button", name="One step of the animation")
        self.reset = page.get_by_role("button", name="Reset")
        self.rows = page.locator(".rl-row")
        self.ideal_rows = page.locator(".ideal-table tbody tr")

    def gain(self, value):
        return self.page.locator(f"input[name=gain][value={value}]")

    def expect_state(self, grades, order, k, gain):
        """The page shows this state: its formulas, cutoff, gain and titles."""
        shown = ranked(grades, order)
        expect(self.ndcg).to_have_text(ndcg_text(shown, k, gain))
        expect(self.dcg).to_have_text(sum_text("DCG", shown, k, gain))
        expect(self.idcg).to_have_text(sum_text("Ideal DCG", metrics.ideal_grades(shown), k, gain))
        expect(self.handle).to_have_text(f"k = {k}")
        expect(self.marker).to_have_attribute("aria-valuenow", str(k))
        expect(self.gain(gain)).to_be_checked()
        expect(self.rows.locator(".rl-title")).to_have_text([TITLES[doc] for doc in order])
        for rank, grade in enumerate(shown, 1):
            expect(self.row(rank)).to_have_attribute("data-grade", str(grade))

    def expect_selects(self, ranked_grades):
        for rank, grade in enumerate(ranked_grades, 1):
            expect(self.select(rank)).to_have_value(str(grade))


def opened(page, url: str, figure=None) -> Fig:
    page.goto(url)
    shown = Fig(page, figure)
    expect(shown.ndcg).to_have_text("NDCG@8 = 10.48 / 14.95 = 0.70")
    return shown


@pytest.fixture
def fig(page, serve_object):
    """An NdcgFigure served from this process: for what the page and Python do together."""
    figure = NdcgFigure()
    return opened(page, serve_object(figure), figure)


@pytest.fixture
def light(page, server):
    """The figure's own page, a light page of the explainer's server (a second to load, where a Panel
    page takes several): for what the figure shows and does in the browser alone."""
    return opened(page, server.url + "/ndcg")


# -- the tests ---------------------------------------------------------------------------------


def test_default_numbers_for_both_gains_and_both_cutoffs(light):
    # The article's numbers, also checked against the metrics core.
    for k, gain, text in [
        (8, "exponential", "NDCG@8 = 10.48 / 14.95 = 0.70"),
        (3, "exponential", "NDCG@3 = 5.42 / 12.92 = 0.42"),
        (3, "linear", "NDCG@3 = 2.89 / 5.89 = 0.49"),
        (8, "linear", "NDCG@8 = 5.79 / 7.50 = 0.77"),
    ]:
        assert ndcg_text(ARTICLE, k, gain) == text
    assert sum_text("DCG", ARTICLE, 8, "exponential") == (
        "DCG@8 = 1/1.00 + 7/1.58 + 0/2.00 + 3/2.32 + 0/2.58 + 7/2.81 + 1/3.00 + 3/3.17 = 10.48"
    )

    light.expect_state(ARTICLE, IDENTITY, 8, "exponential")
    expect(light.live).to_have_text(announcement(ARTICLE, 8, "exponential"))

    # k with the keyboard on the marker: 8 -> 5 -> 4 -> 3.
    light.marker.focus()
    light.marker.press("PageUp")
    expect(light.handle).to_have_text("k = 5")
    light.marker.press("ArrowUp")
    light.marker.press("ArrowLeft")
    expect(light.ndcg).to_have_text("NDCG@3 = 5.42 / 12.92 = 0.42")
    light.expect_state(ARTICLE, IDENTITY, 3, "exponential")
    expect(light.marker).to_have_attribute("aria-valuetext", "k = 3: the top 3 results count")

    light.gain("linear").click()
    expect(light.ndcg).to_have_text("NDCG@3 = 2.89 / 5.89 = 0.49")
    light.expect_state(ARTICLE, IDENTITY, 3, "linear")

    light.marker.press("End")
    expect(light.ndcg).to_have_text("NDCG@8 = 5.79 / 7.50 = 0.77")
    light.expect_state(ARTICLE, IDENTITY, 8, "linear")
    expect(light.live).to_have_text(announcement(ARTICLE, 8, "linear"))

    light.gain("exponential").click()
    expect(light.ndcg).to_have_text("NDCG@8 = 10.48 / 14.95 = 0.70")

    # The other keys, and the bounds.
    light.marker.press("Home")
    expect(light.handle).to_have_text("k = 1")
    light.marker.press("ArrowUp")
    light.marker.press("PageDown")
    expect(light.handle).to_have_text("k = 4")
    light.marker.press("ArrowRight")
    light.marker.press("ArrowDown")
    expect(light.ndcg).to_have_text(ndcg_text(ARTICLE, 6, "exponential"))
    light.marker.press("PageDown")
    expect(light.handle).to_have_text("k = 8")
    expect(light.page.locator(".rl-row.rl-below")).to_have_count(0)
    light.marker.press("Home")
    expect(light.page.locator(".rl-row.rl-below")).to_have_count(7)
    expect(light.page.locator(".ideal-table tbody tr.below")).to_have_count(7)


@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_each_row_and_the_ideal_table_match_the_metrics(light, gain):
    if gain == "linear":
        light.gain("linear").click()
    terms = metrics.dcg_terms(ARTICLE, 8, gain)
    expect(light.rows.locator(".rl-rank")).to_have_text([str(rank) for rank in range(1, 9)])
    expect(light.rows.locator(".grade")).to_have_text([re.compile(rf"(^|\s){g}$") for g in ARTICLE])
    expect(light.rows.locator(".gain-col")).to_have_text([f"{metrics.gain_value(g, gain):g}" for g in ARTICLE])
    expect(light.rows.locator(".disc-col")).to_have_text([fmt(metrics.discount(rank)) for rank in range(1, 9)])
    expect(light.rows.locator(".dg-value")).to_have_text([fmt(t) for t in terms])
    expect(light.rows.locator(".cum")).to_have_text([fmt(s) for s in cumulative(terms)])
    assert fmt(cumulative(terms)[-1]) == fmt(metrics.dcg_at_k(ARTICLE, 8, gain))
    light.expect_selects(ARTICLE)

    ideal = metrics.ideal_grades(ARTICLE)
    assert ideal == [3, 3, 2, 2, 1, 1, 0, 0]
    ideal_terms = metrics.dcg_terms(ideal, 8, gain)
    expect(light.ideal_rows).to_have_count(8)
    expect(light.ideal_rows.locator("td:nth-child(1)")).to_have_text([str(rank) for rank in range(1, 9)])
    expect(light.ideal_rows.locator("td:nth-child(2)")).to_have_text([re.compile(rf"(^|\s){g}$") for g in ideal])
    expect(light.ideal_rows.locator("td:nth-child(3)")).to_have_text([fmt(t) for t in ideal_terms])
    expect(light.ideal_rows.locator("td:nth-child(4)")).to_have_text([fmt(s) for s in cumulative(ideal_terms)])
    assert fmt(cumulative(ideal_terms)[-1]) == fmt(metrics.dcg_at_k(ideal, 8, gain))


def test_promoting_by_click_enter_and_space_and_rank_1_stays(light):
    order = list(IDENTITY)

    def promoted(rank):
        order[rank - 2], order[rank - 1] = order[rank - 1], order[rank - 2]
        return list(order)

    light.button(6).click()
    expected = promoted(6)
    assert expected == [0, 1, 2, 3, 5, 4, 6, 7]
    assert ndcg_text(ranked(ARTICLE, expected), 8, "exponential") != ndcg_text(ARTICLE, 8, "exponential")
    light.expect_state(ARTICLE, expected, 8, "exponential")
    # The moved result keeps the focus, now one place up.
    assert light.active()["rank"] == "5"

    light.button(5).focus()
    light.page.keyboard.press("Enter")
    expected = promoted(5)
    light.expect_state(ARTICLE, expected, 8, "exponential")

    light.button(4).focus()
    light.page.keyboard.press(" ")
    expected = promoted(4)
    assert expected == [0, 1, 5, 2, 3, 4, 6, 7]
    light.expect_state(ARTICLE, expected, 8, "exponential")
    expect(light.live).to_have_text(announcement(ranked(ARTICLE, expected), 8, "exponential"))

    before = light.ndcg.text_content()
    light.button(1).click()
    expect(light.hint).to_have_text("Rank 1 is already at the top.")
    light.expect_state(ARTICLE, expected, 8, "exponential")
    assert light.ndcg.text_content() == before


def test_step_walks_the_animation_to_the_ideal_order(light):
    grades = list(ARTICLE)
    assert first_inversion(grades) == 0

    light.step.click()
    expect(light.handle).to_have_text("k = 1")
    expect(light.ndcg).to_have_text(ndcg_text(grades, 1, "exponential"))
    expect(light.status).to_have_text(f"Adding rank 1 of 8: DCG@1 = {fmt(metrics.dcg_at_k(grades, 1))}")
    for k in range(2, 9):
        light.step.click()
        expect(light.handle).to_have_text(f"k = {k}")
        expect(light.ndcg).to_have_text(ndcg_text(grades, k, "exponential"))
    expect(light.status).to_have_text("All 8 ranks added. NDCG@8 = 0.70")

    order = list(IDENTITY)
    # Each swap raises NDCG@8 strictly: exactly (metrics), and on the page, where the DCG written
    # in the NDCG formula always grows while the two-decimal NDCG never falls (it shows 0.98 thrice).
    numbers = re.compile(r"^NDCG@8 = (\d+\.\d\d) / 14\.95 = (\d\.\d\d)$")
    before_exact = metrics.ndcg_at_k(ranked(grades, order), 8)
    before_page = tuple(map(float, numbers.match(light.ndcg.text_content()).groups()))
    swaps = 0
    while (i := first_inversion(ranked(grades, order))) >= 0:
        order[i], order[i + 1] = order[i + 1], order[i]
        swaps += 1
        light.step.click()
        expect(light.ndcg).to_have_text(ndcg_text(ranked(grades, order), 8, "exponential"))
        expect(light.rows.locator(".rl-title")).to_have_text([TITLES[doc] for doc in order])
        exact = metrics.ndcg_at_k(ranked(grades, order), 8)
        page_dcg, page_ndcg = map(float, numbers.match(light.ndcg.text_content()).groups())
        assert exact > before_exact, f"swap {swaps}"
        assert page_dcg > before_page[0] and page_ndcg >= before_page[1], (
            f"swap {swaps}: {before_page} then {page_dcg, page_ndcg}"
        )
        before_exact, before_page = exact, (page_dcg, page_ndcg)
        expect(light.status).to_have_text(f"Swap {swaps} of 13: NDCG@8 = {fmt(exact)}")
    assert swaps == 13
    assert ranked(grades, order) == [3, 3, 2, 2, 1, 1, 0, 0]
    expect(light.ndcg).to_have_text("NDCG@8 = 14.95 / 14.95 = 1.00")

    light.step.click()
    expect(light.status).to_have_text("Ideal order after 13 swaps: NDCG@8 = 1.00")
    light.expect_state(ARTICLE, order, 8, "exponential")


def test_plays_speed_sets_the_time_between_steps_even_mid_run(light, context):
    """Slow steps every 1,800 ms, Normal every 900, Fast every 450 (the page's clock is driven by
    hand: a paused clock is its context's, so the test has a context of its own)."""
    light.page.emulate_media(reduced_motion="reduce")
    speed = light.page.get_by_role("combobox", name="Speed of the animation")
    expect(speed).to_have_value("Normal")
    light.page.clock.install(time=0)
    light.page.clock.pause_at(1_000)  # the page's time moves only as run_for moves it
    speed.select_option("Slow")
    light.play.click()
    expect(light.handle).to_have_text("k = 1")  # Play's first step is at once
    light.page.clock.run_for(1_700)
    expect(light.handle).to_have_text("k = 1")
    light.page.clock.run_for(200)  # 1,900 ms: one step
    expect(light.handle).to_have_text("k = 2")
    speed.select_option("Fast")  # from now on, a step every 450 ms
    light.page.clock.run_for(450 * 3 + 50)
    expect(light.handle).to_have_text("k = 5")
    light.page.clock.run_for(450 * ((8 - 5) + 13 + 1))  # the rest: cutoff steps, swaps, the last
    expect(light.status).to_have_text("Ideal order after 13 swaps: NDCG@8 = 1.00")
    expect(light.play).to_have_text("▶ Play")


def test_play_pause_and_play_to_the_end(light, context):
    """Play, Pause, and Play again to the end, on a paused page clock that moves only as the test
    moves it, a step (900 ms) or two at a time: what happens in two steps' time is seen without
    waiting for it, and no step comes from real time passing on a busy machine. The clock is its
    context's: the test has a context of its own."""
    light.page.emulate_media(reduced_motion="reduce")
    light.page.clock.install(time=0)
    light.page.clock.pause_at(1_000)
    expect(light.play).to_have_text("▶ Play")
    expect(light.play).to_have_attribute("aria-label", "Play the animation")

    light.play.click()
    expect(light.handle).to_have_text("k = 1")
    expect(light.play).to_have_text("❚❚ Pause")
    expect(light.play).to_have_attribute("aria-label", "Pause the animation")
    light.page.clock.run_for(2 * 900)
    expect(light.handle).to_have_text("k = 3")

    light.play.click()
    expect(light.play).to_have_text("▶ Play")
    expect(light.play).to_have_attribute("aria-label", "Play the animation")
    paused = (light.ndcg.text_content(), light.handle.text_content(), light.status.text_content())
    # Paused: two steps' worth of time later, nothing has changed.
    light.page.clock.run_for(2 * 900 + 100)
    assert (light.ndcg.text_content(), light.handle.text_content(), light.status.text_content()) == paused

    # Play on from where it paused, to the end: it stops by itself at the ideal order.
    light.play.click()
    expect(light.handle).to_have_text("k = 4")
    expect(light.play).to_have_text("❚❚ Pause")
    remaining = (8 - 4) + 13 + 1  # cutoff steps, swaps, the step that finds the ideal order
    light.page.clock.run_for(900 * remaining + 100)
    expect(light.status).to_have_text("Ideal order after 13 swaps: NDCG@8 = 1.00")
    expect(light.ndcg).to_have_text("NDCG@8 = 14.95 / 14.95 = 1.00")
    expect(light.play).to_have_text("▶ Play")
    ideal_order = sorted(IDENTITY, key=lambda doc: -ARTICLE[doc])  # stable: equal grades keep their order
    light.expect_state(ARTICLE, ideal_order, 8, "exponential")


def test_reset_returns_to_the_default(light):
    light.step.click()
    light.step.click()
    expect(light.handle).to_have_text("k = 2")
    light.button(3).click()
    light.select(1).select_option("0")
    light.gain("linear").click()
    light.marker.focus()
    light.marker.press("ArrowDown")
    changed_grades = [0, 3, 0, 2, 0, 3, 1, 2]
    changed_order = [0, 2, 1, 3, 4, 5, 6, 7]
    light.expect_state(changed_grades, changed_order, 3, "linear")

    light.reset.click()
    light.expect_state(ARTICLE, IDENTITY, 8, "exponential")
    expect(light.ndcg).to_have_text("NDCG@8 = 10.48 / 14.95 = 0.70")
    expect(light.status).to_have_text("")


def test_changing_a_grade_with_the_select(light):
    light.select(3).select_option("3")
    grades = [1, 3, 3, 2, 0, 3, 1, 2]
    assert metrics.ideal_grades(grades) != metrics.ideal_grades(ARTICLE)
    light.expect_state(grades, IDENTITY, 8, "exponential")
    expect(light.row(3).locator(".gain-col")).to_have_text("7")
    expect(light.ideal_rows.locator("td:nth-child(4)")).to_have_text(
        [fmt(s) for s in cumulative(metrics.dcg_terms(metrics.ideal_grades(grades), 8))]
    )

    # The grade belongs to the document: it moves with it.
    light.button(3).click()
    order = [0, 2, 1, 3, 4, 5, 6, 7]
    light.expect_state(grades, order, 8, "exponential")
    light.expect_selects(ranked(grades, order))

    light.gain("linear").click()
    light.select(8).select_option("0")
    grades = [1, 3, 3, 2, 0, 3, 1, 0]
    light.expect_state(grades, order, 8, "linear")


def test_keyboard_only(light):
    # One round of Tab from the top of the page, until the focus leaves the figure.
    seen = light.tab_stops()

    def where(predicate, what):
        hits = [i for i, a in enumerate(seen) if predicate(a)]
        assert hits, f"Tab never reached {what}: {seen}"
        return hits

    radio = where(lambda a: a["type"] == "radio", "a gain radio")
    assert [seen[i]["value"] for i in radio] == ["exponential"], "one tab stop for the radio group, the checked one"
    play = where(lambda a: a["label"] == "Play the animation", "Play")
    step = where(lambda a: a["label"] == "One step of the animation", "Step")
    reset = where(lambda a: a["tag"] == "button" and "fig-reset" in a["cls"], "Reset")
    rows = where(lambda a: "rl-activate" in a["cls"], "the rows")
    speed = where(lambda a: a["label"] == "Speed of the animation", "the speed menu")
    selects = where(lambda a: a["tag"] == "select" and a["label"] != "Speed of the animation", "the grade selects")
    marker = where(lambda a: "rl-cutoff" in a["cls"], "the cutoff marker")
    chart = where(lambda a: a["label"] == "Cutoff k on the chart of NDCG@k and DCG@k", "the chart's k")
    assert [seen[i]["rank"] for i in rows] == [str(r) for r in range(1, 9)]
    assert [seen[i]["rank"] for i in selects] == [str(r) for r in range(1, 9)]
    assert radio < play < step < speed < reset < rows[:1] and rows[-1] < marker[0] < chart[0]
    # The light page's own buttons: after Reset, predict first, the pictures and the presenter view;
    # after the chart's k, the chart's picture.
    own = ["Predict first", "Save PNG", "Save SVG", "Presenter view", "◐"]
    assert [a["text"] for a in seen[reset[0] + 1 : rows[0]]] == own, seen
    assert seen[reset[0] - 1]["text"] == "↶", seen  # Undo, right before Reset
    assert seen[-1]["text"] == "Save chart", seen
    assert len(seen) == 1 + 4 + 8 + 8 + 1 + 1 + 1 + len(own) + 1, seen  # Play, Step, Speed, Undo

    # And each one works from the keyboard alone.
    light.tab_to(lambda a: "rl-cutoff" in a["cls"])
    light.page.keyboard.press("Home")
    expect(light.handle).to_have_text("k = 1")
    light.page.keyboard.press("End")
    expect(light.handle).to_have_text("k = 8")

    light.tab_to(lambda a: "rl-activate" in a["cls"] and a["rank"] == "4")
    light.page.keyboard.press("Enter")  # rank 4 up to rank 3
    order = [0, 1, 3, 2, 4, 5, 6, 7]
    light.expect_state(ARTICLE, order, 8, "exponential")

    light.tab_to(lambda a: a["type"] == "radio")
    light.page.keyboard.press("ArrowDown")
    light.expect_state(ARTICLE, order, 8, "linear")

    light.tab_to(lambda a: a["label"] == "One step of the animation", "Tab")
    light.page.keyboard.press("Enter")
    expect(light.handle).to_have_text("k = 1")
    light.tab_to(lambda a: "fig-reset" in a["cls"])
    light.page.keyboard.press("Space")
    light.expect_state(ARTICLE, IDENTITY, 8, "exponential")


def test_python_and_browser_stay_in_sync_both_ways(fig, context):
    """Python's changes reach the page, and each kind of interaction reaches Python (what each one shows
    is checked on the light page by the tests above). The clock it installs is its context's: the test
    has a context of its own."""
    state = fig.figure.state
    grades, order, k, gain = list(ARTICLE), list(IDENTITY), 8, "exponential"

    gain = "linear"
    on_server(state.param.update, gain=gain)
    fig.expect_state(grades, order, k, gain)
    k = 5
    on_server(state.param.update, k=k)
    fig.expect_state(grades, order, k, gain)
    order = [7, 6, 5, 4, 3, 2, 1, 0]
    on_server(state.param.update, order=order)
    fig.expect_state(grades, order, k, gain)
    grades = [3, 0, 0, 1, 2, 2, 0, 3]
    on_server(state.param.update, grades=grades)
    fig.expect_state(grades, order, k, gain)
    on_server(state.promote, 8)
    order = [7, 6, 5, 4, 3, 2, 0, 1]
    fig.expect_state(grades, order, k, gain)
    on_server(state.set_grade, 1, 1)
    grades = [3, 0, 0, 1, 2, 2, 0, 1]
    fig.expect_state(grades, order, k, gain)
    expect(fig.live).to_have_text(announcement(ranked(grades, order), k, gain))

    # And back: each browser interaction reaches Python.
    fig.button(2).click()
    order = [6, 7, 5, 4, 3, 2, 0, 1]
    fig.wait_python(order=order)
    fig.select(2).select_option("2")  # rank 2 now holds document 7
    grades = [3, 0, 0, 1, 2, 2, 0, 2]
    fig.wait_python(grades=grades)
    fig.marker.focus()
    fig.marker.press("ArrowDown")
    fig.wait_python(k=6)
    fig.gain("exponential").click()
    fig.wait_python(gain="exponential")
    fig.expect_state(grades, order, 6, "exponential")
    assert state.to_dict() == {"grades": grades, "order": order, "k": 6, "gain": "exponential"}

    # Enter and Space on a row, the radio group's arrow key, Step, Reset, and Play to the end.
    fig.button(3).focus()
    fig.page.keyboard.press("Enter")
    order = [6, 5, 7, 4, 3, 2, 0, 1]
    fig.wait_python(order=order)
    fig.button(4).focus()
    fig.page.keyboard.press(" ")
    order = [6, 5, 4, 7, 3, 2, 0, 1]
    fig.wait_python(order=order)
    fig.gain("exponential").focus()
    fig.page.keyboard.press("ArrowDown")
    fig.wait_python(gain="linear")
    fig.step.click()
    fig.wait_python(k=1, order=order)
    fig.reset.click()
    wait_until(lambda: state.to_dict() == NdcgState().to_dict(), message="Python back to the default")
    on_server(state.update_from_dict, {"k": 2, "gain": "linear"})
    expect(fig.handle).to_have_text("k = 2")
    fig.reset.click()
    wait_until(lambda: state.to_dict() == NdcgState().to_dict(), message="Python back to the default after its change")

    fig.page.emulate_media(reduced_motion="reduce")
    fig.page.clock.install()
    fig.play.click()
    fig.page.clock.run_for(900 * (8 + 13 + 1) + 100)  # the cutoff's steps, the swaps, the last step
    expect(fig.status).to_have_text("Ideal order after 13 swaps: NDCG@8 = 1.00", timeout=25_000)
    ideal_order = sorted(IDENTITY, key=lambda doc: -ARTICLE[doc])  # stable: equal grades keep their order
    fig.wait_python(order=ideal_order, k=8)


def test_the_marker_reads_grammatically_at_k_1(light):
    light.marker.focus()
    light.marker.press("Home")
    expect(light.handle).to_have_text("k = 1")
    expect(light.marker).to_have_attribute("aria-valuetext", "k = 1: the top result counts", timeout=1000)


def test_the_column_headings_sit_over_their_columns(light):
    light.page.set_viewport_size({"width": 1280, "height": 800})  # the wide layout, every column shown
    row = light.button(1)
    for cls in ["grade", "gain-col", "disc-col", "dg", "cum"]:
        heading = light.page.locator(f".ndcg-header .{cls}").bounding_box()
        cell = row.locator(f":scope > .{cls}").bounding_box()
        centre = heading["x"] + heading["width"] / 2
        assert cell["x"] <= centre <= cell["x"] + cell["width"], f"heading {cls!r} at {centre:.0f}, column {cell}"


def test_no_nan_undefined_or_infinity_even_when_every_grade_is_0(fig):
    fig.assert_clean_text()
    fig.marker.focus()
    fig.marker.press("Home")
    expect(fig.handle).to_have_text("k = 1")
    fig.assert_clean_text()

    on_server(fig.figure.state.update_from_dict, {"grades": [0] * 8, "k": 8})
    expect(fig.ndcg).to_have_text(re.compile(r"^NDCG@8 = 0\b.*ideal is 0"))
    assert fmt(metrics.ndcg_at_k([0] * 8, 8)) == "0.00"
    expect(fig.dcg).to_have_text(sum_text("DCG", [0] * 8, 8, "exponential"))
    expect(fig.idcg).to_have_text(sum_text("Ideal DCG", [0] * 8, 8, "exponential"))
    expect(fig.rows.locator(".dg-value")).to_have_text(["0.00"] * 8)
    expect(fig.rows.locator(".cum")).to_have_text(["0.00"] * 8)
    expect(fig.live).to_have_text(announcement([0] * 8, 8, "exponential"))
    fig.assert_clean_text()

    fig.gain("linear").click()
    expect(fig.ndcg).to_have_text(re.compile(r"^NDCG@8 = 0\b.*ideal is 0"))
    fig.marker.press("Home")
    expect(fig.ndcg).to_have_text(re.compile(r"^NDCG@1 = 0\b.*ideal is 0"))
    fig.step.click()
    fig.step.click()
    expect(fig.handle).to_have_text("k = 2")
    fig.assert_clean_text()

    # One graded result brings the numbers back.
    fig.select(5).select_option("1")
    expect(fig.ndcg).to_have_text(ndcg_text([0, 0, 0, 0, 1, 0, 0, 0], 2, "linear"))
    fig.assert_clean_text()
