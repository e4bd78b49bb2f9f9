"""An exported page is one light file that fetches nothing and stays interactive offline.

The static tests read the written HTML the way a browser would and list every
address it would fetch: ``src``/``href`` of the tags that load something, ``url()``
and ``@import`` in CSS (``<style>``, ``style=""`` and explainer.js's stylesheets), and
the imports of ES modules (inline module scripts, and the figures' modules that
explainer.js carries, which may import only each other). Text (titles, Markdown, the
scripts' own strings) is not an address, so a URL written there is allowed. The browser
test then opens each file from ``file://`` with every network request refused and clicks
through its figures.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from explainer import cli, runtime
from explainer.figures import BY_NAME
from explainer.pages import TITLE

from support.budgets import LIGHT_FIGURE_MAX_BYTES, LIGHT_STORY_MAX_BYTES, RUNTIME_MAX_BYTES
from support.expect import expect
from support.page import PROBES, click_changes, offline, watch_page

# Addresses a browser resolves without any request.
INLINE_SCHEMES = ("data:", "blob:", "#")

# Attributes that make the browser fetch, per tag (<a href> does not).
FETCHING_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "input": ("src",),
}

CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.S)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?(['"]?)([^'")\s;]+)\1""")
JS_IMPORT = re.compile(
    r"""(?:\bimport|\bexport)\s[^;'"]*?\bfrom\s*(['"])(.+?)\1"""  # import x from "a"; export {x} from "a"
    r"""|\bimport\s*(['"])(.+?)\3"""  # import "a"
    r"""|\bimport\s*\(\s*(['"])(.+?)\5\s*\)"""  # import("a")
)


def css_addresses(css: str) -> list[str]:
    return [m.group(2).strip() for m in CSS_URL.finditer(css)] + [m.group(2) for m in CSS_IMPORT.finditer(css)]


def module_addresses(source: str) -> list[str]:
    """What an ES module imports: every specifier."""
    return [m.group(2) or m.group(4) or m.group(6) for m in JS_IMPORT.finditer(source)]


class _Fetches(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.addresses: list[str] = []
        self._in: tuple[str, dict] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in FETCHING_ATTRIBUTES.get(tag, ()):
            value = attrs.get(name)
            if value:
                urls = [part.split()[0] for part in value.split(",") if part.strip()] if name == "srcset" else [value]
                self.addresses.extend(urls)
        if attrs.get("style"):
            self.addresses.extend(css_addresses(attrs["style"]))
        if tag in ("style", "script"):
            self._in, self._text = (tag, attrs), []

    def handle_data(self, data):
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag):
        if not self._in or tag != self._in[0]:
            return
        (kind, attrs), text = self._in, "".join(self._text)
        self._in = None
        if kind == "style":
            self.addresses.extend(css_addresses(text))
        elif attrs.get("type") == "module":
            self.addresses.extend(module_addresses(text))


def fetched_addresses(html: str) -> list[str]:
    """Every address the page would fetch that is not inline (data:, blob:, a #fragment)."""
    parser = _Fetches()
    parser.feed(html)
    parser.close()
    return [address for address in parser.addresses if not address.startswith(INLINE_SCHEMES)]


def bundle_addresses(data: dict) -> list[str]:
    """What explainer.js's modules and stylesheets fetch: the modules may import only each other."""
    found = [address for css in data["stylesheets"] for address in css_addresses(css)]
    sources = [*data["imports"].values(), *(figure["module"] for figure in data["figures"].values())]
    found += [address for source in sources for address in module_addresses(source) if address not in data["imports"]]
    return [address for address in found if not address.startswith(INLINE_SCHEMES)]


PAGES = ["index", *BY_NAME]


@pytest.mark.parametrize("name", PAGES)
def test_each_exported_page_fetches_nothing_and_is_light(exported_site, name):
    html = (exported_site / f"{name}.html").read_text(encoding="utf-8")
    assert fetched_addresses(html) == []
    size = len(html.encode("utf-8"))
    limit = LIGHT_STORY_MAX_BYTES if name == "index" else LIGHT_FIGURE_MAX_BYTES
    assert size <= limit, f"{name}.html is {size:,} bytes"
    assert f"<title>{TITLE if name == 'index' else BY_NAME[name].title}</title>" in html


@pytest.mark.parametrize("name", [*PAGES, "embed"])
def test_each_exported_page_declares_its_language_viewport_landmark_and_heading(exported_site, name):
    """The story and the embed page carry their h1; a figure page's is its figure's (drawn by the tag,
    left out in a frame, as on a served page: test_screens.py), so the file holds none of its own."""
    html = (exported_site / f"{name}.html").read_text(encoding="utf-8")
    assert html.startswith('<!doctype html>\n<html lang="en">')
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert html.count("<main") == 1 and html.count("<h1") == (1 if name in ("index", "embed") else 0)
    if name == "index":
        assert re.search(r"<h1[^>]*>How good is this ranking\?", html)


def test_explainer_js_fetches_nothing_but_its_own_modules_and_is_light(exported_site):
    assert bundle_addresses(runtime.bundle()) == []
    size = (exported_site / "explainer.js").stat().st_size
    assert size <= RUNTIME_MAX_BYTES, f"explainer.js is {size:,} bytes"
    assert (exported_site / "explainer.js").read_text(encoding="utf-8") == runtime.script()


def test_the_embed_page_fetches_explainer_js_beside_it_and_nothing_else(exported_site):
    html = (exported_site / "embed.html").read_text(encoding="utf-8")
    assert fetched_addresses(html) == ["explainer.js"]
    for name in BY_NAME:
        assert f'<relevance-figure name="{name}"' in html
        assert f"&lt;relevance-figure name=&quot;{name}&quot;" in html  # the markup to copy, shown as text


def test_a_module_that_imports_from_outside_is_found():
    data = runtime.bundle(["binary"])
    data["figures"]["binary"]["module"] += 'import "https://esm.example/z.js";\n'
    data["stylesheets"].append(".x { background: url(https://example.org/bg.png) }")
    assert sorted(bundle_addresses(data)) == ["https://esm.example/z.js", "https://example.org/bg.png"]


def test_the_inline_script_cannot_be_ended_by_the_text_it_carries():
    data = runtime.bundle(["binary"])
    data["figures"]["binary"]["title"] = "</script><script>alert(1)</script><!--"
    text = runtime.script_of(data)
    assert "</" not in text.split("\n", 2)[2] and "<!--" not in text


def test_the_scan_finds_what_a_browser_would_fetch_and_only_that():
    html = """<html><head>
      <link rel="icon" href="https://cdn/favicon.ico"><link rel="icon" href="data:image/png;base64,AA==">
      <script src="static/extensions/panel/panel.min.js"></script>
      <script>const docs = "https://example.org/in-js-text"; // <a href="https://x">
      </script>
      <script type="module">import {a} from "https://esm/z.js"; const s = "https://esm/not-an-import";</script>
      <style>body { background: url("https://example.org/bg.png") } @import 'https://f/y.css';</style>
    </head><body><a href="https://example.org/link">a link is not fetched</a>
      <div style="background-image: url(https://example.org/div.png)">https://example.org/text</div>
    </body></html>"""
    assert sorted(fetched_addresses(html)) == sorted(
        [
            "https://cdn/favicon.ico",
            "static/extensions/panel/panel.min.js",
            "https://esm/z.js",
            "https://example.org/bg.png",
            "https://f/y.css",
            "https://example.org/div.png",
        ]
    )


def test_cli_export_writes_every_page_the_script_and_the_embed_page(tmp_path, capsys):
    cli.main(["export", str(tmp_path / "site")])
    printed = capsys.readouterr().out
    for name in ("index.html", "binary.html", "ndcg.html", "explainer.js", "embed.html"):
        assert (tmp_path / "site" / name).is_file(), name
        assert name in printed


@pytest.mark.browser
@pytest.mark.parametrize("name", PAGES)
def test_each_exported_page_works_from_disk_with_no_request(page, exported_site, name):
    """The one browser test of each exported file (a served page is the same file with connection.js
    added, and is tested served): from file://, its own origin, it fetches nothing, draws its heading
    and caption, and each of its figures answers a click."""
    asked = offline(page)
    seen = watch_page(page)
    url = (exported_site / f"{name}.html").as_uri()
    page.goto(url)
    for figure in PROBES if name == "index" else [name]:
        click_changes(page, figure, timeout=30_000)
    if name != "index":
        expect(page.get_by_role("heading", level=1)).to_have_text(BY_NAME[name].title)
        expect(page.locator(".fig-caption")).to_have_text(BY_NAME[name].caption)
    assert [a for a in asked if not a.startswith(("data:", "blob:")) and a != url] == []
    assert seen["errors"] == [] and seen["dialogs"] == []


class Sections(HTMLParser):
    """The h2 headings of a page (id and text) and the links of its table of contents, in order."""

    def __init__(self):
        super().__init__()
        self.headings: list[tuple[str, str]] = []
        self.links: list[tuple[str, str]] = []
        self._in: str | None = None
        self._nav = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "nav" and "story-contents" in attributes.get("class", ""):
            self._nav = True
        if tag == "h2":
            self.headings.append((attributes.get("id") or "", ""))
            self._in = "h2"
        if tag == "a" and self._nav:
            self.links.append((attributes.get("href") or "", ""))
            self._in = "a"

    def handle_endtag(self, tag):
        if tag == "nav":
            self._nav = False
        if tag in ("h2", "a"):
            self._in = None

    def handle_data(self, data):
        target = {"h2": self.headings, "a": self.links}.get(self._in or "")
        if target is not None:
            target[-1] = (target[-1][0], target[-1][1] + data)


@pytest.mark.parametrize("served", [False, True], ids=["exported", "served"])
def test_the_storys_contents_link_every_section_in_order_before_the_first(served):
    from explainer.export import story_page
    from explainer.pages import STORY, WORKBENCH_SECTION

    # The sections as the story's Markdown writes them (and the workbench's, which only a server has).
    written = re.findall(r"^## (.+)$", STORY + ("\n" + WORKBENCH_SECTION if served else ""), flags=re.MULTILINE)
    found = Sections()
    found.feed(story_page(served="" if served else None))
    contents, *sections = found.headings
    assert contents == ("story-contents", "Contents")
    assert [text for _, text in sections] == written and len(written) >= 9
    ids = [anchor for anchor, _ in sections]
    assert all(ids) and len(set(ids)) == len(ids)
    assert found.links == [(f"#{anchor}", text) for anchor, text in sections]
    assert ids[0] == "judgments-come-first" and "many-queries-mrr-map-and-what-a-mean-hides" in ids
