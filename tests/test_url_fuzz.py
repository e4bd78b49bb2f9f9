"""Generated URL queries, over a thousand per figure page, served and exported: the figure's own
parser never throws, always yields a state its Python class accepts, and explains what it ignored
in plain text. (Whole page loads with nasty queries are in test_pages.py and test_reliability.py.)"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import expect

from explainer.figures import BY_NAME, FIGURES
from explainer.runtime import view_model

pytestmark = pytest.mark.browser

BATCHES, BATCH = 42, 25  # 1,050 queries per page and mode

# Every figure's URL keys (so that each page also meets the others'), the page's own (kit.js's
# PAGE_KEYS: a test below checks that none is missing here), and junk.
PAGE_KEYS = ["present", "theme", "embed", "predict"]
KEYS = sorted({key.name for page in FIGURES for key in page.url_keys}) + PAGE_KEYS + ["x", "<b>", ""]
VALUE_TEXT = st.text(
    alphabet=st.sampled_from(list("0123456789,|?-+. abcxyz<>\"'&=;%#/\\") + ["é", "✓", "\u202e", "\x00"]), max_size=40
)
VALUES = st.one_of(
    VALUE_TEXT,
    st.integers(-5, 30).map(str),
    st.lists(st.integers(-1, 25), max_size=25).map(lambda xs: ",".join(map(str, xs))),
    st.sampled_from(["exponential", "linear", "rr", "ap", "condensed", "1", "0"]),
)
QUERY = st.lists(st.tuples(st.one_of(st.sampled_from(KEYS), VALUE_TEXT), VALUES), max_size=6)


def encode(pairs) -> str:
    from urllib.parse import urlencode

    return "?" + urlencode(pairs)


# How a loaded page gives a test its figure's module and kit: served or exported, a figure page is a
# light page, whose explainer.js loads them by name.
LOADER = """async (name) => Promise.all([RelevanceFigure.load(name), RelevanceFigure.load("explainer/kit")])"""


def parser_page(browser, url: str, name: str):
    """A loaded figure page, with the figure's own query parser ready as window.parse(search)."""
    page = browser.new_page()
    page.goto(url)
    expect(page.locator(".fig-caption")).to_be_visible(timeout=30_000)
    view = BY_NAME[name].figure().view
    page.evaluate(
        f"""async ([name, model]) => {{
            const [m, kit] = await ({LOADER})(name);
            const fields = m.queryFields(model);
            window.parse = (search) => kit.stateFromQuery(search, fields, model.default, model.max_query_length);
            window.pageKeys = Object.keys(kit.PAGE_KEYS);
        }}""",
        [name, view_model(view)],
    )
    return page


# The exported pages parse links with the same kit.js: their fuzzing runs in the slow step.
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["served", "exported"])
@pytest.mark.parametrize("name", list(BY_NAME))
def test_generated_queries_always_give_a_valid_state_and_plain_notices(browser, server, exported_site, name, mode):
    url = f"{server.url}/{name}" if mode == "served" else (exported_site / f"{name}.html").as_uri()
    page = parser_page(browser, url, name)
    assert sorted(page.evaluate("window.pageKeys")) == sorted(PAGE_KEYS), "a page key the fuzz does not try"
    state_class = BY_NAME[name].state_class
    checked = []

    @settings(
        max_examples=BATCHES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(st.lists(QUERY, min_size=BATCH, max_size=BATCH))
    def check(batch):
        searches = [encode(pairs) for pairs in batch]
        results = json.loads(page.evaluate("(s) => JSON.stringify(s.map((q) => window.parse(q)))", searches))
        for search, result in zip(searches, results, strict=True):
            state_class(**result["state"])  # raises ValueError if the parser let a bad value through
            assert all(isinstance(line, str) and line.startswith("Ignored ") for line in result["ignored"]), search
        checked.extend(searches)

    try:
        check()
    finally:
        page.close()
    assert len(checked) >= 1000
