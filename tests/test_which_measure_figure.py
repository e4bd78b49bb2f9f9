"""Figure 5, which measure answers which question, in a real Chromium: each row's demo, clicks and links.

What the figure shows and does is checked on its own page (a light page of the explainer's server,
a second to load); one test serves a WhichMeasureFigure from this process (a Panel page, several
seconds on a busy machine) to read Python's state after a row's click, a square's click and a key."""

import re

import pytest

from explainer.catalog.measures import TAUGHT
from explainer.figures.which_measure import DEMOS, WhichMeasureFigure, WhichMeasureState
from explainer.metrics import format_number as f

from support.expect import expect
from support.server import wait_until


def row_values(page, key):
    row = page.locator(f".which-compare tr[data-measure={key}]")
    return row.locator("td.num").all_inner_texts()


@pytest.mark.browser
def test_choosing_each_row_shows_its_demo_with_the_numbers_python_computes(page, server):
    page.goto(server.url + "/which-measure")
    for measure in TAUGHT:
        button = page.locator(f"button.which-row[data-measure={measure.key}]")
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
        expect(page.locator(".which-says")).to_have_text(DEMOS[measure.key].says)
        state = WhichMeasureState()
        state.choose(measure.key)
        a, b = state.values("a"), state.values("b")
        expect(page.locator(".which-compare tr.chosen .verdict")).to_have_text("= the same")
        for key in a:
            expect(page.locator(f".which-compare tr[data-measure={key}] td.num")).to_have_text([f(a[key]), f(b[key])])


@pytest.mark.browser
def test_clicking_a_square_changes_the_list_and_the_numbers(page, server):
    page.goto(server.url + "/which-measure")
    page.locator(".which-list[data-list=b] .which-cell[data-rank='1']").click()  # B gains rank 1
    state = WhichMeasureState(b=[1, 0, 1, 1, 1, 0, 0, 0])
    expect(page.locator(".which-compare tr[data-measure=precision] td.num")).to_have_text(
        [f(state.values("a")["precision"]), f(state.values("b")["precision"])]
    )
    expect(page.locator(".which-compare tr.chosen .verdict")).to_have_text("≠ differs")
    page.keyboard.press("Enter")  # the focused square again: back to not relevant
    expect(page.locator(".which-compare tr.chosen .verdict")).to_have_text("= the same")


@pytest.mark.browser
def test_a_row_a_square_and_a_key_reach_python(page, serve_object):
    figure = WhichMeasureFigure()
    page.goto(serve_object(figure))
    for measure in TAUGHT:
        page.locator(f"button.which-row[data-measure={measure.key}]").click()
        wait_until(lambda key=measure.key: figure.state.measure == key, message=f"Python to see {measure.key}")
    page.locator("button.which-row[data-measure=precision]").click()
    wait_until(lambda: figure.state.measure == "precision", message="Python to see precision again")
    page.locator(".which-list[data-list=b] .which-cell[data-rank='1']").click()  # B gains rank 1
    wait_until(lambda: figure.state.b == [1, 0, 1, 1, 1, 0, 0, 0], message="Python to see list B")
    page.keyboard.press("Enter")  # the focused square again: back to not relevant
    wait_until(lambda: figure.state.b == WhichMeasureState().b, message="Python to see list B back")


@pytest.mark.browser
def test_graded_squares_step_through_unjudged_and_the_grades_and_the_link_keeps_the_question_mark(page, server):
    page.goto(server.url + "/which-measure?measure=ndcg")
    cell = page.locator(".which-list[data-list=a] .which-cell[data-rank='3']")
    expect(cell).to_have_text("0")
    for expected_text in ["1", "2", "3", "?"]:  # 0 -> 1 -> 2 -> 3 -> unjudged
        cell.click()
        expect(cell).to_have_text(expected_text)
    page.wait_for_url(re.compile(r"a=1,1,\?,0,0,0,0,0&b=3,3,0"))
    assert "%3F" not in page.url  # readable as the README writes it
    cell.click()
    expect(cell).to_have_text("0")
    page.wait_for_url(re.compile(r"measure=ndcg$"))
    cell.click()
    page.wait_for_url(re.compile(r"measure=ndcg&a=1,1,1,0,0,0,0,0&b=3,3,0,0,0,0,0,0"))


@pytest.mark.browser
def test_a_bad_link_value_gets_a_notice(page, server):
    page.goto(server.url + "/which-measure?measure=<i>f1</i>")
    expect(page.locator(".query-notice")).to_contain_text(
        "measure=“<i>f1</i>”: measure must be precision, recall, rr, ap or ndcg"
    )
    expect(page.locator("button.which-row[data-measure=precision]")).to_have_attribute("aria-pressed", "true")


@pytest.mark.browser
def test_the_sentence_follows_the_lists_once_the_reader_changes_them(page, server):
    page.goto(server.url + "/which-measure")
    says = page.locator(".which-says")
    expect(says).to_have_text(DEMOS["precision"].says)
    page.locator(
        ".which-list[data-list=b] .which-cell[data-rank='3']"
    ).click()  # B loses a relevant result in the top 5
    state = WhichMeasureState()
    b = list(state.b)
    b[2] = 0
    state.b = b
    a_value, b_value = f(state.values("a")["precision"]), f(state.values("b")["precision"])
    assert a_value != b_value
    expect(says).to_have_text(f"Your lists: P@5 is {a_value} for A and {b_value} for B, so it tells them apart.")
    page.get_by_role("button", name="Reset", exact=True).click()
    expect(says).to_have_text(DEMOS["precision"].says)


@pytest.mark.browser
def test_values_that_only_round_alike_are_told_apart_and_shown_with_the_digits_that_differ(page, server):
    # AP = (1/7 + 2/8) / 2 for A and 1/5 for B: both show as 0.20, but they differ.
    a, b = [0, 0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 0, 0, 0]
    state = WhichMeasureState(measure="ap", a=a, b=b)
    ap_a, ap_b = state.values("a")["ap"], state.values("b")["ap"]
    assert ap_a == pytest.approx((1 / 7 + 2 / 8) / 2) and ap_b == pytest.approx(1 / 5)
    assert f(ap_a) == f(ap_b) and ap_a != ap_b
    page.goto(server.url + "/which-measure?measure=ap&a=0,0,0,0,0,0,1,1&b=0,0,0,0,1,0,0,0")
    expect(page.locator(".which-says")).to_have_text(
        f"Your lists: AP is {f(ap_a, 4)} for A and {f(ap_b, 4)} for B, so it tells them apart."
    )
    expect(page.locator(".which-compare tr[data-measure=ap] td.num")).to_have_text([f(ap_a, 4), f(ap_b, 4)])
    expect(page.locator(".which-compare tr.chosen .verdict")).to_have_text("≠ differs")
    expect(page.locator(".fig-frame [aria-live=polite]")).to_have_text(f"AP: A {f(ap_a, 4)}, B {f(ap_b, 4)}")
    # P@5 is 0/5 against 1/5: two decimals tell them apart, so two are shown.
    expect(page.locator(".which-compare tr[data-measure=precision] td.num")).to_have_text(["0.00", "0.20"])


@pytest.mark.browser
def test_the_cutoff_is_labelled_where_it_falls(page, server):
    page.goto(server.url + "/which-measure")
    mark = page.locator(".which-ruler-mark")
    expect(mark).to_have_text(f"k = {DEMOS['precision'].k}")
    edge = mark.bounding_box()
    fifth = page.locator(".which-list[data-list=a] .which-cell[data-rank='5']").bounding_box()
    sixth = page.locator(".which-list[data-list=a] .which-cell[data-rank='6']").bounding_box()
    # The label's right edge, its line, falls between rank 5 and rank 6.
    assert fifth["x"] + fifth["width"] - 1 <= edge["x"] + edge["width"] <= sixth["x"] + 1
