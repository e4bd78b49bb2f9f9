"""Links a teacher can trust, in Chromium: Reset to the opening link after a reload, Undo, the light or dark switch carried by links, figure 1's chart view in its link, and the flip rule shown in presenter view.

The URL logic itself (what is kept where, what a link carries) is checked in Node
(tests/js/page_links.test.mjs); these tests check what only a browser has: a reload, the
history entry, the address bar, what shows on the screen.
"""

from __future__ import annotations

import re

import pytest

from support.expect import expect

pytestmark = pytest.mark.browser

P = ".metric[data-metric=precision] .metric-formula"
RECALL_NOTE = ".metric[data-metric=recall] .metric-note"
DARK_BG, LIGHT_BG = "rgb(13, 17, 23)", "rgb(255, 255, 255)"


def row_button(page, rank):
    return page.locator(f'.rl-row[data-rank="{rank}"] button.rl-activate')


def test_reset_returns_to_the_link_the_page_was_opened_with_after_a_reload(page, server):
    page.goto(server.url + "/binary?relevant=1,4&missed=0&k=3")
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")
    row_button(page, 2).click()
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    expect(page).to_have_url(re.compile(r"relevant=1,2,4&"))
    page.reload()
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")  # the address's state, as it was left
    page.get_by_role("button", name="Reset").click()
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")  # the teacher's link, not the reloaded address
    expect(page).to_have_url(re.compile(r"relevant=1,4&missed=0&k=3$"))
    # Reloaded once more, it is still the link the page was first opened with.
    row_button(page, 3).click()
    page.reload()
    page.get_by_role("button", name="Reset").click()
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")


def test_a_new_link_in_the_same_tab_is_the_one_reset_returns_to(page, server):
    page.goto(server.url + "/binary?k=3")
    row_button(page, 1).click()
    page.goto(server.url + "/binary?relevant=4&k=4")
    expect(page.locator(P)).to_have_text("P@4 = 1 / 4 = 0.25")
    row_button(page, 1).click()
    page.get_by_role("button", name="Reset").click()
    expect(page.locator(P)).to_have_text("P@4 = 1 / 4 = 0.25")


def test_undo_takes_back_each_change_by_button_and_by_ctrl_z(page, server):
    page.goto(server.url + "/binary?k=3")
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_have_attribute("aria-disabled", "true")
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    row_button(page, 1).click()
    expect(page.locator(P)).to_have_text("P@3 = 3 / 3 = 1.00")
    page.locator(".rl-cutoff").focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator(P)).to_have_text("P@4 = 3 / 4 = 0.75")
    page.keyboard.press("Control+z")
    expect(page.locator(P)).to_have_text("P@3 = 3 / 3 = 1.00")
    undo.click()
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    expect(undo).to_have_attribute("aria-disabled", "true")
    expect(page).to_have_url(re.compile(r"relevant=2,3,5,8,11&missed=1&k=3$"))


def test_with_nothing_missed_presenter_view_says_why_a_flip_moved_r_and_undo_brings_it_back(page, server):
    page.goto(server.url + "/binary?missed=0&present=1")
    note = page.locator(RECALL_NOTE)
    expect(note).to_have_text("R = 5 in the list + 0 missed = 5")
    rule = page.locator(".flip-rule")
    expect(rule).to_be_hidden()
    row_button(page, 1).click()
    expect(note).to_have_text("R = 6 in the list + 0 missed = 6")
    said = "R went from 5 to 6: no missed document was left to be the one now found. Flipping it back keeps R = 6; Undo returns to R = 5."
    expect(rule).to_have_text(said)
    expect(rule).to_be_visible()
    # Flipped back: R stays 6, and the rule stays in view, since the numbers are not the first ones.
    row_button(page, 1).click()
    expect(note).to_have_text("R = 5 in the list + 1 missed = 6")
    expect(rule).to_be_visible()
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").click()
    expect(note).to_have_text("R = 5 in the list + 0 missed = 5")
    expect(rule).to_be_hidden()


def test_the_precision_recall_view_is_kept_in_the_link_and_reset_returns_to_the_links_view(page, server):
    page.goto(server.url + "/binary?k=4")
    by_k, pr = page.locator(".kchart").first, page.locator(".prchart")
    expect(pr).to_be_hidden()
    page.get_by_role("button", name="Precision-recall").click()
    expect(pr).to_be_visible()
    expect(page).to_have_url(re.compile(r"chart=precision-recall"))
    page.reload()
    expect(pr).to_be_visible()
    expect(by_k).to_be_hidden()
    expect(page.get_by_role("button", name="Precision-recall")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Reset").click()  # the link opened by k
    expect(pr).to_be_hidden()
    page.goto(server.url + "/binary?chart=precision-recall&k=4")
    expect(pr).to_be_visible()


def test_the_dark_switch_writes_the_theme_into_a_figure_pages_link_and_a_reload_keeps_it(page, server):
    page.emulate_media(color_scheme="light")
    page.goto(server.url + "/ndcg?k=3")
    fig = page.locator(".fig").first
    expect(fig).to_have_css("background-color", LIGHT_BG)
    switch = page.get_by_role("button", name="Dark")
    expect(switch).to_have_attribute("aria-pressed", "false")
    switch.click()
    expect(fig).to_have_css("background-color", DARK_BG)
    expect(page).to_have_url(re.compile(r"k=3&theme=dark|theme=dark&k=3|theme=dark"))
    page.reload()
    expect(fig).to_have_css("background-color", DARK_BG)
    expect(page.get_by_role("button", name="Dark")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Dark").click()
    expect(fig).to_have_css("background-color", LIGHT_BG)
    expect(page).to_have_url(re.compile(r"theme=light"))


def test_the_storys_switch_darkens_every_figure_and_its_links_to_each_figure_keep_the_theme(page, server):
    page.emulate_media(color_scheme="light")
    page.goto(server.url + "/")
    switches = page.get_by_role("button", name="Dark")
    expect(switches.first).to_be_visible()
    switches.first.click()
    expect(page).to_have_url(re.compile(r"\?theme=dark$"))
    for i in range(switches.count()):
        expect(switches.nth(i)).to_have_attribute("aria-pressed", "true")
    figures = page.locator("relevance-figure .fig")
    for i in range(figures.count()):
        expect(figures.nth(i)).to_have_css("background-color", DARK_BG)
    presenter = page.locator("relevance-figure[name=binary] .figure-links a", has_text="Presenter view")
    expect(presenter).to_have_attribute(
        "href", re.compile(r"^binary\?relevant=2,3,5,8,11&missed=1&k=5&theme=dark&present=1$")
    )
    # Followed, the presenter view opens dark.
    presenter.click()
    expect(page.locator(".fig-frame.present")).to_be_visible()
    expect(page.locator(".fig").first).to_have_css("background-color", DARK_BG)
