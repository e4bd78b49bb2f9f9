"""The explainer's imports run one way: command line -> developer tools -> server -> pages and export -> figures -> metrics -> catalog.

Every module of ``explainer/`` is read with ``ast`` (never imported), with the imports inside
functions too, and the graph of its imports must have no circle and no arrow to a higher layer.
A new module goes into ``LAYERS`` first: a module the table does not place fails the test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "explainer"

# Which layer each module or package is in, highest first; a module may import its own layer or
# any below. A name covers its package's modules too, unless a longer name places them (the root,
# ``explainer``, is its __init__ alone).
LAYERS = {
    "command line": (
        "explainer.cli",
        "explainer.serve_options",
        "explainer.workbench.cli",
        "explainer.evaluation.cli",
    ),
    "developer tools": ("explainer.tools",),
    "server": ("explainer.server",),
    # The package's own __init__ gives the figures' and the workbench's public names.
    "pages and export": (
        "explainer",
        "explainer.pages",
        "explainer.export",
        "explainer.runtime",
        "explainer.classroom",
        "explainer.workbench",
    ),
    "figures": ("explainer.figures",),
    "metrics": ("explainer.metrics", "explainer.evaluation"),
    # What a measure, an NDCG convention and a grade are: read by every layer, importing none.
    "catalog": ("explainer.catalog",),
}
RANK = {name: len(LAYERS) - i for i, (layer, names) in enumerate(LAYERS.items()) for name in names}
LAYER_OF_RANK = {len(LAYERS) - i: layer for i, layer in enumerate(LAYERS)}


def modules(root: Path) -> dict[str, Path]:
    """Every module under ``root`` by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere in its file.

    ``from explainer import metrics`` imports the module ``explainer.metrics``; ``from
    explainer.figures import BY_NAME`` imports the package. Running a package's ``__init__``
    on the way to a submodule is Python's doing, not an arrow of ours.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in known else source)
    return {module for module in found if module in known and module != name}


def graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports_of(name, path, known) for name, path in known.items()}


def rank(module: str) -> int | None:
    """The layer of ``module`` (higher imports lower), from its longest name in ``LAYERS``.

    The name ``explainer`` places the package's own ``__init__`` only, so that no new module
    falls into its layer unseen."""
    name = module
    while "." in name:
        if name in RANK:
            return RANK[name]
        name = name.rpartition(".")[0]
    return RANK.get(module)


def upward_imports(arrows: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} ({LAYER_OF_RANK[rank(module)]}) imports {target} ({LAYER_OF_RANK[rank(target)]})"
        for module, targets in sorted(arrows.items())
        for target in sorted(targets)
        if None not in (rank(module), rank(target)) and rank(target) > rank(module)  # unplaced: the test above
    ]


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """Each import circle, as the modules along it (depth-first search, one circle per back arrow)."""
    found = []
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = "open"
        path.append(module)
        for target in sorted(arrows[module]):
            if state.get(target) == "open":
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = "done"

    for module in sorted(arrows):
        if module not in state:
            visit(module)
    return found


def test_every_module_has_a_layer():
    unplaced = [module for module in modules(PACKAGE) if rank(module) is None]
    assert not unplaced, f"put these modules in LAYERS: {unplaced}"


def test_no_module_imports_a_higher_layer():
    assert upward_imports(graph(PACKAGE)) == []


def test_no_import_circle():
    assert [" -> ".join(circle) for circle in circles(graph(PACKAGE))] == []


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "explainer"


@pytest.mark.parametrize(
    "files, upward, circle",
    [
        # A figure that reaches up to the command line, inside a function: one upward arrow and a circle.
        (
            {
                "explainer/cli.py": "from explainer.figures import binary\n",
                "explainer/figures/__init__.py": "",
                "explainer/figures/binary.py": "def f():\n    import explainer.cli\n",
            },
            ["explainer.figures.binary (figures) imports explainer.cli (command line)"],
            ["explainer.cli -> explainer.figures.binary -> explainer.cli"],
        ),
        # Two modules of one layer that import each other (relative and ``from package import module``).
        (
            {
                "explainer/__init__.py": "",
                "explainer/pages.py": "from . import export\n",
                "explainer/export.py": "from explainer import pages\n",
            },
            [],
            ["explainer.export -> explainer.pages -> explainer.export"],
        ),
    ],
)
def test_the_checks_find_an_upward_import_and_a_circle(tmp_path, files, upward, circle):
    arrows = graph(write(tmp_path, files))
    assert upward_imports(arrows) == upward
    assert [" -> ".join(found) for found in circles(arrows)] == circle


def test_every_package_is_installed():
    """pyproject lists the packages by hand: a sub-package left out works in an editable install and is missing from a wheel."""
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
