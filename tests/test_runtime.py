"""How explainer.js is made from the figures' own modules and views (plain Python; the tag itself is in test_element.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import explainer
from explainer import cli, runtime
from explainer.figures import BY_NAME
from explainer.figures.base import IMPORTED_MODULES


def test_the_tag_gives_each_module_exactly_its_views_properties():
    for name, figure in runtime.bundle()["figures"].items():
        view = BY_NAME[name].figure().view
        assert set(figure["model"]) | set(runtime.TAG_PROPERTIES) == set(runtime.view_model(view)), name


def module_names(script: str) -> set[str]:
    """The modules explainer.js carries: each is a function of ``require`` under its name (minified or not)."""
    return set(re.findall(r'"?([\w/-]+)"?:\s*\(?require\)?\s*=>', script))


def test_a_figure_page_carries_only_the_modules_and_figures_it_shows():
    script = runtime.script(["binary"])
    assert {"binary", "explainer/shell", "explainer/model", "explainer/metrics"} <= module_names(script)
    assert "ndcg" not in module_names(script) and "ndcg" not in runtime.bundle(["binary"])["figures"]
    assert {"binary", "ndcg", "explainer/shell"} <= module_names(runtime.script())


def test_a_module_becomes_a_function_of_require_that_returns_its_exports():
    source = (
        'import { a, b as c } from "explainer/shell";\n'
        'import {\nd,\ne,\n} from "explainer/metrics";\n'
        "export function f(x) { return a(x); }\n"
        "export const G = 1;\n"
        "export class H {}\n"
        "function inner() {}\n"
    )
    made = runtime.module_function(source, IMPORTED_MODULES)
    assert 'const { a, b: c } = require("explainer/shell");' in made
    assert 'const {\nd,\ne,\n} = require("explainer/metrics");' in made
    assert "\nfunction f(x)" in made and "\nconst G = 1;" in made and "\nclass H {}" in made
    assert made.endswith("return { f, G, H };\n}")
    assert "export" not in made and "import" not in made


@pytest.mark.parametrize(
    "line",
    [
        'import shell from "explainer/shell";',
        'import * as shell from "explainer/shell";',
        "export { a };",
        "export default function () {}",
        'export * from "explainer/shell";',
    ],
)
def test_an_import_or_export_the_transform_does_not_know_is_refused(line):
    with pytest.raises(ValueError, match="cannot turn this line"):
        runtime.module_function(line + "\n", IMPORTED_MODULES)


def test_an_import_of_a_module_the_script_lacks_is_refused():
    with pytest.raises(ValueError, match="explainer/charts"):
        runtime.module_function('import { a } from "explainer/charts";\n', IMPORTED_MODULES)


# -- minified at export (runtime.minified) -------------------------------------------------------

# Code a jsmin-like minifier gets wrong and a parser does not: a template literal inside another
# (rjsmin turned "top ${k} counted" into "top ${k}counted"), "//" in a template, regular
# expressions with "/" in a class, optional chaining, and the "use strict" a module function says.
TRICKY = r"""
(function tricky() {
  "use strict";
  const k = 3, c = true, o = { p: { q: 7 } };
  const texts = [
    `Ideal order: ${c ? `top ${k} counted` : "every one counted"}.`,
    `see https://example.org/a  //  b`,
    `${"</scr" + "ipt>"} and ${"<!" + "--"}`,
  ];
  const matched = [/a\/b[/]c/g.test("xa/b/c"), /<!--/.test("<!--"), "a  b".replace(/\s+/g, " ")];
  const chained = [o?.p?.q, o?.x?.q ?? "none", o.p?.["q"]];
  let strict;
  try { undeclared = 1; strict = false; } catch (error) { strict = error instanceof ReferenceError; }
  window.__tricky = { texts, matched, chained, strict };
})();
"""


def test_minified_code_keeps_nested_templates_regular_expressions_optional_chaining_and_strict_mode(page):
    results = []
    for code in (TRICKY, runtime.minified(TRICKY)):
        page.set_content("<!doctype html><title>minified</title>")
        page.add_script_tag(content=code)
        results.append(page.evaluate("window.__tricky"))
    original, minified = results
    assert original == {
        "texts": ["Ideal order: top 3 counted.", "see https://example.org/a  //  b", "</script> and <!--"],
        "matched": [True, True, "a b"],
        "chained": [7, "none", 7],
        "strict": True,
    }
    assert minified == original


def test_minified_explainer_js_is_smaller_and_keeps_its_leading_comments_and_strict_mode(monkeypatch):
    script = runtime.script()
    lines = script.split("\n")
    assert lines[0] == runtime.COMPILE_HINT  # V8 reads it at the top
    assert lines[1].startswith(f"// explainer.js {explainer.__version__}: ")
    assert lines[3].startswith('"use strict";(()=>{') and "function defineRelevanceFigure(" in lines[3]
    assert script.count('"use strict"') == 1
    monkeypatch.setattr(runtime, "minified", lambda text: text)
    readable = runtime.script()
    assert readable.count('"use strict"') == 1 + len(runtime.bundle()["imports"]) + len(runtime.bundle()["figures"])
    assert len(script.encode()) < 0.92 * len(readable.encode())


def test_text_that_would_end_or_bend_an_inline_script_is_refused_or_escaped():
    with pytest.raises(ValueError, match="</script"):
        runtime.minified('const a = "</SCRIPT>";\n')
    assert "<!--" not in runtime.minified('const a = "a <!-- b";\n')
    assert "\\x3C!--" in runtime.minified('const a = "a <!-- b";\n')


# -- the version: pyproject.toml's, in the command line and in explainer.js --------------------


def pyproject_version() -> str:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]["version"]


def test_the_version_is_pyprojects(capsys):
    assert explainer.__version__ == pyproject_version()
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"relevance-explainer {pyproject_version()}\n"


def test_the_version_command_exits_zero_and_prints_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "explainer.cli", "--version"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"relevance-explainer {pyproject_version()}\n", "")


@pytest.mark.browser
def test_the_tag_says_its_version(page):
    page.set_content("<!doctype html><title>version</title>")
    page.add_script_tag(content=runtime.script(["binary"]))
    assert page.evaluate('customElements.get("relevance-figure").version') == pyproject_version()
