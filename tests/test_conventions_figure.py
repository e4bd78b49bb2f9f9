"""The conventions figure in a real Chromium: what a reader sees and does, and its sync with Python.

Every expected number is computed with explainer.metrics (support.expected), never read back from the page.
What the figure shows and does in the browser alone is checked on its own light page; two tests serve
a ConventionsFigure from this process (a Panel page): one does each kind of interaction once and reads
Python's state after each, one sets Python's state.
"""

from __future__ import annotations

import re

import pytest

from explainer.catalog.conventions import BY_KEY, CONVENTIONS
from explainer.figures.conventions import (
    HIT_RATE_NAMES,
    MAX_MISSED,
    ConventionsFigure,
    ConventionsState,
)
from explainer.figures.ndcg import ARTICLE_GRADES, TITLES
from explainer.metrics import format_number as fmt

from support.expect import expect
from support.expected import convention_row, ranked, recall_and_hit_rate_texts
from support.page import ShownFigure
from support.server import on_server, wait_until

pytestmark = pytest.mark.browser

ARTICLE = list(ARTICLE_GRADES)
IDENTITY = list(range(8))


class Fig(ShownFigure):
    """One served ConventionsFigure: its table, arithmetic and steppers, and the figure itself."""

    root_class = ".fig-conventions"

    def __init__(self, page, figure):
        super().__init__(page, figure)
        self.detail = page.locator(".conv-detail")
        self.recall = self.formula("recall")
        self.hit_rate = self.formula("hit-rate")

    def convention(self, key):
        return self.page.locator(f'tr[data-convention="{key}"]')

    def stepper(self, grade, which):
        name = "One fewer" if which == "-" else "One more"
        return self.page.get_by_role("button", name=f"{name} missed document of grade {grade}")

    def expect_state(self, grades, order, k, missed, active="linear-judged"):
        shown = ranked(grades, order)
        expect(self.handle).to_have_text(f"k = {k}")
        expect(self.page.locator(".rl-row .rl-title")).to_have_text([TITLES[doc] for doc in order])
        for c in CONVENTIONS:
            expect(self.convention(c.key).locator(".conv-value")).to_have_text(
                convention_row(shown, k, missed, c)["value"]
            )
        row = convention_row(shown, k, missed, BY_KEY[active])
        expect(self.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
        expect(self.detail.locator(".conv-sum")).to_have_text([row["dcg"], row["idcg"]])
        recall, hit_rate = recall_and_hit_rate_texts(shown, k, missed)
        expect(self.recall).to_have_text(recall)
        expect(self.hit_rate).to_have_text(hit_rate)
        for grade in (1, 2, 3):
            expect(self.page.locator(f'.stepper[data-grade="{grade}"] output')).to_have_text(str(missed.count(grade)))


def opened(page, url: str, figure=None) -> Fig:
    page.goto(url)
    shown = Fig(page, figure)
    expect(shown.convention("linear-judged").locator(".conv-value")).to_have_text("0.47")
    return shown


@pytest.fixture
def fig(page, serve_object):
    """A ConventionsFigure served from this process: for what the page and Python do together."""
    figure = ConventionsFigure()
    return opened(page, serve_object(figure), figure)


@pytest.fixture
def light(page, server):
    """The figure's own page, a light page of the explainer's server (a second to load, where a Panel
    page takes several): for what the figure shows and does in the browser alone."""
    return opened(page, server.url + "/conventions")


@pytest.mark.browser
def test_the_default_table_and_arithmetic_match_the_metrics(light):
    light.expect_state(ARTICLE, IDENTITY, 5, [3, 2])
    expect(light.detail.locator(".metric-formula")).to_have_text("NDCG@5 = 3.75 / 8.03 = 0.47")
    expect(light.page.locator(".conv-table tbody tr")).to_have_count(len(CONVENTIONS))
    for c in CONVENTIONS:
        expect(light.convention(c.key).locator(".conv-used li")).to_have_text(list(c.used_by))
    expect(light.recall).to_have_text("Recall@5 = 3 / 8 = 0.38")
    expect(light.hit_rate).to_have_text("Hit rate@5 = 1.00")
    # ir_measures' Success@k: "Some refer to this measure as Recall@k"; Elasticsearch's RecallAtK is recall.
    expect(light.page.locator(".metric[data-metric=hit-rate] .metric-blind")).to_have_text(
        f"Also called {', '.join(HIT_RATE_NAMES)}. Some call it Recall@k, the name that ir_measures (Recall@k) and"
        " Elasticsearch (RecallAtK) give to recall itself."
    )
    values = ConventionsState().values
    expect(light.live).to_have_text(
        "NDCG@5 by convention: "
        + ", ".join(fmt(values[c.key]) for c in CONVENTIONS)
        + ". Recall@5 0.38, hit rate@5 1.00"
    )
    light.assert_clean_text()


@pytest.mark.browser
def test_focusing_or_hovering_a_row_shows_its_arithmetic(light):
    shown = list(ARTICLE)
    light.convention("exponential-judged-uncut").focus()
    row = convention_row(shown, 5, [3, 2], BY_KEY["exponential-judged-uncut"])
    expect(light.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
    expect(light.detail.locator(".conv-sum").nth(1)).to_have_text(row["idcg"])
    assert row["idcg"].startswith("Ideal DCG, all 10, no cut = 7/1.00 + 7/1.58 + 7/2.00")
    expect(light.detail.locator(".metric-name")).to_contain_text("Quepid nDCG@10 scorer")
    expect(light.convention("exponential-judged-uncut")).to_have_class(re.compile(r"\bis-active\b"))
    expect(light.detail.locator(".metric-note")).to_have_text(
        "Ideal order 3, 3, 3, 2, 2, 2, 1, 1, 0, 0: from all 10 judged documents (2 not retrieved), every one counted."
    )

    light.convention("linear-list").hover()
    row = convention_row(shown, 5, [3, 2], BY_KEY["linear-list"])
    expect(light.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
    expect(light.detail.locator(".metric-note")).to_have_text(
        "Ideal order 3, 3, 2, 2, 1, 1, 0, 0: from the 8 results in the list only, top 5 counted."
    )
    expect(light.convention("exponential-judged-uncut")).not_to_have_class(re.compile(r"\bis-active\b"))


@pytest.mark.browser
def test_promoting_and_regrading_change_every_number_as_the_metrics_say(light):
    light.button(6).click()  # the grade-3 service bulletin moves into the top 5
    order = [0, 1, 2, 3, 5, 4, 6, 7]
    light.expect_state(ARTICLE, order, 5, [3, 2])
    assert light.active()["rank"] == "5"

    light.select(3).select_option("3")  # rank 3 holds document 2
    grades = [1, 3, 3, 2, 0, 3, 1, 2]
    light.expect_state(grades, order, 5, [3, 2])

    light.button(1).click()
    expect(light.hint).to_have_text("Rank 1 is already at the top.")


@pytest.mark.browser
def test_the_marker_moves_k_by_keyboard(light):
    light.marker.focus()
    light.marker.press("ArrowUp")
    light.expect_state(ARTICLE, IDENTITY, 4, [3, 2])
    light.marker.press("Home")
    light.expect_state(ARTICLE, IDENTITY, 1, [3, 2])
    light.marker.press("End")  # past the eight results, to k = 10
    light.expect_state(ARTICLE, IDENTITY, 10, [3, 2])
    expect(light.page.locator(".rl-row.rl-below")).to_have_count(0)


@pytest.mark.browser
def test_the_missed_steppers_change_the_judged_ideals_and_recall_only(light):
    list_only = {
        c.key: light.convention(c.key).locator(".conv-value").inner_text() for c in CONVENTIONS if c.ideal == "list"
    }
    light.stepper(1, "+").click()
    light.expect_state(ARTICLE, IDENTITY, 5, [3, 2, 1])
    light.stepper(3, "-").click()
    light.expect_state(ARTICLE, IDENTITY, 5, [2, 1])
    # The ideal of the list alone does not see documents outside the list.
    for key, text in list_only.items():
        expect(light.convention(key).locator(".conv-value")).to_have_text(text)
    expect(light.stepper(3, "-")).to_have_attribute("aria-disabled", "true")
    light.stepper(3, "-").click(force=True)  # nothing to remove: no change
    light.expect_state(ARTICLE, IDENTITY, 5, [2, 1])

    # Up to the maximum, then a hint.
    for _ in range(MAX_MISSED - 2):
        light.stepper(2, "+").click()
    missed = sorted([2, 1] + [2] * (MAX_MISSED - 2), reverse=True)
    light.expect_state(ARTICLE, IDENTITY, 5, missed)
    expect(light.stepper(1, "+")).to_have_attribute("aria-disabled", "true")
    light.stepper(1, "+").click(force=True)
    expect(light.hint).to_have_text(f"At most {MAX_MISSED} missed documents.")


@pytest.mark.browser
def test_the_whole_figure_works_by_keyboard_alone(light):
    seen = light.tab_stops()
    rows = [a["rank"] for a in seen if "rl-activate" in a["cls"]]
    selects = [a["rank"] for a in seen if a["tag"] == "select"]
    conventions = [a["convention"] for a in seen if a["convention"]]
    assert rows == selects == [str(r) for r in range(1, 9)], seen
    assert conventions == [c.key for c in CONVENTIONS], seen
    assert sum("rl-cutoff" in a["cls"] for a in seen) == 1
    assert sum(a["label"].startswith(("One more missed", "One fewer missed")) for a in seen) == 6
    assert any(a["text"] == "Reset" for a in seen)

    light.tab_to(lambda a: a["convention"] == "exponential-list")
    row = convention_row(list(ARTICLE), 5, [3, 2], BY_KEY["exponential-list"])
    expect(light.detail.locator(".metric-formula")).to_have_text(row["ndcg"])

    light.tab_to(lambda a: a["label"] == "One more missed document of grade 3")
    light.page.keyboard.press("Enter")

    light.tab_to(lambda a: "rl-cutoff" in a["cls"])
    light.page.keyboard.press("PageDown")

    light.tab_to(lambda a: "rl-activate" in a["cls"] and a["rank"] == "6")
    light.page.keyboard.press(" ")
    order = [0, 1, 2, 3, 5, 4, 6, 7]
    light.page.keyboard.press("Enter")  # the focus followed the result to rank 5
    order = [0, 1, 2, 5, 3, 4, 6, 7]
    # Shift+Tab back from the table passed every row: the first one is shown.
    light.expect_state(ARTICLE, order, 8, [3, 3, 2], active="linear-judged")

    light.tab_to(lambda a: a["text"] == "Reset")
    light.page.keyboard.press("Enter")
    light.expect_state(ARTICLE, IDENTITY, 5, [3, 2])


@pytest.mark.browser
def test_python_changes_reach_the_page(fig):
    # First a round trip from the page, so the session is surely live before Python speaks.
    fig.marker.focus()
    fig.marker.press("ArrowUp")
    fig.wait_python(k=4)
    state = fig.figure.state
    # Python's own values follow a promotion: the grade-3 service bulletin into the top 5 raises each.
    fig.marker.press("ArrowDown")
    fig.wait_python(k=5)
    fig.button(6).click()
    fig.wait_python(order=[0, 1, 2, 3, 5, 4, 6, 7])
    before = ConventionsState().values
    assert all(state.values[c.key] > before[c.key] for c in CONVENTIONS)
    on_server(state.param.update, order=list(IDENTITY))
    on_server(state.param.update, k=3)
    fig.expect_state(ARTICLE, IDENTITY, 3, [3, 2])
    on_server(state.add_missed_grade, 1)
    fig.expect_state(ARTICLE, IDENTITY, 3, [3, 2, 1])
    on_server(state.promote, 4)
    order = [0, 1, 3, 2, 4, 5, 6, 7]
    fig.expect_state(ARTICLE, order, 3, [3, 2, 1])
    on_server(state.update_from_dict, {"grades": [0] * 8, "missed_grades": []})
    fig.expect_state([0] * 8, order, 3, [])
    expect(fig.detail.locator(".metric-formula")).to_have_text("NDCG@3 = 0 (nothing relevant: the ideal is 0)")
    expect(fig.recall).to_have_text("Recall@3 = 0 (R = 0: nothing to find)")
    expect(fig.hit_rate).to_have_text("Hit rate@3 = 0.00")
    fig.assert_clean_text()


@pytest.mark.browser
def test_a_link_sets_the_state_and_clicks_rewrite_the_link(page, server):
    page.goto(server.url + "/conventions?k=3&missed_grades=1&grades=0,0,3,0,0,0,0,2")
    shown = Fig(page, None)
    grades = [0, 0, 3, 0, 0, 0, 0, 2]
    shown.expect_state(grades, IDENTITY, 3, [1])
    expect(page.locator(".query-notice")).to_be_hidden()
    expect(page.get_by_role("button", name="Presenter view")).to_be_visible()

    shown.stepper(2, "+").click()
    page.wait_for_url(re.compile(r"\?grades=0,0,3,0,0,0,0,2&k=3&missed_grades=2,1$"))
    shown.button(3).click()
    page.wait_for_url(re.compile(r"grades=0,3,0,0,0,0,0,2&order=1,3,2,4,5,6,7,8&k=3&missed_grades=2,1$"))
    other = page.context.new_page()
    other.goto(page.url)
    Fig(other, None).expect_state(grades, [0, 2, 1, 3, 4, 5, 6, 7], 3, [2, 1])


@pytest.mark.browser
def test_each_kind_of_interaction_reaches_python(page, serve_object):
    """A link, a click, a select, the marker's keys, the steppers by mouse and key, Space and Enter on a
    row, Reset and Example, each read back from Python (what each shows: the light page's tests above).

    The figure is standalone and opened by a link, so that Reset (the link's state) and Example differ."""
    figure = ConventionsFigure(standalone=True)
    page.goto(serve_object(figure) + "?k=3&missed_grades=1&grades=0,0,3,0,0,0,0,2")
    shown = Fig(page, figure)
    grades = [0, 0, 3, 0, 0, 0, 0, 2]
    shown.expect_state(grades, IDENTITY, 3, [1])
    shown.wait_python(k=3, missed_grades=[1], grades=grades)

    shown.button(3).click()
    order = [0, 2, 1, 3, 4, 5, 6, 7]
    shown.wait_python(order=order)
    shown.select(1).select_option("3")  # rank 1 holds document 0
    grades = [3, 0, 3, 0, 0, 0, 0, 2]
    shown.wait_python(grades=grades)
    shown.marker.focus()
    shown.marker.press("ArrowDown")
    shown.wait_python(k=4)
    shown.marker.press("End")
    shown.wait_python(k=10)
    shown.stepper(1, "+").click()
    shown.wait_python(missed_grades=[1, 1])
    shown.stepper(1, "-").click()
    shown.wait_python(missed_grades=[1])

    shown.tab_to(lambda a: a["label"] == "One more missed document of grade 3")
    page.keyboard.press("Enter")
    shown.wait_python(missed_grades=[3, 1])
    shown.tab_to(lambda a: "rl-activate" in a["cls"] and a["rank"] == "6")
    page.keyboard.press(" ")
    order = [0, 2, 1, 3, 5, 4, 6, 7]
    shown.wait_python(order=order)
    page.keyboard.press("Enter")  # the focus followed the result to rank 5
    order = [0, 2, 1, 5, 3, 4, 6, 7]
    shown.wait_python(order=order)

    shown.tab_to(lambda a: a["text"] == "Reset")
    page.keyboard.press("Enter")
    shown.wait_python(k=3, missed_grades=[1], grades=[0, 0, 3, 0, 0, 0, 0, 2], order=IDENTITY)
    page.get_by_role("button", name="Example").click()
    wait_until(lambda: figure.state.to_dict() == ConventionsState().to_dict(), message="Python back to the default")


# A bad link value, ignored with a notice while the rest applies: tests/js/links.test.mjs.


@pytest.mark.browser
def test_presenter_mode_from_the_link(page, server):
    page.goto(server.url + "/conventions?present=1")
    expect(page.locator(".fig-frame.present")).to_be_attached()
    expect(page.get_by_role("button", name="Presenter view")).to_have_attribute("aria-pressed", "true")
