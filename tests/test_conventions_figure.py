"""The conventions figure: its state in plain Python, then what a reader sees and does in Chromium.

Every expected number is computed here with explainer.metrics (or written out as arithmetic,
or taken from trec_eval through pytrec_eval), never read back from the page.
"""

from __future__ import annotations

import re
from math import log2

import pytest
from playwright.sync_api import expect

from explainer import metrics
from explainer.figures.conventions import (
    ARTICLE_MISSED_GRADES,
    BY_KEY,
    CONVENTIONS,
    DEFAULT_K,
    MAX_MISSED,
    ConventionsFigure,
    ConventionsState,
    ndcg_by_convention,
    story_numbers,
)
from explainer.figures.ndcg import ARTICLE_GRADES, TITLES
from explainer.metrics import format_number as fmt

from support.server import wait_python, wait_until

ARTICLE = list(ARTICLE_GRADES)
IDENTITY = list(range(8))
BAD_WORDS = re.compile(r"NaN|undefined|Infinity|null")


# -- expected texts, from the metrics core ---------------------------------------------------


def ranked(grades, order):
    return [grades[doc] for doc in order]


def sum_text(grades, depth, gain):
    parts = [f"{metrics.gain_value(g, gain):g}/{fmt(1 / metrics.discount(i))}" for i, g in enumerate(grades[:depth], 1)]
    return f"{' + '.join(parts)} = {fmt(metrics.dcg_at_k(grades, depth, gain))}"


def expected_row(shown, k, missed, convention):
    """The table value and the arithmetic the figure shows for one convention."""
    judged = shown + list(missed)
    ideal = metrics.ideal_grades(judged if convention.ideal == "judged" else shown)
    depth = k if convention.cut else max(len(ideal), 1)
    dcg = metrics.dcg_at_k(shown, k, convention.gain)
    idcg = metrics.dcg_at_k(ideal, depth, convention.gain)
    value = ndcg_by_convention(shown, k, list(missed), convention)
    name = f"Ideal DCG@{k}" if convention.cut else f"Ideal DCG, all {depth}, no cut"
    return {
        "value": fmt(value),
        "ndcg": f"NDCG@{k} = {fmt(dcg)} / {fmt(idcg)} = {fmt(value)}"
        if idcg
        else f"NDCG@{k} = 0 (nothing relevant: the ideal is 0)",
        "dcg": f"DCG@{k} = {sum_text(shown, k, convention.gain)}",
        "idcg": f"{name} = {sum_text(ideal, depth, convention.gain)}",
    }


def recall_texts(shown, k, missed):
    hits = len(metrics.relevant_ranks(shown, k))
    total = len(metrics.relevant_ranks(shown)) + len(missed)
    recall = fmt(metrics.recall_at_k(shown, k, total))
    return (
        f"Recall@{k} = {hits} / {total} = {recall}" if total else f"Recall@{k} = 0 (R = 0: nothing to find)",
        f"Hit rate@{k} = {fmt(metrics.hit_rate_at_k(shown, k))}",
    )


# == the state, in plain Python ================================================================


def test_the_defaults_are_figure_2s_list_with_two_missed_documents_at_k_5():
    state = ConventionsState()
    assert state.to_dict() == {"grades": ARTICLE, "order": IDENTITY, "k": 5, "missed_grades": [3, 2]}
    assert (DEFAULT_K, list(ARTICLE_MISSED_GRADES)) == (5, [3, 2])
    assert state.judged == ARTICLE + [3, 2]
    assert state.n_relevant == 6 + 2


def test_each_convention_at_the_default_is_the_arithmetic_written_out():
    # The list's grades at ranks 1..5 are 1, 3, 0, 2, 0; all ten judged, best first: 3, 3, 3, 2, 2, 2, 1, 1, 0, 0.
    d = [1 / log2(r + 1) for r in range(1, 11)]
    linear_dcg = 1 * d[0] + 3 * d[1] + 2 * d[3]
    exp_dcg = 1 * d[0] + 7 * d[1] + 3 * d[3]
    expected = {
        "linear-judged": linear_dcg / (3 * d[0] + 3 * d[1] + 3 * d[2] + 2 * d[3] + 2 * d[4]),
        "exponential-judged": exp_dcg / (7 * d[0] + 7 * d[1] + 7 * d[2] + 3 * d[3] + 3 * d[4]),
        # Quepid's nDCG@10: the whole ideal order, not cut at k.
        "exponential-judged-uncut": exp_dcg / sum(g * d[i] for i, g in enumerate([7, 7, 7, 3, 3, 3, 1, 1, 0, 0])),
        # Ideal from the list's own grades 3, 3, 2, 2, 1.
        "linear-list": linear_dcg / (3 * d[0] + 3 * d[1] + 2 * d[2] + 2 * d[3] + 1 * d[4]),
        "exponential-list": exp_dcg / (7 * d[0] + 7 * d[1] + 3 * d[2] + 3 * d[3] + 1 * d[4]),
    }
    values = ConventionsState().values
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, abs=1e-12), key
    written = {key: fmt(values[key]) for key in expected}
    assert written == {
        "linear-judged": "0.47",
        "exponential-judged": "0.39",
        "exponential-judged-uncut": "0.35",
        "linear-list": "0.53",
        "exponential-list": "0.46",
    }
    # Five conventions, five different numbers for one list.
    assert len(set(written.values())) == 5
    assert fmt(values["recall"]) == "0.38" and values["hit_rate"] == 1.0


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("missed", [[], [3, 2], [1, 1, 1], [3, 3, 3, 3, 3, 3]])
def test_the_judged_ideal_rows_agree_with_trec_eval(k, missed):
    """The tool labels of the first two rows: trec_eval's ndcg_cut is the linear row; with grades relabelled
    as 2^g - 1 (the exponential gain), it is the exponential row. success is hit rate, recall is recall."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    shown = [2, 0, 3, 1, 0, 0, 1, 3]

    def trec(relabel):
        qrels = {
            "q": {
                **{f"r{i}": relabel(g) for i, g in enumerate(shown)},
                **{f"m{i}": relabel(g) for i, g in enumerate(missed)},
            }
        }
        run = {"q": {f"r{i}": float(100 - i) for i in range(len(shown))}}
        measures = {f"ndcg_cut.{k}", f"success.{k}", f"recall.{k}"}
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]

    linear = trec(lambda g: g)
    exponential = trec(lambda g: 2**g - 1)
    assert ndcg_by_convention(shown, k, missed, BY_KEY["linear-judged"]) == pytest.approx(
        linear[f"ndcg_cut_{k}"], abs=1e-4
    )
    assert ndcg_by_convention(shown, k, missed, BY_KEY["exponential-judged"]) == pytest.approx(
        exponential[f"ndcg_cut_{k}"], abs=1e-4
    )
    state = ConventionsState(grades=shown, k=k, missed_grades=missed)
    assert state.values["hit_rate"] == linear[f"success_{k}"]
    assert state.values["recall"] == pytest.approx(linear[f"recall_{k}"], abs=1e-4)


def test_the_uncut_ideal_differs_from_the_cut_one_only_when_judged_documents_pass_k():
    state = ConventionsState(k=8, missed_grades=[])
    # Eight judged documents, k = 8: cutting the ideal at k drops nothing.
    assert state.values["exponential-judged-uncut"] == pytest.approx(state.values["exponential-judged"])
    # Two of the list's results are 0s: a ninth relevant document takes the three missed ones.
    state.missed_grades = [3, 1]
    assert state.values["exponential-judged-uncut"] == pytest.approx(state.values["exponential-judged"])
    state.missed_grades = [3, 1, 1]
    assert state.values["exponential-judged-uncut"] < state.values["exponential-judged"]


def test_every_convention_names_its_tools_and_a_known_gain():
    assert [c.key for c in CONVENTIONS] == list(BY_KEY)
    for c in CONVENTIONS:
        assert c.gain in metrics.GAINS and c.ideal in ("judged", "list") and c.used_by, c


def test_promote_set_grade_and_the_missed_steppers():
    state = ConventionsState()
    state.promote(6)
    assert state.order == [0, 1, 2, 3, 5, 4, 6, 7]
    state.promote(1)
    assert state.order == [0, 1, 2, 3, 5, 4, 6, 7]
    state.set_grade(5, 1)  # rank 5 now holds document 5
    assert state.grades == [1, 3, 0, 2, 0, 1, 1, 2]
    state.add_missed_grade(1)
    state.add_missed_grade(3)
    assert state.missed_grades == [3, 3, 2, 1]
    state.remove_missed_grade(3)
    assert state.missed_grades == [3, 2, 1]
    state.remove_missed_grade(3)
    with pytest.raises(ValueError, match="no missed document has grade 3"):
        state.remove_missed_grade(3)
    assert state.missed_grades == [2, 1]
    assert state.values["recall"] == metrics.recall_at_k(state.ranked_grades, 5, state.n_relevant)


@pytest.mark.parametrize("rank", [0, 9, -1, True, 2.0])
def test_promote_and_set_grade_refuse_a_rank_outside_the_list(rank):
    state = ConventionsState()
    with pytest.raises(ValueError, match="rank must be"):
        state.promote(rank)
    with pytest.raises(ValueError, match="rank must be"):
        state.set_grade(rank, 1)
    assert state.to_dict() == ConventionsState().to_dict()


@pytest.mark.parametrize(
    "values, message",
    [
        ({"missed_grades": [0]}, r"missed_grades\[0\] must be a grade from 1 to 3, got 0"),
        ({"missed_grades": [3, 4]}, r"missed_grades\[1\] must be a grade from 1 to 3, got 4"),
        ({"missed_grades": [True]}, "missed_grades"),
        ({"missed_grades": [1] * (MAX_MISSED + 1)}, "missed_grades"),
        ({"missed_grades": [1.5]}, "missed_grades"),
        ({"k": 0}, "k"),
        ({"k": 9}, "k"),
        ({"k": True}, "k"),
        ({"grades": [4, 3, 0, 2, 0, 3, 1, 2]}, "grades"),
        ({"grades": [1, 3, 0]}, "grades"),
        ({"order": [0, 0, 1, 2, 3, 4, 5, 6]}, "order"),
        ({"colour": "red"}, "unknown state field"),
    ],
    ids=repr,
)
def test_invalid_values_raise_value_error_naming_the_field_and_change_nothing(values, message):
    state = ConventionsState()
    with pytest.raises(ValueError, match=message):
        state.update_from_dict(values)
    assert state.to_dict() == ConventionsState().to_dict()


def test_update_from_dict_is_all_or_nothing():
    state = ConventionsState()
    with pytest.raises(ValueError):
        state.update_from_dict({"k": 3, "missed_grades": [9]})
    assert state.k == 5


def test_story_numbers_come_from_the_default_state():
    numbers = story_numbers()
    values = ConventionsState().values
    assert numbers["conventions_k"] == "5"
    assert numbers["conventions_missed"] == "3 and 2"
    assert (numbers["conventions_low"], numbers["conventions_high"]) == ("0.35", "0.53")
    assert numbers["conventions_trec"] == fmt(values["linear-judged"]) == "0.47"
    assert numbers["conventions_quepid"] == "0.35"
    assert (numbers["conventions_hits"], numbers["conventions_r"], numbers["conventions_recall"]) == ("3", "8", "0.38")
    assert numbers["conventions_hit_rate"] == "1.00"
    assert all(BAD_WORDS.search(v) is None for v in numbers.values())


def test_the_figure_keeps_the_view_equal_to_the_state():
    figure = ConventionsFigure()
    assert figure.view.state == figure.state.to_dict()
    assert [c["key"] for c in figure.view.conventions] == list(BY_KEY)
    figure.state.add_missed_grade(1)
    assert figure.view.state["missed_grades"] == [3, 2, 1]
    figure.view.state = {**figure.state.to_dict(), "missed_grades": [0]}
    assert figure.state.missed_grades == [3, 2, 1]
    assert figure.view.state == figure.state.to_dict()


# == in the browser ===============================================================================

ACTIVE = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a) return null;
  return {
    tag: a.tagName.toLowerCase(),
    cls: typeof a.className === "string" ? a.className : "",
    label: a.getAttribute("aria-label") || "",
    text: (a.textContent || "").trim().slice(0, 40),
    rank: a.closest(".rl-row") ? a.closest(".rl-row").dataset.rank : "",
    convention: a.dataset ? a.dataset.convention || "" : "",
  };
}"""


class Fig:
    """Locators of one served ConventionsFigure, and the figure itself."""

    def __init__(self, page, figure):
        self.page = page
        self.figure = figure
        self.root = page.locator(".fig-conventions")
        self.marker = page.locator(".rl-cutoff")
        self.handle = page.locator(".rl-cutoff-handle")
        self.detail = page.locator(".conv-detail")
        self.live = page.locator(".fig-frame [aria-live=polite]")
        self.hint = page.locator(".fig-hint")
        self.recall = page.locator("[data-metric=recall] .metric-formula")
        self.hit_rate = page.locator("[data-metric=hit-rate] .metric-formula")

    def row(self, rank):
        return self.page.locator(f'.rl-row[data-rank="{rank}"]')

    def button(self, rank):
        return self.row(rank).locator("button.rl-activate")

    def select(self, rank):
        return self.row(rank).locator("select")

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
                expected_row(shown, k, missed, c)["value"]
            )
        row = expected_row(shown, k, missed, BY_KEY[active])
        expect(self.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
        expect(self.detail.locator(".conv-sum")).to_have_text([row["dcg"], row["idcg"]])
        recall, hit_rate = recall_texts(shown, k, missed)
        expect(self.recall).to_have_text(recall)
        expect(self.hit_rate).to_have_text(hit_rate)
        for grade in (1, 2, 3):
            expect(self.page.locator(f'.stepper[data-grade="{grade}"] output')).to_have_text(str(missed.count(grade)))

    def wait_python(self, **expected):
        """Python's figure.state reaches these values, and Panel is done with the page's message."""
        wait_python(
            self.figure,
            lambda: all(getattr(self.figure.state, n) == v for n, v in expected.items()),
            message=f"Python to see {expected} (has {self.figure.state.to_dict()})",
        )

    def active(self):
        return self.page.evaluate(ACTIVE)

    def assert_clean_text(self):
        text = self.root.text_content()
        assert not BAD_WORDS.search(text), text
        labels = self.page.locator(".fig-conventions [aria-label], .fig-conventions [aria-valuetext]").evaluate_all(
            "els => els.map(e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('aria-valuetext') || ''))"
        )
        assert not [label for label in labels if BAD_WORDS.search(label)], labels


@pytest.fixture
def fig(page, serve_object):
    figure = ConventionsFigure()
    page.goto(serve_object(figure))
    shown = Fig(page, figure)
    expect(shown.convention("linear-judged").locator(".conv-value")).to_have_text("0.47")
    return shown


@pytest.mark.browser
def test_the_default_table_and_arithmetic_match_the_metrics(fig):
    fig.expect_state(ARTICLE, IDENTITY, 5, [3, 2])
    expect(fig.detail.locator(".metric-formula")).to_have_text("NDCG@5 = 3.75 / 8.03 = 0.47")
    expect(fig.page.locator(".conv-table tbody tr")).to_have_count(len(CONVENTIONS))
    for c in CONVENTIONS:
        expect(fig.convention(c.key).locator(".conv-used li")).to_have_text(list(c.used_by))
    expect(fig.recall).to_have_text("Recall@5 = 3 / 8 = 0.38")
    expect(fig.hit_rate).to_have_text("Hit rate@5 = 1.00")
    values = ConventionsState().values
    expect(fig.live).to_have_text(
        "NDCG@5 by convention: "
        + ", ".join(fmt(values[c.key]) for c in CONVENTIONS)
        + ". Recall@5 0.38, hit rate@5 1.00"
    )
    fig.assert_clean_text()


@pytest.mark.browser
def test_focusing_or_hovering_a_row_shows_its_arithmetic(fig):
    shown = list(ARTICLE)
    fig.convention("exponential-judged-uncut").focus()
    row = expected_row(shown, 5, [3, 2], BY_KEY["exponential-judged-uncut"])
    expect(fig.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
    expect(fig.detail.locator(".conv-sum").nth(1)).to_have_text(row["idcg"])
    assert row["idcg"].startswith("Ideal DCG, all 10, no cut = 7/1.00 + 7/1.58 + 7/2.00")
    expect(fig.detail.locator(".metric-name")).to_contain_text("Quepid nDCG@10 scorer")
    expect(fig.convention("exponential-judged-uncut")).to_have_class(re.compile(r"\bis-active\b"))
    expect(fig.detail.locator(".metric-note")).to_have_text(
        "Ideal order 3, 3, 3, 2, 2, 2, 1, 1, 0, 0: from all 10 judged documents (2 not retrieved), every one counted."
    )

    fig.convention("linear-list").hover()
    row = expected_row(shown, 5, [3, 2], BY_KEY["linear-list"])
    expect(fig.detail.locator(".metric-formula")).to_have_text(row["ndcg"])
    expect(fig.detail.locator(".metric-note")).to_have_text(
        "Ideal order 3, 3, 2, 2, 1, 1, 0, 0: from the 8 results in the list only, top 5 counted."
    )
    expect(fig.convention("exponential-judged-uncut")).not_to_have_class(re.compile(r"\bis-active\b"))


@pytest.mark.browser
def test_promoting_and_regrading_change_every_number_as_the_metrics_say(fig):
    fig.button(6).click()  # the grade-3 service bulletin moves into the top 5
    order = [0, 1, 2, 3, 5, 4, 6, 7]
    fig.expect_state(ARTICLE, order, 5, [3, 2])
    fig.wait_python(order=order)
    assert fig.active()["rank"] == "5"
    before = ConventionsState().values
    after = fig.figure.state.values
    assert all(after[c.key] > before[c.key] for c in CONVENTIONS)

    fig.select(3).select_option("3")  # rank 3 holds document 2
    grades = [1, 3, 3, 2, 0, 3, 1, 2]
    fig.expect_state(grades, order, 5, [3, 2])
    fig.wait_python(grades=grades)

    fig.button(1).click()
    expect(fig.hint).to_have_text("Rank 1 is already at the top.")
    assert fig.figure.state.order == order


@pytest.mark.browser
def test_the_marker_moves_k_by_keyboard(fig):
    fig.marker.focus()
    fig.marker.press("ArrowUp")
    fig.expect_state(ARTICLE, IDENTITY, 4, [3, 2])
    fig.wait_python(k=4)
    fig.marker.press("Home")
    fig.expect_state(ARTICLE, IDENTITY, 1, [3, 2])
    fig.marker.press("End")
    fig.expect_state(ARTICLE, IDENTITY, 8, [3, 2])
    fig.wait_python(k=8)
    expect(fig.page.locator(".rl-row.rl-below")).to_have_count(0)


@pytest.mark.browser
def test_the_missed_steppers_change_the_judged_ideals_and_recall_only(fig):
    list_only = {
        c.key: fig.convention(c.key).locator(".conv-value").inner_text() for c in CONVENTIONS if c.ideal == "list"
    }
    fig.stepper(1, "+").click()
    fig.expect_state(ARTICLE, IDENTITY, 5, [3, 2, 1])
    fig.wait_python(missed_grades=[3, 2, 1])
    fig.stepper(3, "-").click()
    fig.expect_state(ARTICLE, IDENTITY, 5, [2, 1])
    fig.wait_python(missed_grades=[2, 1])
    # The ideal of the list alone does not see documents outside the list.
    for key, text in list_only.items():
        expect(fig.convention(key).locator(".conv-value")).to_have_text(text)
    expect(fig.stepper(3, "-")).to_have_attribute("aria-disabled", "true")
    fig.stepper(3, "-").click(force=True)  # nothing to remove: no change
    fig.expect_state(ARTICLE, IDENTITY, 5, [2, 1])

    # Up to the maximum, then a hint.
    for _ in range(MAX_MISSED - 2):
        fig.stepper(2, "+").click()
    missed = sorted([2, 1] + [2] * (MAX_MISSED - 2), reverse=True)
    fig.expect_state(ARTICLE, IDENTITY, 5, missed)
    expect(fig.stepper(1, "+")).to_have_attribute("aria-disabled", "true")
    fig.stepper(1, "+").click(force=True)
    expect(fig.hint).to_have_text(f"At most {MAX_MISSED} missed documents.")
    fig.wait_python(missed_grades=missed)


@pytest.mark.browser
def test_the_whole_figure_works_by_keyboard_alone(fig):
    fig.page.locator("body").focus()
    seen = []
    for _ in range(60):
        fig.page.keyboard.press("Tab")
        active = fig.active()
        if active is None or active["tag"] == "body":
            break
        seen.append(active)
    rows = [a["rank"] for a in seen if "rl-activate" in a["cls"]]
    selects = [a["rank"] for a in seen if a["tag"] == "select"]
    conventions = [a["convention"] for a in seen if a["convention"]]
    assert rows == selects == [str(r) for r in range(1, 9)], seen
    assert conventions == [c.key for c in CONVENTIONS], seen
    assert sum("rl-cutoff" in a["cls"] for a in seen) == 1
    assert sum(a["label"].startswith(("One more missed", "One fewer missed")) for a in seen) == 6
    assert any(a["text"] == "Reset" for a in seen)

    def tab_to(predicate, key="Shift+Tab"):
        for _ in range(60):
            active = fig.active()
            if active and predicate(active):
                return
            fig.page.keyboard.press(key)
        raise AssertionError(f"{key} never reached the element; at {fig.active()}")

    tab_to(lambda a: a["convention"] == "exponential-list")
    row = expected_row(list(ARTICLE), 5, [3, 2], BY_KEY["exponential-list"])
    expect(fig.detail.locator(".metric-formula")).to_have_text(row["ndcg"])

    tab_to(lambda a: a["label"] == "One more missed document of grade 3")
    fig.page.keyboard.press("Enter")
    fig.wait_python(missed_grades=[3, 3, 2])

    tab_to(lambda a: "rl-cutoff" in a["cls"])
    fig.page.keyboard.press("PageDown")
    fig.wait_python(k=8)

    tab_to(lambda a: "rl-activate" in a["cls"] and a["rank"] == "6")
    fig.page.keyboard.press(" ")
    order = [0, 1, 2, 3, 5, 4, 6, 7]
    fig.wait_python(order=order)
    fig.page.keyboard.press("Enter")  # the focus followed the result to rank 5
    order = [0, 1, 2, 5, 3, 4, 6, 7]
    fig.wait_python(order=order)
    # Shift+Tab back from the table passed every row: the first one is shown.
    fig.expect_state(ARTICLE, order, 8, [3, 3, 2], active="linear-judged")

    tab_to(lambda a: a["text"] == "Reset")
    fig.page.keyboard.press("Enter")
    wait_until(lambda: fig.figure.state.to_dict() == ConventionsState().to_dict(), message="Python back to the default")
    fig.expect_state(ARTICLE, IDENTITY, 5, [3, 2])


@pytest.mark.browser
def test_python_changes_reach_the_page(fig):
    # First a round trip from the page, so the session is surely live before Python speaks.
    fig.marker.focus()
    fig.marker.press("ArrowUp")
    fig.wait_python(k=4)
    state = fig.figure.state
    state.k = 3
    fig.expect_state(ARTICLE, IDENTITY, 3, [3, 2])
    state.add_missed_grade(1)
    fig.expect_state(ARTICLE, IDENTITY, 3, [3, 2, 1])
    state.promote(4)
    order = [0, 1, 3, 2, 4, 5, 6, 7]
    fig.expect_state(ARTICLE, order, 3, [3, 2, 1])
    state.update_from_dict({"grades": [0] * 8, "missed_grades": []})
    fig.expect_state([0] * 8, order, 3, [])
    expect(fig.detail.locator(".metric-formula")).to_have_text("NDCG@3 = 0 (nothing relevant: the ideal is 0)")
    expect(fig.recall).to_have_text("Recall@3 = 0 (R = 0: nothing to find)")
    expect(fig.hit_rate).to_have_text("Hit rate@3 = 0.00")
    fig.assert_clean_text()


@pytest.mark.browser
def test_a_link_sets_the_state_and_clicks_rewrite_the_link(page, serve_object):
    figure = ConventionsFigure(standalone=True)
    page.goto(serve_object(figure) + "?k=3&missed_grades=1&grades=0,0,3,0,0,0,0,2")
    shown = Fig(page, figure)
    grades = [0, 0, 3, 0, 0, 0, 0, 2]
    shown.expect_state(grades, IDENTITY, 3, [1])
    shown.wait_python(k=3, missed_grades=[1], grades=grades)
    expect(page.locator(".query-notice")).to_be_hidden()
    expect(page.get_by_role("button", name="Presenter view")).to_be_visible()

    shown.stepper(2, "+").click()
    page.wait_for_url(re.compile(r"\?grades=0,0,3,0,0,0,0,2&k=3&missed_grades=2,1$"))
    shown.button(3).click()
    page.wait_for_url(re.compile(r"grades=0,3,0,0,0,0,0,2&order=1,3,2,4,5,6,7,8&k=3&missed_grades=2,1$"))
    other = page.context.new_page()
    other.goto(page.url)
    Fig(other, figure).expect_state(grades, [0, 2, 1, 3, 4, 5, 6, 7], 3, [2, 1])


@pytest.mark.browser
@pytest.mark.parametrize(
    "query, notice, k",
    [
        ("missed_grades=4&k=2", "missed_grades must list at most 6 grades from 1 to 3", 2),
        ("missed_grades=1,1,1,1,1,1,1&k=2", "missed_grades must list at most 6 grades from 1 to 3", 2),
        ("k=9", "k must be a whole number from 1 to 8", 5),
        ("grades=1,2&k=2", "grades must list exactly 8 grades from 0 to 3", 2),
        ("gain=linear&k=2", "“gain”: this figure has no such setting", 2),
    ],
)
def test_a_bad_link_value_is_ignored_with_a_notice_and_the_rest_applies(page, serve_object, query, notice, k):
    figure = ConventionsFigure(standalone=True)
    page.goto(serve_object(figure) + f"?{query}")
    expect(page.locator(".query-notice")).to_contain_text(notice)
    Fig(page, figure).expect_state(ARTICLE, IDENTITY, k, [3, 2])


@pytest.mark.browser
def test_presenter_mode_from_the_link(page, serve_object):
    page.goto(serve_object(ConventionsFigure(standalone=True)) + "?present=1")
    expect(page.locator(".fig-frame.present")).to_be_attached()
    expect(page.get_by_role("button", name="Presenter view")).to_have_attribute("aria-pressed", "true")
