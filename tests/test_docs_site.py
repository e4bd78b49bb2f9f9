"""The tag in a real documentation build: a small MkDocs site whose page includes explainer.js and two figures.

MkDocs builds the site as a writer would (``mkdocs build --strict``, the script listed in
``extra_javascript``, the tags written in the page's Markdown); Python's own static server
serves the built site on 127.0.0.1; Chromium drives both figures by click, keys, the state
attribute and the theme attribute, and every request must stay on the site.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from explainer import metrics

from support.page import watch_page

pytestmark = [pytest.mark.slow, pytest.mark.browser]

f = metrics.format_number

MKDOCS_YML = """\
site_name: Search quality handbook
theme:
  name: mkdocs
  highlightjs: false
extra_javascript:
  - explainer.js
"""

PAGE_MD = """\
# Measuring a ranking

Precision and recall at a cutoff, on the article's list at k = 4:

<relevance-figure id="binary" name="binary" state="relevant=2,3,5&k=4"></relevance-figure>

NDCG, with linear gain:

<relevance-figure id="ndcg" name="ndcg" state="gain=linear" theme="light"></relevance-figure>

Read more in the [glossary](#).
"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test's output is for failures
        pass


@pytest.fixture(scope="module")
def docs_site(tmp_path_factory, exported_site):
    """The built site served on a free port of 127.0.0.1; yields its address."""
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: ./serve.sh test -m slow installs it")
    root = tmp_path_factory.mktemp("docs-project")
    (root / "docs").mkdir()
    shutil.copy(exported_site / "explainer.js", root / "docs" / "explainer.js")
    (root / "docs" / "index.md").write_text(PAGE_MD, encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(root / "site")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root / "site")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_two_figure_tags_work_in_a_built_mkdocs_site_with_no_request_leaving_it(browser, docs_site):
    context = browser.new_context(color_scheme="light")
    asked: list[str] = []

    def only_the_site(route):
        asked.append(route.request.url)
        if route.request.url.startswith((docs_site + "/", "data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_the_site)
    try:
        page = context.new_page()
        seen = watch_page(page)
        page.goto(docs_site + "/")
        expect(page.get_by_role("heading", name="Measuring a ranking")).to_be_visible()

        # Figure 1 opens in the state its attribute asks for; a click and the keyboard change it.
        precision = page.locator("#binary [data-metric=precision] .metric-formula")
        expect(precision).to_have_text("P@4 = 2 / 4 = 0.50")
        page.locator('#binary .rl-row[data-rank="1"] button').click()
        expect(precision).to_have_text("P@4 = 3 / 4 = 0.75")
        page.locator("#binary .rl-cutoff").focus()
        page.keyboard.press("ArrowDown")
        expect(precision).to_have_text("P@5 = 4 / 5 = 0.80")

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
        expect(page.locator("#ndcg .fig")).to_have_css("background-color", "rgb(13, 17, 23)")
        expect(page.locator("#binary .fig")).to_have_css("background-color", "rgb(255, 255, 255)")

        assert [url for url in asked if not url.startswith((docs_site + "/", "data:", "blob:"))] == []
        assert any(url.endswith("/explainer.js") for url in asked)
        assert seen["errors"] == []
    finally:
        context.close()
