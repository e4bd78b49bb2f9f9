"""The <relevance-figure> tag (explainer.js) on a page of its own making, as a documentation page has it.

Each test writes a small page beside a copy of explainer.js and opens it from disk: the tag
must draw every figure the registry lists, take its state, theme and caption from attributes,
say what it ignored as a link's notice does, and fail loudly, never half-drawn, when a figure's
module reads a model property its view does not have.
"""

from __future__ import annotations

import re
import shutil

import pytest

from explainer import metrics, runtime
from explainer.figures import BY_NAME

from support.expect import expect
from support.page import click_changes, watch_page

pytestmark = pytest.mark.browser

f = metrics.format_number
P = ".fig-binary [data-metric=precision] .metric-formula"
DARK_BG, LIGHT_BG = "rgb(13, 17, 23)", "rgb(255, 255, 255)"


@pytest.fixture
def tag_page(tmp_path, exported_site, page):
    """Open a page whose body is ``body``, with explainer.js (or ``script``) beside it; returns what it saw."""

    def open_page(body: str, script: str | None = None) -> dict:
        if script is None:
            shutil.copy(exported_site / "explainer.js", tmp_path / "explainer.js")
        else:
            (tmp_path / "explainer.js").write_text(script, encoding="utf-8")
        html = f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tags</title></head><body>{body}<script src="explainer.js"></script></body></html>'
        (tmp_path / "tags.html").write_text(html, encoding="utf-8")
        seen = watch_page(page)
        page.goto((tmp_path / "tags.html").as_uri())
        return seen

    return open_page


@pytest.mark.parametrize("name", list(BY_NAME))
def test_every_figure_draws_as_a_tag_and_answers_a_click(tag_page, page, name):
    """A figure the registry lists works in the tag as in Panel: a new one whose module needs what the tag lacks fails here."""
    seen = tag_page(f'<relevance-figure name="{name}"></relevance-figure>')
    expect(page.locator(f"relevance-figure[name={name}] .fig-caption")).to_have_text(BY_NAME[name].caption)
    click_changes(page, name)
    assert seen["errors"] == []


def test_the_state_attribute_opens_that_state_and_a_new_value_applies(tag_page, page):
    tag_page('<relevance-figure name="binary" state="relevant=1,4&amp;missed=0&amp;k=3"></relevance-figure>')
    grades = [1, 0, 0, 1] + [0] * 8
    expect(page.locator(P)).to_have_text(f"P@3 = 1 / 3 = {f(metrics.precision_at_k(grades, 3))}")
    expect(page.locator(".query-notice")).to_be_hidden()
    # A new value starts again from the article's list, as a new link would.
    page.locator("relevance-figure").evaluate("el => el.setAttribute('state', 'k=2')")
    expect(page.locator(P)).to_have_text("P@2 = 1 / 2 = 0.50")


def test_reset_returns_to_the_tags_state_undo_takes_back_a_change_and_there_is_no_example_button(tag_page, page):
    """A writer's tag is the figure's starting point: Reset goes back to it; an embed offers no Example."""
    tag_page('<relevance-figure name="binary" state="relevant=1,4&amp;missed=0&amp;k=3"></relevance-figure>')
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")
    expect(page.locator(".fig-example")).to_have_count(0)
    undo = page.locator(".fig-undo")
    expect(undo).to_have_attribute("aria-disabled", "true")
    page.locator(".rl-row").nth(1).click()
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    page.locator(".fig-reset").click()
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")
    # Undo takes back the Reset, then the click.
    undo.click()
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    undo.click()
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")
    expect(undo).to_have_attribute("aria-disabled", "true")
    # A new theme keeps the reader's state, and Reset still goes back to the tag's.
    page.locator(".rl-row").nth(2).click()
    page.locator("relevance-figure").evaluate("el => el.setAttribute('theme', 'dark')")
    expect(page.locator(P)).to_have_text("P@3 = 2 / 3 = 0.67")
    page.locator(".fig-reset").click()
    expect(page.locator(P)).to_have_text("P@3 = 1 / 3 = 0.33")


def test_bad_state_values_get_a_links_notices_shown_as_text(tag_page, page):
    seen = tag_page(
        '<relevance-figure name="binary" state="k=13&amp;relevant=1&amp;&lt;b&gt;x&lt;/b&gt;=1"></relevance-figure>'
    )
    notice = page.locator(".query-notice")
    expect(notice).to_contain_text("Ignored k=“13”: k must be a whole number from 1 to 12.")
    expect(notice).to_contain_text("Ignored “<b>x</b>”: this figure has no such setting.")
    assert page.locator(".query-notice b").count() == 0
    expect(page.locator(P)).to_have_text("P@5 = 1 / 5 = 0.20")  # the valid value still applies
    assert seen["dialogs"] == [] and seen["errors"] == []


@pytest.mark.parametrize(
    ("scheme", "theme", "expected"),
    [("light", "dark", DARK_BG), ("dark", "light", LIGHT_BG), ("dark", "auto", DARK_BG), ("light", None, LIGHT_BG)],
)
def test_the_theme_attribute_sets_light_or_dark_whatever_the_system_says(tag_page, page, scheme, theme, expected):
    page.emulate_media(color_scheme=scheme)
    attribute = "" if theme is None else f' theme="{theme}"'
    tag_page(f'<relevance-figure name="ndcg"{attribute}></relevance-figure>')
    expect(page.locator(".fig .metric-formula").first).to_be_visible()
    assert page.locator(".fig").evaluate("el => getComputedStyle(el).backgroundColor") == expected


def test_a_new_theme_keeps_the_readers_state_and_an_unknown_one_gets_a_notice(tag_page, page):
    tag_page('<relevance-figure name="binary" state="k=3"></relevance-figure>')
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(page.locator(P)).to_have_text("P@3 = 3 / 3 = 1.00")
    page.locator("relevance-figure").evaluate("el => el.setAttribute('theme', 'dark')")
    expect(page.locator(".fig")).to_have_css("background-color", DARK_BG)
    expect(page.locator(P)).to_have_text("P@3 = 3 / 3 = 1.00")
    page.locator("relevance-figure").evaluate("el => el.setAttribute('theme', '<b>purple</b>')")
    expect(page.locator(".query-notice")).to_have_text(
        "Ignored theme=“<b>purple</b>”: theme must be light, dark or auto."
    )
    expect(page.locator(P)).to_have_text("P@3 = 3 / 3 = 1.00")


def test_the_caption_attribute_replaces_the_figures_caption_or_removes_it(tag_page, page):
    tag_page(
        '<relevance-figure name="binary" caption="Try &lt;b&gt;this&lt;/b&gt;"></relevance-figure>'
        '<relevance-figure name="ndcg" caption=""></relevance-figure>'
    )
    expect(page.locator("relevance-figure[name=binary] .fig-caption")).to_have_text("Try <b>this</b>")
    expect(page.locator("relevance-figure[name=ndcg] .metric-formula").first).to_be_visible()
    expect(page.locator("relevance-figure[name=ndcg] .fig-caption")).to_have_count(0)


def test_a_readers_change_is_announced_with_the_state_and_its_query(tag_page, page):
    tag_page('<relevance-figure name="binary"></relevance-figure>')
    expect(page.locator(P)).to_be_visible()
    page.locator("relevance-figure").evaluate(
        "el => el.addEventListener('statechange', (e) => (window.changed = e.detail))"
    )
    page.locator('.rl-row[data-rank="1"] button').click()
    changed = page.evaluate("window.changed")
    assert changed["query"] == "relevant=1,2,3,5,8,11&missed=0&k=5"
    assert changed["state"]["relevant"][0] is True and changed["state"]["missed"] == 0


def test_the_keyboard_moves_the_cutoff_and_flips_rows_in_a_tag(tag_page, page):
    tag_page('<relevance-figure name="binary"></relevance-figure>')
    marker = page.locator(".rl-cutoff")
    expect(marker).to_have_attribute("aria-valuenow", "5")
    marker.focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator(P)).to_have_text("P@6 = 3 / 6 = 0.50")
    page.keyboard.press("Home")
    expect(page.locator(P)).to_have_text("P@1 = 0 / 1 = 0.00")
    page.locator('.rl-row[data-rank="1"] button').focus()
    page.keyboard.press("Enter")
    expect(page.locator(P)).to_have_text("P@1 = 1 / 1 = 1.00")


def test_several_tags_share_the_one_script_and_keep_their_own_state(tag_page, page):
    seen = tag_page(
        '<relevance-figure name="binary" id="a"></relevance-figure>'
        '<relevance-figure name="binary" id="b" state="k=3"></relevance-figure>'
    )
    first, second = page.locator("#a " + P), page.locator("#b " + P)
    expect(second).to_have_text("P@3 = 2 / 3 = 0.67")
    page.locator('#a .rl-row[data-rank="1"] button').click()
    expect(first).to_have_text("P@5 = 4 / 5 = 0.80")
    expect(second).to_have_text("P@3 = 2 / 3 = 0.67")
    assert page.evaluate("document.querySelectorAll('script').length") == 1
    assert seen["errors"] == []


def test_an_unknown_name_says_which_figures_there_are(tag_page, page):
    tag_page('<relevance-figure name="&lt;i&gt;pie&lt;/i&gt;"></relevance-figure>')
    alert = page.locator("relevance-figure [role=alert]")
    expect(alert).to_have_text(f"No figure is named “<i>pie</i>”. explainer.js has {', '.join(BY_NAME)}.")
    assert page.locator("relevance-figure i").count() == 0


def test_a_figure_that_reads_a_property_its_view_lacks_fails_loudly(tag_page, page):
    """The adapter gives a module its view's properties and nothing else: a module that reads
    another (here, titles taken out of the bundle) throws with the property's name, and the tag
    says so instead of a half-drawn figure."""
    data = runtime.bundle(["binary"])
    del data["figures"]["binary"]["model"]["titles"]
    with page.expect_event("pageerror") as error:
        tag_page('<relevance-figure name="binary"></relevance-figure>', runtime.script_of(data))
    message = '<relevance-figure name="binary">: the figure read model.titles, which its view does not have'
    assert message in str(error.value)
    expect(page.locator("relevance-figure [role=alert]")).to_have_text(f"The figure could not be drawn: {message}")
    expect(page.locator("relevance-figure .fig-caption")).to_have_count(0)


def test_a_figure_that_waits_for_a_model_event_the_tag_does_not_send_fails_loudly(tag_page, page):
    data = runtime.bundle(["binary"])
    module = data["figures"]["binary"]["module"]
    data["figures"]["binary"]["module"] = module.replace(
        "export function render(view) {", 'export function render(view) {\nview.model.on("after_render", () => {});'
    )
    assert data["figures"]["binary"]["module"] != module
    with page.expect_event("pageerror") as error:
        tag_page('<relevance-figure name="binary"></relevance-figure>', runtime.script_of(data))
    assert 'the figure listens for model "after_render", which the tag does not send' in str(error.value)


def test_a_query_in_the_documentation_pages_own_address_does_not_reach_a_tag(tag_page, page, tmp_path):
    tag_page('<relevance-figure name="binary"></relevance-figure>')
    page.goto((tmp_path / "tags.html").as_uri() + "?k=2&theme=dark")
    expect(page.locator(P)).to_have_text(re.compile(r"^P@5 = "))
    expect(page.locator(".fig")).to_have_css("background-color", LIGHT_BG)
