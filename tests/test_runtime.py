"""How explainer.js is made from the figures' own modules and views (plain Python; the tag itself is in test_element.py)."""

from __future__ import annotations

import pytest

from explainer import runtime
from explainer.figures import BY_NAME
from explainer.figures.base import IMPORTED_MODULES


def test_the_tag_gives_each_module_exactly_its_views_properties():
    for name, figure in runtime.bundle()["figures"].items():
        view = BY_NAME[name].figure().view
        assert set(figure["model"]) | set(runtime.TAG_PROPERTIES) == set(runtime.view_model(view)), name


def test_a_figure_page_carries_only_the_modules_and_figures_it_shows():
    script = runtime.script(["binary"])
    assert '"binary": (require) =>' in script and '"explainer/kit": (require) =>' in script
    assert '"ndcg": (require) =>' not in script and "ndcg" not in runtime.bundle(["binary"])["figures"]


def test_a_module_becomes_a_function_of_require_that_returns_its_exports():
    source = (
        'import { a, b as c } from "explainer/kit";\n'
        'import {\nd,\ne,\n} from "explainer/metrics";\n'
        "export function f(x) { return a(x); }\n"
        "export const G = 1;\n"
        "export class H {}\n"
        "function inner() {}\n"
    )
    made = runtime.module_function(source, IMPORTED_MODULES)
    assert 'const { a, b: c } = require("explainer/kit");' in made
    assert 'const {\nd,\ne,\n} = require("explainer/metrics");' in made
    assert "\nfunction f(x)" in made and "\nconst G = 1;" in made and "\nclass H {}" in made
    assert made.endswith("return { f, G, H };\n}")
    assert "export" not in made and "import" not in made


@pytest.mark.parametrize(
    "line",
    [
        'import kit from "explainer/kit";',
        'import * as kit from "explainer/kit";',
        "export { a };",
        "export default function () {}",
        'export * from "explainer/kit";',
    ],
)
def test_an_import_or_export_the_transform_does_not_know_is_refused(line):
    with pytest.raises(ValueError, match="cannot turn this line"):
        runtime.module_function(line + "\n", IMPORTED_MODULES)


def test_an_import_of_a_module_the_script_lacks_is_refused():
    with pytest.raises(ValueError, match="explainer/charts"):
        runtime.module_function('import { a } from "explainer/charts";\n', IMPORTED_MODULES)
