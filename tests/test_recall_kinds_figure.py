"""The two-recalls figure in a real Chromium: what a reader sees and does, and its sync with Python.

What the figure shows and does in the browser alone is checked on its own light page; two tests
serve a RecallKindsFigure from this process (a Panel page, several seconds on a busy machine): one
does each kind of interaction once and reads Python's state after each, one sets Python's state."""

from __future__ import annotations

import re

import pytest

from explainer.figures.recall_kinds import (
    MODELS,
    RELEVANT,
    RecallKindsFigure,
    RecallKindsState,
)

from support.expect import expect
from support.expected import index_list, recall_kinds_texts
from support.page import ShownFigure
from support.server import on_server, wait_until

pytestmark = pytest.mark.browser


class Fig(ShownFigure):
    """One served RecallKindsFigure: its neighbours, the index's results and both recalls, and the figure itself."""

    root_class = ".fig-recall-kinds"

    def __init__(self, page, figure):
        super().__init__(page, figure)
        self.lesson = page.locator(".rk-lesson")

    def row(self, rank):
        return self.page.locator(f'.rk-row[data-rank="{rank}"]')

    def button(self, rank):
        return self.row(rank).locator("button")

    def model(self, name):
        return self.page.locator(f"input[name=model][value={name}]")

    def expect_state(self, model, missed):
        texts = recall_kinds_texts(model, missed)
        for key in ("ann", "recall", "precision"):
            expect(self.formula(key)).to_have_text(texts[key])
        expect(self.model(model)).to_be_checked()
        expect(self.page.locator(".rk-row.is-missed")).to_have_count(len(missed))
        for rank in range(1, 11):
            expect(self.button(rank)).to_have_attribute("aria-pressed", str(rank in missed).lower())
        expect(self.page.locator(".rk-row .rk-exact .rk-title")).to_have_text(list(MODELS[model]["neighbours"]))
        returned = [t for rank, t in enumerate(index_list(model, missed), 1) if rank in missed]
        expect(self.page.locator(".rk-row .rk-index .rk-title")).to_have_text(returned)


def opened(page, url: str, figure=None) -> Fig:
    page.goto(url)
    shown = Fig(page, figure)
    expect(shown.formula("ann")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    return shown


@pytest.fixture
def fig(page, serve_object):
    """A RecallKindsFigure served from this process: for what the page and Python do together."""
    figure = RecallKindsFigure()
    return opened(page, serve_object(figure), figure)


@pytest.fixture
def light(page, server):
    """The figure's own page, a light page of the explainer's server (a second to load, where a Panel
    page takes several): for what the figure shows and does in the browser alone."""
    return opened(page, server.url + "/recall-kinds")


@pytest.mark.browser
def test_the_defaults_on_the_page(light):
    light.expect_state("suited", [])
    expect(light.formula("recall")).to_have_text("Recall@10 = 7 / 8 = 0.88")
    expect(light.live).to_have_text("ANN recall@10 1.00, recall@10 0.88, precision@10 0.70")
    expect(light.page.locator(".rk-unfound")).to_have_text(
        f"People judged 8 documents relevant. Not in the index's 10: {RELEVANT[5]}."
    )
    # Judgments are words, not colour alone.
    expect(light.page.locator(".rk-row").first.locator(".rk-judged")).to_have_text("● relevant")
    light.assert_clean_text()


@pytest.mark.browser
def test_switching_to_the_mismatched_model_keeps_ann_recall_at_1_and_sinks_relevance_recall(light):
    light.model("mismatched").check()
    light.expect_state("mismatched", [])
    expect(light.formula("ann")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    expect(light.formula("recall")).to_have_text("Recall@10 = 4 / 8 = 0.50")
    expect(light.formula("precision")).to_have_text("P@10 = 4 / 10 = 0.40")
    expect(light.lesson).to_contain_text("ANN recall is 1.00, yet the list holds only 4 of the 8 relevant documents")


@pytest.mark.browser
def test_clicking_rows_makes_the_index_miss_and_find_neighbours(light):
    light.button(6).click()  # not relevant: only ANN recall drops
    light.expect_state("suited", [6])
    expect(light.formula("recall")).to_have_text("Recall@10 = 7 / 8 = 0.88")
    expect(light.lesson).to_contain_text("Each miss lowers ANN recall by 0.10")
    light.button(2).click()  # relevant: both drop
    light.expect_state("suited", [2, 6])
    expect(light.page.locator('.rk-row[data-rank="2"] .rk-index')).to_contain_text(
        f"✗ missed; returned instead: {MODELS['suited']['next'][0]} ○ not relevant"
    )
    light.button(6).click()
    light.expect_state("suited", [2])
    expect(light.live).to_have_text("ANN recall@10 0.90, recall@10 0.75, precision@10 0.60")


@pytest.mark.browser
def test_keyboard_only(light):
    seen = light.tab_stops()
    assert [a["rank"] for a in seen if a["rank"]] == [str(r) for r in range(1, 11)], seen
    assert [a["value"] for a in seen if a["type"] == "radio"] == ["suited"], "one tab stop for the radio group"
    assert any(a["text"] == "Reset" for a in seen)

    light.tab_to(lambda a: a["rank"] == "7")
    light.page.keyboard.press("Enter")
    light.page.keyboard.press("Shift+Tab")
    light.page.keyboard.press(" ")
    light.expect_state("suited", [6, 7])
    light.tab_to(lambda a: a["type"] == "radio")
    light.page.keyboard.press("ArrowDown")
    light.expect_state("mismatched", [6, 7])
    light.tab_to(lambda a: a["text"] == "Reset")
    light.page.keyboard.press("Enter")
    light.expect_state("suited", [])


@pytest.mark.browser
def test_python_changes_reach_the_page(fig):
    # First a round trip from the page, so the session is surely live before Python speaks.
    fig.button(4).click()
    fig.wait_python(missed_neighbours=[4])
    on_server(fig.figure.state.param.update, missed_neighbours=[])
    on_server(fig.figure.state.param.update, model="mismatched")
    fig.expect_state("mismatched", [])
    on_server(fig.figure.state.toggle, 4)
    fig.expect_state("mismatched", [4])
    expect(fig.formula("recall")).to_have_text("Recall@10 = 3 / 8 = 0.38")
    on_server(fig.figure.state.param.update, missed_neighbours=list(range(1, 11)))
    fig.expect_state("mismatched", list(range(1, 11)))
    expect(fig.formula("ann")).to_have_text("ANN recall@10 = 0 / 10 = 0.00")
    expect(fig.formula("recall")).to_have_text("Recall@10 = 0 / 8 = 0.00")
    fig.assert_clean_text()


@pytest.mark.browser
def test_a_link_sets_the_state_and_a_click_rewrites_it(page, server):
    page.goto(server.url + "/recall-kinds?model=mismatched&missed_neighbours=8,3")
    shown = Fig(page, None)
    shown.expect_state("mismatched", [3, 8])
    shown.button(1).click()
    page.wait_for_url(re.compile(r"\?model=mismatched&missed_neighbours=1,3,8$"))

    # A bad value is ignored with a notice; the good ones still apply.
    other = page.context.new_page()
    other.goto(server.url + "/recall-kinds?model=glove&missed_neighbours=2,x")
    expect(other.locator(".query-notice")).to_contain_text("model must be suited or mismatched")
    expect(other.locator(".query-notice")).to_contain_text("missed_neighbours must list neighbour ranks from 1 to 10")
    expect(other.locator("[data-metric=ann] .metric-formula")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    other.goto(server.url + "/recall-kinds?present=1&missed_neighbours=")
    expect(other.locator(".fig-frame.present")).to_be_attached()
    expect(other.locator(".query-notice")).to_be_hidden()


@pytest.mark.browser
def test_each_kind_of_interaction_reaches_python(page, serve_object):
    """A link, clicks, keys on the rows and the radio group, Reset and Example, each read back from Python.

    (What each one shows is checked on the light page by the tests above.) The figure is standalone
    and opened by a link, so that Reset (back to the link's state) and Example (the default) differ."""
    figure = RecallKindsFigure(standalone=True)
    shown = Fig(page, figure)
    page.goto(serve_object(figure) + "?model=mismatched&missed_neighbours=8,3")
    shown.expect_state("mismatched", [3, 8])
    shown.wait_python(model="mismatched", missed_neighbours=[3, 8])

    shown.button(6).click()
    shown.wait_python(missed_neighbours=[3, 6, 8])
    shown.button(6).click()
    shown.wait_python(missed_neighbours=[3, 8])
    shown.model("suited").check()
    shown.wait_python(model="suited", missed_neighbours=[3, 8])

    shown.tab_to(lambda a: a["rank"] == "7")
    page.keyboard.press("Enter")
    shown.wait_python(missed_neighbours=[3, 7, 8])
    page.keyboard.press("Shift+Tab")
    page.keyboard.press(" ")
    shown.wait_python(missed_neighbours=[3, 6, 7, 8])
    shown.tab_to(lambda a: a["type"] == "radio")
    page.keyboard.press("ArrowDown")
    shown.wait_python(model="mismatched", missed_neighbours=[3, 6, 7, 8])

    shown.tab_to(lambda a: a["text"] == "Reset")
    page.keyboard.press("Enter")
    shown.expect_state("mismatched", [3, 8])
    shown.wait_python(model="mismatched", missed_neighbours=[3, 8])
    page.get_by_role("button", name="Example").click()
    shown.expect_state("suited", [])
    wait_until(lambda: figure.state.to_dict() == RecallKindsState().to_dict(), message="Python back to the default")
