"""The pages the explainer serves: the story page, one page per figure, and the workbench.

The story and the figure pages are light pages (``explainer.export.served_page``: explainer.js
draws every figure in the browser); this module names them (``LIGHT_ROUTES``, ``TITLES``) and
holds the story's text (``story_parts``), with its numbers computed from the figures'
states. The workbench is a Panel page (``evaluate_page``), a fresh one for each session.
"""

from __future__ import annotations

import re
from pathlib import Path

import panel as pn

from explainer.catalog.measures import TAUGHT
from explainer.figures import FIGURES

HERE = Path(__file__).resolve().parent
PAGE_CSS = (HERE / "page.css").read_text(encoding="utf-8")
STORY = (HERE / "story.md").read_text(encoding="utf-8")

TITLE = "How good is this ranking? Search relevance measures, explained"
STORY_SHOWS = "the story: its contents (each section has a link of its own, such as `/#why-tools-disagree-on-ndcg`), judgments, every figure in its place, which measure answers which question, how to choose"
EVALUATE_TITLE = "Evaluate runs, query by query"
EVALUATE_SHOWS = (
    "the workbench: a golden set (or your own qrels and runs) evaluated as trec_eval does, the gate, "
    "each measure's distribution, every query, and one query's two lists with live arithmetic and what-if judgments"
)

# Panel's page template with what every page of ours adds: the viewport, so that a phone shows
# the page at its own width (not a desktop page shrunk to 40%); the page's background in the
# page's theme (page.css colours the content, this the rest of the window); the notice shown when
# the connection is lost, in the page's type and calm colours (it is news, not an error: the
# figures go on working), its close button named for screen readers; and a main landmark
# around the content. Panel extends its own base template with this text.
PAGE_TEMPLATE = """
{% block postamble %}<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
html { color-scheme: var(--explainer-theme, light dark); background: light-dark(#ffffff, #0d1117); }
.notyf__toast.notyf__disconnect {
  font: 1rem/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  max-width: min(30rem, calc(100vw - 1rem));
  border-radius: 8px;
  color: #ffffff;
  background: light-dark(#24292f, #30363d);
  box-shadow: 0 0 0 1px light-dark(transparent, #8b949e), 0 4px 16px rgb(0 0 0 / 30%);
}
.notyf__disconnect .notyf__ripple { background: light-dark(#24292f, #30363d) !important; }
.notyf__disconnect .notyf__icon { display: none; }
.notyf__disconnect .notyf__message { padding-left: 0.25rem; }
.notyf__disconnect .notyf__dismiss-btn { background: rgb(255 255 255 / 12%); }
@media (max-width: 480px) { .notyf__toast.notyf__disconnect { max-width: none; border-radius: 0; } }
</style>
<script>
new MutationObserver(() => {
  for (const button of document.querySelectorAll(".notyf__dismiss-btn:not([aria-label])")) {
    button.setAttribute("aria-label", "Close this notice");
  }
}).observe(document.documentElement, { childList: true, subtree: true });
</script>
{% endblock %}
{% block contents %}<main>{{ super() }}</main>{% endblock %}
"""

# Shown on a Panel page (the workbench's) when its connection to the server drops.
DISCONNECT_NOTICE = "Lost the connection to the server. The page still shows what it showed; reload it to reconnect."

# The story's last section, served only: an exported story has no server, and the workbench's
# saved file is written with its data by ``relevance-explainer evaluate ... --html FILE``.
WORKBENCH_SECTION = (
    f"## {EVALUATE_TITLE}\n\nEvery number here was computed on lists made up to teach. "
    "[The workbench](evaluate) computes them on a golden set of 100 judged queries and two runs, or on "
    "your own qrels and runs: from the gate's verdict to the query that moved and the terms that moved it."
)

# Where a figure stands in the story: <!-- figure:binary -->.
FIGURE_MARKER = re.compile(r"<!-- figure:([\w-]+) -->")


def _markdown(text: str) -> pn.pane.Markdown:
    return pn.pane.Markdown(text, stylesheets=[PAGE_CSS], sizing_mode="stretch_width", disable_anchors=True)


def _page(*objects) -> pn.Column:
    return pn.Column(*objects, stylesheets=[PAGE_CSS], css_classes=["page"], sizing_mode="stretch_width")


def story_numbers() -> dict[str, str]:
    """The numbers the story's text quotes, each computed from its figure's default state."""
    numbers: dict[str, str] = {}
    for page in FIGURES:
        numbers.update(page.story_numbers())
    return numbers


def choose_list() -> str:
    """When to reach for each measure, as a Markdown list."""
    return "\n".join(f"- **{m.name}**: {m.use_when}" for m in TAUGHT)


def story_parts() -> list[tuple[str, str]]:
    """The story in order, as ("text", Markdown) and ("figure", name) parts: its numbers filled in."""
    text = STORY.format_map(story_numbers())
    text = text.replace("<!-- list:choose -->", choose_list())
    parts = []
    start = 0
    for marker in FIGURE_MARKER.finditer(text):
        parts += [("text", text[start : marker.start()]), ("figure", marker.group(1))]
        start = marker.end()
    parts.append(("text", text[start:]))
    return [(kind, value) for kind, value in parts if value.strip()]


# What /evaluate says where it takes no uploads: served to the network with neither an access
# code nor --uploads, anyone there could otherwise send the server files to read.
UPLOADS_OFF = (
    "This server is open to its network without an access code, so it shows the golden set only: "
    "to evaluate your own files here, start it with `--access-code` (or `--uploads`)."
)


def evaluate_page(workbench=None, uploads: bool = True):
    """The workbench page: the golden set, or the ``workbench`` given (the command's files).

    Without ``uploads`` the golden set takes no files, and the page says how to turn them on."""
    from explainer.workbench import Workbench

    shown = workbench if workbench is not None else Workbench.golden(uploads=uploads)
    shown.view.on_page = True
    return _page(shown) if uploads else _page(_markdown(UPLOADS_OFF), shown)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def readme_pages_table() -> str:
    """The README's table of pages and what each shows, made from the registry (a test keeps them equal)."""
    lines = ["| page | what it shows |", "|---|---|", f"| `/` | {STORY_SHOWS} |"]
    lines += [f"| `/{page.name}` | {_cell(page.shows)} |" for page in FIGURES]
    lines += [f"| `/evaluate` | {_cell(EVALUATE_SHOWS)} |"]
    return "\n".join(lines) + "\n"


def readme_url_keys_table() -> str:
    """The README's table of each figure page's URL keys, made from the registry (a test keeps them equal)."""
    lines = ["| page | keys | example |", "|---|---|---|"]
    lines += ["| " + " | ".join(_cell(part) for part in page.url_key_table_row()) + " |" for page in FIGURES]
    return "\n".join(lines) + "\n"


def route_of(name: str) -> str:
    """The route a page is served at: the story at /, each other page at /<name>."""
    return "/" if name == "index" else f"/{name}"


# The light pages' routes (the story's and each figure's), the figure pages' alone, each page's
# title by route, and the figures' routes in the story's order (a class's plan without --plan).
FIGURE_ROUTES = frozenset(route_of(page.name) for page in FIGURES)
LIGHT_ROUTES = frozenset({"/"}) | FIGURE_ROUTES
EVALUATE_ROUTE = "/evaluate"
ROUTES = LIGHT_ROUTES | {EVALUATE_ROUTE}  # every page served
TITLES = {"/": TITLE, **{route_of(page.name): page.title for page in FIGURES}, EVALUATE_ROUTE: EVALUATE_TITLE}


def story_figure_routes() -> list[str]:
    """The routes of the figures the story shows, in its order."""
    return [route_of(value) for kind, value in story_parts() if kind == "figure"]
