"""A picture for slides: the Save PNG and Save SVG buttons, served and from an exported file offline, and the picture command."""

from __future__ import annotations

import io
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from explainer import metrics

pytestmark = pytest.mark.browser

# Figure 1 with relevant ranks 2, 3 and 5, one relevant document missed, cut at k = 4.
BINARY_QUERY = "relevant=2,3,5&missed=1&k=4"
BINARY_GRADES = [0, 1, 1, 0, 1] + [0] * 7
N_RELEVANT = 4  # three in the list, one missed
# The CSS pixels of room the picture leaves around the figure (picture.js's MARGIN_PX).
MARGIN_PX = 16
SCALE = 2


def binary_headlines() -> list[str]:
    """Figure 1's four formulas for BINARY_QUERY, with their numbers computed here."""
    precision = metrics.precision_at_k(BINARY_GRADES, 4)
    recall = metrics.recall_at_k(BINARY_GRADES, 4, n_relevant=N_RELEVANT)
    rr = metrics.reciprocal_rank(BINARY_GRADES)
    ap = metrics.average_precision(BINARY_GRADES, n_relevant=N_RELEVANT)
    return [
        f"P@4 = 2 / 4 = {precision:.2f}",
        f"R@4 = 2 / 4 = {recall:.2f}",
        f"RR = 1 / 2 = {rr:.2f}",
        f"AP = (1/2 + 2/3 + 3/5) / 4 = {ap:.2f}",
    ]


def save(page, kind: str, tmp_path):
    """Press the figure's Save PNG or Save SVG button; returns the downloaded file's name and bytes."""
    with page.expect_download() as download:
        page.locator(f".fig-picture-save[data-type={kind}]").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    return download.value.suggested_filename, path.read_bytes()


def svg_text(data: bytes) -> str:
    """Every piece of text in an SVG, joined by newlines (the SVG must parse as XML)."""
    return "\n".join(text.strip() for text in ET.fromstring(data).itertext() if text.strip())


def control_texts(page) -> list[str]:
    """The text of every control of the figure on the page (its buttons, steppers, menus)."""
    return page.locator(".fig-frame .fig-button").evaluate_all("nodes => nodes.map((n) => n.textContent.trim())")


def presenter_box(page) -> dict:
    """The figure's frame in presenter view, in CSS pixels."""
    page.locator(".fig-frame.present").wait_for()
    return page.locator(".fig-frame").bounding_box()


def test_served_figure_saves_a_png_at_twice_presenter_scale_and_an_svg_of_its_numbers(server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server.url}/binary?{BINARY_QUERY}&present=1")
    box = presenter_box(page)
    # Presenting, the screen is the class's: no picture buttons. The picture is made at presenter
    # view's size from the figure's usual view.
    expect(page.locator(".fig-picture")).to_be_hidden()
    page.get_by_role("button", name="Presenter view").click()
    expect(page.locator(".fig-frame.present")).to_have_count(0)

    name, png = save(page, "png", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4.png"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    width, height = image.size
    assert width == SCALE * (round(box["width"]) + 2 * MARGIN_PX)
    # Without its controls (the header's buttons) the figure is a little shorter than on screen.
    assert SCALE * box["height"] * 0.6 < height <= SCALE * (box["height"] + 2 * MARGIN_PX + 1)

    name, svg = save(page, "svg", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4.svg"
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (int(root.get("width")), int(root.get("height"))) == (width // SCALE, height // SCALE)
    text = svg_text(svg)
    for headline in binary_headlines():
        assert headline in text
    controls = control_texts(page)
    assert {"Reset", "Save PNG", "Presenter view"} <= set(controls)
    for control in controls:
        assert control not in text.splitlines()


def test_a_picture_leaves_the_page_as_it_was(server, page, tmp_path):
    page.goto(f"{server.url}/binary?{BINARY_QUERY}")
    page.locator(".fig-picture-save").first.wait_for()
    before = page.locator(".fig-frame").evaluate("f => [f.className, f.getBoundingClientRect().height]")
    save(page, "svg", tmp_path)
    after = page.locator(".fig-frame").evaluate("f => [f.className, f.getBoundingClientRect().height]")
    assert after == before
    assert "present" not in after[0]


@pytest.mark.parametrize("scheme", ["light", pytest.param("dark", marks=pytest.mark.slow)])
def test_exported_figure_saves_its_pictures_with_the_network_blocked(exported_site, browser, tmp_path, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme=scheme, accept_downloads=True)
    asked = []

    def only_files(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    page = context.new_page()
    grades = [3, 0, 2, 1, 0, 3, 1, 2]
    page.goto((exported_site / "ndcg.html").as_uri() + f"?grades={','.join(map(str, grades))}&k=5&gain=linear")
    page.locator(".fig-picture-save").first.wait_for()

    name, svg = save(page, "svg", tmp_path)
    assert name.startswith("ndcg_grades-3-0-2-1-0-3-1-2_k-5_gain-linear")
    ndcg = metrics.ndcg_at_k(grades, 5, gain="linear")
    text = svg_text(svg)
    assert "NDCG@5" in text and f"{ndcg:.2f}" in text
    assert not set(control_texts(page)) & set(text.splitlines())

    name, png = save(page, "png", tmp_path)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size[0] > SCALE * 1000  # presenter view's width of a 1280-pixel window, twice
    # The picture's background is the page's, light or dark: a slide in either theme has no seam.
    corner = image.getpixel((2, 2))
    assert (sum(corner) > 600) if scheme == "light" else (sum(corner) < 150), corner
    # And the figure is drawn on it: text, rows and cards, not an empty canvas.
    assert (np.asarray(image) != corner).any(axis=2).mean() > 0.05
    assert asked == []
    context.close()


def test_the_picture_command_writes_a_png_and_an_svg_from_served_and_exported_pages(server, exported_site, tmp_path):
    png, svg = tmp_path / "slide.png", tmp_path / "slide.svg"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "explainer.cli",
            "picture",
            f"{server.url}/binary?{BINARY_QUERY}&present=1",  # a teacher's presenter link: no buttons shown
            str(png),
            (exported_site / "binary.html").as_uri() + f"?{BINARY_QUERY}",
            str(svg),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"Wrote {png}", f"Wrote {svg}"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = Image.open(png).size
    assert width > 2000 and height > 1000
    text = svg_text(svg.read_bytes())
    for headline in binary_headlines():
        assert headline in text


@pytest.mark.parametrize(
    ("items", "said"),
    [
        (["file:///tmp/binary.html", "slide.gif"], "slide.gif: the file name must end in .png or .svg"),
        # Each case starts the command anew (some 3 s): the others run in the slow step.
        pytest.param(["file:///tmp/binary.html"], "Give a URL and a FILE for each picture", marks=pytest.mark.slow),
        pytest.param(["binary.html", "slide.png"], "binary.html: not a page's address", marks=pytest.mark.slow),
        pytest.param(
            ["file:///no/such/page.html", "slide.png"],
            "file:///no/such/page.html: cannot open it (net::ERR_FILE_NOT_FOUND)",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_the_picture_command_says_what_is_wrong_in_one_line(items, said, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "explainer.cli", "picture", *items],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(said)


def test_on_a_phone_save_png_and_save_svg_fold_under_save_picture_and_the_header_takes_two_lines(
    server, browser, tmp_path
):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, accept_downloads=True
    )
    page = context.new_page()
    page.goto(f"{server.url}/binary")  # the article's example: no Example button
    fold = page.get_by_role("button", name="Save picture")
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".fig-picture-save").first).to_be_hidden()
    # Figure 1's buttons above the list (Play, Step, Reset, Predict first, Save picture, Presenter
    # view) sit on two lines; with Save PNG and Save SVG beside Save picture they took three.
    tops = page.locator(".fig-head .fig-button").evaluate_all(
        "els => [...new Set(els.filter((e) => e.checkVisibility()).map((e) => Math.round(e.getBoundingClientRect().top)))]"
    )
    assert len(tops) == 2, tops
    fold.tap()
    expect(fold).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_role("button", name="Save PNG")).to_be_visible()
    name, png = save(page, "png", tmp_path)
    assert name == "binary_relevant-2-3-5-8-11_missed-1_k-5.png" and Image.open(io.BytesIO(png)).format == "PNG"
    # From the keyboard: Escape folds them again and leaves the focus on Save picture.
    page.get_by_role("button", name="Save SVG").focus()
    page.keyboard.press("Escape")
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".fig-picture-save").first).to_be_hidden()
    expect(fold).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Save SVG")).to_be_visible()
    context.close()


def test_on_a_wide_screen_the_picture_buttons_show_without_a_fold(server, page):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server.url}/binary")
    expect(page.get_by_role("button", name="Save PNG")).to_be_visible()
    expect(page.get_by_role("button", name="Save SVG")).to_be_visible()
    expect(page.get_by_role("button", name="Save picture")).to_be_hidden()


def test_embedded_figures_have_no_picture_buttons(server, exported_site, page):
    page.goto(f"{server.url}/binary?embed=1")
    page.locator(".fig-caption").wait_for()
    assert page.locator(".fig-picture-save").count() == 0
    # Documentation's tags: every figure drawn, none with the buttons.
    page.goto((exported_site / "embed.html").as_uri())
    page.locator("relevance-figure .fig-caption").first.wait_for()
    assert page.locator("relevance-figure .fig").count() >= 7
    assert page.locator(".fig-picture-save").count() == 0
    # The story's figures have them, as its own pages do.
    page.goto((exported_site / "index.html").as_uri())
    page.locator(".fig-picture-save").first.wait_for()
    assert page.locator(".fig-picture-save[data-type=png]").count() == page.locator(".fig").count()
