"""Figure 1 in a real Chromium: what a reader sees and does, and its sync with Python."""

import pytest
from playwright.sync_api import expect

from conftest import wait_until
from explainer.figures.binary import BinaryFigure
from explainer.metrics import format_number

pytestmark = pytest.mark.browser


def test_a_click_in_the_browser_reaches_python_and_python_reaches_the_browser(page, serve_object):
    figure = BinaryFigure()
    page.goto(serve_object(figure))
    precision = page.locator(".metric[data-metric=precision] .metric-formula")
    expect(precision).to_have_text("P@5 = 3 / 5 = 0.60")

    page.locator('.rl-row[data-rank="1"] button').click()
    expect(precision).to_have_text("P@5 = 4 / 5 = 0.80")
    wait_until(lambda: figure.state.relevant[0] is True, message="Python to see rank 1 relevant")

    figure.state.k = 8
    expect(precision).to_have_text(f"P@8 = 5 / 8 = {format_number(5 / 8)}")
