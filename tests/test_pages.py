"""The pages as people use them: served for a class, linked with state, exported for documentation."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from explainer import metrics
from explainer.figures import BY_NAME, FIGURES
from explainer.figures.base import MAX_QUERY_LENGTH
from explainer.pages import TITLES

from support.coroutines import run
from support.expect import expect
from support.page import MARKDOWN_TEXT, PROBES, click_changes, offline, watch_page, watch_policy

pytestmark = pytest.mark.browser

f = metrics.format_number


def watch_errors(page) -> list[str]:
    """The page's console errors and uncaught exceptions, as they come (dialogs are dismissed)."""
    return watch_page(page)["errors"]


def formula(page, selector: str):
    return page.locator(f"{selector} .metric-formula")


P = "[data-metric=precision]"
NDCG = ".metric-ndcgText"


def test_each_figure_module_goes_to_the_page_as_its_own_bundle():
    """The page imports a bundle as it is, cached by its name: two figures sharing one would draw one twice."""
    from bokeh.document import Document

    bundles = {page.name: page.figure().view._get_properties(Document())["bundle"] for page in FIGURES}
    assert all(bundles.values()), bundles
    assert len(set(bundles.values())) == len(bundles), bundles


def test_every_figure_page_has_a_probe():
    assert set(PROBES) == set(BY_NAME)


@pytest.mark.parametrize("path", ["/", *(f"/{page.name}" for page in FIGURES)])
def test_every_page_loads_without_console_errors_or_policy_violations_and_its_figures_respond(page, server, path):
    """Each light page under its Content-Security-Policy (tests/test_security_headers.py has the
    workbench's, and the headers): its scripts run, and clicks change its figures."""
    errors = watch_errors(page)
    violations = watch_policy(page)
    page.goto(server.url + path)
    for name in PROBES if path == "/" else [path[1:]]:
        click_changes(page, name)
    assert errors == [] and violations() == []


def test_story_text_quotes_the_numbers_its_figures_show(page, server):
    page.goto(server.url + "/")
    shown = {
        "precision": formula(page, f".fig-binary {P}"),
        "recall": formula(page, ".fig-binary [data-metric=recall]"),
        "rr": formula(page, ".fig-binary [data-metric=rr]"),
        "ap": formula(page, ".fig-binary [data-metric=ap]"),
        "ndcg": formula(page, f".fig-ndcg {NDCG}"),
    }
    expect(shown["ndcg"]).to_contain_text("NDCG@8")
    last = {name: locator.inner_text().rsplit("= ", 1)[-1] for name, locator in shown.items()}
    story = " ".join(page.locator(".markdown").evaluate_all(MARKDOWN_TEXT))
    assert f"P@5 = {last['precision']}" in story
    assert f"R@5 = 3 / 6 = {last['recall']}" in story
    assert f"RR = {last['rr']}" in story
    assert f"AP = {last['ap']}" in story
    # The NDCG sentence repeats the figure's own arithmetic, digit for digit.
    assert shown["ndcg"].inner_text() in story
    # And both agree with the article: 0.60, 0.50, 0.50, 0.45 and 10.48 / 14.95 = 0.70.
    assert [last[k] for k in ("precision", "recall", "rr", "ap", "ndcg")] == ["0.60", "0.50", "0.50", "0.45", "0.70"]


# Served pages are the exported light pages with connection.js added: what a page does with its
# link is checked on the served page, and each exported file is opened once, from disk, in
# test_export.py (test_each_exported_page_works_from_disk_with_no_request), where its origin differs.


def test_a_binary_state_link_opens_that_state_and_clicks_update_the_link(page, server):
    page.goto(server.url + "/binary?relevant=1,4&missed=0&k=3")
    grades = [1, 0, 0, 1] + [0] * 8
    expect(formula(page, P)).to_have_text(f"P@3 = 1 / 3 = {f(metrics.precision_at_k(grades, 3))}")
    expect(formula(page, "[data-metric=recall]")).to_have_text(f"R@3 = 1 / 2 = {f(metrics.recall_at_k(grades, 3, 2))}")
    expect(page.locator(".query-notice")).to_be_hidden()

    page.locator('.rl-row[data-rank="2"] button').click()
    page.wait_for_url(re.compile(r"relevant=1,2,4&missed=0&k=3"))


def test_an_ndcg_state_link_opens_that_state_and_promoting_updates_the_link(page, server):
    # Article 002's five-result example, padded with zeros: NDCG@5 = 0.97.
    page.goto(server.url + "/ndcg?grades=3,2,0,1,2,0,0,0&k=5&gain=exponential")
    grades = [3, 2, 0, 1, 2, 0, 0, 0]
    expect(formula(page, NDCG)).to_have_text(re.compile(rf"= {f(metrics.ndcg_at_k(grades, 5))}$"))
    assert f(metrics.ndcg_at_k(grades, 5)) == "0.97"

    page.locator('.rl-row[data-rank="5"] button').click()
    page.wait_for_url(re.compile(r"grades=3,2,0,2,1,0,0,0&order=1,2,3,5,4,6,7,8&k=5&gain=exponential"))
    # The link it wrote reopens the same state in a new page.
    other = page.context.new_page()
    other.goto(page.url)
    swapped = [3, 2, 0, 2, 1, 0, 0, 0]
    expect(formula(other, NDCG)).to_have_text(re.compile(rf"= {f(metrics.ndcg_at_k(swapped, 5))}$"))
    expect(other.locator('.rl-row[data-rank="4"] .rl-title')).to_have_text(
        page.locator('.rl-row[data-rank="4"] .rl-title').inner_text()
    )


# What each bad value's sentence says, and that the rest of the link still applies, is the figures'
# parsers' logic: tests/js/links.test.mjs runs every malformed link of figures 1 and 2 through them.
# Here, a page shows such a notice: as text (what was typed makes no element) and with a figure that
# works on.
MALFORMED = [
    ("/binary", "k=five", "k=“five”: k must be a whole number from 1 to 12"),
    ("/binary", "<script>alert(1)</script>=1", "“<script>alert(1)</script>”"),
    ("/ndcg", "gain=<img src=x onerror=alert(1)>", "gain=“<img src=x onerror=alert(1)>”"),
    # A "?" inside a value: Panel fails on it (a 500), so the server escapes it first.
    ("/binary", "k=5?", "k=“5?”: k must be a whole number from 1 to 12"),
]


@pytest.mark.parametrize(("path", "query", "notice"), MALFORMED)
# The exported pages read links with the same query.js: their half is slow.
@pytest.mark.parametrize("mode", ["served", pytest.param("exported", marks=pytest.mark.slow)])
def test_a_malformed_link_opens_a_working_figure_with_a_notice_that_escapes_it(
    page, address, mode, path, query, notice
):
    seen = watch_page(page)
    page.goto(address(mode, f"{path}?{query}"))
    box = page.locator(".query-notice")
    expect(box).to_be_visible()
    expect(box).to_contain_text(notice)
    # What was typed is shown as text: no element was made from it.
    assert page.locator(".query-notice img, .query-notice script").count() == 0
    # The figure works: a click still changes a number.
    target = page.locator(".metric-formula").first
    before = target.inner_text()
    page.locator('.rl-row[data-rank="2"] button').click()
    expect(target).not_to_have_text(before)
    assert seen["dialogs"] == [] and seen["errors"] == []


def padded(length: int) -> str:
    """A query of exactly ``length`` characters: k=3 and a key the figures do not have."""
    return "k=3&x=" + "a" * (length - len("k=3&x="))


# Two guards: served, the server's (it redirects); from a file, the figure's own (page_url.js). Each is
# tried at its boundary; the server's with the sizes Bokeh's websocket would fail on too, the
# figure's with a 1.5 MB link among the slow tests.
OVERSIZED = [
    ("served", MAX_QUERY_LENGTH + 1),
    ("served", 30_000),
    ("served", 1_500_000),
    ("exported", MAX_QUERY_LENGTH + 1),
    pytest.param("exported", 1_500_000, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("mode", "length"), OVERSIZED)
def test_an_oversized_link_opens_a_working_figure_with_a_notice(page, server, exported_site, mode, length):
    """Served, Bokeh would carry such a query into its websocket, which fails from about 25 KB; the
    server sends the page without it. From a file, the figure ignores it the same way."""
    errors = watch_errors(page)
    base = f"{server.url}/binary" if mode == "served" else (exported_site / "binary.html").as_uri()
    response = page.goto(f"{base}?{padded(length)}")
    if mode == "served":
        assert response.request.redirected_from is not None, "the server sent the page with its long query"
    expect(page.locator(".query-notice")).to_have_text(
        f"Ignored the whole query: it is {length:,} characters long, "
        f"and no figure's settings take more than {MAX_QUERY_LENGTH:,}.",
        timeout=30_000,
    )
    expect(formula(page, P)).to_have_text(re.compile(r"^P@5 = "))  # the default k, not the query's 3
    click_changes(page, "binary")
    page.wait_for_url(re.compile(r"^[^#]*\?relevant="))  # the link now holds the state, and no fragment
    assert errors == []


@pytest.mark.parametrize("mode", ["served", "exported"])  # each guard lets it through
def test_a_link_as_long_as_a_query_may_be_is_read_as_usual(page, server, exported_site, mode):
    base = f"{server.url}/binary" if mode == "served" else (exported_site / "binary.html").as_uri()
    page.goto(f"{base}?{padded(MAX_QUERY_LENGTH)}")
    expect(page.locator(".query-notice")).to_have_text("Ignored “x”: this figure has no such setting.", timeout=30_000)
    expect(formula(page, P)).to_have_text(re.compile(r"^P@3 = "))
    click_changes(page, "binary")


@pytest.mark.parametrize("query", ["k=99&<b>x</b>=1&relevant=%00", padded(30_000)])
def test_the_story_page_opens_whatever_its_link_says(page, server, query):
    """The story's figures keep no state in the URL: any query, even an oversized one, leaves them as they are."""
    errors = watch_errors(page)
    page.goto(f"{server.url}/?{query}")
    for name in ("binary", "ndcg"):
        click_changes(page, name, timeout=30_000)
    expect(page.locator(".query-notice:visible")).to_have_count(0)
    assert page.locator("b").filter(has_text="x").count() == 0
    assert errors == []


def test_a_question_mark_for_unjudged_works_in_a_served_link_as_the_readme_writes_it(page, server):
    errors = watch_errors(page)
    page.goto(f"{server.url}/which-measure?measure=rr&a=3,?,0,0,0,0,0,0")
    cell = page.locator(".which-list[data-list=a] .which-cell[data-rank='2']")
    expect(cell).to_contain_text("?")
    expect(page.locator(".query-notice")).to_be_hidden()
    assert errors == []


def test_a_page_address_with_a_trailing_slash_opens_the_page(page, server):
    page.goto(f"{server.url}/binary/?k=3")
    # Redirected to /binary?k=3; the figure may already have written its whole state into the link.
    page.wait_for_url(re.compile(r"/binary\?(?:.*&)?k=3$"))
    expect(formula(page, P)).to_have_text(re.compile(r"^P@3 = "))
    click_changes(page, "binary")


def test_a_link_with_many_bad_values_lists_the_first_few(page, server):
    page.goto(server.url + "/binary?" + "&".join(f"x{i}=1" for i in range(9)) + "&k=3")
    lines = page.locator(".query-notice p")
    expect(lines).to_have_text(
        [*(f"Ignored “x{i}”: this figure has no such setting." for i in range(4)), "… and 5 more values ignored."]
    )
    expect(formula(page, P)).to_have_text(re.compile(r"^P@3 = "))


def test_presenter_mode_shows_only_the_figure_in_large_type(page_with, server):
    # Type grows with the screen (test_screens.py checks that it fits at 720p): on a 1080p projector
    # it is well over one and a half times the page's.
    page = page_with(viewport=(1920, 1080))
    page.goto(server.url + "/binary")
    normal = page.locator(".rl-title").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    expect(page.locator(".fig-caption")).to_have_text(BY_NAME["binary"].caption)

    page.goto(server.url + "/binary?present=1")
    expect(page.locator(".fig-frame.present")).to_be_attached()
    expect(page.locator(".fig-caption")).to_be_hidden()
    large = page.locator(".rl-title").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert large >= 1.5 * normal

    toggle = page.get_by_role("button", name="Presenter view")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    toggle.click()
    expect(page.locator(".fig-frame.present")).to_have_count(0)
    page.wait_for_url(re.compile(r"^(?!.*present=1)"))


@pytest.mark.parametrize("route", list(TITLES))
def test_each_served_page_has_its_own_title(page, server, route):
    """A class's tabs can be told apart."""
    response = page.goto(server.url + route, wait_until="commit")
    assert response.status == 200
    expect(page).to_have_title(TITLES[route])


def in_view(locator, height: int) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_presenting_on_a_720p_projector_keeps_the_numbers_in_view(page_with, server):
    """The list may be taller than the screen; its numbers must not be."""
    page = page_with(viewport=(1280, 720))
    page.goto(server.url + "/conventions?present=1")
    values = page.locator(".fig-conventions .conv-value")
    expect(values).to_have_count(5)
    for i in range(5):
        assert in_view(values.nth(i), 720), f"convention {i + 1}'s value is off the screen"
    page.goto(server.url + "/binary?present=1")
    expect(page.locator(".fig-frame.present")).to_be_visible()
    page.locator('.rl-row[data-rank="12"] button').scroll_into_view_if_needed()
    page.mouse.wheel(0, 2000)
    page.locator('.rl-row[data-rank="12"] button').click()  # the last row, at the bottom of the screen
    formulas = page.locator(".metric-formula")
    expect(formulas.first).to_have_text(re.compile(r"^P@5 = "))
    for i in range(4):
        assert in_view(formulas.nth(i), 720), f"measure {i + 1} scrolled off the screen with the list"


def test_the_ndcg_page_has_its_caption(page, server):
    page.goto(server.url + "/ndcg")
    expect(page.locator(".fig-caption")).to_have_text(BY_NAME["ndcg"].caption)


def test_the_server_refuses_a_websocket_from_an_origin_it_was_not_told_to_allow(probe_server):
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    # The probe server, so that the refusals it logs stay out of the shared server's log.
    own = probe_server

    async def connect(origin: str):
        request = HTTPRequest(f"ws://127.0.0.1:{own.port}/evaluate/ws", headers={"Origin": origin})
        connection = await websocket_connect(request)
        connection.close()

    with pytest.raises(HTTPClientError) as refused:
        run(connect("http://evil.example"))
    assert refused.value.code == 403
    run(connect(f"http://127.0.0.1:{own.port}"))
    run(connect("https://docs.example.com"))
    # The two allowed origins pass the origin check; their handshakes carry no session token, as no
    # page's would: closed with a short code, logged in one throttled line, no traceback.
    assert "Traceback" not in own.log()
    assert "/evaluate/ws: no-token; logged at most every 60 s" in own.log()


def test_the_server_logged_no_error(server):
    log = server.log()
    assert "Traceback" not in log
    assert " ERROR " not in log and "error" not in log.lower().replace("errors", "")


def test_a_query_on_an_exported_figure_sets_its_state(page, exported_site):
    offline(page)
    page.goto((exported_site / "ndcg.html").as_uri() + "?grades=3,3,2,2,1,1,0,0&k=3&gain=linear")
    expect(formula(page, NDCG)).to_have_text(re.compile(r"= 1\.00$"), timeout=30_000)
    page.locator('.rl-row[data-rank="3"] button').click()
    page.wait_for_url(re.compile(r"grades=3,2,3,2,1,1,0,0"))


def test_the_exported_story_links_to_the_exported_figure_files(page, exported_site):
    offline(page)
    page.goto((exported_site / "index.html").as_uri())
    link = page.get_by_role("link", name="This figure on its own page").first
    expect(link).to_have_attribute("href", "binary.html?relevant=2,3,5,8,11&missed=1&k=5")


# -- light or dark, as the link asks --------------------------------------------------------------

DARK_BG, LIGHT_BG = "rgb(13, 17, 23)", "rgb(255, 255, 255)"


def figure_background(page) -> str:
    return page.locator(".fig").first.evaluate("el => getComputedStyle(el).backgroundColor")


@pytest.mark.parametrize(
    ("scheme", "query", "expected"),
    [
        ("light", "theme=dark", DARK_BG),
        ("dark", "theme=light", LIGHT_BG),
        ("dark", "theme=auto", DARK_BG),
        ("light", "", LIGHT_BG),
    ],
)
def test_the_theme_key_sets_light_or_dark_whatever_the_system_says(page_with, server, scheme, query, expected):
    page = page_with(color_scheme=scheme)
    page.goto(server.url + f"/binary?{query}")
    expect(page.locator(".fig-caption")).to_be_visible()
    assert figure_background(page) == expected
    expect(page.locator(".query-notice")).to_be_hidden()


def test_the_story_page_and_an_exported_file_follow_the_theme_key_too(page_with, server, exported_site):
    page = page_with(color_scheme="light")
    for url in (f"{server.url}/?theme=dark", (exported_site / "ndcg.html").as_uri() + "?theme=dark"):
        page.goto(url)
        expect(page.locator(".fig .metric-formula").first).to_be_visible()
        assert figure_background(page) == DARK_BG, url


def test_a_theme_the_page_does_not_know_is_ignored_with_a_notice(page, server):
    page.goto(server.url + "/binary?theme=<b>purple</b>&k=3")
    expect(page.locator(".query-notice")).to_have_text(
        "Ignored theme=“<b>purple</b>”: theme must be light, dark or auto."
    )
    expect(page.locator("[data-metric=precision] .metric-formula")).to_have_text("P@3 = 2 / 3 = 0.67")


# -- links that stay: a teacher's link, and the story's links to a figure as it is now --------------


def test_reset_returns_to_the_link_the_page_opened_with_and_example_to_the_article(page, server):
    page.goto(server.url + "/binary?relevant=1,4&missed=0&k=3")
    precision = formula(page, P)
    expect(precision).to_have_text("P@3 = 1 / 3 = 0.33")
    page.locator('.rl-row[data-rank="2"] button').click()
    expect(precision).to_have_text("P@3 = 2 / 3 = 0.67")
    page.get_by_role("button", name="Reset").click()
    expect(precision).to_have_text("P@3 = 1 / 3 = 0.33")
    page.wait_for_url(re.compile(r"relevant=1,4&missed=0&k=3$"))
    page.get_by_role("button", name="Example").click()
    expect(precision).to_have_text("P@5 = 3 / 5 = 0.60")


def test_the_storys_links_to_a_figure_carry_the_state_it_is_in(page, server):
    page.goto(server.url + "/")
    binary = page.locator(".fig-binary")
    present = binary.get_by_role("link", name="Presenter view")
    expect(present).to_have_attribute("href", "binary?relevant=2,3,5,8,11&missed=1&k=5&present=1")
    binary.locator('.rl-row[data-rank="1"] button').click()
    expect(present).to_have_attribute("href", "binary?relevant=1,2,3,5,8,11&missed=0&k=5&present=1")
    present.click()
    # The link opened; the figure may already have written its state back into it (page keys first).
    page.wait_for_url(
        lambda url: (
            urlsplit(url).path == "/binary"
            and dict(parse_qsl(urlsplit(url).query))
            == {"relevant": "1,2,3,5,8,11", "missed": "0", "k": "5", "present": "1"}
        )
    )
    expect(page.locator(".fig-frame.present")).to_be_attached()
    expect(formula(page, P)).to_have_text("P@5 = 4 / 5 = 0.80")
