"""Figure 4, unjudged documents, in a real Chromium: what a reader sees and does, and its sync with Python."""

import re

import pytest

from explainer import metrics
from explainer.figures.unjudged import ARTICLE_GRADES, OUTSIDE_JUDGED, UnjudgedFigure
from explainer.metrics import format_number as f

from support.expect import expect
from support.expected import unjudged_values
from support.server import wait_until

UNJUDGED = (2, 3, 7)


DEFAULT_JUDGED = [r not in UNJUDGED for r in range(1, 11)]


def opening(page, url: str, figure=None):
    page.goto(url)
    expect(page.locator(".metric-ndcgText .metric-formula")).to_be_visible()
    return figure, page, url


@pytest.fixture
def opened(page, serve_object):
    """An UnjudgedFigure served from this process: for what the page and Python do together."""
    figure = UnjudgedFigure(standalone=True)
    return opening(page, serve_object(figure), figure)


@pytest.fixture
def light(page, server):
    """The figure's own page, a light page of the explainer's server (a second to load, where a Panel
    page takes several): for what the figure shows and does in the browser alone."""
    return opening(page, server.url + "/unjudged")


def shown(page):
    return {
        key: page.locator(f".metric-{key}Text .metric-formula").inner_text().rsplit("= ", 1)[-1]
        for key in ("judged", "precision", "ndcg")
    }


def expect_numbers(page, numbers):
    for key, value in numbers.items():
        expect(page.locator(f".metric-{key}Text .metric-formula")).to_have_text(
            re.compile(rf"= {re.escape(f(value))}$")
        )


@pytest.mark.browser
def test_the_default_list_shows_its_unjudged_results_and_numbers(light):
    _, page, _ = light
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED))
    for rank in UNJUDGED:
        expect(page.locator(f'.rl-row[data-rank="{rank}"] .judgment')).to_have_text("? counts as 0")
    expect(page.locator(".metric-judgedText .metric-formula")).to_have_text("Judged@10 = 7 / 10 = 0.70")


@pytest.mark.browser
def test_revealing_the_grades_raises_the_scores_and_says_by_how_much(light):
    _, page, _ = light
    page.get_by_role("button", name="Reveal the judge's grades").click()
    after = unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED, reveal=True)
    expect_numbers(page, after)
    expect(page.locator(".before-after")).to_contain_text(
        f"NDCG@10 {f(unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED)['ndcg'])}"
    )
    expect(page.locator('.rl-row[data-rank="2"] .judgment')).to_contain_text("? → ")


@pytest.mark.browser
def test_leaving_unjudged_results_out_condenses_the_list(light):
    _, page, _ = light
    page.locator("input[name=unjudged_as][value=condensed]").check()
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, DEFAULT_JUDGED, condensed=True))
    expect(page.locator('.rl-row[data-rank="4"] .rl-rank')).to_have_text("4→2")


@pytest.mark.browser
def test_marking_a_result_judged_or_not_by_click_and_keyboard(light):
    _, page, _ = light
    page.locator('.rl-row[data-rank="2"] button').click()  # judge rank 2
    judged = list(DEFAULT_JUDGED)
    judged[1] = True
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, judged))
    page.locator('.rl-row[data-rank="1"] button').focus()
    page.keyboard.press("Enter")  # rank 1 becomes unjudged
    judged[0] = False
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, judged))


@pytest.mark.browser
def test_each_kind_of_interaction_reaches_python(opened):
    """The one Panel page of this file: a click, a key, the convention's switch and Reveal each reach
    Python's state."""
    figure, page, _ = opened
    page.locator('.rl-row[data-rank="2"] button').click()  # judge rank 2
    judged = list(DEFAULT_JUDGED)
    judged[1] = True
    wait_until(lambda: figure.state.judged == judged, message="Python to see rank 2 judged")
    page.locator('.rl-row[data-rank="1"] button').focus()
    page.keyboard.press("Enter")  # rank 1 becomes unjudged
    judged[0] = False
    wait_until(lambda: figure.state.judged == judged, message="Python to see rank 1 unjudged")
    page.locator("input[name=unjudged_as][value=condensed]").check()
    wait_until(lambda: figure.state.unjudged_as == "condensed", message="Python to see the convention")
    page.get_by_role("button", name="Reveal the judge's grades").click()
    wait_until(lambda: figure.state.reveal is True, message="Python to see the reveal")
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, judged, condensed=True, reveal=True))


@pytest.mark.browser
def test_changing_a_grade_and_the_cutoff(light):
    _, page, _ = light
    page.locator('.rl-row[data-rank="4"] select').select_option("3")
    grades = list(ARTICLE_GRADES)
    grades[3] = 3
    page.locator(".rl-cutoff").focus()
    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("ArrowDown")
    expect_numbers(page, unjudged_values(grades, DEFAULT_JUDGED, k=5))


@pytest.mark.browser
def test_state_link_and_bad_values(page, server):
    page.goto(server.url + "/unjudged" + "?unjudged=1,2&k=5&unjudged_as=condensed&reveal=0&foo=<b>x</b>")
    judged = [r not in (1, 2) for r in range(1, 11)]
    expect_numbers(page, unjudged_values(ARTICLE_GRADES, judged, k=5, condensed=True))
    expect(page.locator(".query-notice")).to_contain_text("“foo”: this figure has no such setting")
    page.get_by_role("button", name="Reveal the judge's grades").click()
    page.wait_for_url(re.compile(r"unjudged=1,2&k=5&unjudged_as=condensed&reveal=1"))


@pytest.mark.browser
def test_the_ideal_dcg_can_be_checked_by_hand_from_the_grades_the_figure_lists(page, server):
    """The ideal order draws on documents outside the list: the figure names their grades. (At other
    cutoffs and revealed, the readout's note is checked in Node: tests/js/unjudged.test.mjs.)"""
    page.goto(server.url + "/unjudged?reveal=1&k=6")
    formula = page.locator(".metric-ndcgText .metric-formula")
    expect(formula).to_have_text(re.compile(r"NDCG@\d+ = "))
    note = page.locator(".metric-ndcgText .metric-note").inner_text()
    assert ", ".join(map(str, OUTSIDE_JUDGED)) in note
    listed = [int(g) for g in re.search(r": grades ([\d, ]+)\.$", note).group(1).split(", ")]
    k = int(re.match(r"NDCG@(\d+)", formula.inner_text()).group(1))
    assert len(listed) == k
    ideal_dcg = metrics.dcg_at_k(listed, k, "exponential")
    expect(formula).to_have_text(re.compile(rf"/ {re.escape(f(ideal_dcg))} = "))


@pytest.mark.browser
def test_the_hidden_grades_stay_hidden_until_revealed(light):
    """No spoiler: an unjudged result's menu shows "?" and waits until the grades are revealed."""
    _, page, _ = light
    for rank in UNJUDGED:
        select = page.locator(f'.rl-row[data-rank="{rank}"] select')
        expect(select).to_have_value("")
        expect(select).to_be_disabled()
        expect(select.locator("option:checked")).to_have_text("?")
    judged_select = page.locator('.rl-row[data-rank="1"] select')
    expect(judged_select).to_have_value(str(ARTICLE_GRADES[0]))
    page.get_by_role("button", name="Reveal the judge's grades").click()
    for rank in UNJUDGED:
        expect(page.locator(f'.rl-row[data-rank="{rank}"] select')).to_have_value(str(ARTICLE_GRADES[rank - 1]))
    # The button says what it now does.
    hide = page.get_by_role("button", name="Hide the judge's grades")
    hide.click()
    expect(page.get_by_role("button", name="Reveal the judge's grades")).to_be_visible()
    expect(page.locator(f'.rl-row[data-rank="{UNJUDGED[0]}"] select')).to_have_value("")
