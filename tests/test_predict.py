"""Predict, then reveal (figures/predict.js): the headline numbers hide until the reader has guessed them.

Served pages, exported light pages and the tag: a wrong and a right guess and what the page says
of each, nothing that gives an answer away before Reveal (shown text, accessible names,
descriptions, tooltips, the live region, the narrow screen's headline bar), a change that hides
the numbers again, guesses that are not numbers, the keyboard alone, and predict=1 in the link.
"""

from __future__ import annotations

import re
import shutil

import pytest

from explainer import metrics
from explainer.figures import BY_NAME
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.runtime import bundle

from support.expect import expect
from support.page import ACTIVE_JS, reader_text, serious_violations, watch_page

pytestmark = pytest.mark.browser

f = metrics.format_number


def off(guess: float, value: float) -> str:
    """How far a guess is from a value, as Reveal says it: the two numbers as written, subtracted."""
    return f(abs(float(f(guess)) - float(f(value))))


# The exported page runs the same modules as the served one: a test given both runs the served
# page in the default run and the exported one among the slow tests (tests given no mode open the
# exported page).
MODES = ["served", pytest.param("exported", marks=pytest.mark.slow)]
LIVE = ".fig-frame [aria-live=polite]"
ASKING = re.compile(r"^Numbers hidden\. Guess ")


def guess(page, key):
    return page.locator(f"[data-predict={key}] input")


def result(page, key):
    return page.locator(f"[data-predict={key}] .predict-result")


def reveal(page):
    page.get_by_role("button", name="Reveal", exact=True).click()


def binary_expected(state: BinaryState) -> dict[str, str]:
    """Figure 1's formulas for a state, written out as its cards write them."""
    grades, k, n = state.grades, state.k, state.n_relevant
    hits = len(metrics.relevant_ranks(grades, k))
    v = state.values
    return {
        "precision": f"P@{k} = {hits} / {k} = {f(v['precision'])}",
        "recall": f"R@{k} = {hits} / {n} = {f(v['recall'])}",
    }


@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_and_a_right_guess_on_figure_one_and_nothing_told_before_reveal(page, address, mode):
    seen = watch_page(page)
    page.goto(address(mode, "/binary?predict=1"))
    expect(page.locator(LIVE)).to_have_text(ASKING)
    expect(page.locator(LIVE)).to_contain_text("P@5, R@5, RR and AP")
    state = BinaryState()
    values = state.values
    written = binary_expected(state)
    before = reader_text(page)
    for key, value in values.items():
        assert f(value) not in before, (key, f(value), before)
    for text in written.values():
        assert text not in before
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_hidden()

    p, r = values["precision"], values["recall"]
    wrong = p - 0.2 if p >= 0.2 else p + 0.2
    guess(page, "precision").fill(str(round(wrong, 2)))
    guess(page, "recall").fill(f(r))
    reveal(page)
    expect(result(page, "precision")).to_have_text(f"P@5 = {f(p)}: your guess {f(wrong)}, off by {off(wrong, p)}.")
    expect(result(page, "recall")).to_have_text(f"R@5 = {f(r)}: your guess {f(r)}, right.")
    expect(result(page, "rr")).to_have_text(f"RR = {f(values['rr'])}: no guess.")
    expect(page.locator("[data-metric=precision] .metric-formula")).to_have_text(written["precision"])
    expect(page.locator("[data-metric=recall] .metric-formula")).to_have_text(written["recall"])
    expect(page.locator(LIVE)).to_contain_text(f"R@5 = {f(r)}: your guess {f(r)}, right.")
    assert seen["errors"] == []


@pytest.mark.parametrize("mode", MODES)
def test_a_change_after_reveal_hides_the_numbers_again_and_asks_for_new_guesses(page, address, mode):
    page.goto(address(mode, "/binary?predict=1"))
    guess(page, "precision").fill("0.6")
    reveal(page)
    expect(result(page, "precision")).to_be_visible()
    page.locator('.rl-row[data-rank="1"] button').click()  # rank 1 turns relevant
    expect(result(page, "precision")).to_be_hidden()
    expect(guess(page, "precision")).to_have_value("")
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_hidden()
    expect(page.locator(LIVE)).to_have_text(ASKING)
    changed = BinaryState(
        relevant=[True, True, True, False, True, False, False, True, False, False, True, False], missed=0
    )
    text = reader_text(page)
    for formula in binary_expected(changed).values():
        assert formula not in text
    guess(page, "precision").fill("0.8")
    reveal(page)
    p = changed.values["precision"]
    expect(result(page, "precision")).to_have_text(f"P@5 = {f(p)}: your guess 0.80, right.")


def test_guesses_that_are_not_numbers_from_0_to_1_get_a_plain_message_and_reveal_nothing(page, address):
    page.goto(address("exported", "/binary?predict=1"))
    status = page.locator(".predict-status")
    reveal(page)
    expect(status).to_have_text("Type a guess first: a number from 0 to 1.")
    guess(page, "ap").fill("<b>1.5</b>")
    reveal(page)
    expect(status).to_have_text("AP: “<b>1.5</b>” is not a number from 0 to 1: type one as 0.4 (or 40%).")
    expect(status.locator("b")).to_have_count(0)
    expect(guess(page, "ap")).to_have_attribute("aria-invalid", "true")
    expect(guess(page, "ap")).to_be_focused()
    guess(page, "ap").fill("1.5")
    reveal(page)
    expect(status).to_have_text("AP: “1.5” is not a number from 0 to 1: type one as 0.4 (or 40%).")
    expect(page.locator("[data-metric=ap] .metric-formula")).to_be_hidden()
    p = BinaryState().values["precision"]
    guess(page, "ap").fill("")
    guess(page, "precision").fill(f"{round(p * 100)}%")
    reveal(page)
    expect(result(page, "precision")).to_have_text(f"P@5 = {f(p)}: your guess {f(p)}, right.")
    expect(status).to_have_text("")


@pytest.mark.parametrize("mode", MODES)
def test_the_keyboard_alone_switches_predict_mode_guesses_and_reveals(page, address, mode):
    page.goto(address(mode, "/binary?k=4"))
    expect(page.locator(".fig-caption")).to_be_visible(timeout=30_000)
    page.locator("body").focus()
    switch = page.get_by_role("button", name="Predict first")
    tab_until(page, lambda a: a["text"] == "Predict first")
    page.keyboard.press("Space")
    expect(switch).to_have_attribute("aria-pressed", "true")
    page.wait_for_url(re.compile(r"[?&]predict=1"))
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_hidden()
    tab_until(page, lambda a: "predict-input" in a["cls"])
    # The arrow keys pick a guess: from one half, a twentieth a step.
    page.keyboard.press("ArrowUp")
    expect(guess(page, "precision")).to_have_value("0.50")
    page.keyboard.press("ArrowDown")
    expect(guess(page, "precision")).to_have_value("0.45")
    p = BinaryState(k=4).values["precision"]
    page.keyboard.press("Control+A")
    page.keyboard.type(f(p))
    page.keyboard.press("Enter")
    expect(result(page, "precision")).to_have_text(f"P@4 = {f(p)}: your guess {f(p)}, right.")
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_visible()
    # Back to the switch, and off: the numbers show, the link loses predict=1.
    tab_until(page, lambda a: a["text"] == "Predict first", key="Shift+Tab")
    page.keyboard.press("Enter")
    expect(switch).to_have_attribute("aria-pressed", "false")
    page.wait_for_url(re.compile(r"^(?!.*predict=1)"))
    expect(page.locator(".predict-guess").first).to_be_hidden()


def tab_until(page, predicate, key: str = "Tab", limit: int = 80) -> None:
    for _ in range(limit):
        page.keyboard.press(key)
        active = page.evaluate(ACTIVE_JS)
        if active and predicate(active):
            return
    raise AssertionError(f"{key} never reached the element; at {page.evaluate(ACTIVE_JS)}")


@pytest.mark.parametrize("mode", MODES)
def test_predict_1_round_trips_through_the_link_with_the_state(page, address, mode):
    page.goto(address(mode, "/binary?predict=1&k=3"))
    expect(page.get_by_role("button", name="Predict first")).to_have_attribute("aria-pressed", "true")
    page.locator('.rl-row[data-rank="1"] button').click()
    page.wait_for_url(re.compile(r"\?predict=1&relevant=1,2,3,5,8,11&missed=0&k=3$"))
    page.reload()
    expect(page.get_by_role("button", name="Predict first")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_hidden()
    expect(page.locator("[data-predict=precision] .predict-words")).to_have_text("Your guess for P@3")
    page.goto(address(mode, "/binary?predict=2"))
    expect(page.locator(".query-notice")).to_have_text("Ignored predict=“2”: predict must be 0 or 1.")
    expect(page.locator("[data-metric=precision] .metric-formula")).to_be_visible()


def test_the_tags_predict_attribute_hides_the_numbers_until_reveal(tmp_path, exported_site, page):
    shutil.copy(exported_site / "explainer.js", tmp_path / "explainer.js")
    body = '<relevance-figure name="binary" state="k=4" predict></relevance-figure><relevance-figure name="ndcg"></relevance-figure>'
    html = f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tags</title></head><body>{body}<script src="explainer.js"></script></body></html>'
    (tmp_path / "tags.html").write_text(html, encoding="utf-8")
    seen = watch_page(page)
    page.goto((tmp_path / "tags.html").as_uri())
    tag = page.locator("relevance-figure[name=binary]")
    values = BinaryState(k=4).values
    expect(tag.locator(LIVE)).to_have_text(ASKING)
    expect(page.locator("relevance-figure[name=ndcg] .predict-guess")).to_be_hidden()  # only where asked
    text = reader_text(page, "relevance-figure[name=binary]")
    assert "Your guess for P@4" in text
    assert not [f(value) for value in values.values() if f(value) in text], text
    tag.locator("[data-predict=rr] input").fill("0.1")
    tag.locator("[data-predict=ap] input").fill(f(values["ap"]))
    tag.get_by_role("button", name="Reveal", exact=True).click()
    rr, ap = values["rr"], values["ap"]
    expect(tag.locator("[data-predict=rr] .predict-result")).to_have_text(
        f"RR = {f(rr)}: your guess 0.10, off by {off(0.1, rr)}."
    )
    expect(tag.locator("[data-predict=ap] .predict-result")).to_have_text(f"AP = {f(ap)}: your guess {f(ap)}, right.")
    # Taking the attribute away shows the numbers, as the switch does.
    tag.evaluate("el => el.removeAttribute('predict')")
    expect(tag.locator("[data-metric=precision] .metric-formula")).to_be_visible()
    expect(tag.locator(".predict-guess").first).to_be_hidden()
    assert seen["errors"] == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(BY_NAME))
def test_every_figure_hides_what_it_predicts_and_reveals_each_guess(page, address, name, mode):
    """Each figure page in predict mode: guesses of 0 for every hidden value; nothing that Reveal
    shows (the values' formulas and arithmetic) was there to read before."""
    seen = watch_page(page)
    page.goto(address(mode, f"/{name}?predict=1"))
    expect(page.locator(LIVE)).to_have_text(ASKING, timeout=30_000)
    inputs = page.locator(".predict-guess input")
    expect(inputs.first).to_be_visible()
    before = reader_text(page)
    charts = page.locator(".kchart")  # the measures at every k would give the answers away
    for i in range(charts.count()):
        expect(charts.nth(i)).to_be_hidden()
    for i in range(inputs.count()):
        inputs.nth(i).fill("0")
    reveal(page)
    results = page.locator(".predict-result")
    expect(results.first).to_be_visible()
    shown = page.locator(".kchart:not([hidden])")  # figure 1 shows one of its two views at a time
    assert shown.count() or not charts.count(), "Reveal showed no chart"
    for i in range(shown.count()):
        expect(shown.nth(i)).to_be_visible()
    for text in results.all_inner_texts():
        match = re.fullmatch(r".+ = (\d\.\d\d): your guess 0\.00, (right|off by (\d\.\d\d))\.", text)
        assert match, text
        shown, verdict, off = match.groups()
        assert (verdict == "right") == (shown == f(0)) and off in (None, shown), text
    revealed = page.locator(".predict-hidden").evaluate_all(
        "els => els.filter((e) => e.checkVisibility()).map((e) => e.innerText.trim()).filter(Boolean)"
    )
    assert revealed, "Reveal showed nothing"
    # No formula that Reveal showed was readable before it (a bare number may be: figure 2's chart
    # marks its DCG scale with the list's own DCG@8, which the list's DCG column shows all along).
    for text in revealed:
        for line in text.splitlines():
            if "=" in line and re.search(r"\d\.\d\d", line):
                assert line.strip() not in before, (line, before)
    assert seen["errors"] == []


def test_figure_ones_precision_recall_view_hides_until_reveal_and_after_each_change(page, address):
    page.goto(address("served", "/binary"))
    page.get_by_role("button", name="Precision-recall").click()
    view = page.locator(".prchart")
    expect(view).to_be_visible()
    page.get_by_role("button", name="Predict first").click()
    expect(page.locator(LIVE)).to_have_text(ASKING)
    expect(view).to_be_hidden()  # its AP line and its mean would give AP away
    inputs = page.locator(".predict-guess input")
    for i in range(inputs.count()):
        inputs.nth(i).fill("0.5")
    reveal(page)
    expect(view).to_be_visible()
    page.locator('.rl-row[data-rank="1"] button.rl-activate').click()
    expect(view).to_be_hidden()


def test_on_a_phone_the_headline_bar_asks_for_guesses_instead_of_showing_the_numbers(browser, address):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(address("exported", "/binary?predict=1"))
    bar = page.locator(".fig-headline")
    expect(bar.locator(".fig-headline-text")).to_have_text(ASKING)
    expect(bar.locator(".fig-headline-toggle")).to_be_hidden()
    guess(page, "precision").tap()
    page.keyboard.type("0.6")
    page.get_by_role("button", name="Reveal", exact=True).tap()
    p = BinaryState().values["precision"]
    expect(bar.locator(".fig-headline-text")).to_contain_text(f"P@5 {f(p)}, R@5 ")
    expect(page.locator(LIVE)).to_contain_text(f"P@5 = {f(p)}: your guess 0.60")
    expect(bar.locator(".fig-headline-toggle")).to_be_visible()
    context.close()


def test_presenter_mode_shows_the_guess_and_the_reveal_large(browser, address):
    sizes = {}
    for present in ("0", "1"):
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.goto(address("exported", f"/binary?predict=1&present={present}"))
        sizes[present] = guess(page, "precision").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        context.close()
    assert sizes["1"] >= 1.4 * sizes["0"], sizes  # 1.3em of presenter type, itself some 1.1 times the page's


@pytest.mark.parametrize(
    ("scheme", "query"),
    [("light", "predict=1"), pytest.param("dark", "predict=1&present=1", marks=pytest.mark.slow)],
)
# Figure 1's predict mode in the default run; the other figures' repeat it with their own cards, among the slow tests.
@pytest.mark.parametrize(
    "name",
    ["binary", pytest.param("queries", marks=pytest.mark.slow), pytest.param("which-measure", marks=pytest.mark.slow)],
)
def test_no_serious_accessibility_violation_before_or_after_reveal(browser, server, name, scheme, query):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{server.url}/{name}?{query}")
    expect(page.locator(".predict-guess input").first).to_be_visible(timeout=30_000)
    page.locator(".predict-guess input").first.fill("nine")
    reveal(page)
    expect(page.locator(".predict-status")).not_to_be_empty()
    assert serious_violations(page) == []
    # The pointer away, and Reveal by the keyboard: a pointer left over a card of figure 1 (the
    # cards grow on Reveal) would fade the rows that card does not use.
    page.mouse.move(0, 0)
    page.locator(".predict-guess input").first.fill("0.5")
    page.locator(".predict-guess input").first.press("Enter")
    expect(page.locator(".predict-result").first).to_be_visible()
    assert serious_violations(page) == []
    context.close()


def test_on_a_phone_the_guesses_and_reveal_are_at_least_44_px(browser, address):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(address("exported", "/binary?predict=1"))
    for target in (guess(page, "precision"), page.get_by_role("button", name="Reveal", exact=True)):
        box = target.bounding_box()
        assert box["width"] >= 43.5 and box["height"] >= 43.5, box
    context.close()


def test_a_notebook_figure_takes_predict_and_the_tag_sets_it_itself():
    assert BinaryFigure(predict=True).view.predict is True
    assert BinaryFigure().view.predict is False
    assert "predict" not in bundle(["binary"])["figures"]["binary"]["model"]
