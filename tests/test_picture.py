"""A picture for slides: the Save PNG, Save SVG and Save chart buttons, served and from an exported file offline, and the picture command.

The charts' geometry is checked against what the values imply: chart.js draws a chart of every
k in a 360 by 160 viewBox, its plot from x = 30 to 320 and from y = 12 (value 1) to 136 (value 0);
figure 1's precision-recall view from x = 30 (recall 0) to 298 (recall 1), y = 20 (precision 1)
to 136 (precision 0).
"""

from __future__ import annotations

import io
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from explainer import metrics

from support.expect import expect

pytestmark = pytest.mark.browser

# Figure 1 with relevant ranks 2, 3 and 5, one relevant document missed, cut at k = 4.
BINARY_QUERY = "relevant=2,3,5&missed=1&k=4"
BINARY_GRADES = [0, 1, 1, 0, 1] + [0] * 7
N_RELEVANT = 4  # three in the list, one missed
# The CSS pixels of room the picture leaves around the figure (picture.js's MARGIN_PX).
MARGIN_PX = 16
SCALE = 2


# BINARY_QUERY's P@k and R@k at k = 1..12: relevant ranks 2, 3 and 5, R = 4.
PRECISION = [0 / 1, 1 / 2, 2 / 3, 2 / 4, 3 / 5, 3 / 6, 3 / 7, 3 / 8, 3 / 9, 3 / 10, 3 / 11, 3 / 12]
RECALL = [0 / 4, 1 / 4, 2 / 4, 2 / 4] + [3 / 4] * 8
AP = (1 / 2 + 2 / 3 + 3 / 5) / 4
SVG = "{http://www.w3.org/2000/svg}"


def k_x(k: int, count: int = 12) -> float:
    """Column k's middle on a chart of every k of `count` columns (figure 1 has twelve, figure 2 eight)."""
    return 30 + (320 - 30) / count * (k - 0.5)


def k_y(value: float) -> float:
    return 136 - (136 - 12) * value


def pr_x(recall: float) -> float:
    return 30 + (298 - 30) * recall


def pr_y(precision: float) -> float:
    return 136 - (136 - 20) * precision


def points(polyline) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in polyline.get("points").split()]


def circles(element) -> list[tuple[float, float, float]]:
    return [(float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) for c in element.iter(f"{SVG}circle")]


def assert_near(got, expected):
    assert np.allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float), atol=1e-6), (got, expected)


def assert_binary_by_k_chart(chart):
    """Figure 1's chart of every k for BINARY_QUERY, as chart.js draws it: both lines, their points, the AP terms' dots, the axes."""
    precision_line, recall_line = chart.iter(f"{SVG}polyline")
    assert_near(points(precision_line), [(k_x(k), k_y(v)) for k, v in enumerate(PRECISION, 1)])
    assert_near(points(recall_line), [(k_x(k), k_y(v)) for k, v in enumerate(RECALL, 1)])
    for line in (precision_line, recall_line):
        assert line.get("stroke") not in (None, "none") and float(line.get("stroke-width")) > 1
        assert line.get("fill") == "none"
    expected = [(k_x(k), k_y(v), 2.5) for values in (PRECISION, RECALL) for k, v in enumerate(values, 1)]
    # AP's terms, the precision at each relevant rank, as larger dots.
    expected += [(k_x(2), k_y(1 / 2), 5), (k_x(3), k_y(2 / 3), 5), (k_x(5), k_y(3 / 5), 5)]
    assert_near(circles(chart), expected)
    assert all(c.get("fill") not in (None, "none") for c in chart.iter(f"{SVG}circle"))
    grid = [(float(n.get("y1")), float(n.get("y2"))) for n in chart.iter(f"{SVG}line")]
    assert_near(grid, [(k_y(v), k_y(v)) for v in (0, 0.5, 1)])
    labels = [t.text for t in chart.iter(f"{SVG}text") if t.text]
    assert labels == ["0", "0.5", "1", *map(str, range(1, 13)), "k = 4"]


def assert_plain_svg(root):
    """A picture slide tools draw: SVG elements only, and its look in presentation attributes, not CSS."""
    assert root.tag == f"{SVG}svg"
    for element in root.iter():
        assert element.tag.startswith(SVG), element.tag
        assert element.tag != f"{SVG}foreignObject"
        assert not {"style", "class"} & set(element.attrib), element.attrib


def placed(matrix: str, x: float, y: float) -> tuple[float, float]:
    """A point of the chart's own coordinates where the picture's group transform puts it."""
    a, b, c, d, e, f = map(float, matrix.removeprefix("matrix(").removesuffix(")").split())
    return a * x + c * y + e, b * x + d * y + f


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
    """Press the figure's Save PNG or Save SVG button, or "chart" its Save chart button (of the chart shown),
    "chart-png" that button told to save PNG as the picture command tells it; returns the file's name and bytes."""
    with page.expect_download() as download:
        if kind.startswith("chart"):
            button = page.locator(".kchart:not([hidden]) > .kchart-save")
            if kind == "chart-png":
                button.evaluate("(button) => (button.dataset.type = 'png')")
            button.click()
        else:
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
    assert name == "binary_relevant-2-3-5_missed-1_k-4_light.png"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    width, height = image.size
    assert width == SCALE * (round(box["width"]) + 2 * MARGIN_PX)
    # Without its controls (the header's buttons) the figure is a little shorter than on screen.
    assert SCALE * box["height"] * 0.6 < height <= SCALE * (box["height"] + 2 * MARGIN_PX + 1)

    name, svg = save(page, "svg", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4_light.svg"
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
    # The chart of every k with its geometry; the precision-recall view, not shown, is not in it.
    (chart,) = [node for node in root.iter(f"{SVG}svg") if node.get("viewBox") == "0 0 360 160"]
    assert_binary_by_k_chart(chart)


def test_save_chart_writes_each_view_of_figure_1_as_plain_svg_with_its_geometry(server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server.url}/binary?{BINARY_QUERY}")
    name, svg = save(page, "chart", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4_chart_light.svg"
    root = ET.fromstring(svg)
    assert_plain_svg(root)
    chart = root.find(f"{SVG}g")  # the chart's SVG, placed by one transform
    assert_binary_by_k_chart(chart)
    width, height = float(root.get("width")), float(root.get("height"))
    for corner in ((30, 12), (320, 136)):
        x, y = placed(chart.get("transform"), *corner)
        assert MARGIN_PX < x < width - MARGIN_PX and MARGIN_PX < y < height - MARGIN_PX
    # The key and the legend as SVG text, in the chart's colours.
    texts = {t.text: t for t in root.iter(f"{SVG}text") if t.text}
    assert {"P@4 0.50", "R@4 0.50"} <= set(texts)
    assert any(text.startswith("● the precision at each relevant rank.") for text in texts)
    assert all(t.get("fill") not in (None, "none") for t in texts.values())

    page.get_by_role("button", name="Precision-recall").click()
    name, svg = save(page, "chart", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4_precision-recall_light.svg"
    root = ET.fromstring(svg)
    assert_plain_svg(root)
    chart = root.find(f"{SVG}g")
    (path,) = chart.iter(f"{SVG}polyline")
    assert_near(points(path), [(pr_x(r), pr_y(p)) for r, p in zip(RECALL, PRECISION, strict=True)])
    relevant = {2, 3, 5}
    expected = [
        (pr_x(r), pr_y(p), 5 if k in relevant else 3) for k, (r, p) in enumerate(zip(RECALL, PRECISION, strict=True), 1)
    ]
    expected.append((pr_x(4 / 4), pr_y(0), 5))  # the missed document: its 0 where recall would reach 1
    expected.append((pr_x(RECALL[3]), pr_y(PRECISION[3]), 8))  # the ring at k = 4
    assert_near(circles(chart), expected)
    ap_line = [n for n in chart.iter(f"{SVG}line") if n.get("stroke-dasharray") == "6 4"]
    assert len(ap_line) == 1
    assert_near([float(ap_line[0].get(a)) for a in ("x1", "x2", "y1", "y2")], [pr_x(0), pr_x(1), pr_y(AP), pr_y(AP)])
    assert f"AP {AP:.2f}" in [t.text for t in chart.iter(f"{SVG}text")]
    # No opacity is left for a renderer without a compositor to get wrong (ImageMagick filled this
    # polyline grey): the line's colour is mixed with the background behind it, as a browser shows it.
    assert not [n for n in root.iter() if {"opacity", "fill-opacity", "stroke-opacity"} & set(n.attrib)]
    shown = page.locator(".kchart:not([hidden]) polyline").evaluate(
        """async (line) => {
            const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
            const frame = line.closest(".fig-frame");
            frame.classList.add("present", "picturing");  // the picture's layout and colours
            await new Promise(requestAnimationFrame);
            // The first colour behind the frame, through the shadow root's host (light: white at the end).
            let behind = frame;
            while (behind && getComputedStyle(behind).backgroundColor.endsWith(", 0)")) {
                behind = behind.parentElement ?? behind.getRootNode().host;
            }
            const shown = { stroke: rgb(getComputedStyle(line).stroke), opacity: Number(getComputedStyle(line).opacity),
                            background: behind ? rgb(getComputedStyle(behind).backgroundColor) : [255, 255, 255] };
            frame.classList.remove("present", "picturing");
            return shown;
        }"""
    )
    assert shown["opacity"] < 1
    mixed = [
        round(shown["opacity"] * c + (1 - shown["opacity"]) * b)
        for c, b in zip(shown["stroke"], shown["background"], strict=True)
    ]
    assert path.get("stroke") == f"rgb({', '.join(map(str, mixed))})"
    # The whole figure's picture of this view is named for it, apart from the By k view's.
    name, _ = save(page, "svg", tmp_path)
    assert name == "binary_relevant-2-3-5_missed-1_k-4_precision-recall_light.svg"


def binary_chart_layout(page) -> tuple[float, float]:
    """Where the chart shown sits in the whole figure's picture, in CSS pixels from the picture's corner:
    the frame laid out as picture.js lays it out for a picture (presenter view's, without controls)."""
    return page.locator(".fig-frame").evaluate(
        """async (frame) => {
            frame.classList.add("present", "picturing");
            document.documentElement.style.setProperty("--explainer-page-width", "100%");
            await new Promise(requestAnimationFrame);
            const [f, c] = [frame, frame.querySelector(".kchart:not([hidden])")].map((n) => n.getBoundingClientRect());
            frame.classList.remove("present", "picturing");
            document.documentElement.style.removeProperty("--explainer-page-width");
            return [c.left - f.left, c.top - f.top];
        }"""
    )


@pytest.mark.parametrize("theme", ["light", pytest.param("dark", marks=pytest.mark.slow)])
def test_the_pngs_draw_the_chart_lines_where_their_values_put_them(server, page, tmp_path, theme):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server.url}/binary?{BINARY_QUERY}&theme={theme}")
    name, svg = save(page, "chart", tmp_path)
    chart = ET.fromstring(svg).find(f"{SVG}g")
    matrix = chart.get("transform")
    colours = [line.get("stroke") for line in chart.iter(f"{SVG}polyline")]
    name, chart_png = save(page, "chart-png", tmp_path)
    assert name == f"binary_relevant-2-3-5_missed-1_k-4_chart_{theme}.png"
    name, figure_png = save(page, "png", tmp_path)
    assert name == f"binary_relevant-2-3-5_missed-1_k-4_{theme}.png"
    left, top = binary_chart_layout(page)
    for png, offset in ((chart_png, (0, 0)), (figure_png, (left, top))):
        image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
        background = image[2, 2]
        assert (sum(background) > 600) if theme == "light" else (sum(background) < 150), background
        # The middle of each line's segment from k to k + 1, which no dot covers, is the line's colour.
        for values, colour in zip((PRECISION, RECALL), colours, strict=True):
            want = np.array(list(map(int, colour.removeprefix("rgb(").removesuffix(")").split(","))))
            for k in range(1, 12):
                x, y = placed(matrix, (k_x(k) + k_x(k + 1)) / 2, (k_y(values[k - 1]) + k_y(values[k])) / 2)
                pixel = image[round(SCALE * (y + offset[1])), round(SCALE * (x + offset[0]))]
                assert np.abs(pixel - want).sum() < 60, (k, pixel, want, background)


def test_a_picture_leaves_the_page_as_it_was(server, page, tmp_path):
    page.goto(f"{server.url}/binary?{BINARY_QUERY}")
    page.locator(".fig-picture-save").first.wait_for()
    before = page.locator(".fig-frame").evaluate("f => [f.className, f.getBoundingClientRect().height]")
    for kind in ("svg", "chart"):
        save(page, kind, tmp_path)
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


def test_the_picture_command_writes_figure_2s_chart_alone_as_plain_svg_and_as_png(exported_site, tmp_path):
    grades = [3, 0, 2, 1, 0, 3, 1, 2]
    page = (exported_site / "ndcg.html").as_uri() + f"?grades={','.join(map(str, grades))}&k=5&gain=linear"
    svg, png = tmp_path / "chart.svg", tmp_path / "chart.png"
    done = subprocess.run(
        [sys.executable, "-m", "explainer.cli", "picture", "--chart", page, str(svg), page + "&theme=dark", str(png)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    root = ET.fromstring(svg.read_bytes())
    assert_plain_svg(root)
    chart = root.find(f"{SVG}g")
    # Linear gain: DCG@k sums grade / log2(rank + 1); the ideal orders the same grades 3, 3, 2, 2, 1, 1, 0, 0.
    discounts = np.log2(np.arange(2, 10))
    dcg = np.cumsum(np.array(grades) / discounts)
    ndcg = dcg / np.cumsum(np.array(sorted(grades, reverse=True)) / discounts)
    (line,) = chart.iter(f"{SVG}polyline")
    assert_near(points(line), [(k_x(k, 8), k_y(v)) for k, v in enumerate(ndcg, 1)])
    # The columns, DCG@k on the right axis: the tallest is the largest DCG.
    columns = [rect for group in chart.findall(f"{SVG}g") for rect in group.findall(f"{SVG}rect")]
    assert_near([float(r.get("height")) for r in columns], (136 - 12) * dcg / dcg.max())
    assert_near([float(r.get("x")) + float(r.get("width")) / 2 for r in columns], [k_x(k, 8) for k in range(1, 9)])
    assert f"{dcg.max():.2f}" in [t.text for t in chart.iter(f"{SVG}text")]
    # The PNG, dark: the NDCG line where its values put it, on the dark background.
    image = np.asarray(Image.open(png).convert("RGB")).astype(int)
    assert sum(image[2, 2]) < 150
    lit = []
    for k in range(1, 8):
        x, y = placed(chart.get("transform"), (k_x(k, 8) + k_x(k + 1, 8)) / 2, (k_y(ndcg[k - 1]) + k_y(ndcg[k])) / 2)
        lit.append(np.abs(image[round(SCALE * y), round(SCALE * x)] - image[2, 2]).sum())
    assert min(lit) > 200, lit


@pytest.mark.parametrize(
    ("items", "said"),
    [
        (["file:///tmp/binary.html", "slide.gif"], "slide.gif: the file name must end in .png or .svg"),
        # Each case starts the command anew (some 3 s): the others are slow tests.
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
    assert name == "binary_relevant-2-3-5-8-11_missed-1_k-5_light.png" and Image.open(io.BytesIO(png)).format == "PNG"
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
    assert page.locator(".fig-picture-save, .kchart-save").count() == 0
    # Documentation's tags: every figure drawn, none with the buttons.
    page.goto((exported_site / "embed.html").as_uri())
    page.locator("relevance-figure .fig-caption").first.wait_for()
    assert page.locator("relevance-figure .fig").count() >= 7
    assert page.locator(".fig-picture-save, .kchart-save").count() == 0
    # The story's figures have them, as its own pages do.
    page.goto((exported_site / "index.html").as_uri())
    page.locator(".fig-picture-save").first.wait_for()
    assert page.locator(".fig-picture-save[data-type=png]").count() == page.locator(".fig").count()
