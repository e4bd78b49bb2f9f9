"""explainer.js: the figures as a ``<relevance-figure>`` tag for any HTML page, with no Bokeh, Panel or network.

The script is built here, from the very pieces the Panel views use, so nothing is written
twice: each figure's ES module and stylesheets (its view class's ``_esm`` and ``_stylesheets``),
the modules they import (``metrics.js``, ``shell.js`` and the rest of ``IMPORTED_MODULES``), and the data Python gives each view
(titles, measures, presets, limits, the default state), read from a view made by the
registry's figure class. ``figures/element.js`` defines the tag and hands each module a model
that behaves as Panel's does.

Each module goes into the script as a function that runs its code and returns its exports,
its ``import { ... } from "explainer/..."`` turned into a ``require`` of the module it names.
Loading modules any other way without a server (``blob:`` or ``data:`` module URLs) is
asynchronous, a fetch per module in turn, and took 25 to 65 ms of a light page's first visit,
half its time to interactive; as functions, a page's figures are drawn while its script runs.
The transform is mechanical and refuses what it does not know (any other import or export).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import minify_html
from panel.custom import JSComponent

import explainer
from explainer.figures import BY_NAME, FIGURES
from explainer.figures.base import HERE, FigureView, module_source

ELEMENT_JS = HERE / "element.js"

# Set by the tag itself, from its attributes: the figure's data says nothing about them.
TAG_PROPERTIES = ("caption", "standalone", "heading", "on_page", "page_link", "predict")


def view_model(view: FigureView) -> dict[str, Any]:
    """The properties a figure's module reads from its model: every parameter the view class adds to Panel's."""
    own = set(type(view).param) - set(JSComponent.param)
    return {name: getattr(view, name) for name in sorted(own)}


# The Save PNG, Save SVG and Save chart buttons' module (figures/picture.js).
PICTURE_MODULE = "explainer/picture"


def bundle(names: Iterable[str] | None = None) -> dict[str, Any]:
    """What element.js receives: the shared modules, the stylesheets, and each named figure (default: all).

    With every figure (explainer.js, for documentation's tags) the picture module is left out, as an
    empty module: a tag shows no picture buttons, and pages, which do, name their figures.
    """
    chosen = [page.name for page in FIGURES] if names is None else list(names)
    data = bundle_of(
        {name: (BY_NAME[name].title, BY_NAME[name].caption, BY_NAME[name].figure().view) for name in chosen}
    )
    if names is None:
        data["imports"][PICTURE_MODULE] = ""
    return data


def bundle_of(views: dict[str, tuple[str, str, FigureView]]) -> dict[str, Any]:
    """The bundle of the given views by tag name, each with its title and caption: the view's
    module, its stylesheets and its data as they are now (a workbench's view carries its files')."""
    imports: dict[str, str] = {}
    stylesheets: list[str] = []
    figures = {}
    for name, (title, caption, view) in views.items():
        for module, path in type(view)._modules.items():
            imports.setdefault(module, module_source(path))
        sheets = []
        for css in type(view)._stylesheets:
            if css not in stylesheets:
                stylesheets.append(css)
            sheets.append(stylesheets.index(css))
        model = {key: value for key, value in view_model(view).items() if key not in TAG_PROPERTIES}
        figures[name] = {
            "title": title,
            "caption": caption,
            "module": view._esm,
            "stylesheets": sheets,
            "model": model,
        }
    return {"imports": imports, "stylesheets": stylesheets, "figures": figures}


def script(names: Iterable[str] | None = None) -> str:
    """explainer.js with the named figures (default: all), safe to inline in an HTML ``<script>`` too."""
    return script_of(bundle(names))


def script_of(data: dict[str, Any]) -> str:
    """explainer.js for a bundle as ``bundle`` makes it: element.js called with the data and the module functions."""
    data = json.loads(json.dumps(data))  # a copy, whose module sources go into the script as code
    data["version"] = explainer.__version__  # the tag's ``version`` (element.js)
    imports = data.pop("imports")
    modules = {name: module_function(source, imports) for name, source in imports.items()}
    for name, figure in data["figures"].items():
        modules[name] = module_function(figure.pop("module"), modules)
    # "<" only ever appears inside JSON strings, where \\u003c is the same character: no "</script>"
    # or "<!--" can end or bend an inline script.
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    element = module_source(ELEMENT_JS).rstrip().removesuffix(";")
    functions = ",\n".join(f"{json.dumps(name)}: {code}" for name, code in modules.items())
    script = minified(
        f"{COMPILE_HINT}\n"
        f"// explainer.js {explainer.__version__}: interactive search-relevance figures as <relevance-figure> tags.\n"
        "// Generated by relevance-explainer export from the explainer's own modules; do not edit.\n"
        f"{element}({text}, {{\n{functions}\n}});\n"
    )
    for unsafe in ("</script", "<!--"):
        if unsafe in script.lower():
            raise ValueError(f"explainer.js would contain {unsafe!r}, which would end an inline script")
    return script


def minified(script: str) -> str:
    """explainer.js without the spaces, line breaks and long forms its code needs no more (README "Benchmark").

    minify-html parses the script with oxc, a JavaScript parser (template literals inside
    template literals, regular expressions and optional chaining included), and prints it
    again shorter, with its leading comments (the compile hint, the version) kept. Three things
    are put right after it:

    - It reads a script as a module, which is strict without saying so, and drops every
      "use strict": the script says it once, at its top, for all of its code (element.js and
      each module's function said it for theirs).
    - It is given the script inside a ``<script>`` element, which a ``</script`` would end:
      ``script_of`` escapes every "<" of its data, and module code holding one is refused.
    - It prints each string again with the "<" that ``script_of`` escaped, and writes
      ``</script`` in one as ``<\\/script`` but leaves ``<!--``: that "<" is escaped again, as
      ``\\x3C`` (the same character in a string, a template or a regular expression; code
      itself never holds ``<!--``).

    The Panel views and the served modules keep their readable sources.
    """
    if "</script" in script.lower():
        raise ValueError("explainer.js would contain '</script', which would end an inline script")
    wrapped = minify_html.minify(f"<script>{script}</script>", minify_js=True)
    if not (wrapped.startswith("<script>") and wrapped.endswith("</script>")):
        raise ValueError("minify-html did not give explainer.js back as one script")
    lines = wrapped.removeprefix("<script>").removesuffix("</script>").replace("<!--", "\\x3C!--").split("\n")
    comments = 0
    while comments < len(lines) and lines[comments].startswith("//"):
        comments += 1
    code = "\n".join(lines[comments:])
    return "".join(f"{line}\n" for line in lines[:comments]) + f'"use strict";{code}\n'


# V8's explicit compile hint: compile every function of the script as it loads (on a background
# thread while an external explainer.js streams in) instead of pre-parsing each and parsing it
# again when it is first called. A page's start-up calls most of the script, and for a page of
# seven tags this halved the script's run on the main thread (115 to 61 ms, median of 12 loads).
# Only V8 reads it; to any other engine it is a comment.
COMPILE_HINT = "//# allFunctionsCalledOnLoad"

IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"([^"]+)";', re.M)
EXPORT = re.compile(r"^export\s+((?:async\s+)?function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)", re.M)
IMPORT_OR_EXPORT = re.compile(r"^\s*(?:import|export)\b", re.M)


def module_function(source: str, known: Iterable[str]) -> str:
    """An ES module (as ``module_source`` keeps it) as a function of ``require`` that runs it and returns its exports.

    ``import { a, b as c } from "explainer/shell";`` becomes ``const { a, b: c } = require("explainer/shell");``
    and ``export function f`` / ``export const X`` lose their ``export``; the names are returned.
    Any other import or export, or an import of a module not in ``known``, raises ValueError.
    """

    def required(match: re.Match[str]) -> str:
        if match.group(2) not in known:
            raise ValueError(f"a module imports {match.group(2)!r}, which explainer.js does not have")
        names = re.sub(r"\b([A-Za-z_$][\w$]*)\s+as\s+([A-Za-z_$][\w$]*)", r"\1: \2", match.group(1))
        return f"const {{{names}}} = require({json.dumps(match.group(2))});"

    body = IMPORT.sub(required, source)
    exports = [name for _, name in EXPORT.findall(body)]
    body = EXPORT.sub(r"\1 \2", body)
    if leftover := IMPORT_OR_EXPORT.search(body):
        line = body[leftover.start() :].splitlines()[0]
        raise ValueError(f"explainer.js cannot turn this line of a module into a function: {line!r}")
    return f'(require) => {{\n"use strict";\n{body}return {{ {", ".join(exports)} }};\n}}'
