"""The tag in real documentation builds: a MkDocs site and a Sphinx site (alabaster and furo) whose page includes explainer.js and its figures.

Each tool builds its site as a writer would: MkDocs with the script in ``extra_javascript`` and
the tags in the page's Markdown (``mkdocs build --strict``); Sphinx with the script in
``html_static_path`` and ``html_js_files`` and the tags in a ``.. raw:: html`` block
(``sphinx-build -W``). Python's own static server serves each built site on 127.0.0.1; Chromium
drives the figures by click, keys, the state attribute and the theme attribute, every request must
stay on the site, and then what a theme of each tool does to a figure: furo's light and dark
switch (``data-theme`` on <body>) and its phone layout, alabaster's 330 px column on a phone.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from explainer import metrics

from support.expect import expect
from support.page import watch_page

pytestmark = [pytest.mark.slow, pytest.mark.browser]

f = metrics.format_number
DARK_BG, LIGHT_BG = "rgb(13, 17, 23)", "rgb(255, 255, 255)"

MKDOCS_YML = """\
site_name: Search quality handbook
theme:
  name: mkdocs
  highlightjs: false
extra_javascript:
  - explainer.js
"""

# The same tags on every site: figure 1 following the page (theme auto), figure 2 fixed light,
# figure 5 (the conventions), the widest on a phone.
TAGS = """\
<relevance-figure id="binary" name="binary" state="relevant=2,3,5&k=4"></relevance-figure>
<relevance-figure id="ndcg" name="ndcg" state="gain=linear" theme="light"></relevance-figure>
<relevance-figure id="conventions" name="conventions"></relevance-figure>
"""

PAGE_MD = f"""\
# Measuring a ranking

Precision and recall at a cutoff, NDCG with linear gain, and NDCG's conventions:

{TAGS}
Read more in the [glossary](#).
"""

SPHINX_CONF = """\
project = "Search quality handbook"
html_theme = "{theme}"
html_static_path = ["_static"]
html_js_files = ["explainer.js"]
"""

INDEX_RST = "Measuring a ranking\n===================\n\nPrecision and recall at a cutoff, NDCG with linear gain, and NDCG's conventions:\n\n.. raw:: html\n\n{tags}\nRead more in the glossary.\n".format(
    tags="".join(f"   {line}\n" for line in TAGS.splitlines())
)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test's output is for failures
        pass


def serve(directory):
    """Serve ``directory`` on a free port of 127.0.0.1; returns (address, stop)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop():
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}", stop


def build(command: list[str], cwd) -> None:
    built = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert built.returncode == 0, built.stdout + built.stderr


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory, exported_site):
    """The MkDocs site, built and served; yields its address."""
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: ./serve.sh test -m slow installs it")
    root = tmp_path_factory.mktemp("mkdocs-project")
    (root / "docs").mkdir()
    shutil.copy(exported_site / "explainer.js", root / "docs" / "explainer.js")
    (root / "docs" / "index.md").write_text(PAGE_MD, encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    build([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(root / "site")], root)
    address, stop = serve(root / "site")
    yield address
    stop()


@pytest.fixture(scope="module")
def sphinx_sites(tmp_path_factory, exported_site):
    """The Sphinx site built with each theme, served; yields {theme: address}."""
    pytest.importorskip("sphinx", reason="Sphinx is not installed: ./serve.sh test -m slow installs it")
    pytest.importorskip("furo", reason="furo is not installed: ./serve.sh test -m slow installs it")
    sites, stops = {}, []
    for theme in ("alabaster", "furo"):
        root = tmp_path_factory.mktemp(f"sphinx-{theme}")
        (root / "_static").mkdir()
        shutil.copy(exported_site / "explainer.js", root / "_static" / "explainer.js")
        (root / "conf.py").write_text(SPHINX_CONF.format(theme=theme), encoding="utf-8")
        (root / "index.rst").write_text(INDEX_RST, encoding="utf-8")
        build([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(root), str(root / "html")], root)
        sites[theme], stop = serve(root / "html")
        stops.append(stop)
    yield sites
    for stop in stops:
        stop()


def on_site_only(context, site: str) -> list[str]:
    """Refuse every request of ``context`` that leaves ``site``; returns what was asked."""
    asked: list[str] = []

    def route(request_route):
        asked.append(request_route.request.url)
        if request_route.request.url.startswith((site + "/", "data:", "blob:")):
            request_route.continue_()
        else:
            request_route.abort()

    context.route("**/*", route)
    return asked


def drive_the_figures(browser, site: str) -> None:
    """What every site must do: the tags open in their attributes' states, answer clicks and keys, take a new state and theme, and ask nothing of another host."""
    context = browser.new_context(color_scheme="light")
    asked = on_site_only(context, site)
    try:
        page = context.new_page()
        seen = watch_page(page)
        page.goto(site + "/")
        expect(page.get_by_role("heading", name="Measuring a ranking")).to_be_visible()

        # Figure 1 opens in the state its attribute asks for; a click and the keyboard change it.
        precision = page.locator("#binary [data-metric=precision] .metric-formula")
        expect(precision).to_have_text("P@4 = 2 / 4 = 0.50")
        page.locator('#binary .rl-row[data-rank="1"] button').click()
        expect(precision).to_have_text("P@4 = 3 / 4 = 0.75")
        page.locator("#binary .rl-cutoff").focus()
        page.keyboard.press("ArrowDown")
        expect(precision).to_have_text("P@5 = 4 / 5 = 0.80")
        # A tag offers no Example button: a writer's tag is the example its page teaches with.
        expect(page.locator("#binary .fig-example")).to_have_count(0)

        # Figure 2 has linear gain from its attribute; pressing a result promotes it.
        ndcg = page.locator("#ndcg .metric-ndcgText .metric-formula")
        expect(page.locator("#ndcg input[value=linear]")).to_be_checked()
        before = ndcg.inner_text()
        page.locator('#ndcg .rl-row[data-rank="2"] button').click()
        expect(ndcg).not_to_have_text(before)
        # A new state attribute, as a page's script would set it: from the article's state (gain
        # exponential again), grades already in the ideal order.
        page.locator("#ndcg").evaluate("el => el.setAttribute('state', 'grades=3,3,2,2,1,1,0,0&k=3')")
        dcg = f(metrics.dcg_at_k([3, 3, 2, 2, 1, 1, 0, 0], 3, "exponential"))
        expect(ndcg).to_have_text(f"NDCG@3 = {dcg} / {dcg} = 1.00")

        # Its theme attribute makes it dark on the light page; figure 1 stays light.
        page.locator("#ndcg").evaluate("el => el.setAttribute('theme', 'dark')")
        expect(page.locator("#ndcg .fig")).to_have_css("background-color", DARK_BG)
        expect(page.locator("#binary .fig")).to_have_css("background-color", LIGHT_BG)

        assert [url for url in asked if not url.startswith((site + "/", "data:", "blob:"))] == []
        assert any(url.partition("?")[0].endswith("/explainer.js") for url in asked)  # Sphinx adds ?v=
        assert seen["errors"] == []
    finally:
        context.close()


def test_the_figure_tags_work_in_a_built_mkdocs_site_with_no_request_leaving_it(browser, mkdocs_site):
    drive_the_figures(browser, mkdocs_site)


@pytest.mark.parametrize("theme", ["alabaster", "furo"])
def test_the_figure_tags_work_in_a_built_sphinx_site_with_no_request_leaving_it(browser, sphinx_sites, theme):
    drive_the_figures(browser, sphinx_sites[theme])


def test_a_tag_follows_furos_light_and_dark_switch_as_the_reader_presses_it(browser, sphinx_sites):
    """theme="auto" (no attribute) takes furo's data-theme on <body>, watched; a fixed theme keeps its own."""
    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.goto(sphinx_sites["furo"] + "/")
        binary, ndcg = page.locator("#binary .fig"), page.locator("#ndcg .fig")
        expect(binary).to_have_css("background-color", LIGHT_BG)
        # furo's own button: auto -> dark -> light on a light system.
        toggle = page.locator(".content-icon-container .theme-toggle").first
        toggle.click()
        expect(page.locator("body")).to_have_attribute("data-theme", "dark")
        expect(binary).to_have_css("background-color", DARK_BG)
        expect(ndcg).to_have_css("background-color", LIGHT_BG)  # theme="light" is the writer's choice
        toggle.click()
        expect(page.locator("body")).to_have_attribute("data-theme", "light")
        expect(binary).to_have_css("background-color", LIGHT_BG)
        # furo's auto is the system's: a dark system then makes the figure dark.
        page.evaluate("document.body.dataset.theme = 'auto'")
        page.emulate_media(color_scheme="dark")
        expect(binary).to_have_css("background-color", DARK_BG)
    finally:
        context.close()


def test_a_tag_follows_the_color_scheme_a_host_page_sets_around_it(browser, sphinx_sites):
    """A host with no data-theme, whose stylesheet says color-scheme: dark (alabaster here, by a class a writer adds)."""
    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.goto(sphinx_sites["alabaster"] + "/")
        binary = page.locator("#binary .fig")
        expect(binary).to_have_css("background-color", LIGHT_BG)
        page.evaluate("document.documentElement.style.colorScheme = 'dark'")
        expect(binary).to_have_css("background-color", DARK_BG)
        page.evaluate("document.documentElement.style.colorScheme = 'light dark'")
        expect(binary).to_have_css("background-color", LIGHT_BG)  # both: the system's, light here
    finally:
        context.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_figure_five_fits_alabasters_330_px_column_on_a_phone(browser, sphinx_sites):
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(sphinx_sites["alabaster"] + "/")
        tag = page.locator("#conventions")
        expect(tag.locator(".metric-formula").first).to_be_visible()
        column = page.locator("div.body").evaluate(
            "el => el.clientWidth - parseFloat(getComputedStyle(el).paddingLeft) - parseFloat(getComputedStyle(el).paddingRight)"
        )
        assert column <= 340, f"alabaster's column on a 390 px phone is {column} px, not about 330"
        box = tag.bounding_box()
        assert box["width"] <= column + 0.5
        overflow = tag.evaluate(
            "el => [...el.shadowRoot.querySelectorAll('*')].filter((n) => n.getBoundingClientRect().right > el.getBoundingClientRect().right + 0.5 && n.checkVisibility()).map((n) => n.className.baseVal ?? n.className).slice(0, 5)"
        )
        assert overflow == [], f"parts of figure 5 stick out of the column: {overflow}"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()


def test_the_numbers_bar_stays_in_view_in_furos_phone_layout(browser, sphinx_sites):
    """Scrolled to figure 1's list, its bar of numbers stays at the top of the screen, below furo's own header, not under it."""
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.goto(sphinx_sites["furo"] + "/")
        tag = page.locator("#binary")
        expect(tag.locator(".metric-formula").first).to_be_attached()
        tag.locator('.rl-row[data-rank="10"]').scroll_into_view_if_needed()
        page.mouse.wheel(0, 150)
        bar = tag.locator(".fig-headline")
        expect(bar).to_be_visible()
        page.wait_for_timeout(200)
        top = bar.evaluate("el => el.getBoundingClientRect().top")
        header = page.evaluate("(document.querySelector('.mobile-header')?.getBoundingClientRect().bottom) ?? 0")
        assert header - 0.5 <= top <= header + 8, f"the bar's top is at {top} px, furo's header ends at {header} px"
        # It is the bar a reader sees there, not furo's header over it.
        middle = bar.evaluate(
            "el => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"
        )
        on_top = tag.evaluate(
            "(el, [x, y]) => el.shadowRoot.elementFromPoint(x, y)?.closest('.fig-headline') !== null", middle
        )
        assert on_top
        # Scroll on past the figure: its bar goes with it.
        page.locator("#ndcg").scroll_into_view_if_needed()
        page.mouse.wheel(0, 300)
        page.wait_for_timeout(200)
        assert (
            bar.evaluate("el => el.getBoundingClientRect().bottom")
            <= tag.evaluate("el => el.getBoundingClientRect().bottom") + 0.5
        )
    finally:
        context.close()
