"""A lecture plan (``--plan FILE``): one figure link a line, an optional title after a tab."""

from __future__ import annotations

import pytest

from explainer.classroom.plan import MAX_STEPS, PlanError, Step, read_plan, story_plan
from explainer.pages import TITLES, story_figure_routes

FIGURES = {route: title for route, title in TITLES.items() if route not in ("/", "/evaluate")}


def test_each_line_is_a_figure_in_a_state_with_its_title_or_the_figures():
    lines = [
        "# week 3: cutoffs\n",
        "/binary?relevant=2,3,5&k=4\tThree relevant in the top five\n",
        "\n",
        "http://192.168.1.20:5006/ndcg?k=3&present=1&theme=dark\r\n",
        "https://docs.example.org/explainer/which-measure?measure=ap\tAP is blind to this",
    ]
    assert read_plan(lines, FIGURES) == (
        Step("/binary", "relevant=2,3,5&k=4", "Three relevant in the top five"),
        Step("/ndcg", "k=3", TITLES["/ndcg"]),  # page keys are the viewer's, not the step's
        Step("/which-measure", "measure=ap", "AP is blind to this"),
    )


@pytest.mark.parametrize(
    "lines, said",
    [
        (["/binary\n", "/evaluate?query=g001\n"], "plan.txt:2: '/evaluate?query=g001' is not a figure's page"),
        (["/\n"], "plan.txt:1: '/' is not a figure's page"),
        (["\x1b[31m/binary\n"], "plan.txt:1: 'this link' is not a figure's page"),
        (["/binary\t" + "t" * 81], "plan.txt:1: a title is at most 80 printable characters"),
        (["/binary\ta\x07bell"], "plan.txt:1: a title is at most 80 printable characters"),
        (["/binary?k=" + "1" * 4000], "plan.txt:1: the link's state is longer than a figure takes (4000 characters)"),
        (["# only a comment\n", "\n"], "plan.txt: no step"),
        (["/binary\n"] * (MAX_STEPS + 1), f"plan.txt:{MAX_STEPS + 1}: a plan has at most {MAX_STEPS} steps"),
    ],
)
def test_a_bad_line_is_named_by_its_number_and_what_is_wrong(lines, said):
    with pytest.raises(PlanError) as caught:
        read_plan(lines, FIGURES, source="plan.txt")
    assert str(caught.value).startswith(said)


def test_without_a_plan_the_class_steps_through_the_storys_figures_at_their_examples():
    plan = story_plan(story_figure_routes(), FIGURES)
    assert [step.route for step in plan] == story_figure_routes()
    assert len(plan) == len(FIGURES) and all(step.query == "" for step in plan)
    assert plan[0] == Step("/binary", "", TITLES["/binary"])
