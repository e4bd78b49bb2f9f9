"""Figure 1 in a real Chromium: what a reader sees and does, and its sync with Python.

What the figure shows and does in the browser alone is checked on its own page, a light page of the
explainer's server (a second to load); the tests that read or set Python's state serve a
BinaryFigure from this process (a Panel page, several seconds): one test does each kind of
interaction once and reads Python's state after each, the others set Python's state or send bad ones."""

import re

import pytest

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.metrics import format_number

from support.expect import expect
from support.server import on_server, wait_python, wait_until

pytestmark = pytest.mark.browser

ARTICLE = [False, True, True, False, True, False, False, True, False, False, True, False]  # ranks 2, 3, 5, 8, 11
ARTICLE_STATE = {"relevant": ARTICLE, "k": 5, "missed": 1, "chart": "by-k"}
KEYS = ("precision", "recall", "rr", "ap")
BAD_WORDS = ("NaN", "Infinity", "undefined", "null")


# -- helpers ----------------------------------------------------------------------------------


def formula(page, key):
    return page.locator(f".metric[data-metric={key}] .metric-formula")


def row(page, rank):
    return page.locator(f'.rl-row[data-rank="{rank}"]')


def row_button(page, rank):
    return row(page, rank).locator("button.rl-activate")


def more_missed(page):
    return page.get_by_role("button", name="One more missed relevant result")


def fewer_missed(page):
    return page.get_by_role("button", name="One fewer missed relevant result")


def expected_formulas(relevant, k, missed):
    """What each card should say for a state, from the metrics core and format_number."""
    grades = [int(r) for r in relevant]
    ranks = metrics.relevant_ranks(grades)
    n = len(ranks) + missed
    hits = len(metrics.relevant_ranks(grades, k))
    f = format_number
    terms = " + ".join(f"{h}/{r}" for h, r in metrics.average_precision_terms(grades))
    if n == 0:
        recall = f"R@{k} = 0 (R = 0: nothing to find)"
        ap = "AP = 0 (R = 0: nothing to find)"
    else:
        recall = f"R@{k} = {hits} / {n} = {f(metrics.recall_at_k(grades, k, n))}"
        ap_value = f(metrics.average_precision(grades, n))
        ap = f"AP = ({terms}) / {n} = {ap_value}" if ranks else f"AP = 0 / {n} = {ap_value}"
    return {
        "precision": f"P@{k} = {hits} / {k} = {f(metrics.precision_at_k(grades, k))}",
        "recall": recall,
        "rr": f"RR = 1 / {ranks[0]} = {f(metrics.reciprocal_rank(grades))}"
        if ranks
        else "RR = 0 (no relevant result in the list)",
        "ap": ap,
    }


def expected_announcement(relevant, k, missed):
    grades = [int(r) for r in relevant]
    n = sum(grades) + missed
    f = format_number
    return (
        f"P@{k} {f(metrics.precision_at_k(grades, k))}, R@{k} {f(metrics.recall_at_k(grades, k, n))}, "
        f"RR {f(metrics.reciprocal_rank(grades))}, AP {f(metrics.average_precision(grades, n))}"
    )


def expect_state_shown(page, relevant, k, missed):
    """The page shows this state: formulas, marks, the marker and the missed rows."""
    for key, text in expected_formulas(relevant, k, missed).items():
        expect(formula(page, key)).to_have_text(text)
    # The marks, in words, then aria-pressed (set in the same redraw) in one read.
    marks = [re.compile(r"^\W*relevant$") if r else re.compile(r"^\W*not relevant$") for r in relevant]
    expect(page.locator(".rl-row .mark")).to_have_text(marks)
    pressed = page.locator(".rl-row button.rl-activate").evaluate_all(
        "buttons => buttons.map(b => b.getAttribute('aria-pressed'))"
    )
    assert pressed == ["true" if r else "false" for r in relevant]
    expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
    expect(page.locator(".rl-cutoff")).to_have_attribute("aria-valuenow", str(k))
    expect(page.locator(".stepper-value")).to_have_text(str(missed))
    expect(page.locator(".missed-row")).to_have_count(missed)


def highlighted_ranks(page):
    return page.locator(".rl-row.rl-highlight").evaluate_all("rows => rows.map(r => Number(r.dataset.rank))")


def boundary_y(page, j):
    """The page y of the boundary under row j: midway between row j and row j + 1."""
    above = row(page, j).bounding_box()
    below = row(page, j + 1).bounding_box()
    return (above["y"] + above["height"] + below["y"]) / 2


def with_flips(relevant, missed, *ranks):
    """The list and the missed count after clicking these ranks in turn, as BinaryState.flip has it.

    (test_binary_state.py checks that rule by hand: R stays put while it can.)
    """
    state = BinaryState(relevant=list(relevant), missed=missed)
    for rank in ranks:
        state.flip(rank)
    return state.relevant, state.missed


def note(page, key):
    return page.locator(f".metric[data-metric={key}] .metric-note")


def state_of(relevant, k, missed):
    return {"relevant": list(relevant), "k": k, "missed": missed, "chart": "by-k"}


# -- what the reader sees at first ------------------------------------------------------------


def test_the_articles_numbers_and_their_arithmetic(page, server):
    page.goto(server.url + "/binary")
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    expect(formula(page, "recall")).to_have_text("R@5 = 3 / 6 = 0.50")
    expect(formula(page, "rr")).to_have_text("RR = 1 / 2 = 0.50")
    expect(formula(page, "ap")).to_have_text("AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 6 = 0.45")
    # The same numbers from the metrics core, not from the page.
    grades = [int(r) for r in ARTICLE]
    assert format_number(metrics.precision_at_k(grades, 5)) == "0.60"
    assert format_number(metrics.recall_at_k(grades, 5, 6)) == "0.50"
    assert format_number(metrics.reciprocal_rank(grades)) == "0.50"
    assert format_number((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 6) == "0.45"
    assert format_number(metrics.average_precision(grades, 6)) == "0.45"
    expect_state_shown(page, ARTICLE, 5, 1)

    expect(page.locator(".metric[data-metric=recall] .metric-note")).to_have_text("R = 5 in the list + 1 missed = 6")
    expect(page.locator(".metric[data-metric=rr] .metric-note")).to_have_text("First relevant result at rank 2")
    expect(page.locator(".metric[data-metric=precision] .metric-note")).to_have_text("3 relevant in the top 5")
    for key in KEYS:
        expect(page.locator(f".metric[data-metric={key}] .metric-blind")).to_have_text(re.compile(r"^Blind to\b"))
    expect(page.locator(".metrics > .fig-notice")).to_be_hidden()

    # Relevance is said in words, not by colour alone.
    for rank, is_relevant in enumerate(ARTICLE, start=1):
        mark = row(page, rank).locator(".mark")
        # A button's name is the text it shows (speech input finds it by that); what a press does
        # is its description.
        if is_relevant:
            expect(mark).to_have_text(re.compile(r"^\W*relevant$"))
            expect(row_button(page, rank)).to_have_accessible_name(re.compile(rf"^{rank} .* relevant$"))
        else:
            expect(mark).to_have_text(re.compile(r"^\W*not relevant$"))
            expect(row_button(page, rank)).to_have_accessible_name(re.compile(rf"^{rank} .* not relevant$"))
        expect(row_button(page, rank)).to_have_accessible_description(f"Rank {rank}. Press to flip its relevance.")
    expect(page.locator(".missed-row .mark")).to_have_text(re.compile(r"^\W*relevant$"))
    # Rows below the cutoff are marked as such.
    for rank in range(1, 13):
        if rank <= 5:
            expect(row(page, rank)).not_to_have_class(re.compile(r"\brl-below\b"))
        else:
            expect(row(page, rank)).to_have_class(re.compile(r"\brl-below\b"))


# -- flipping results ------------------------------------------------------------------------


def test_clicking_rank_1_flips_it_and_clicking_again_restores_the_article(page, server):
    """The issue: rank 1 gives P@5 0.80, R@5 0.67, RR 1.00 and metrics.py's AP; again, the defaults."""
    page.goto(server.url + "/binary")
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    expect(note(page, "recall")).to_have_text("R = 5 in the list + 1 missed = 6")

    row_button(page, 1).click()
    # Relevant ranks 1, 2, 3, 5, 8, 11; the one missed result is now at rank 1, so R stays 6.
    flipped = [True] + ARTICLE[1:]
    grades = [int(r) for r in flipped]
    assert metrics.relevant_ranks(grades) == [1, 2, 3, 5, 8, 11]
    ap = (1 / 1 + 2 / 2 + 3 / 3 + 4 / 5 + 5 / 8 + 6 / 11) / 6
    assert metrics.average_precision(grades, 6) == pytest.approx(ap)
    assert format_number(metrics.precision_at_k(grades, 5)) == format_number(4 / 5) == "0.80"
    assert format_number(metrics.recall_at_k(grades, 5, 6)) == format_number(4 / 6) == "0.67"
    assert format_number(metrics.reciprocal_rank(grades)) == format_number(1 / 1) == "1.00"
    expect(formula(page, "precision")).to_have_text("P@5 = 4 / 5 = 0.80")
    expect(formula(page, "recall")).to_have_text("R@5 = 4 / 6 = 0.67")
    expect(formula(page, "rr")).to_have_text("RR = 1 / 1 = 1.00")
    expect(formula(page, "ap")).to_have_text(
        f"AP = (1/1 + 2/2 + 3/3 + 4/5 + 5/8 + 6/11) / 6 = {format_number(metrics.average_precision(grades, 6))}"
    )
    expect(note(page, "recall")).to_have_text("R = 6 in the list + 0 missed = 6")
    expect(note(page, "rr")).to_have_text("First relevant result at rank 1")
    expect_state_shown(page, flipped, 5, 0)
    expect(row(page, 1).locator(".mark")).to_have_text(re.compile(r"^\W*relevant$"))
    expect(page.locator(".fig-frame [aria-live=polite]")).to_have_text(
        f"P@5 0.80, R@5 0.67, RR 1.00, AP {format_number(metrics.average_precision(grades, 6))}"
    )

    row_button(page, 1).click()
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    expect(formula(page, "recall")).to_have_text("R@5 = 3 / 6 = 0.50")
    expect(formula(page, "rr")).to_have_text("RR = 1 / 2 = 0.50")
    expect(formula(page, "ap")).to_have_text("AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 6 = 0.45")
    expect(note(page, "recall")).to_have_text("R = 5 in the list + 1 missed = 6")
    expect(row(page, 1).locator(".mark")).to_have_text(re.compile(r"^\W*not relevant$"))
    expect_state_shown(page, ARTICLE, 5, 1)
    expect(page.locator(".fig-frame [aria-live=polite]")).to_have_text(expected_announcement(ARTICLE, 5, 1))


def test_enter_and_space_on_a_focused_row_flip_it(page, server):
    page.goto(server.url + "/binary")
    button = row_button(page, 4)
    button.focus()
    expect(button).to_be_focused()

    page.keyboard.press("Enter")
    flipped, missed = with_flips(ARTICLE, 1, 4)
    assert missed == 0  # rank 4 is the missed result, now retrieved
    expect_state_shown(page, flipped, 5, missed)

    page.keyboard.press("Space")
    expect_state_shown(page, ARTICLE, 5, 1)
    expect(button).to_be_focused()

    # Rank 2, the first relevant, by Space: RR moves on to rank 3, and rank 2's document joins the missed.
    row_button(page, 2).focus()
    page.keyboard.press("Space")
    expect(formula(page, "rr")).to_have_text(f"RR = 1 / 3 = {format_number(1 / 3)}")
    flipped, missed = with_flips(ARTICLE, 1, 2)
    assert missed == 2
    expect(note(page, "recall")).to_have_text("R = 4 in the list + 2 missed = 6")
    expect_state_shown(page, flipped, 5, missed)


# -- the cutoff ----------------------------------------------------------------------------


def test_dragging_the_marker_with_the_mouse_moves_k(page, server):
    page.goto(server.url + "/binary")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 5")

    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    target = boundary_y(page, 8)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, (y + target) / 2, steps=4)
    page.mouse.move(x, target, steps=4)
    page.mouse.up()

    expect(handle).to_have_text("k = 8")
    grades = [int(r) for r in ARTICLE]
    hits = 4  # ranks 2, 3, 5 and 8
    expect(formula(page, "precision")).to_have_text(
        f"P@8 = {hits} / 8 = {format_number(metrics.precision_at_k(grades, 8))}"
    )
    expect(formula(page, "recall")).to_have_text(
        f"R@8 = {hits} / 6 = {format_number(metrics.recall_at_k(grades, 8, 6))}"
    )
    expect_state_shown(page, ARTICLE, 8, 1)
    # The marker now sits at the boundary under row 8.
    line = page.locator(".rl-cutoff").bounding_box()
    assert abs(line["y"] - boundary_y(page, 8)) < 3
    expect(row(page, 8)).not_to_have_class(re.compile(r"\brl-below\b"))
    expect(row(page, 9)).to_have_class(re.compile(r"\brl-below\b"))

    # Dragging back up past the top stops at k = 1.
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, row(page, 1).bounding_box()["y"] - 40, steps=6)
    page.mouse.up()
    expect(handle).to_have_text("k = 1")
    expect_state_shown(page, ARTICLE, 1, 1)


def test_the_keyboard_moves_the_marker(page, server):
    page.goto(server.url + "/binary")
    marker = page.locator(".rl-cutoff")
    expect(marker).to_have_attribute("role", "slider")
    marker.focus()
    expect(marker).to_be_focused()

    for key, k in [
        ("ArrowDown", 6),
        ("ArrowUp", 5),
        ("ArrowUp", 4),
        ("Home", 1),
        ("ArrowUp", 1),
        ("End", 12),
        ("ArrowDown", 12),
        ("PageUp", 9),
        ("PageDown", 12),
        ("ArrowLeft", 11),
        ("ArrowRight", 12),
    ]:
        page.keyboard.press(key)
        formulas = expected_formulas(ARTICLE, k, 1)
        expect(formula(page, "precision")).to_have_text(formulas["precision"])
        expect(formula(page, "recall")).to_have_text(formulas["recall"])
        expect(marker).to_have_attribute("aria-valuenow", str(k))
        expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
    # RR and AP do not depend on k.
    expect(formula(page, "rr")).to_have_text("RR = 1 / 2 = 0.50")
    expect(formula(page, "ap")).to_have_text("AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 6 = 0.45")
    expect(marker).to_have_attribute("aria-valuetext", "k = 12: the top 12 results count")

    page.keyboard.press("Home")
    expect(marker).to_have_attribute("aria-valuetext", "k = 1: the top result counts")


def test_pressing_in_the_gutter_brings_the_marker_there(page, server):
    page.goto(server.url + "/binary")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 5")
    gutter = page.locator(".rl-gutter").bounding_box()
    x = gutter["x"] + gutter["width"] / 2

    # Beside the lower part of row 3: the nearest boundary is the one under row 3.
    third = row(page, 3).bounding_box()
    page.mouse.move(x, third["y"] + third["height"] * 0.8)
    page.mouse.down()
    page.mouse.up()
    expect(handle).to_have_text("k = 3")
    expect_state_shown(page, ARTICLE, 3, 1)
    expect(formula(page, "precision")).to_have_text(f"P@3 = 2 / 3 = {format_number(2 / 3)}")

    # Beside the middle of row 10: the boundary above or below it.
    tenth = row(page, 10).bounding_box()
    page.mouse.move(x, tenth["y"] + tenth["height"] / 2)
    page.mouse.down()
    page.mouse.up()
    expect(handle).to_have_text(re.compile(r"^k = (9|10)$"))
    # The press focused the marker, so the keyboard carries on from there.
    expect(page.locator(".rl-cutoff")).to_be_focused()


# -- missed relevant results ---------------------------------------------------------------


def expect_stepper_bounds(page, less_disabled, more_disabled):
    """The bounds are said with aria-disabled; the buttons are never really disabled, so they keep the focus."""
    expect(fewer_missed(page)).to_have_attribute("aria-disabled", str(less_disabled).lower())
    expect(more_missed(page)).to_have_attribute("aria-disabled", str(more_disabled).lower())
    assert page.locator(".stepper button").evaluate_all("buttons => buttons.map(b => b.disabled)") == [False, False]


def test_the_missed_count_changes_recall_and_ap_but_not_precision_or_rr(page, server):
    page.goto(server.url + "/binary")
    expect(page.locator(".missed-row")).to_have_count(1)
    expect_stepper_bounds(page, False, False)

    more_missed(page).click()
    expect_state_shown(page, ARTICLE, 5, 2)
    expect(formula(page, "recall")).to_have_text(f"R@5 = 3 / 7 = {format_number(3 / 7)}")
    expect(formula(page, "ap")).to_have_text(
        f"AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 7 = {format_number((1 / 2 + 2 / 3 + 3 / 5 + 4 / 8 + 5 / 11) / 7)}"
    )
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    expect(formula(page, "rr")).to_have_text("RR = 1 / 2 = 0.50")
    expect(note(page, "recall")).to_have_text("R = 5 in the list + 2 missed = 7")

    fewer_missed(page).click()
    expect(page.locator(".stepper-value")).to_have_text("1")
    fewer_missed(page).click()
    expect_state_shown(page, ARTICLE, 5, 0)
    expect(formula(page, "recall")).to_have_text(f"R@5 = 3 / 5 = {format_number(3 / 5)}")
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    expect(formula(page, "rr")).to_have_text("RR = 1 / 2 = 0.50")
    expect_stepper_bounds(page, True, False)

    # At 0, "−" does nothing: forced past Playwright's own aria-disabled check, then "+" once gives 1
    # (had "−" gone to -1, "+" would give 0).
    fewer_missed(page).click(force=True)
    more_missed(page).click()
    expect_state_shown(page, ARTICLE, 5, 1)
    fewer_missed(page).click()
    expect(page.locator(".stepper-value")).to_have_text("0")

    for missed in range(1, 13):
        more_missed(page).click()
        expect(page.locator(".missed-row")).to_have_count(missed)
    expect_stepper_bounds(page, False, True)
    expect_state_shown(page, ARTICLE, 5, 12)

    # At 12, "+" does nothing: "−" once then gives 11.
    more_missed(page).click(force=True)
    expect(page.locator(".missed-row")).to_have_count(12)
    fewer_missed(page).click()
    expect_state_shown(page, ARTICLE, 5, 11)


def test_pressing_minus_down_to_0_by_keyboard_keeps_the_focus(page, server):
    page.goto(server.url + "/binary?missed=3")
    less = fewer_missed(page)
    less.focus()
    expect(less).to_be_focused()
    for missed in (2, 1, 0):
        page.keyboard.press("Enter")
        expect(page.locator(".stepper-value")).to_have_text(str(missed))
        expect(less).to_be_focused()
    expect_stepper_bounds(page, True, False)
    expect_state_shown(page, ARTICLE, 5, 0)

    # Pressed at the bound, by Enter and by Space: nothing changes and the focus stays.
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    expect(less).to_be_focused()
    page.keyboard.press("Tab")
    expect(more_missed(page)).to_be_focused()
    page.keyboard.press("Enter")  # 0 + 1; had "−" gone below 0 this would not be 1
    expect_state_shown(page, ARTICLE, 5, 1)
    page.keyboard.press("Shift+Tab")
    expect(less).to_be_focused()
    expect_stepper_bounds(page, False, False)


# -- nothing relevant ----------------------------------------------------------------------


def test_nothing_relevant_shows_zeros_and_a_notice_and_no_nan(page, server):
    page.goto(server.url + "/binary")
    for rank in (2, 3, 5, 8, 11):
        row_button(page, rank).click()
    nothing = [False] * 12
    # Each result turned not relevant joins the missed: 1 + 5 = 6, R still 6, every number 0.
    assert with_flips(ARTICLE, 1, 2, 3, 5, 8, 11) == (nothing, 6)
    expect_state_shown(page, nothing, 5, 6)
    expect(note(page, "recall")).to_have_text("R = 0 in the list + 6 missed = 6")
    expect(formula(page, "recall")).to_have_text(f"R@5 = 0 / 6 = {format_number(0)}")
    expect(formula(page, "ap")).to_have_text(f"AP = 0 / 6 = {format_number(0)}")
    notice = page.locator(".metrics > .fig-notice")
    expect(notice).to_be_hidden()

    # Down to none missed with "−": no relevant result anywhere.
    for missed in range(5, -1, -1):
        fewer_missed(page).click()
        expect(page.locator(".stepper-value")).to_have_text(str(missed))

    expect(notice).to_be_visible()
    expect(notice).to_have_text(re.compile(r"every measure is 0"))
    expect(formula(page, "precision")).to_have_text(f"P@5 = 0 / 5 = {format_number(0)}")
    expect(formula(page, "recall")).to_have_text(re.compile(r"^R@5 = 0\b"))
    expect(formula(page, "rr")).to_have_text(re.compile(r"^RR = 0\b"))
    expect(formula(page, "ap")).to_have_text(re.compile(r"^AP = 0\b"))
    expect_state_shown(page, nothing, 5, 0)
    expect(page.locator(".fig-frame [aria-live=polite]")).to_have_text(expected_announcement(nothing, 5, 0))

    marker = page.locator(".rl-cutoff")
    for key, k in [("Home", 1), ("End", 12)]:
        marker.focus()
        page.keyboard.press(key)
        expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
        expect_state_shown(page, nothing, k, 0)
        text = page.locator(".fig").text_content()
        labels = page.locator(".fig [aria-label], .fig [aria-valuetext]").evaluate_all(
            "els => els.map(e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('aria-valuetext') || ''))"
        )
        for bad in BAD_WORDS:
            assert bad not in text, f"{bad!r} in the figure text at k = {k}: {text!r}"
            assert not any(bad in label for label in labels), f"{bad!r} in an ARIA label at k = {k}"

    # One missed relevant result: the notice goes, R is 1 and the numbers stay 0.
    more_missed(page).click()
    expect(notice).to_be_hidden()
    expect(formula(page, "recall")).to_have_text(f"R@12 = 0 / 1 = {format_number(0)}")
    expect(formula(page, "ap")).to_have_text(f"AP = 0 / 1 = {format_number(0)}")
    expect(formula(page, "rr")).to_have_text("RR = 0 (no relevant result in the list)")
    text = page.locator(".fig").text_content()
    assert not any(bad in text for bad in BAD_WORDS), text


# -- highlights and announcements ------------------------------------------------------------


def test_hovering_or_focusing_a_card_highlights_the_ranks_it_uses(page, server):
    page.goto(server.url + "/binary")
    grades = [int(r) for r in ARTICLE]
    highlighted = page.locator(".rl-row.rl-highlight")

    page.locator(".metric[data-metric=ap]").hover()
    expect(highlighted).to_have_count(len(metrics.relevant_ranks(grades)))
    assert highlighted_ranks(page) == metrics.relevant_ranks(grades) == [2, 3, 5, 8, 11]

    page.mouse.move(1, 1)  # off the card
    expect(highlighted).to_have_count(0)

    page.locator(".metric[data-metric=rr]").focus()
    expect(highlighted).to_have_count(1)
    assert highlighted_ranks(page) == [2]

    page.locator(".metric[data-metric=precision]").focus()  # blurs RR, focuses P@k
    expect(highlighted).to_have_count(3)
    assert highlighted_ranks(page) == metrics.relevant_ranks(grades, 5) == [2, 3, 5]

    page.locator(".metric[data-metric=precision]").blur()
    expect(highlighted).to_have_count(0)

    # After a flip, RR's first relevant rank follows.
    row_button(page, 1).click()
    page.locator(".metric[data-metric=rr]").focus()
    expect(highlighted).to_have_count(1)
    flipped = [int(r) for r in with_flips(ARTICLE, 1, 1)[0]]
    assert highlighted_ranks(page) == metrics.relevant_ranks(flipped)[:1] == [1]


def test_the_highlight_follows_a_flip_made_while_a_card_is_hovered(page, server):
    page.goto(server.url + "/binary")
    highlighted = page.locator(".rl-row.rl-highlight")
    row_button(page, 1).focus()
    page.locator(".metric[data-metric=ap]").hover()
    expect(highlighted).to_have_count(5)
    page.keyboard.press("Space")  # the keyboard flips rank 1 while the mouse rests on the AP card
    expect(row_button(page, 1)).to_have_attribute("aria-pressed", "true")
    flipped = [int(r) for r in with_flips(ARTICLE, 1, 1)[0]]
    expect(highlighted).to_have_count(len(metrics.relevant_ranks(flipped)), timeout=1000)
    assert highlighted_ranks(page) == metrics.relevant_ranks(flipped) == [1, 2, 3, 5, 8, 11]

    # And again, turning rank 2 off with the keyboard while the mouse still rests on the card.
    row_button(page, 2).focus()
    page.keyboard.press("Enter")
    expect(row_button(page, 2)).to_have_attribute("aria-pressed", "false")
    expect(highlighted).to_have_count(5, timeout=1000)
    assert highlighted_ranks(page) == [1, 3, 5, 8, 11]


def test_the_live_region_reads_out_the_numbers_after_a_change(page, server):
    page.goto(server.url + "/binary")
    live = page.locator(".fig-frame [aria-live=polite]")
    expect(live).to_have_count(1)
    expect(live).to_have_text(expected_announcement(ARTICLE, 5, 1))
    assert "P@5 0.60" in expected_announcement(ARTICLE, 5, 1)

    row_button(page, 1).click()
    flipped, missed = with_flips(ARTICLE, 1, 1)
    assert missed == 0
    expect(live).to_have_text(expected_announcement(flipped, 5, 0))
    assert expected_announcement(flipped, 5, 0).startswith("P@5 0.80, R@5 0.67, RR 1.00, AP ")

    page.locator(".rl-cutoff").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    more_missed(page).click()
    expect(live).to_have_text(expected_announcement(flipped, 7, 1))


# -- reset ---------------------------------------------------------------------------------


def test_reset_returns_to_where_the_figure_opened_and_example_to_the_article(page, server):
    page.goto(server.url + "/binary")
    row_button(page, 1).click()
    row_button(page, 2).click()
    page.locator(".rl-cutoff").focus()
    page.keyboard.press("End")
    more_missed(page).click()
    more_missed(page).click()
    changed, missed = with_flips(ARTICLE, 1, 1, 2)
    assert missed == 1  # rank 1 on: 1 -> 0; rank 2 off: 0 -> 1
    expect_state_shown(page, changed, 12, missed + 2)

    page.get_by_role("button", name="Reset").click()
    expect_state_shown(page, ARTICLE, 5, 1)
    expect(formula(page, "ap")).to_have_text("AP = (1/2 + 2/3 + 3/5 + 4/8 + 5/11) / 6 = 0.45")

    # A figure that started elsewhere resets to where it started; "Example" goes back to the article.
    expect(page.get_by_role("button", name="Example")).to_be_hidden()  # it started at the article
    page.goto(server.url + "/binary?k=10&missed=0")
    expect_state_shown(page, ARTICLE, 10, 0)
    row_button(page, 3).click()
    page.get_by_role("button", name="Reset").click()
    expect_state_shown(page, ARTICLE, 10, 0)
    page.get_by_role("button", name="Example").click()
    expect_state_shown(page, ARTICLE, 5, 1)


# -- keyboard alone ------------------------------------------------------------------------


def test_the_whole_figure_works_by_keyboard_alone(page, server):
    page.goto(server.url + "/binary")
    expect(formula(page, "precision")).to_have_text("P@5 = 3 / 5 = 0.60")
    reset = page.get_by_role("button", name="Reset")
    marker = page.locator(".rl-cutoff")

    # Tab order: AP's Play, Step and Speed, Undo, Reset, the page's own five buttons, the rows down to the cutoff, the marker (right after the
    # rows it cuts), the rows below it, the stepper's two buttons, the cards, the chart's switch, its k.
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Play AP, one term at a time")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="One step of AP, one term at a time")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("combobox", name="Speed of AP, one term at a time")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator(".fig-undo")).to_be_focused()
    page.keyboard.press("Tab")
    expect(reset).to_be_focused()
    # The light page's own buttons: predict first, the pictures, the presenter view, light or dark.
    for own in (
        ".predict-toggle",
        ".fig-picture-save >> nth=0",
        ".fig-picture-save >> nth=1",
        ".present-toggle",
        ".theme-switch",
    ):
        page.keyboard.press("Tab")
        expect(page.locator(own)).to_be_focused()
    for rank in range(1, 6):
        page.keyboard.press("Tab")
        expect(row_button(page, rank)).to_be_focused()
        if rank == 1:
            page.keyboard.press("Space")  # flip rank 1 on the way
    page.keyboard.press("Tab")
    expect(marker).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    # k = 7: the marker moved after row 7 and kept the focus; the rows below it come next.
    expect(marker).to_be_focused()
    for rank in range(8, 13):
        page.keyboard.press("Tab")
        expect(row_button(page, rank)).to_be_focused()
    page.keyboard.press("Tab")
    # Flipping rank 1 brought in the missed result: "−" is at its bound, yet still in the tab order.
    expect(fewer_missed(page)).to_be_focused()
    expect(fewer_missed(page)).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("Tab")
    expect(more_missed(page)).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    for key in KEYS:
        page.keyboard.press("Tab")
        expect(page.locator(f".metric[data-metric={key}]")).to_be_focused()
    # The chart's two views' switch (above the chart, at its top right), then the chart's k.
    for view in ("By k", "Precision-recall"):
        page.keyboard.press("Tab")
        expect(page.get_by_role("button", name=view)).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("slider", name="Cutoff k on the chart of P@k and R@k")).to_be_focused()

    flipped, missed = with_flips(ARTICLE, 1, 1)
    assert missed == 0
    expect_state_shown(page, flipped, 7, missed + 2)

    # Back to Reset with Shift+Tab, and press it.
    for _ in range(1 + 2 + 4 + 2 + 1 + 12 + 5):
        page.keyboard.press("Shift+Tab")
    expect(reset).to_be_focused()
    page.keyboard.press("Enter")
    expect_state_shown(page, ARTICLE, 5, 1)


# -- Python and the browser ----------------------------------------------------------------


def received_by_python(figure):
    """Record every state the view takes on the Python side, the browser's included."""
    seen = []
    figure.view.param.watch(lambda event: seen.append(event.new), "state")
    return seen


def test_each_kind_of_interaction_reaches_python_and_python_reaches_the_browser(page, serve_object):
    """One Panel page for the sync: a click, keys, a drag, the gutter, the stepper, Reset and Example.

    What each of them shows is checked on the light page by the tests below; here, Python's state
    after each. The figure opens away from the article (at k = 10) so that Reset and Example go
    to two different states."""
    figure = BinaryFigure(k=10)
    opened = state_of(ARTICLE, 10, 1)
    sent = received_by_python(figure)
    page.goto(serve_object(figure))
    expect_state_shown(page, ARTICLE, 10, 1)

    def python_sees(state, message):
        wait_python(figure, lambda: figure.state.to_dict() == state, message=f"Python to see {message}")

    # A click, and a click back.
    row_button(page, 1).click()
    flipped, missed = with_flips(ARTICLE, 1, 1)
    python_sees(state_of(flipped, 10, missed), "rank 1 clicked")
    assert figure.state.n_relevant == 6
    row_button(page, 1).click()
    python_sees(opened, "rank 1 clicked back")
    assert figure.view.state == opened

    # Keys on a row: Enter, then Space.
    row_button(page, 4).focus()
    page.keyboard.press("Enter")
    flipped, missed = with_flips(ARTICLE, 1, 4)
    python_sees(state_of(flipped, 10, missed), "rank 4 flipped by Enter")
    page.keyboard.press("Space")
    python_sees(opened, "rank 4 flipped back by Space")
    row_button(page, 2).focus()
    page.keyboard.press("Space")
    flipped, missed = with_flips(ARTICLE, 1, 2)
    assert missed == 2  # rank 2's document joins the missed
    python_sees(state_of(flipped, 10, missed), "rank 2 flipped by Space")
    page.keyboard.press("Space")
    python_sees(opened, "rank 2 flipped back")

    # A drag of the marker, down and then up past the top.
    handle = page.locator(".rl-cutoff-handle")
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    target = boundary_y(page, 8)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, (y + target) / 2, steps=4)
    page.mouse.move(x, target, steps=4)
    page.mouse.up()
    expect(handle).to_have_text("k = 8")
    python_sees(state_of(ARTICLE, 8, 1), "k = 8 after the drag")
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, row(page, 1).bounding_box()["y"] - 40, steps=6)
    page.mouse.up()
    python_sees(state_of(ARTICLE, 1, 1), "k = 1 after the drag up")

    # The marker's keys.
    page.locator(".rl-cutoff").focus()
    page.keyboard.press("End")
    python_sees(state_of(ARTICLE, 12, 1), "k = 12 after End")
    page.keyboard.press("Home")
    python_sees(state_of(ARTICLE, 1, 1), "k = 1 after Home")

    # A press in the gutter: beside the lower part of row 3, then the middle of row 10.
    gutter = page.locator(".rl-gutter").bounding_box()
    x = gutter["x"] + gutter["width"] / 2
    third = row(page, 3).bounding_box()
    page.mouse.move(x, third["y"] + third["height"] * 0.8)
    page.mouse.down()
    page.mouse.up()
    python_sees(state_of(ARTICLE, 3, 1), "k = 3 after a press in the gutter")
    tenth = row(page, 10).bounding_box()
    page.mouse.move(x, tenth["y"] + tenth["height"] / 2)
    page.mouse.down()
    page.mouse.up()
    wait_python(figure, lambda: figure.state.k in (9, 10), message="Python to see k near 10")
    page.locator(".rl-cutoff").focus()
    page.keyboard.press("End")
    python_sees(state_of(ARTICLE, 12, 1), "k = 12")

    # The stepper, by mouse and by keys, at both bounds: "−" at 0 and "+" at 12 send nothing out of range.
    fewer_missed(page).click()
    python_sees(state_of(ARTICLE, 12, 0), "0 missed")
    fewer_missed(page).click(force=True)
    more_missed(page).click()
    python_sees(state_of(ARTICLE, 12, 1), "1 missed")
    for _ in range(11):
        more_missed(page).click()
    expect(page.locator(".stepper-value")).to_have_text("12")
    python_sees(state_of(ARTICLE, 12, 12), "12 missed")
    more_missed(page).click(force=True)
    fewer_missed(page).focus()
    page.keyboard.press("Enter")
    python_sees(state_of(ARTICLE, 12, 11), "11 missed after Enter on '−'")
    assert all(0 <= state["missed"] <= 12 for state in sent), [state["missed"] for state in sent]

    # Reset, then nothing relevant: every value 0 in Python too.
    page.get_by_role("button", name="Reset").click()
    python_sees(opened, "Reset, back to where the figure opened")
    assert figure.view.state == opened
    for rank in (2, 3, 5, 8, 11):
        row_button(page, rank).click()
    nothing, missed = with_flips(ARTICLE, 1, 2, 3, 5, 8, 11)
    assert nothing == [False] * 12 and missed == 6
    python_sees(state_of(nothing, 10, missed), "nothing relevant in the list, 6 missed")
    for _ in range(6):
        fewer_missed(page).click()
    python_sees(state_of(nothing, 10, 0), "nothing relevant anywhere")
    assert figure.state.n_relevant == 0
    assert all(v == 0 for v in figure.state.values.values())

    # Example: the article's state.
    page.get_by_role("button", name="Example").click()
    expect_state_shown(page, ARTICLE, 5, 1)
    python_sees(ARTICLE_STATE, "the article after Example")
    assert figure.view.state == ARTICLE_STATE

    # And Python's changes reach the page, which still talks back.
    on_server(figure.state.param.update, k=8)
    expect(formula(page, "precision")).to_have_text(f"P@8 = 4 / 8 = {format_number(4 / 8)}")
    expect(formula(page, "recall")).to_have_text(f"R@8 = 4 / 6 = {format_number(4 / 6)}")
    row_button(page, 1).click()
    expect(formula(page, "precision")).to_have_text(f"P@8 = 5 / 8 = {format_number(5 / 8)}")
    python_sees(state_of(with_flips(ARTICLE, 1, 1)[0], 8, 0), "rank 1 clicked after Python's change")


def test_python_changes_reach_the_page(page, serve_object):
    figure = BinaryFigure()
    page.goto(serve_object(figure))
    expect_state_shown(page, ARTICLE, 5, 1)

    relevant = [True, False] * 6  # ranks 1, 3, 5, 7, 9, 11
    on_server(figure.state.param.update, relevant=relevant)
    expect_state_shown(page, relevant, 5, 1)

    on_server(figure.state.param.update, k=12)
    expect_state_shown(page, relevant, 12, 1)

    on_server(figure.state.param.update, missed=4)
    expect_state_shown(page, relevant, 12, 4)
    expect(formula(page, "recall")).to_have_text(f"R@12 = 6 / 10 = {format_number(6 / 10)}")

    on_server(figure.state.flip, 2)  # on, from the four missed
    flipped, missed = with_flips(relevant, 4, 2)
    assert missed == 3
    expect_state_shown(page, flipped, 12, missed)
    expect(note(page, "recall")).to_have_text("R = 7 in the list + 3 missed = 10")

    on_server(figure.state.update_from_dict, {"relevant": [False] * 12, "k": 1, "missed": 0})
    expect_state_shown(page, [False] * 12, 1, 0)
    expect(page.locator(".metrics > .fig-notice")).to_be_visible()

    on_server(figure.state.reset)
    expect_state_shown(page, ARTICLE, 5, 1)
    expect(page.locator(".metrics > .fig-notice")).to_be_hidden()

    # And the page, redrawn from Python, still talks back.
    row_button(page, 12).click()
    flipped, missed = with_flips(ARTICLE, 1, 12)
    wait_until(lambda: figure.state.to_dict() == state_of(flipped, 5, missed), message="Python to see rank 12 flipped")
    assert missed == 0


FIND_MODEL = """() => {
  for (const doc of Bokeh.documents)
    for (const m of doc._all_models.values())
      if (m.data && m.data.state !== undefined && 'missed' in m.data.state) return m.id;
  return null;
}"""

SET_STATE = """([id, next]) => {
  for (const doc of Bokeh.documents) {
    const m = doc._all_models.get(id);
    if (m) { m.data.state = next; return true; }
  }
  return false;
}"""


def test_an_invalid_state_from_the_browser_is_refused(page, serve_object):
    figure = BinaryFigure()
    seen = received_by_python(figure)
    page.goto(serve_object(figure))
    expect_state_shown(page, ARTICLE, 5, 1)
    model_id = page.evaluate(FIND_MODEL)
    assert model_id, "the figure's Bokeh model"

    # Thirteen missed results and an eleven-row list: the browser draws them, Python refuses them.
    bad = {"relevant": ARTICLE[:11], "k": 5, "missed": 13}
    assert page.evaluate(SET_STATE, [model_id, bad])
    wait_until(lambda: bad in seen, message="the invalid state to reach Python")
    expect_state_shown(page, ARTICLE, 5, 1)
    assert figure.state.to_dict() == ARTICLE_STATE
    assert figure.view.state == ARTICLE_STATE

    # A valid state set the same way goes through.
    valid = {"relevant": [True] * 12, "k": 2, "missed": 0, "chart": "by-k"}
    assert page.evaluate(SET_STATE, [model_id, valid])
    wait_until(lambda: figure.state.to_dict() == valid, message="Python to take a valid state")
    expect_state_shown(page, [True] * 12, 2, 0)


def test_a_state_of_non_bools_from_the_browser_is_refused(page, serve_object):
    # (k or missed of true/false is refused on the Python side too, see test_binary_state.py; from the
    # browser it never gets that far, as metrics.js throws on k = true while the page draws it.)
    bad = {"relevant": [1] * 12, "k": 5, "missed": 1}
    figure = BinaryFigure()
    seen = received_by_python(figure)
    page.goto(serve_object(figure))
    expect_state_shown(page, ARTICLE, 5, 1)
    model_id = page.evaluate(FIND_MODEL)
    assert model_id, "the figure's Bokeh model"
    assert page.evaluate(SET_STATE, [model_id, bad])
    wait_until(lambda: bad in seen, message="the invalid state to reach Python")
    # Python refuses it and pushes its own state back, and the page shows that.
    wait_until(lambda: figure.view.state == ARTICLE_STATE, message="Python to reset the view")
    assert figure.state.to_dict() == ARTICLE_STATE
    expect_state_shown(page, ARTICLE, 5, 1)

    # The page still works, both ways.
    row_button(page, 1).click()
    expect(formula(page, "precision")).to_have_text("P@5 = 4 / 5 = 0.80")
    flipped, missed = with_flips(ARTICLE, 1, 1)
    wait_until(lambda: figure.state.to_dict() == state_of(flipped, 5, missed), message="Python to see rank 1 flipped")
