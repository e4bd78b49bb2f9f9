"""Bad input in Python: the state classes and figures refuse wrong arguments, and text a figure
shows (titles, captions) is never markup. URL queries are in test_url_fuzz.py."""

from __future__ import annotations

import re

import pytest

from explainer import metrics
from explainer.figures.binary import BinaryFigure, BinaryState
from explainer.figures.ndcg import NdcgFigure, NdcgState

from support.expect import expect
from support.page import DEEP_JS, watch_page

pytestmark = pytest.mark.browser

f = metrics.format_number


pytestmark = pytest.mark.browser

f = metrics.format_number

# Markup that would run or show an element if a page ever used it as HTML.
MARKUP = '<img src=x id=pwned onerror="alert(1)"><script>alert(2)</script><b id=pwned2>bold</b>'


WRONG_TYPES = [
    (BinaryState, "relevant", "x" * 12),
    (BinaryState, "relevant", None),
    (BinaryState, "relevant", {"1": True}),
    (BinaryState, "k", "5"),
    (BinaryState, "k", 5.0),
    (BinaryState, "k", None),
    (BinaryState, "missed", [1]),
    (BinaryState, "missed", "1"),
    (NdcgState, "grades", "13020312"),
    (NdcgState, "grades", None),
    (NdcgState, "order", None),
    (NdcgState, "gain", 1),
    (NdcgState, "gain", "Linear"),
    (NdcgState, "k", "8"),
    pytest.param(BinaryState, "relevant", [1] * 12),
    pytest.param(BinaryState, "relevant", ["yes"] * 12),
    pytest.param(NdcgState, "grades", [1.0] * 8),
    pytest.param(NdcgState, "order", [str(i) for i in range(8)]),
]


@pytest.mark.parametrize(("state_class", "name", "value"), WRONG_TYPES)
def test_a_state_constructor_refuses_a_value_of_the_wrong_type_with_value_error_naming_it(state_class, name, value):
    with pytest.raises(ValueError, match=re.escape(name)):
        state_class(**{name: value})
    # And through the figure, which builds the state from the same arguments.
    figure_class = BinaryFigure if state_class is BinaryState else NdcgFigure
    with pytest.raises(ValueError, match=re.escape(name)):
        figure_class(**{name: value})


@pytest.mark.parametrize(("name", "value"), [("standalone", "yes"), ("caption", 5), ("caption", None)])
def test_a_figure_refuses_view_options_of_the_wrong_type(name, value):
    with pytest.raises(ValueError, match=name):
        BinaryFigure(**{name: value})


@pytest.mark.parametrize(
    "build", [lambda: NdcgFigure(state=BinaryState()), lambda: BinaryFigure(state=5)], ids=["other", "int"]
)
def test_a_figure_refuses_a_state_that_is_not_its_own(build):
    with pytest.raises((TypeError, ValueError), match="state"):
        build()


def test_titles_captions_and_names_with_markup_show_as_text(page, serve_object):
    binary = BinaryFigure(caption=MARKUP)
    binary.view.titles = [MARKUP, *binary.view.titles[1:]]
    binary.view.measures = {**binary.view.measures, "precision": {**binary.view.measures["precision"], "name": MARKUP}}
    ndcg = NdcgFigure()
    ndcg.view.titles = [*ndcg.view.titles[:-1], MARKUP]
    import panel as pn

    seen = watch_page(page)
    page.goto(serve_object(pn.Column(binary, ndcg)))
    expect(page.locator(".fig-binary .rl-row").first.locator(".rl-title")).to_have_text(MARKUP)
    expect(page.locator(".fig-binary .fig-caption")).to_have_text(MARKUP)
    expect(page.locator(".fig-binary [data-metric=precision] .metric-name")).to_have_text(MARKUP)
    expect(page.locator(".fig-ndcg .rl-row").last.locator(".rl-title")).to_have_text(MARKUP)
    assert page.evaluate(f"() => ({DEEP_JS})('.fig img, .fig script, .fig b, #pwned, #pwned2').length") == 0
    page.locator(".fig-ndcg .rl-row").last.locator("button.rl-activate").dispatch_event(
        "click"
    )  # it moves up, still text
    expect(page.locator(".fig-ndcg .rl-row").nth(6).locator(".rl-title")).to_have_text(MARKUP)
    assert seen["dialogs"] == [] and seen["errors"] == []
