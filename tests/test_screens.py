"""Every screen in the room: a projector at 720p and 1080p, phones, and documentation pages that frame a figure.

Layout is measured from the elements' boxes against the viewport, in a real Chromium.
"""

from __future__ import annotations

import re

import pytest

from explainer.figures import BY_NAME

from support.expect import expect
from support.page import View, phone_view, serious_violations
from support.server import wait_until

pytestmark = pytest.mark.browser

# For each figure page: a link, and parts a projector must show (each must be found, so that a
# renamed class cannot pass the test unseen): the list, the k marker, the numbers, the chart and
# the controls. Beyond these, every part of the figure must lie within the screen.
PRESENTED = {
    "binary": ("binary", [".rl-row", ".rl-cutoff-handle", ".metric-formula", ".kchart-svg", ".stepper", ".player"]),
    "ndcg": ("ndcg", [".rl-row", ".rl-cutoff-handle", ".metric-formula", ".gain-col", ".kchart-svg", ".ideal-table"]),
    "queries": (
        "queries?a=1|1|20|20|20|20&b=2|2|2|2|2|2",
        [".system[data-system=a] .q-row", ".system[data-system=b] .q-row", ".system-mean", ".q-layout-wide"],
    ),
    "unjudged": ("unjudged", [".rl-row", ".rl-cutoff-handle", ".metric-formula", ".gain-switch", ".player"]),
    "conventions": (
        "conventions",
        [".rl-row", ".rl-cutoff-handle", ".conv-value", ".conv-pair .metric-formula", ".stepper"],
    ),
    "recall-kinds": ("recall-kinds", [".rk-row", ".metric-formula"]),
    "which-measure": ("which-measure", [".which-row", ".which-cell", ".which-compare td"]),
}

# The figure's visible parts (its frame's, in a tag's shadow root or not) that are not wholly on
# the screen; `found` counts those that match `selector`.
OUTSIDE = """([selector, width, height]) => {
  const deep = (root) => [...root.querySelectorAll('*'), ...[...root.querySelectorAll('*')].filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot))];
  const frame = deep(document).find((e) => e.classList?.contains('fig-frame'));
  const parts = [...frame.querySelectorAll('*')].filter((e) => e.getClientRects().length && !e.closest('.sr-only, .class-address'));
  const outside = parts.filter((e) => { const r = e.getBoundingClientRect(); return r.width && r.height && (r.top < 0 || r.left < 0 || r.bottom > height + 0.5 || r.right > width + 0.5); });
  return { found: parts.filter((e) => e.matches(selector)).length, outside: outside.map((e) => `${e.getAttribute('class')}: ${(e.textContent || '').trim().slice(0, 30)}`) };
}"""

# The rendered size of each visible text of the figure, in CSS px: its font size, times its SVG's
# scale for a chart's text.
TEXT_SIZES = """() => {
  const deep = (root) => [...root.querySelectorAll('*'), ...[...root.querySelectorAll('*')].filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot))];
  const frame = deep(document).find((e) => e.classList?.contains('fig-frame'));
  const texts = [...frame.querySelectorAll('*')].filter((e) => e.getClientRects().length && !e.closest('.sr-only, .class-address')
    && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
  return texts.map((e) => [`${e.getAttribute('class')}: ${e.textContent.trim().slice(0, 20)}`,
    parseFloat(getComputedStyle(e).fontSize) * (e instanceof SVGElement ? e.getScreenCTM().a : 1)]);
}"""


def test_every_figure_page_has_what_a_projector_must_show():
    assert set(PRESENTED) == set(BY_NAME)


def presented(name: str, width: int, height: int, query: str = "") -> View:
    """A figure page in presenter view on a projector of that size (pages shared by the tests below)."""
    link = PRESENTED[name][0] + (f"{'&' if '?' in PRESENTED[name][0] else '?'}{query}" if query else "")
    return View(f"/{link}{'&' if '?' in link else '?'}present=1", width, height)


def views(pages):
    """Parameters for a test that reads shared pages (conftest's ``view``), named by the view."""
    return {"argnames": "view", "argvalues": pages, "ids": str, "indirect": True}


PROJECTORS = [(1280, 720), (1920, 1080)]


@pytest.mark.parametrize(**views([presented(name, *screen) for name in PRESENTED for screen in PROJECTORS]))
def test_presenting_shows_the_whole_figure_without_scrolling(view):
    """List, marker, cards, chart and controls: all of it on a 720p or a 1080p projector."""
    page, name = view
    selectors = PRESENTED[name][1]
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    expect(page.locator(selectors[0]).first).to_be_visible()
    page.evaluate("document.fonts.ready")
    for selector in selectors:
        seen = page.evaluate(OUTSIDE, [selector, width, height])
        assert seen["found"] > 0, f"{name}: nothing matches {selector}"
    assert seen["outside"] == [], f"{name} at {width}x{height}: runs off the screen: {seen['outside']}"
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, "the page scrolls sideways"


@pytest.mark.parametrize(**views([presented(name, 1920, 1080) for name in PRESENTED]))
def test_a_presenters_text_is_readable_from_the_back_of_the_room(view):
    """Every word and number of the figure, the charts' included, at 20 px or more on a 1080p projector."""
    page, name = view
    expect(page.locator(PRESENTED[name][1][0]).first).to_be_visible()
    sizes = page.evaluate(TEXT_SIZES)
    assert sizes, name
    small = [(text, round(size, 1)) for text, size in sizes if size < 19.5]
    assert small == [], f"{name}: text under 20 px on a 1080p projector: {small}"


@pytest.mark.parametrize(
    **views([presented(name, 1920, 1080) for name in ["binary", "ndcg", "conventions", "unjudged"]])
)
def test_a_presenters_formulas_are_larger_still(view):
    page, name = view
    formula = page.locator(".metric-formula").first
    expect(formula).to_be_visible()
    size = float(formula.evaluate("el => getComputedStyle(el).fontSize").removesuffix("px"))
    assert size >= 32, f"{name}: formulas at {size} px on a 1080p projector"


@pytest.mark.parametrize("view", [presented("binary", 1920, 1080)], ids=str, indirect=True)
def test_presenting_uses_the_width_of_the_screen(view):
    expect(view.page.locator(".fig .metric-formula").first).to_be_visible()
    box = view.page.locator(".fig").bounding_box()
    assert box["width"] > 0.9 * 1920, box
    # Figure 1's chart sits beside its list, under the cards, not under the list.
    chart, row = view.page.locator(".kchart-svg").bounding_box(), view.page.locator(".rl-row").first.bounding_box()
    assert chart["x"] > row["x"] + row["width"], (chart, row)


# -- every page: a phone's width, a main landmark, a heading ----------------------------------------

ROUTES = ["/", *(f"/{name}" for name in BY_NAME)]
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


@pytest.mark.parametrize("route", ROUTES)
def test_every_served_page_declares_the_viewport_and_a_main_landmark(server, route):
    import urllib.request

    with urllib.request.urlopen(server.url + route, timeout=30) as response:
        html = response.read().decode()
    assert VIEWPORT in html and len(re.findall(r"<main[ >]", html)) == 1, route  # exported pages: test_export.py


@pytest.mark.parametrize("view", [phone_view("/binary")], ids=str, indirect=True)
def test_a_phone_shows_a_figure_page_at_its_own_width(view):
    page = view.page
    expect(page.locator(".metric-formula").first).to_be_visible()
    assert page.evaluate("window.innerWidth") == 390
    size = float(page.locator(".rl-title").first.evaluate("el => getComputedStyle(el).fontSize").removesuffix("px"))
    assert size >= 14, size


# A 320 px phone (the first iPhone SE, small Androids): no page may be wider than its screen (a
# phone's browser then widens the layout viewport, and the whole page scrolls sideways); a strip or
# a table that scrolls inside its own box may be. Seen before the fix: the story and the which
# measure page at 344 px (its eight squares), the unjudged page at 323 (a radio button's label).
NARROW = [View(route, 320, 640, phone=True) for route in [*ROUTES, "/evaluate"]]


@pytest.mark.parametrize(**views(NARROW))
def test_no_page_scrolls_sideways_on_a_320_px_phone(view):
    page = view.page
    expect(page.locator(".fig, .wb-row").first).to_be_visible()
    assert page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]") == [320, 320]


# The pages axe-core reads (below) in the default run: light, 1280x800, shared by the other checks
# that read every page.
def read(route: str, scheme: str = "light", mode: str = "") -> View:
    return View(f"{route}?{mode}", 1280, 800, scheme)


@pytest.mark.parametrize(**views([read(f"/{name}") for name in BY_NAME]))
def test_a_figure_page_is_headed_by_its_title(view):
    """(An exported file's heading: test_export.py, test_each_exported_page_works_from_disk_with_no_request.)"""
    page, name = view
    expect(page.get_by_role("heading", level=1)).to_have_text(BY_NAME[name].title)


# -- documentation pages that frame a figure --------------------------------------------------------

HOST = """<!doctype html><html><body style="margin:0">
<iframe id="narrow" src="{url}/binary?k=3" style="width:390px;border:0" title="narrow"></iframe>
<iframe id="wide" src="{url}/ndcg?k=3" style="width:1280px;border:0" title="wide"></iframe>
{snippet}
</body></html>"""


def readme_snippet() -> str:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    after = readme.split("<!-- iframe-height-snippet -->", 1)[1]
    return after.split("```html", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize("mode", ["served", "exported"])
def test_framed_figures_size_their_iframes_through_the_readmes_snippet(
    page_with, server, exported_site, tmp_path, mode
):
    page = page_with(viewport=(1400, 900))
    host = tmp_path / "docs.html"  # a documentation page on disk, framing the served or the exported figures
    if mode == "served":
        host.write_text(HOST.format(url=server.url, snippet=readme_snippet()))
    else:  # beside the exported files
        host.write_text(
            HOST.format(url=exported_site.as_uri(), snippet=readme_snippet())
            .replace("/binary?", "/binary.html?")
            .replace("/ndcg?", "/ndcg.html?")
        )
    page.goto(host.as_uri())
    for frame_id, formula in (("narrow", "P@3 ="), ("wide", "NDCG@3 =")):
        frame = page.frame_locator(f"#{frame_id}")
        expect(frame.locator(".metric-formula").first).to_contain_text(formula)
        expect(frame.locator(".present-toggle")).to_have_count(0)
        expect(frame.get_by_role("heading", level=1)).to_have_count(0)

        # The frame grows from the browser's default 150 px to the whole figure, and not much past it.
        element = page.locator(f"#{frame_id}")
        wait_until(
            lambda element=element: element.bounding_box()["height"] > 400,
            message=f"the {frame_id} iframe to take its figure's height",
        )
        frame_box = element.bounding_box()
        figure_box = frame.locator(".fig-frame").bounding_box()
        assert figure_box["y"] + figure_box["height"] <= frame_box["y"] + frame_box["height"], frame_id
        assert frame_box["height"] - figure_box["height"] < 60, (frame_id, frame_box, figure_box)


# -- screen readers and keyboards: axe-core on every page ---------------------------------------------

# The light view of every page in the default run, and the workbench's; the other views among the
# slow tests (each page dark, in presenter view and both; the workbench dark).
AXE_VIEWS = [
    *(pytest.param(read(route), id=str(read(route))) for route in ROUTES),
    *(
        pytest.param(read(route, scheme, mode), marks=pytest.mark.slow, id=str(read(route, scheme, mode)))
        for scheme, mode in [("dark", "present=1"), ("dark", ""), ("light", "present=1")]
        for route in ROUTES
    ),
]


@pytest.mark.parametrize("view", AXE_VIEWS, indirect=True)
def test_no_serious_or_critical_accessibility_violation_on_any_page(view):
    page = view.page
    expect(page.locator(".fig .metric-formula, .fig .system-mean, .fig .which-says").first).to_be_visible()
    serious = serious_violations(page)
    assert serious == [], "\n".join(serious)


@pytest.mark.parametrize("scheme", ["light", pytest.param("dark", marks=pytest.mark.slow)])
def test_no_serious_or_critical_accessibility_violation_on_the_workbench(page_with, server, scheme):
    """The workbench with a query open: its tables, charts, both lists and the two figures on them."""
    page = page_with(viewport=(1280, 800), color_scheme=scheme)
    page.goto(f"{server.url}/evaluate?query=g044")
    expect(page.locator(".wb-figure .fig .metric-formula").first).to_be_visible(timeout=30_000)
    serious = serious_violations(page)
    assert serious == [], "\n".join(serious)


# -- phones: a finger, a narrow screen ------------------------------------------------------------------


def in_viewport(locator, page) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


def binary_headline(state) -> str:
    from explainer.metrics import format_number as f

    values = state.values
    return f"P@{state.k} {f(values['precision'])}, R@{state.k} {f(values['recall'])}, RR {f(values['rr'])}, AP {f(values['ap'])}"


def test_a_tap_on_a_row_far_down_shows_the_changed_numbers_without_scrolling(phone, server):
    from explainer.figures.binary import BinaryState

    page = phone()
    page.goto(server.url + "/binary")
    headline = page.locator(".fig-headline-text")
    expect(headline).to_have_text(binary_headline(BinaryState()))
    row = page.locator('.rl-row[data-rank="12"] button')
    row.scroll_into_view_if_needed()
    row.tap()
    after = BinaryState()
    after.flip(12)
    expect(headline).to_have_text(binary_headline(after))
    assert page.evaluate("window.scrollY") > 0 and in_viewport(headline, page), "the numbers scrolled away"
    # And it opens to the whole arithmetic.
    page.locator(".fig-headline-toggle").tap()
    expect(page.locator(".fig-headline-details p").first).to_have_text(re.compile(r"^P@5 = \d+ / 5 = "))


TARGETS = {
    "binary": [".rl-activate", ".rl-cutoff-handle", ".stepper .fig-button", ".fig-button", ".kchart-switch-button"],
    "ndcg": [".rl-activate", ".grade-select", ".fig-button"],
    "queries": [".q-cell", ".fig-button"],
    "conventions": [".stepper .fig-button", ".grade-select"],
}


@pytest.mark.parametrize(**views([phone_view(f"/{name}") for name in TARGETS]))
def test_every_touch_target_is_at_least_44_by_44_px(view):
    page, name = view
    expect(page.locator(TARGETS[name][0]).first).to_be_visible()
    for selector in TARGETS[name]:
        sizes = page.locator(selector).evaluate_all(
            "els => els.filter((e) => e.getClientRects().length).map((e) => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })"
        )
        small = [size for size in sizes if size[0] < 43.5 or size[1] < 43.5]
        assert sizes and small == [], f"{name}: {selector} smaller than 44 px: {small}"


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_no_caption_speaks_to_a_mouse_alone(name):
    """A caption is shown on phones too (and in every embed): it says "click or tap", never "click"
    or "hover" alone (the hints say one or the other by pointer: dom.byPointer)."""
    assert_not_for_a_mouse_alone(BY_NAME[name].caption)


def test_the_storys_text_speaks_to_mice_and_fingers_alike():
    from explainer.pages import STORY, WORKBENCH_SECTION

    for paragraph in (STORY + "\n\n" + WORKBENCH_SECTION).split("\n\n"):
        assert_not_for_a_mouse_alone(paragraph)


def assert_not_for_a_mouse_alone(text: str) -> None:
    words = text.lower()
    assert "hover" not in words, text
    assert len(re.findall(r"\bclick\b", words)) == len(re.findall(r"\bclick or tap\b", words)), text


def test_a_phones_query_strips_number_their_ranks_fade_where_more_lie_beyond_and_say_so(phone, server):
    """Twenty squares of 44 px are wider than a phone: each says its rank, an edge with ranks beyond
    it fades, and the hint says to swipe (and tap, not click)."""
    page = phone()
    page.goto(server.url + "/queries?a=1|1|20|20|20|20&b=2|2|2|2|2|2")
    strip = page.locator('.system[data-system="a"] .q-row[data-query="3"] .q-strip')
    expect(strip).to_have_class(re.compile(r"\bq-more-after\b"))
    expect(strip).not_to_have_class(re.compile(r"\bq-more-before\b"))
    numbers = strip.locator(".q-cell").evaluate_all(
        "cells => cells.map((c) => getComputedStyle(c, '::before').content)"
    )
    assert numbers == [f'"{rank}"' for rank in range(1, 21)]
    last = strip.locator('.q-cell[data-rank="20"]')
    assert last.bounding_box()["x"] > 390, "rank 20 should start out of view"
    strip.evaluate("s => { s.scrollLeft = s.scrollWidth; }")
    expect(strip).to_have_class(re.compile(r"\bq-more-before\b"))
    expect(strip).not_to_have_class(re.compile(r"\bq-more-after\b"))
    box = last.bounding_box()
    assert box["x"] + box["width"] <= 390 and last.inner_text() == "✓"
    expect(
        page.get_by_text(
            "Tap a square to mark that rank relevant or not; swipe a row of squares sideways for the ranks up to 20."
        )
    ).to_be_visible()
    expect(page.get_by_text("Click a square to mark that rank")).to_be_hidden()


def test_a_mouses_query_strips_show_every_rank_with_no_fade_and_a_hint_to_click(page, server):
    page.goto(server.url + "/queries?a=1|1|20|20|20|20&b=2|2|2|2|2|2")
    strip = page.locator('.system[data-system="a"] .q-row[data-query="3"] .q-strip')
    expect(page.get_by_text("Click a square to mark that rank relevant or not")).to_be_visible()
    expect(page.get_by_text("Tap a square")).to_be_hidden()
    assert strip.evaluate("s => s.scrollWidth <= s.clientWidth")
    expect(strip).not_to_have_class(re.compile(r"q-more"))
    assert strip.locator(".q-cell").first.evaluate("c => getComputedStyle(c, '::before').content") == "none"


NARROW_NOTE = "Each discounted gain is its result's gain divided by log₂(rank + 1): the DCG card writes each one out."
DISCOUNTED_HEADING = """el => getComputedStyle(el, '::before').content + el.textContent"""


def test_figure_2_on_a_phone_says_where_its_gain_and_discount_columns_went(phone, server):
    page = phone()
    page.goto(server.url + "/ndcg")
    expect(page.get_by_text(NARROW_NOTE)).to_be_visible()
    expect(page.locator(".ndcg-header .gain-col")).to_be_hidden()
    assert page.locator(".ndcg-header .dg").evaluate(DISCOUNTED_HEADING) == "noneDisc. gain"


# A list's row: the boxes of what it shows, each [left, right, top, bottom], and the button's.
ROW_BOXES = """row => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; };
  const shown = [...row.querySelectorAll('.rl-rank, .rl-title, .grade, .dg-value, .cum, .bar, .mark')]
    .filter((e) => e.getClientRects().length && e.getBoundingClientRect().width > 0);
  return { row: box(row), parts: shown.map((e) => [e.className, box(e)]) };
}"""


@pytest.mark.parametrize("name", ["binary", "ndcg", "unjudged", "conventions"])
def test_a_lists_rows_on_a_phone_from_320_px_overlap_nothing_and_leave_titles_room(phone, server, name):
    """No part of a row leaves it or runs into another on its line, and every title has 6em (90 px)
    at least: at 320 to 360 px figure 2's numbers ran into each other, and figure 1's and the
    unjudged figure's marks beside their titles left those 80 px and a letter or two."""
    page = phone()
    page.goto(f"{server.url}/{name}")
    for width in (320, 340, 360, 375, 390):
        page.set_viewport_size({"width": width, "height": 740})
        for row in page.locator(".rl-activate").all():
            seen = row.evaluate(ROW_BOXES)
            (left, right, _, _), parts = seen["row"], seen["parts"]
            for part, (a, b, _, _) in parts:
                assert left <= a and b <= right + 0.5, (width, part, seen)
                assert part != "rl-title" or b - a >= 90, (width, part, seen)
            for i, (part, (a, b, top, bottom)) in enumerate(parts):
                for other, (c, d, top2, bottom2) in parts[i + 1 :]:
                    same_line = top < bottom2 and top2 < bottom
                    assert not (same_line and a < d - 0.5 and c < b - 0.5), (width, part, other, seen)


def test_figure_2_on_a_wide_screen_shows_gain_times_discount_equals_discounted_gain(page, server):
    page.goto(server.url + "/ndcg")
    expect(page.locator(".ndcg-header .gain-col")).to_be_visible()
    expect(page.get_by_text(NARROW_NOTE)).to_be_hidden()
    assert page.locator(".ndcg-header .dg").evaluate(DISCOUNTED_HEADING) == '"= "Disc. gain'


def test_dragging_k_to_the_bottom_edge_scrolls_the_page_along(phone, server):
    page = phone(height=560)
    page.goto(server.url + "/binary")
    handle = page.locator(".rl-cutoff-handle")
    expect(handle).to_have_text("k = 5")
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, 555, steps=5)  # held at the window's bottom edge
    expect(handle).to_have_text("k = 12", timeout=10_000)
    page.mouse.up()
    assert page.evaluate("window.scrollY") > 0


def swipe_up(page, x: float, y: float, by: float = -20) -> None:
    """A finger's swipe upward from (x, y), as real touch events: the page scrolls down (downward,
    `by` > 0: the page scrolls up)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 16):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y + by * step}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("binary", '.rl-row[data-rank="3"] button'),
        ("binary", ".rl-gutter"),
        ("queries?a=1|1|20|20|20|20&b=2|2|2|2|2|2", '.q-row[data-query="1"] .q-strip'),
    ],
)
def test_a_vertical_swipe_on_a_row_or_a_strip_scrolls_the_page_and_changes_nothing(phone, server, name, start):
    page = phone(height=600)
    page.goto(f"{server.url}/{name}")
    watched = page.locator(".metric-formula, .system-mean").first
    expect(watched).to_be_visible()
    before = watched.text_content()
    target = page.locator(start).first
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    scrolled = page.evaluate("window.scrollY")
    swipe_up(page, box["x"] + min(20, box["width"] / 2), box["y"] + box["height"] / 2)
    wait_until(lambda: page.evaluate("window.scrollY") > scrolled + 100, message="the page to scroll")
    assert watched.text_content() == before  # no row flipped, no square marked
    if name == "binary":
        expect(page.locator(".rl-cutoff-handle")).to_have_text("k = 5")


@pytest.mark.parametrize(("name", "k"), [("binary", 5), ("ndcg", 8)])
def test_a_vertical_swipe_on_a_chart_of_every_k_scrolls_the_page_and_leaves_k(phone, server, name, k):
    """The chart takes a sideways drag (test_every_k) and leaves an up or down swipe to the page:
    a finger that touches it to scroll moves no k."""
    page = phone(height=600)
    page.goto(f"{server.url}/{name}")
    chart = page.locator(".kchart-svg")
    expect(chart).to_have_attribute("aria-valuenow", str(k))
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    scrolled = page.evaluate("window.scrollY")
    # Downward from the chart's top, over a column far from k's: the page scrolls up.
    swipe_up(page, box["x"] + box["width"] * 0.2, box["y"] + 10, by=20)
    wait_until(lambda: page.evaluate("window.scrollY") < scrolled - 100, message="the page to scroll")
    expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {k}")
    expect(chart).to_have_attribute("aria-valuenow", str(k))


def test_a_figure_in_jupyterlabs_dark_theme_is_dark_on_a_light_system(page, server):
    """JupyterLab marks its theme on the body; a figure follows it, its form controls included."""
    # Marked as soon as the body exists, before the page's scripts draw the figure.
    page.add_init_script(
        "new MutationObserver((_, seen) => { if (document.body) { document.body.dataset.jpThemeLight = 'false';"
        " seen.disconnect(); } }).observe(document, { childList: true, subtree: true });"
    )
    page.goto(server.url + "/ndcg")
    expect(page.locator(".metric-formula").first).to_be_visible()
    background = page.locator(".fig").evaluate("el => getComputedStyle(el).backgroundColor")
    radio_scheme = page.locator("input[name=gain]").first.evaluate("el => getComputedStyle(el).colorScheme")
    assert background == "rgb(13, 17, 23)" and radio_scheme == "dark", (background, radio_scheme)


# -- the focus ring: for the keyboard, not after a mouse ---------------------------------------------

RING = "e => [e.matches(':focus'), e.matches(':focus-visible')]"


def test_a_mouse_leaves_no_focus_ring_on_the_chart_or_the_marker_and_a_key_brings_it_back(page, server):
    page.goto(server.url + "/binary?present=1")
    chart = page.locator(".kchart-svg")
    chart.click()
    assert chart.evaluate(RING) == [True, False]
    assert chart.evaluate("e => getComputedStyle(e).outlineStyle") != "solid"
    clicked = int(chart.get_attribute("aria-valuenow"))
    page.keyboard.press("ArrowLeft")
    assert chart.evaluate(RING) == [True, True]
    expect(page.locator(".rl-cutoff-handle")).to_have_text(f"k = {clicked - 1}")

    box = page.locator(".rl-cutoff-handle").bounding_box()
    page.mouse.move(box["x"] + 5, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 5, box["y"] + 120, steps=4)
    page.mouse.up()
    marker = page.locator(".rl-cutoff")
    assert marker.evaluate(RING) == [True, False]
    shadow = "e => getComputedStyle(e.querySelector('.rl-cutoff-handle')).boxShadow"
    assert marker.evaluate(shadow) == "none"
    page.keyboard.press("ArrowUp")
    assert marker.evaluate(RING) == [True, True]
    assert marker.evaluate(shadow) != "none"
