"""The Node tests' loader (tests/js/): its map of module names to files is the project's own.

The figure modules import each other by name (``explainer/shell``); a page resolves the names with
the import map the views serve, explainer.js with the modules it is built from, and Node with
tests/js/resolve.mjs, which reads tests/js/modules.json. The three must name the same files.
"""

from __future__ import annotations

import json
from pathlib import Path

from explainer.classroom.script import CLASS_MODULES
from explainer.figures import FIGURES
from explainer.figures.base import IMPORTED_MODULES
from explainer.workbench.view import WorkbenchView

ROOT = Path(__file__).resolve().parent.parent


def test_the_node_loaders_map_is_the_one_pages_and_explainer_js_use():
    project: dict[str, Path] = {**IMPORTED_MODULES, **CLASS_MODULES}
    for view_class in [page.figure.view_class for page in FIGURES] + [WorkbenchView]:
        for name, path in view_class._modules.items():
            assert project.setdefault(name, path) == path, f"{name} names two files"
    loader = json.loads((ROOT / "tests" / "js" / "modules.json").read_text(encoding="utf-8"))
    assert loader == {name: path.relative_to(ROOT).as_posix() for name, path in project.items()}


def test_the_editors_map_is_the_one_pages_and_explainer_js_use():
    """explainer/jsconfig.json: an editor follows ``explainer/shell`` to the file a page imports."""
    loader = json.loads((ROOT / "tests" / "js" / "modules.json").read_text(encoding="utf-8"))
    config = json.loads((ROOT / "explainer" / "jsconfig.json").read_text(encoding="utf-8"))
    options = config["compilerOptions"]
    base = (ROOT / "explainer" / options["baseUrl"]).resolve()
    editors = {
        name: (base / target).resolve().relative_to(ROOT).as_posix() for name, [target] in options["paths"].items()
    }
    assert editors == loader
