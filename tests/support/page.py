"""Reading and driving the figures in a Playwright page: shared page objects, scripts and checks.

Panel renders each figure in a shadow root: Playwright's CSS selectors pierce open shadow
roots, but page scripts must walk them (``DEEP_JS``). The scripts run in pages are in
``scripts/``, one file each, with a comment that says what each does.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from explainer import metrics
from explainer.figures.binary import BinaryState
from explainer.figures.ndcg import TITLES as NDCG_TITLES
from explainer.figures.ndcg import NdcgState

from support.expect import expect
from support.server import wait_python

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def script(name: str) -> str:
    """A page script from support/scripts, as the text of a JavaScript function."""
    return (SCRIPTS / name).read_text(encoding="utf-8").strip().removesuffix(";")


ACTIVE_JS = script("active.js")
DEEP_JS = script("deep.js")
READ_FIGURE_JS = script("read_figure.js")
READER_TEXT_JS = script("reader_text.js")

# Words that mean a number or a name went missing on its way to the page.
BAD_WORDS = re.compile(r"NaN|undefined|Infinity|null")

# A Markdown pane's text lives in a div of its shadow root; the host itself has no text.
MARKDOWN_TEXT = "els => els.map(e => e.innerText)"

f = metrics.format_number

# For each figure: something to click, and the text that click must change.
PROBES = {
    "binary": ('.fig-binary .rl-row[data-rank="2"] button', ".fig-binary .metric-formula"),
    "ndcg": ('.fig-ndcg .rl-row[data-rank="2"] button', ".fig-ndcg .metric-formula"),
    "queries": ('.fig-queries .q-row[data-query="2"] .q-cell[data-rank="1"]', ".fig-queries .system-mean"),
    "unjudged": ('.fig-unjudged .rl-row[data-rank="2"] button', ".fig-unjudged .metric-formula"),
    "conventions": ('.fig-conventions .rl-row[data-rank="2"] button', ".fig-conventions .conv-table tbody"),
    "recall-kinds": (
        '.fig-recall-kinds .rk-row[data-rank="1"] button',
        ".fig-recall-kinds [data-metric] .metric-formula",
    ),
    "which-measure": (
        ".fig-which .which-list[data-list=b] .which-cell[data-rank='1']",
        ".fig-which .which-compare tbody",
    ),
}


class View(NamedTuple):
    """A served page as the ``view`` fixture loads it: its path and query, its screen, light or dark, a phone's or not."""

    path: str
    width: int = 1280
    height: int = 720
    scheme: str = "light"
    phone: bool = False

    @property
    def route(self) -> str:
        """The page's name: "binary" for /binary?present=1, "" for the story."""
        return self.path.removeprefix("/").partition("?")[0]

    def __str__(self) -> str:  # the test's id
        screen = "phone" if self.phone else f"{self.width}x{self.height}"
        return f"{self.path}-{screen}-{self.scheme}"


class Viewed(NamedTuple):
    """A ``View`` loaded: its page (to be read, not changed) and the view's name."""

    page: object
    route: str


def phone_view(path: str, scheme: str = "light") -> View:
    """The page as the phone context shows it (390x844, touch)."""
    return View(path, 390, 844, scheme, phone=True)


def click_changes(page, name: str, timeout: float = 5_000) -> None:
    """Click the figure's probe and expect its watched text to change."""
    target, watched = PROBES[name]
    text = page.locator(watched).first
    expect(text).to_be_visible(timeout=timeout)
    before = text.inner_text()
    page.locator(target).first.click()
    expect(text).not_to_have_text(before)


def reader_text(page, root_selector: str = ":root") -> str:
    """All a reader of the figures under ``root_selector`` sees or hears: shown text, accessible
    names, descriptions, tooltips, live regions."""
    return page.evaluate(
        f"(selector) => ({READER_TEXT_JS})({DEEP_JS}, document.querySelector(selector))", root_selector
    )


# Each Content-Security-Policy violation a page meets (``securitypolicyviolation``), kept where a test reads it.
_LISTEN_FOR_VIOLATIONS = (
    "window.violations = [];"
    "document.addEventListener('securitypolicyviolation',"
    " (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI}`));"
)


def watch_policy(page):
    """Record the policy violations of the pages ``page`` opens from now on; returns a reader of them."""
    page.add_init_script(_LISTEN_FOR_VIOLATIONS)
    return lambda: page.evaluate("window.violations")


def watch_page(page) -> dict[str, list]:
    """Collect a page's console errors, uncaught exceptions and dialogs (dismissing them)."""
    seen: dict[str, list] = {"errors": [], "dialogs": []}
    page.on("console", lambda message: message.type == "error" and seen["errors"].append(message.text))
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    return seen


def offline(target) -> list[str]:
    """Refuse every request of ``target`` (a page, or a context) that would leave the disk; return the list of what was asked."""
    asked: list[str] = []

    def only_local(route):
        asked.append(route.request.url)
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    target.route("**/*", only_local)
    return asked


class ShownFigure:
    """One figure served from the test process and open in a page: its locators, and the Python figure.

    Subclasses add what their figure shows; ``root_class`` names the figure's root element.
    """

    root_class = ".fig"

    def __init__(self, page, figure):
        self.page = page
        self.figure = figure
        self.root = page.locator(self.root_class)
        self.live = page.locator(".fig-frame [aria-live=polite]")
        self.hint = page.locator(".fig-hint")
        self.marker = page.locator(".rl-cutoff")
        self.handle = page.locator(".rl-cutoff-handle")

    def row(self, rank):
        return self.page.locator(f'.rl-row[data-rank="{rank}"]')

    def button(self, rank):
        return self.row(rank).locator("button.rl-activate")

    def select(self, rank):
        return self.row(rank).locator("select.grade-select")

    def formula(self, key):
        return self.page.locator(f"[data-metric={key}] .metric-formula")

    def wait_python(self, **expected):
        """Python's figure.state reaches these values (the page's change has been handled)."""
        wait_python(
            self.figure,
            lambda: all(getattr(self.figure.state, name) == value for name, value in expected.items()),
            message=f"Python to see {expected} (has {self.figure.state.to_dict()})",
        )

    def active(self):
        """What has the keyboard focus (see scripts/active.js)."""
        return self.page.evaluate(ACTIVE_JS)

    def tab_stops(self, limit: int = 60) -> list[dict]:
        """Every element Tab reaches, in order, from the top of the page to the end of the figure."""
        self.page.locator("body").focus()
        seen = []
        for _ in range(limit):
            self.page.keyboard.press("Tab")
            active = self.active()
            if active is None or active["tag"] == "body":
                break
            seen.append(active)
        return seen

    def tab_to(self, predicate, key: str = "Shift+Tab", limit: int = 60) -> None:
        """Press ``key`` until the focused element satisfies ``predicate``."""
        for _ in range(limit):
            active = self.active()
            if active and predicate(active):
                return
            self.page.keyboard.press(key)
        raise AssertionError(f"{key} never reached the element; at {self.active()}")

    def assert_clean_text(self):
        """No number or name went missing: no NaN, undefined, Infinity or null in the text or the labels."""
        text = self.root.text_content()
        assert not BAD_WORDS.search(text), text
        labels = self.root.locator("[aria-label], [aria-valuetext]").evaluate_all(
            "els => els.map(e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('aria-valuetext') || ''))"
        )
        assert not [label for label in labels if BAD_WORDS.search(label)], labels


# -- what binary and NDCG figures show, checked against their state -----------------------------


def read_figures(target, root_selector: str = ":root") -> list[dict]:
    """What every binary and NDCG figure under ``root_selector`` shows (``target`` is a page or frame),
    read in the next animation frame, as a reader sees it: a click draws its numbers at once and its
    rows and charts just before that frame paints (shell.js ``beforePaint``)."""
    return target.evaluate(
        f"""async (rootSelector) => {{
            await new Promise((resolve) => {{ requestAnimationFrame(() => resolve()); setTimeout(resolve, 200); }});
            const deep = {DEEP_JS};
            const read = {READ_FIGURE_JS};
            return deep('.fig-binary, .fig-ndcg', document.querySelector(rootSelector)).map(read);
        }}""",
        root_selector,
    )


def shown_state(shown: dict) -> dict:
    """The figure state a page shows, as the Python state class writes it."""
    if shown["kind"] == "binary":
        return {"relevant": shown["relevant"], "k": shown["k"], "missed": shown["missed"], "chart": shown["chart"]}
    order = [NDCG_TITLES.index(title) for title in shown["titles"]]
    grades = [0] * len(order)
    for rank, doc in enumerate(order):
        grades[doc] = shown["grades"][rank]
    return {"grades": grades, "order": order, "k": shown["k"], "gain": shown["gain"]}


def last_number(formula: str) -> str:
    """The value a formula ends with ("P@5 = 3 / 5 = 0.60" gives 0.60; "RR = 0 (...)" gives 0.00)."""
    match = re.search(r"= (-?[\d.]+)$", formula)
    return match.group(1) if match else f(0.0)


def numbers_mismatch(shown: dict) -> list[str]:
    """Where the numbers a figure shows disagree with the list it shows (empty when they agree)."""
    state = shown_state(shown)
    if shown["kind"] == "binary":
        expected = BinaryState(**state).values
        return [
            f"{key}: shows {shown['formulas'][key]!r}, the list gives {f(value)}"
            for key, value in expected.items()
            if last_number(shown["formulas"][key]) != f(value)
        ]
    value = NdcgState(**state).values["ndcg"]
    if last_number(shown["ndcg"]) == f(value):
        return []
    return [f"ndcg: shows {shown['ndcg']!r}, the list gives {f(value)}"]


# -- accessibility: axe-core in the page ---------------------------------------------------------

# axe-core's WCAG 2.0 to 2.2 A and AA rules and best practices, and the rule that a control's
# accessible name contains the text it shows (WCAG 2.5.3: speech input finds it by what it shows).
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]},
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is, a line each."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes'][:3]]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
