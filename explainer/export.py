"""The exported site: light pages that run the figures with explainer.js, with no Bokeh, Panel or server.

``export_site(DIR)`` writes what ``relevance-explainer export DIR`` promises:

- ``index.html``, the story, and one page per figure (``binary.html``, ``ndcg.html``, ...),
  with the served pages' names and URL keys. Each is one self-contained file that requests
  nothing: its page stylesheet and an explainer.js holding only the figures it shows are
  inside it, so it works from disk, attached to an e-mail or on any static host.
- ``explainer.js``, every figure as a ``<relevance-figure>`` tag for documentation pages.
- ``embed.html``, a page that shows the tag for every figure, with the markup to copy; it
  includes ``explainer.js`` from its file, as a documentation page would.

No part of a page needs Python: every number and every interaction runs in the figures'
modules. Served, the same pages are sent as they are (``served_page``), with the class's
script on a server that holds a class (``class_script``). In a notebook Panel's own
mechanisms keep a figure's ``state`` in step with its clicks.
"""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path
from string import Template
from urllib.parse import quote

from markdown_it import MarkdownIt

from explainer import runtime
from explainer.figures import BY_NAME, FIGURES
from explainer.pages import EVALUATE_TITLE, PAGE_CSS, TITLE, WORKBENCH_SECTION, story_parts

HERE = Path(__file__).resolve().parent
TEMPLATE = Template((HERE / "light.html").read_text(encoding="utf-8"))

# A tiny favicon inside the page: without one a browser asks the host for /favicon.ico.
FAVICON = "data:image/svg+xml," + quote(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0072b5"/></svg>'
)

# Markdown as the served story's panes render it (Panel's markdown-it renderer, GitHub-like, tables).
MARKDOWN = MarkdownIt("gfm-like").enable("table")

EMBED_TITLE = "Embedding the figures: one script and a tag"


def tag(name: str, **attributes: str | bool) -> str:
    """A ``<relevance-figure>`` tag; True makes a bare attribute, and values are escaped."""
    parts = [f'name="{html.escape(name)}"']
    for key, value in attributes.items():
        key = key.replace("_", "-")
        parts.append(key if value is True else f'{key}="{html.escape(value)}"')
    return f"<relevance-figure {' '.join(parts)}></relevance-figure>"


def light_page(title: str, body: str, script: str | None, served: str | None = None) -> str:
    """A page with ``body`` inside <main> and explainer.js: ``script`` inline (``runtime.script``'s text), or with None, from its file.

    ``served`` makes it a served page: its scripts carry the nonce of its Content-Security-Policy
    (``SCRIPT_NONCE``, one per response), and ``served``, unless empty, is a script that runs
    after explainer.js (a class's: ``class_script``).
    """
    opening = f'<script nonce="{SCRIPT_NONCE}">' if served is not None else "<script>"
    script = '<script src="explainer.js"></script>' if script is None else f"{opening}\n{script}</script>"
    if served:
        script += f"\n{opening}\n{served}</script>"
    return TEMPLATE.substitute(title=html.escape(title), favicon=FAVICON, css=PAGE_CSS, body=body, script=script)


def figure_page(name: str, class_address: str = "", served: str | None = None) -> str:
    """A figure alone with its title as heading and its caption: its state follows the page URL, and it offers presenter view.

    Served with ``class_address`` (README "Serving for a class"), presenter view offers it as a QR code.
    """
    page = BY_NAME[name]
    if class_address:
        from explainer.classroom.address import qr_rows

        view = page.figure().view
        view.param.update(class_address=class_address, class_address_qr=list(qr_rows(class_address)))
        script = runtime.script_of(runtime.bundle_of({name: (page.title, page.caption, view)}))
    else:
        script = runtime.script([name])
    return light_page(page.title, tag(name, standalone=True), script, served)


def section_id(title: str) -> str:
    """A section heading's id, for links to it: its words in lower case, joined by hyphens."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))


def contents(sections: list[tuple[str, str]]) -> str:
    """The story's table of contents: a link to each section, given as (id, heading as HTML)."""
    items = "".join(f'<li><a href="#{anchor}">{heading}</a></li>' for anchor, heading in sections)
    return f'<nav class="story-contents" aria-labelledby="story-contents"><h2 id="story-contents">Contents</h2><ol>{items}</ol></nav>'


def story_page(served: str | None = None) -> str:
    """The story: its text (Markdown, as served) with every figure in its place and links to its own page.

    Its table of contents comes before its first section, whose heading, like every other, has an
    id to link to. Served (``served`` as ``light_page`` takes it), its figures link to their served
    pages, and it ends with the workbench, which needs the server.
    """
    parts = story_parts() + ([("text", WORKBENCH_SECTION)] if served is not None else [])
    parsed = [(kind, MARKDOWN.parse(value) if kind == "text" else value) for kind, value in parts]
    sections = []
    for kind, tokens in parsed:
        for opening, inline in itertools.pairwise(tokens) if kind == "text" else ():
            if opening.type == "heading_open" and opening.tag == "h2":
                opening.attrSet("id", section_id(inline.content))
                sections.append((opening.attrGet("id"), MARKDOWN.renderInline(inline.content).strip()))
    body = []
    names = []
    for kind, value in parsed:
        if kind == "text":
            text = MARKDOWN.renderer.render(value, MARKDOWN.options, {})
            if sections and f'id="{sections[0][0]}"' in text:
                text = text.replace(
                    f'<h2 id="{sections[0][0]}"', contents(sections) + f'\n<h2 id="{sections[0][0]}"', 1
                )
            body.append(f'<div class="markdown">\n{text}</div>')
        else:
            names.append(value)
            body.append(
                tag(value, caption="", on_page=True, page_link=value if served is not None else f"{value}.html")
            )
    return light_page(TITLE, "\n".join(body), runtime.script(names), served)


# What a served page's response fills in: the nonce of its scripts (server/headers.py), and on a
# server that holds a class, the page's token for the class channel (server/channel_tokens.py).
SCRIPT_NONCE = "@@script-nonce@@"
CHANNEL_TOKEN = "@@channel-token@@"


def served_page(route: str, class_address: str = "", classroom: bool = False) -> str | None:
    """The served light page for ``route`` ("/" or "/<figure>"), or None for any other route: the
    exported page, its scripts with ``SCRIPT_NONCE`` to fill in, and with ``classroom`` the class's
    script (``CHANNEL_TOKEN`` to fill in too)."""
    from explainer.classroom.script import class_script

    served = class_script(CHANNEL_TOKEN, route) if classroom else ""
    if route == "/":
        return story_page(served=served)
    name = route.removeprefix("/")
    if name in BY_NAME:
        return figure_page(name, class_address, served)
    return None


def workbench_page(workbench) -> str:
    """The workbench as one self-contained page: every query's lists in it, no upload, no server.

    Its module and the figures it mounts run from explainer.js inline, on the data its view
    holds, with no Bokeh or Panel (``evaluate --html``, the README's screenshots).
    """
    script = runtime.script_of(runtime.bundle_of({"evaluate": (EVALUATE_TITLE, "", workbench.view)}))
    return light_page(EVALUATE_TITLE, tag("evaluate", standalone=True, on_page=True), script)


def embed_page() -> str:
    """Every figure as a tag, each with the markup that puts it on a documentation page."""
    body = [
        f"<h1>{html.escape(EMBED_TITLE)}</h1>",
        '<div class="markdown"><p>Put <code>explainer.js</code> beside your page, include it once with '
        '<code>&lt;script src="explainer.js"&gt;&lt;/script&gt;</code>, and place a tag for each figure. '
        "<code>state</code> takes the keys of the figure page's link, <code>theme</code> is light, dark or auto, "
        "and <code>caption</code> replaces the figure's caption (empty for none).</p></div>",
    ]
    for page in FIGURES:
        markup = tag(page.name, state=page.example)
        body += [
            f"<h2>{html.escape(page.title)}</h2>",
            f'<div class="markdown"><pre><code>{html.escape(markup)}</code></pre></div>',
            markup,
        ]
    return light_page(EMBED_TITLE, "\n".join(body), None)


def export_site(directory: Path) -> list[Path]:
    """Write the story, every figure page, explainer.js and embed.html into ``directory``; returns their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {"index.html": story_page(), **{f"{page.name}.html": figure_page(page.name) for page in FIGURES}}
    files["embed.html"] = embed_page()
    files["explainer.js"] = runtime.script()
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
