"""Figure 3 in a real Chromium: strips of results per query, bars, mean and median, two systems."""

import re

import pytest

from explainer import metrics
from explainer.figures.queries import DEPTH, QueriesFigure
from explainer.metrics import format_number as f

from support.expect import expect
from support.server import on_server, wait_until

pytestmark = pytest.mark.browser


def grades(ranks):
    return [int(r in ranks) for r in range(1, DEPTH + 1)]


def mrr_text(runs):
    terms = " + ".join(f"1/{min(r)}" if r else "0" for r in runs)
    value = metrics.mean_reciprocal_rank([grades(r) for r in runs])
    return f"MRR = ({terms}) / {len(runs)} = {f(value)}"


def system(page, name="a"):
    return page.locator(f".system[data-system={name}]")


def cell(page, query, rank, name="a"):
    return system(page, name).locator(f'.q-row[data-query="{query}"] .q-cell[data-rank="{rank}"]')


def opening(page, url: str, figure=None):
    page.goto(url)
    expect(system(page).locator(".system-mean")).to_be_visible()
    return figure, page


@pytest.fixture
def opened(page, serve_object):
    """A QueriesFigure served from this process: for what the page and Python do together."""
    figure = QueriesFigure()
    return opening(page, serve_object(figure), figure)


@pytest.fixture
def light(page, server):
    """The figure's own page, a light page of the explainer's server (a second to load, where a Panel
    page takes several): for what the figure shows and does in the browser alone."""
    return opening(page, server.url + "/queries")


def test_three_queries_show_the_lessons_mrr_median_and_lowest_query(light):
    _, page = light
    expect(system(page).locator(".system-mean")).to_have_text("MRR = (1/1 + 1/3 + 1/10) / 3 = 0.48")
    expect(system(page).locator(".system-median")).to_contain_text(f"Median RR = {f(1 / 3)}")
    expect(system(page).locator(".system-lowest")).to_have_text("Lowest: Q3 at 0.10, against a mean of 0.48.")
    expect(system(page).locator(".q-row.is-lowest")).to_have_count(1)
    expect(page.locator(".system")).to_have_count(1)


def test_the_column_headings_stand_over_their_columns(light):
    _, page = light
    page.set_viewport_size({"width": 1280, "height": 800})
    head, row = system(page).locator(".q-head"), system(page).locator('.q-row[data-query="1"]')
    for heading, column in [(".q-strip-head", ".q-strip"), (".q-track-head", ".q-track")]:
        left = head.locator(heading).bounding_box()["x"]
        assert abs(left - row.locator(column).bounding_box()["x"]) < 1, heading


def test_the_consistency_preset_puts_two_systems_side_by_side(light):
    _, page = light
    page.get_by_role("button", name="Consistency: A against B").click()
    expect(system(page, "a").locator(".system-mean")).to_have_text(mrr_text([[1], [1], [20], [20], [20], [20]]))
    expect(system(page, "b").locator(".system-mean")).to_have_text(mrr_text([[2]] * 6))
    expect(system(page, "a").locator(".system-mean")).to_contain_text("= 0.37")
    expect(system(page, "b").locator(".system-mean")).to_contain_text("= 0.50")
    expect(system(page, "a").locator(".system-median")).to_contain_text("Median RR = 0.05")
    boxes = [system(page, s).bounding_box() for s in ("a", "b")]
    assert abs(boxes[0]["y"] - boxes[1]["y"]) < 2 and boxes[1]["x"] > boxes[0]["x"] + boxes[0]["width"] - 1


def test_clicking_a_square_marks_that_rank_and_the_numbers_follow(light):
    _, page = light
    cell(page, 3, 2).click()  # query 3 now has a hit at rank 2 as well as 10
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [2, 10]]))
    expect(cell(page, 3, 2)).to_have_class(re.compile(r"\bon\b"))
    cell(page, 3, 2).click()
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [10]]))


def drag(page, start, end) -> None:
    """Press on one square, move across the strip and let go on another."""
    start, end = start.bounding_box(), end.bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    page.mouse.up()


def test_dragging_the_first_hit_moves_it(light):
    _, page = light
    drag(page, cell(page, 3, 10), cell(page, 3, 4))
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [4]]))


def test_the_keyboard_moves_along_a_strip_and_marks_a_rank(light):
    _, page = light
    strip = system(page).locator('.q-row[data-query="2"] .q-strip')
    strip.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")  # rank 2 of query 2
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [2, 3], [10]]))
    page.keyboard.press("Space")
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [10]]))
    expect(strip).to_have_attribute("aria-label", re.compile(r"query 2: relevant at rank 3\. RR 1/3 = 0\.33"))


MAP_RUNS = [[1, 3], [2], [5, 6, 7]]


def map_text(runs) -> str:
    values = [metrics.average_precision(grades(r), len(r)) for r in runs]
    mean = metrics.mean_average_precision([grades(r) for r in runs], [len(r) for r in runs])
    return f"MAP = ({' + '.join(f(v) for v in values)}) / {len(runs)} = {f(mean)}"


def test_the_measure_switch_gives_map_from_the_metrics_core(page, server):
    opening(page, server.url + "/queries?a=1,3|2|5,6,7&measure=rr")
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text(MAP_RUNS))
    page.locator("input[name=measure][value=ap]").check()
    expect(system(page).locator(".system-mean")).to_have_text(map_text(MAP_RUNS))
    values = [metrics.average_precision(grades(r), len(r)) for r in MAP_RUNS]
    expect(system(page).locator(".system-median")).to_contain_text(f"Median AP = {f(metrics.median(values))}")


def test_queries_can_be_added_and_removed(light):
    _, page = light
    page.get_by_role("button", name="Add a query to System A").click()
    expect(system(page).locator(".q-row:not(.q-head)")).to_have_count(4)
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [10], [1]]))
    page.get_by_role("button", name="Remove the last query of System A").click()
    page.get_by_role("button", name="Remove the last query of System A").click()
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3]]))


def test_each_kind_of_interaction_reaches_python_and_python_reaches_the_browser(opened):
    """The one Panel page of this file: a square's click, a drag, the add and remove buttons, the
    measure's switch and the preset each reach Python's state; Python's changes reach the page."""
    figure, page = opened
    cell(page, 3, 2).click()
    wait_until(lambda: figure.state.a == [[1], [3], [2, 10]], message="Python to see the new hit")
    cell(page, 3, 2).click()
    wait_until(lambda: figure.state.a == [[1], [3], [10]], message="Python to see the hit gone")
    drag(page, cell(page, 3, 10), cell(page, 3, 4))
    wait_until(lambda: figure.state.a == [[1], [3], [4]], message="Python to see the moved hit")
    page.get_by_role("button", name="Add a query to System A").click()
    wait_until(lambda: figure.state.a == [[1], [3], [4], [1]], message="Python to see four queries")
    page.get_by_role("button", name="Remove the last query of System A").click()
    wait_until(lambda: figure.state.a == [[1], [3], [4]], message="Python to see three queries")
    on_server(figure.state.param.update, a=MAP_RUNS)
    # The page must show Python's lists before it sends its own state back with the new measure.
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text(MAP_RUNS))
    page.locator("input[name=measure][value=ap]").check()
    expect(system(page).locator(".system-mean")).to_have_text(map_text(MAP_RUNS))
    wait_until(lambda: figure.state.measure == "ap", message="Python to see the measure")
    page.get_by_role("button", name="Consistency: A against B").click()
    wait_until(lambda: figure.state.b == [[2]] * 6, message="Python to get system B")
    on_server(figure.state.param.update, b=[])
    expect(page.locator(".system")).to_have_count(1)
    on_server(figure.state.apply_preset, "consistency")
    expect(page.locator(".system")).to_have_count(2)


def test_a_state_link_opens_that_state_and_a_bad_value_gets_a_notice(page, server):
    url = server.url + "/queries"
    page.goto(url + "?a=1|2|4&b=2|2|2&measure=rr")
    expect(system(page, "a").locator(".system-mean")).to_have_text(mrr_text([[1], [2], [4]]))
    expect(system(page, "b").locator(".system-mean")).to_have_text(mrr_text([[2], [2], [2]]))
    cell(page, 1, 5, "b").click()
    page.wait_for_url(re.compile(r"a=1\|2\|4&b=2,5\|2\|2&measure=rr"))
    page.goto(url + "?a=1|30&measure=rr")
    expect(page.locator(".query-notice")).to_contain_text("a must list ranks from 1 to 20")
    expect(system(page).locator(".system-mean")).to_have_text(mrr_text([[1], [3], [10]]))
