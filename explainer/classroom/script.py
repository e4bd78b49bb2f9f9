"""The class's script: what a served page runs after explainer.js on a server that holds a class.

Its modules (``CLASS_MODULES``) are ES modules, as the figures' are, tested in Node beside them
(tests/js); here each becomes a function of ``require``, as explainer.js's modules do
(``runtime.module_function``), and the names they import from the figures' modules
(``explainer/dom``, ``explainer/metrics``, ``explainer/predict``, ``explainer/settled``) are loaded from explainer.js itself
(``RelevanceFigure.load``), so nothing is sent twice. Only served pages carry it: an exported
page, a documentation's tag and a notebook have no class.
"""

from __future__ import annotations

import json
from pathlib import Path

from explainer.figures.base import module_source
from explainer.runtime import module_function

HERE = Path(__file__).resolve().parent

# Each module after the ones it imports; "explainer/class" starts the class.
CLASS_MODULES = {
    "explainer/class-spread": HERE / "spread.js",
    "explainer/class-channel": HERE / "channel.js",
    "explainer/class-strips": HERE / "strips.js",
    "explainer/class-student": HERE / "student.js",
    "explainer/class-teacher": HERE / "teacher.js",
    "explainer/class": HERE / "class.js",
}
# What the class modules import from explainer.js (the page's own figures' modules).
FROM_THE_FIGURES = ("explainer/dom", "explainer/metrics", "explainer/predict", "explainer/settled")
CSS = HERE / "class.css"

LOADER = """(function joinTheClass(config, modules) {
  "use strict";
  const figures = window.RelevanceFigure;
  if (!figures) return; // explainer.js did not run: no figure, no class
  const loaded = new Map();
  function load(name) {
    if (!Object.hasOwn(modules, name)) return figures.load(name);
    if (!loaded.has(name)) loaded.set(name, Object.freeze(modules[name](load)));
    return loaded.get(name);
  }
  load("explainer/class").startClass(config);
})"""


def class_script(token: str, route: str) -> str:
    """The script of the page served at ``route``, with its channel ``token`` (a placeholder the
    server fills in per response)."""
    known = [*FROM_THE_FIGURES, *CLASS_MODULES]
    functions = ",\n".join(
        f"{json.dumps(name)}: {module_function(module_source(path), known)}" for name, path in CLASS_MODULES.items()
    )
    config = json.dumps({"token": token, "route": route, "css": stylesheet()}, separators=(",", ":")).replace(
        "<", "\\u003c"
    )
    return f"{LOADER}({config}, {{\n{functions}\n}});\n"


def stylesheet() -> str:
    """The class's stylesheet, for the page's <style> (the bar and the projector's panel are the page's, not a figure's)."""
    return CSS.read_text(encoding="utf-8")
