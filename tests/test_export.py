"""An exported page is one file that fetches nothing and stays interactive offline.

The static tests read the written HTML the way a browser would and list every
address it would fetch: ``src``/``href`` of the tags that load something, ``url()``
and ``@import`` in CSS (``<style>``, ``style=""`` and the Bokeh document's
stylesheets), ImportedStyleSheet models, and the import map and imports of the
figures' ES modules. Text (titles, Markdown, the JS bundles' own strings) is not an
address, so a URL written there is allowed. The browser test then opens the file
from ``file://`` with every network request refused and clicks through a figure.
"""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import panel as pn
import pytest
from playwright.sync_api import expect

from explainer import cli
from explainer.export import save_standalone
from explainer.figures.binary import BinaryFigure

MAX_BYTES = 3_000_000

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


def module_addresses(source: str, import_map: dict) -> list[str]:
    """What an ES module fetches: specifiers not named in the import map, and the map's own targets."""
    found = []
    for match in JS_IMPORT.finditer(source):
        specifier = match.group(2) or match.group(4) or match.group(6)
        found.append(import_map.get(specifier, specifier))
    return found


def decoded_module(address: str) -> str | None:
    """The source of a ``data:`` JavaScript module, or None for any other address."""
    head, _, body = address.partition(",")
    if not head.startswith("data:text/javascript"):
        return None
    return base64.b64decode(body).decode("utf-8") if head.endswith(";base64") else unquote(body)


def plain(value):
    """A value of Bokeh's JSON with its ``{"type": "map", "entries": [...]}`` dicts made plain."""
    if isinstance(value, dict) and value.get("type") == "map":
        return {key: plain(item) for key, item in value.get("entries", [])}
    return value


def bokeh_document_addresses(docs_json: dict) -> list[str]:
    """What the Bokeh documents of a page fetch: stylesheets and ES modules (with what they import).

    An import map is global to the page once a component declares it, so every module's
    imports resolve against the union of the documents' import maps.
    """
    found: list[str] = []
    modules: list[str] = []
    imports: dict[str, str] = {}

    def walk(node) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        attributes = node.get("attributes", {}) if node.get("type") == "object" else {}
        if node.get("name") == "ImportedStyleSheet":
            found.append(attributes.get("url", ""))
        if node.get("name") == "InlineStyleSheet":
            found.extend(css_addresses(attributes.get("css", "")))
        for sheet in attributes.get("stylesheets", []):
            if isinstance(sheet, str):  # raw CSS text
                found.extend(css_addresses(sheet))
        if "esm" in attributes:
            modules.append(attributes["esm"])
            imports.update(plain(attributes.get("importmap") or {}).get("imports", {}))
        for value in node.values():
            walk(value)

    walk(docs_json)
    for source in modules + [decoded_module(target) or "" for target in imports.values()]:
        found.extend(module_addresses(source, imports))
    return found


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
        elif attrs.get("type") == "application/json":  # Bokeh's documents
            self.addresses.extend(bokeh_document_addresses(json.loads(text)))
        elif attrs.get("type") == "module":
            self.addresses.extend(module_addresses(text, {}))


def fetched_addresses(html: str) -> list[str]:
    """Every address the page would fetch that is not inline (data:, blob:, a #fragment)."""
    parser = _Fetches()
    parser.feed(html)
    parser.close()
    return [address for address in parser.addresses if not address.startswith(INLINE_SCHEMES)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return save_standalone(BinaryFigure(), tmp_path_factory.mktemp("export") / "binary.html", "Figure 1")


def test_exported_page_fetches_nothing_and_is_small(exported):
    html = exported.read_text(encoding="utf-8")
    assert fetched_addresses(html) == []
    assert "<title>Figure 1</title>" in html
    size = exported.stat().st_size
    assert size < MAX_BYTES, f"{exported.name} is {size:,} bytes"


def test_the_scan_finds_what_a_browser_would_fetch_and_only_that():
    def bokeh_object(name, **attributes):
        return {"type": "object", "name": name, "attributes": attributes}

    def bokeh_map(**entries):
        return {"type": "map", "entries": [[key, value] for key, value in entries.items()]}

    imported_module = "data:text/javascript;base64," + base64.b64encode(b'export * from "./relative.js";').decode()
    root = bokeh_object(
        "Column",
        text="See https://example.org/prose for more.",
        stylesheets=[
            ":host { background: url('https://example.org/raw.png') }",
            bokeh_object("ImportedStyleSheet", url="https://cdn/x.css"),
            bokeh_object("InlineStyleSheet", css="@import 'https://f/y.css';"),
        ],
        esm='import {a} from "named";\nimport "https://esm/z.js";\nconst s = "https://esm/not-an-import";',
        importmap=bokeh_map(imports=bokeh_map(named=imported_module)),
    )
    docs = {"doc": {"roots": [root]}}
    html = f"""<html><head>
      <link rel="icon" href="https://cdn/favicon.ico"><link rel="icon" href="data:image/png;base64,AA==">
      <script src="static/extensions/panel/panel.min.js"></script>
      <script>const docs = "https://example.org/in-js-text"; // <a href="https://x">
      </script>
      <style>body {{ background: url("https://example.org/bg.png") }}</style>
      <script type="application/json" id="d">{json.dumps(docs)}</script>
    </head><body><a href="https://example.org/link">a link is not fetched</a>
      <div style="background-image: url(https://example.org/div.png)">https://example.org/text</div>
    </body></html>"""
    assert sorted(fetched_addresses(html)) == sorted(
        [
            "https://cdn/favicon.ico",
            "static/extensions/panel/panel.min.js",
            "https://example.org/bg.png",
            "https://example.org/div.png",
            "https://example.org/raw.png",
            "https://cdn/x.css",
            "https://f/y.css",
            "https://esm/z.js",
            "./relative.js",
        ]
    )


def test_a_template_is_refused(tmp_path):
    with pytest.raises(TypeError, match="template"):
        save_standalone(pn.template.VanillaTemplate(title="x"), tmp_path / "t.html", "x")


def test_cli_export_writes_every_page_self_contained_and_small(tmp_path, capsys):
    cli.main(["export", str(tmp_path / "site")])
    printed = capsys.readouterr().out
    for name in ("index", "binary", "ndcg"):
        page = tmp_path / "site" / f"{name}.html"
        assert page.is_file(), name
        assert fetched_addresses(page.read_text(encoding="utf-8")) == [], name
        assert page.stat().st_size < 3_000_000, (name, page.stat().st_size)
        assert f"{name}.html" in printed


@pytest.mark.browser
def test_exported_figure_works_from_file_with_the_network_blocked(exported, context, page):
    url = exported.as_uri()
    requests: list[str] = []
    errors: list[str] = []

    def only_local(route):
        requests.append(route.request.url)
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_local)
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(url)
    expect(page.locator(".metric-formula").first).to_be_attached(timeout=30_000)
    precision = page.locator('[data-metric="precision"] .metric-formula')
    expect(precision).to_have_text("P@5 = 3 / 5 = 0.60")
    page.locator('.rl-row[data-rank="1"] button').click()
    expect(precision).to_have_text("P@5 = 4 / 5 = 0.80")

    assert [r for r in requests if r != url and not r.startswith(("data:", "blob:"))] == []
    assert errors == []
