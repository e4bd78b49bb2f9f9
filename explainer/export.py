"""Save a page as one self-contained HTML file: opens from ``file://``, fetches nothing, stays interactive.

Panel's own ``save(..., resources=INLINE)`` gets most of the way: Bokeh's and Panel's
scripts are inlined, and a figure computes every number in the browser, so no server
is needed. Two things still reach out, and this module closes each where it arises
(in the Bokeh models, in the page template's variables) rather than by editing the
finished HTML:

- Panel's theme and layout stylesheets are Bokeh ``ImportedStyleSheet`` models that
  point at Panel's CDN (``PANEL_INLINE`` does not change that for saved files). Before
  saving, each becomes an ``InlineStyleSheet`` holding the same file from the installed
  Panel package, the way Panel itself inlines them for notebooks.
- The page template links a favicon and an Apple touch icon on the CDN. The template
  variables that override them are set: a tiny ``data:`` icon, no touch icon.

It also keeps the file small: Panel's inline resources carry BokehJS's WebGL bundle
always, and its MathJax bundle (1.8 MB) as soon as the page has Markdown. Only the
bundles Panel's own script needs are kept, so a page with one figure is about 2.8 MB,
nearly all of it BokehJS and Panel.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import panel as pn
from bokeh.document import Document
from bokeh.models import ImportedStyleSheet, InlineStyleSheet, Model, Plot, UIElement
from bokeh.resources import Resources
from panel.io.resources import CDN_DIST, DIST_DIR, set_resource_mode
from panel.io.save import save
from panel.template.base import BaseTemplate
from pyviz_comms import Comm

# BokehJS bundles to inline. panel.min.js imports modules from all three at load time
# (Tabulator extends Bokeh's tables), so none can be dropped. Left out: bokeh-gl, added
# back only for a WebGL plot, and bokeh-mathjax (1.8 MB), so TeX in Markdown is not
# typeset in an exported page.
BOKEH_BUNDLES = ("bokeh", "bokeh-widgets", "bokeh-tables")

# A tiny favicon: without one the page template links Panel's icon on the CDN.
FAVICON = "data:image/svg+xml," + quote(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#0072b5"/></svg>'
)

# url(...) in CSS, quoted or not; group 2 is the address.
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")


def save_standalone(obj: Any, path: str | Path, title: str, template: str | None = None) -> Path:
    """Write ``obj`` as one self-contained, interactive HTML file and return its path.

    ``obj`` is anything ``pn.panel`` accepts: a Figure, a ``pn.Column`` of figures and
    Markdown, a pane. Every script and stylesheet is inside the file and it requests
    nothing over the network, so it works opened from disk or attached to an e-mail.
    Python callbacks do not run in it: only what the browser computes (as the figures
    do) stays interactive.

    Panel templates are refused with ``TypeError``: their page markup links stylesheets,
    scripts and web fonts on CDNs outside the Bokeh models this function can rewrite.

    ``template`` is text Panel adds to its page template (``explainer.pages.PAGE_TEMPLATE``).

    Raises ``ValueError`` if a stylesheet points somewhere that cannot be inlined.
    """
    if isinstance(obj, BaseTemplate):
        raise TypeError(
            f"{type(obj).__name__} is a Panel template, which links CDN files from its own "
            "page markup; pass its content (e.g. a pn.Column) instead"
        )
    path = Path(path)
    doc = Document()
    # A file has no server to lose, so no notification area: it would also bring Font
    # Awesome's stylesheet, whose web fonts live on a CDN. Serving in the same process
    # (tests, notebooks) may have loaded that extension for every later document.
    with pn.config.set(notifications=False, disconnect_notification=""), _without_extension("notifications"):
        # Build the models as Panel's save() does; in inline mode Panel points every
        # stylesheet at its CDN, never at a server's relative static/ path.
        with set_resource_mode("inline"):
            root = pn.panel(obj).get_root(doc, Comm())
        doc.add_root(root)
        _inline_stylesheets(root)
        _declare_import_maps_once(root)
        save(
            doc,
            path,
            title=title,
            template=template,
            resources=Resources(mode="inline", components=_bokeh_bundles(root)),
            template_variables={"app_favicon": FAVICON, "apple_icon": ""},
        )
    return path


@contextmanager
def _without_extension(name: str):
    """Leave Panel's extension ``name`` out of the resources of documents made meanwhile."""
    from panel.reactive import ReactiveHTMLMetaclass

    loaded = ReactiveHTMLMetaclass._loaded_extensions
    had = name in loaded
    loaded.discard(name)
    try:
        yield
    finally:
        if had:
            loaded.add(name)


def _bokeh_bundles(root: Model) -> list[str]:
    bundles = list(BOKEH_BUNDLES)
    if any(plot.output_backend == "webgl" for plot in root.select({"type": Plot})):
        bundles.append("bokeh-gl")
    return bundles


def _inline_stylesheets(root: Model) -> None:
    """Make every stylesheet under ``root`` an InlineStyleSheet shared by all models that use it.

    An ImportedStyleSheet becomes the same file read from the installed Panel package.
    Raw CSS strings (a component's ``_stylesheets``) are wrapped too, only so that each
    text is stored once in the page rather than once per figure.
    """
    shared: dict[str, InlineStyleSheet] = {}

    def inline(sheet: Any) -> Any:
        if isinstance(sheet, ImportedStyleSheet):
            if sheet.url not in shared:
                shared[sheet.url] = _inline_stylesheet(sheet.url)
            return shared[sheet.url]
        if isinstance(sheet, str):
            return shared.setdefault(sheet, InlineStyleSheet(css=sheet))
        return sheet

    for model in root.select({"type": UIElement}):
        if model.stylesheets:
            model.stylesheets = [inline(sheet) for sheet in model.stylesheets]


def _declare_import_maps_once(root: Model) -> None:
    """Keep each distinct import map on one component only; the others drop their copy.

    Every figure carries the import map of the modules it imports (the metrics core
    and the figure kit, inlined as ``data:`` URLs, about 17 kB each figure), and Bokeh
    stores each model's copy. In the browser an import map is global: Panel declares
    each component's map when the document's models initialize, all before any module
    is imported, so one declaration serves every figure of the page.
    """
    declared: set[str] = set()
    for model in sorted(root.references(), key=lambda m: m.id):
        importmap = getattr(model, "importmap", None)
        if not importmap:
            continue
        key = repr(sorted((kind, sorted(entries.items())) for kind, entries in importmap.items()))
        if key in declared:
            model.importmap = {}
        declared.add(key)


def _inline_stylesheet(url: str) -> InlineStyleSheet:
    """The stylesheet Panel serves at ``url``, read from the installed package."""
    if not url.startswith(CDN_DIST):
        raise ValueError(f"cannot inline stylesheet {url!r}: it is not one of Panel's own files")
    file = DIST_DIR / url.removeprefix(CDN_DIST).split("?")[0]
    return InlineStyleSheet(css=_embed_css_urls(file.read_text(encoding="utf-8"), file.parent))


def _embed_css_urls(css: str, base: Path) -> str:
    """Turn each relative ``url(...)`` in ``css`` into a ``data:`` URL of the file it names.

    Panel's loading.css names its spinner images as ``../assets/*.svg``; from a saved
    page those would resolve next to the HTML file, where they are not.
    """

    def embed(match: re.Match[str]) -> str:
        address = match.group(2).strip()
        if address.startswith(("data:", "#")):
            return match.group(0)
        file = (base / address).resolve()
        if address.startswith(("http:", "https:", "//")) or not file.is_file():
            raise ValueError(f"cannot inline {address!r} referenced from Panel's CSS in {base}")
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        return f"url('data:{kind};base64,{base64.b64encode(file.read_bytes()).decode('ascii')}')"

    return CSS_URL.sub(embed, css)
