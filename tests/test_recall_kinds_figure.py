"""The two-recalls figure: its state in plain Python, then what a reader sees and does in Chromium.

Expected numbers come from explainer.metrics on lists built here from the figure's constants.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from explainer import metrics
from explainer.figures.recall_kinds import (
    MODELS,
    RELEVANT,
    K,
    RecallKindsFigure,
    RecallKindsState,
    story_numbers,
)
from explainer.metrics import format_number as fmt

from support.server import wait_python, wait_until

BAD_WORDS = re.compile(r"NaN|undefined|Infinity|null")


def index_list(model, missed):
    """The index's ten titles: exact neighbours, the missed ones replaced by neighbours 11, 12, ... in turn."""
    substitutes = iter(MODELS[model]["next"])
    return [next(substitutes) if rank in missed else t for rank, t in enumerate(MODELS[model]["neighbours"], 1)]


def expected(model, missed):
    results = index_list(model, missed)
    exact = set(MODELS[model]["neighbours"])
    neighbour = [int(t in exact) for t in results]
    relevant = [int(t in RELEVANT) for t in results]
    found, hits, r = sum(neighbour), sum(relevant), len(RELEVANT)
    return {
        "ann": f"ANN recall@10 = {found} / 10 = {fmt(metrics.recall_at_k(neighbour, 10, 10))}",
        "recall": f"Recall@10 = {hits} / {r} = {fmt(metrics.recall_at_k(relevant, 10, r))}",
        "precision": f"P@10 = {hits} / 10 = {fmt(metrics.precision_at_k(relevant, 10))}",
    }


# == the state, in plain Python ================================================================


def test_the_constants_make_a_sound_collection():
    assert K == 10 and len(RELEVANT) == 6
    for name, data in MODELS.items():
        assert len(data["neighbours"]) == len(data["next"]) == K, name
        assert len(set(data["neighbours"]) | set(data["next"])) == 2 * K, name
        # The index's stand-ins are never relevant: a miss costs relevance only through what it lost.
        assert not set(data["next"]) & set(RELEVANT), name


def test_a_suited_model_and_a_perfect_index():
    state = RecallKindsState()
    assert state.to_dict() == {"model": "suited", "missed_neighbours": []}
    assert state.values == {"ann_recall": 1.0, "recall": 5 / 6, "precision": 5 / 10}
    assert {k: fmt(v) for k, v in state.values.items()} == {"ann_recall": "1.00", "recall": "0.83", "precision": "0.50"}


def test_the_key_fact_a_perfect_index_and_a_poor_list():
    state = RecallKindsState(model="mismatched")
    assert state.values["ann_recall"] == 1.0
    assert fmt(state.values["recall"]) == "0.33" and state.values["recall"] == 2 / 6
    assert state.values["precision"] == 0.2


def test_misses_lower_ann_recall_by_a_tenth_and_relevance_recall_only_for_relevant_neighbours():
    state = RecallKindsState()
    state.toggle(4)  # a drawing: not relevant
    assert state.missed_neighbours == [4]
    assert state.values["ann_recall"] == 0.9
    assert state.values["recall"] == 5 / 6
    state.toggle(1)  # the supplier notice: relevant
    assert state.missed_neighbours == [1, 4]
    assert state.values == {
        "ann_recall": metrics.recall_at_k([0, 1, 1, 0, 1, 1, 1, 1, 1, 1], 10, 10),
        "recall": metrics.recall_at_k([0, 1, 1, 0, 1, 0, 1, 0, 0, 0], 10, 6),
        "precision": metrics.precision_at_k([0, 1, 1, 0, 1, 0, 1, 0, 0, 0], 10),
    }
    assert state.index_results == index_list("suited", [1, 4])
    assert (
        state.index_results[0] == MODELS["suited"]["next"][0] and state.index_results[3] == MODELS["suited"]["next"][1]
    )
    state.toggle(4)
    assert state.missed_neighbours == [1]
    for rank in range(1, 11):
        state.toggle(rank)
    assert state.missed_neighbours == list(range(2, 11))
    assert state.values["ann_recall"] == 0.1


@pytest.mark.parametrize("rank", [0, 11, -1, True, 1.0])
def test_toggle_refuses_a_rank_that_is_not_a_neighbour(rank):
    state = RecallKindsState()
    with pytest.raises(ValueError, match="rank must be a whole number from 1 to 10"):
        state.toggle(rank)


@pytest.mark.parametrize(
    "values, message",
    [
        ({"model": "word2vec"}, "model"),
        ({"model": None}, "model"),
        ({"missed_neighbours": [0]}, "missed_neighbours must list distinct neighbour ranks from 1 to 10, got 0"),
        ({"missed_neighbours": [11]}, "missed_neighbours must list distinct neighbour ranks from 1 to 10, got 11"),
        (
            {"missed_neighbours": [3, 3]},
            "missed_neighbours must list distinct neighbour ranks from 1 to 10; it names a neighbour rank twice",
        ),
        ({"missed_neighbours": [True]}, "missed_neighbours"),
        ({"missed_neighbours": [2.0]}, "missed_neighbours"),
        ({"missed_neighbours": "3"}, "missed_neighbours"),
        ({"k": 5}, "unknown state field"),
    ],
    ids=repr,
)
def test_invalid_values_raise_value_error_and_change_nothing(values, message):
    state = RecallKindsState()
    with pytest.raises(ValueError, match=message):
        state.update_from_dict(values)
    assert state.to_dict() == RecallKindsState().to_dict()


def test_story_numbers():
    assert story_numbers() == {
        "recall_kinds_k": "10",
        "recall_kinds_r": "6",
        "recall_kinds_suited_recall": "0.83",
        "recall_kinds_mismatched_ann": "1.00",
        "recall_kinds_mismatched_found": "2",
        "recall_kinds_mismatched_recall": "0.33",
        "recall_kinds_mismatched_precision": "0.20",
    }


def test_the_figure_keeps_the_view_equal_to_the_state():
    figure = RecallKindsFigure()
    assert figure.view.state == figure.state.to_dict()
    figure.state.toggle(2)
    assert figure.view.state == {"model": "suited", "missed_neighbours": [2]}
    figure.view.state = {"model": "mismatched", "missed_neighbours": [2, 99]}
    assert figure.state.to_dict() == {"model": "suited", "missed_neighbours": [2]}
    assert figure.view.state == figure.state.to_dict()


# == in the browser ===============================================================================

ACTIVE = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a) return null;
  return {
    tag: a.tagName.toLowerCase(),
    type: a.type || "",
    value: a.value || "",
    text: (a.textContent || "").trim().slice(0, 30),
    rank: a.closest(".rk-row") ? a.closest(".rk-row").dataset.rank : "",
  };
}"""


class Fig:
    """Locators of one served RecallKindsFigure, and the figure itself."""

    def __init__(self, page, figure):
        self.page = page
        self.figure = figure
        self.root = page.locator(".fig-recall-kinds")
        self.live = page.locator(".fig-frame [aria-live=polite]")
        self.lesson = page.locator(".rk-lesson")

    def formula(self, key):
        return self.page.locator(f"[data-metric={key}] .metric-formula")

    def button(self, rank):
        return self.page.locator(f'.rk-row[data-rank="{rank}"] button')

    def model(self, name):
        return self.page.locator(f"input[name=model][value={name}]")

    def expect_state(self, model, missed):
        texts = expected(model, missed)
        for key in ("ann", "recall", "precision"):
            expect(self.formula(key)).to_have_text(texts[key])
        expect(self.model(model)).to_be_checked()
        expect(self.page.locator(".rk-row.is-missed")).to_have_count(len(missed))
        for rank in range(1, 11):
            expect(self.button(rank)).to_have_attribute("aria-pressed", str(rank in missed).lower())
        expect(self.page.locator(".rk-row .rk-exact .rk-title")).to_have_text(list(MODELS[model]["neighbours"]))
        returned = [t for rank, t in enumerate(index_list(model, missed), 1) if rank in missed]
        expect(self.page.locator(".rk-row .rk-index .rk-title")).to_have_text(returned)

    def wait_python(self, **expected_values):
        """Python's figure.state reaches these values, and Panel is done with the page's message."""
        wait_python(
            self.figure,
            lambda: all(getattr(self.figure.state, n) == v for n, v in expected_values.items()),
            message=f"Python to see {expected_values} (has {self.figure.state.to_dict()})",
        )

    def active(self):
        return self.page.evaluate(ACTIVE)

    def assert_clean_text(self):
        assert not BAD_WORDS.search(self.root.text_content())
        labels = self.page.locator(".fig-recall-kinds [aria-label]").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
        assert not [label for label in labels if BAD_WORDS.search(label)], labels


@pytest.fixture
def fig(page, serve_object):
    figure = RecallKindsFigure()
    page.goto(serve_object(figure))
    shown = Fig(page, figure)
    expect(shown.formula("ann")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    return shown


@pytest.mark.browser
def test_the_defaults_on_the_page(fig):
    fig.expect_state("suited", [])
    expect(fig.formula("recall")).to_have_text("Recall@10 = 5 / 6 = 0.83")
    expect(fig.live).to_have_text("ANN recall@10 1.00, recall@10 0.83, precision@10 0.50")
    expect(fig.page.locator(".rk-unfound")).to_have_text(
        f"People judged 6 documents relevant. Not in the index's 10: {RELEVANT[5]}."
    )
    # Judgments are words, not colour alone.
    expect(fig.page.locator(".rk-row").first.locator(".rk-judged")).to_have_text("● relevant")
    fig.assert_clean_text()


@pytest.mark.browser
def test_switching_to_the_mismatched_model_keeps_ann_recall_at_1_and_sinks_relevance_recall(fig):
    fig.model("mismatched").check()
    fig.expect_state("mismatched", [])
    expect(fig.formula("ann")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    expect(fig.formula("recall")).to_have_text("Recall@10 = 2 / 6 = 0.33")
    expect(fig.formula("precision")).to_have_text("P@10 = 2 / 10 = 0.20")
    expect(fig.lesson).to_contain_text("ANN recall is 1.00, yet the list holds only 2 of the 6 relevant documents")
    fig.wait_python(model="mismatched")


@pytest.mark.browser
def test_clicking_rows_makes_the_index_miss_and_find_neighbours(fig):
    fig.button(4).click()  # not relevant: only ANN recall drops
    fig.expect_state("suited", [4])
    expect(fig.formula("recall")).to_have_text("Recall@10 = 5 / 6 = 0.83")
    expect(fig.lesson).to_contain_text("Each miss lowers ANN recall by 0.10")
    fig.wait_python(missed_neighbours=[4])
    fig.button(2).click()  # relevant: both drop
    fig.expect_state("suited", [2, 4])
    expect(fig.page.locator('.rk-row[data-rank="2"] .rk-index')).to_contain_text(
        f"✗ missed; returned instead: {MODELS['suited']['next'][0]} ○ not relevant"
    )
    fig.wait_python(missed_neighbours=[2, 4])
    fig.button(4).click()
    fig.expect_state("suited", [2])
    fig.wait_python(missed_neighbours=[2])
    expect(fig.live).to_have_text("ANN recall@10 0.90, recall@10 0.67, precision@10 0.40")


@pytest.mark.browser
def test_keyboard_only(fig):
    fig.page.locator("body").focus()
    seen = []
    for _ in range(30):
        fig.page.keyboard.press("Tab")
        active = fig.active()
        if active is None or active["tag"] == "body":
            break
        seen.append(active)
    assert [a["rank"] for a in seen if a["rank"]] == [str(r) for r in range(1, 11)], seen
    assert [a["value"] for a in seen if a["type"] == "radio"] == ["suited"], "one tab stop for the radio group"
    assert any(a["text"] == "Reset" for a in seen)

    def tab_to(predicate):
        for _ in range(30):
            active = fig.active()
            if active and predicate(active):
                return
            fig.page.keyboard.press("Shift+Tab")
        raise AssertionError(f"never reached; at {fig.active()}")

    tab_to(lambda a: a["rank"] == "7")
    fig.page.keyboard.press("Enter")
    fig.wait_python(missed_neighbours=[7])
    fig.page.keyboard.press("Shift+Tab")
    fig.page.keyboard.press(" ")
    fig.wait_python(missed_neighbours=[6, 7])
    fig.expect_state("suited", [6, 7])
    tab_to(lambda a: a["type"] == "radio")
    fig.page.keyboard.press("ArrowDown")
    fig.wait_python(model="mismatched")
    fig.expect_state("mismatched", [6, 7])
    tab_to(lambda a: a["text"] == "Reset")
    fig.page.keyboard.press("Enter")
    wait_until(lambda: fig.figure.state.to_dict() == RecallKindsState().to_dict(), message="Python back to the default")
    fig.expect_state("suited", [])


@pytest.mark.browser
def test_python_changes_reach_the_page(fig):
    # First a round trip from the page, so the session is surely live before Python speaks.
    fig.button(4).click()
    fig.wait_python(missed_neighbours=[4])
    fig.figure.state.missed_neighbours = []
    fig.figure.state.model = "mismatched"
    fig.expect_state("mismatched", [])
    fig.figure.state.toggle(4)
    fig.expect_state("mismatched", [4])
    expect(fig.formula("recall")).to_have_text("Recall@10 = 1 / 6 = 0.17")
    fig.figure.state.missed_neighbours = list(range(1, 11))
    fig.expect_state("mismatched", list(range(1, 11)))
    expect(fig.formula("ann")).to_have_text("ANN recall@10 = 0 / 10 = 0.00")
    expect(fig.formula("recall")).to_have_text("Recall@10 = 0 / 6 = 0.00")
    fig.assert_clean_text()


@pytest.mark.browser
def test_a_link_sets_the_state_and_a_click_rewrites_it(page, serve_object):
    figure = RecallKindsFigure(standalone=True)
    page.goto(serve_object(figure) + "?model=mismatched&missed_neighbours=8,3")
    shown = Fig(page, figure)
    shown.expect_state("mismatched", [3, 8])
    shown.wait_python(model="mismatched", missed_neighbours=[3, 8])
    shown.button(1).click()
    page.wait_for_url(re.compile(r"\?model=mismatched&missed_neighbours=1,3,8$"))

    # A bad value is ignored with a notice; the good ones still apply.
    other = page.context.new_page()
    other.goto(serve_object(lambda: RecallKindsFigure(standalone=True)) + "?model=glove&missed_neighbours=2,x")
    expect(other.locator(".query-notice")).to_contain_text("model must be suited or mismatched")
    expect(other.locator(".query-notice")).to_contain_text("missed_neighbours must list neighbour ranks from 1 to 10")
    expect(other.locator("[data-metric=ann] .metric-formula")).to_have_text("ANN recall@10 = 10 / 10 = 1.00")
    other.goto(serve_object(lambda: RecallKindsFigure(standalone=True)) + "?present=1&missed_neighbours=")
    expect(other.locator(".fig-frame.present")).to_be_attached()
    expect(other.locator(".query-notice")).to_be_hidden()
