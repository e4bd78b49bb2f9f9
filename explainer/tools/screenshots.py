"""Screenshots of each figure for the README, taken from the exported pages in Chromium.

Run ``./serve.sh screenshots`` (or ``relevance-explainer screenshots DIR``); it needs
Playwright, which the test tools install.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from explainer.export import export_site, workbench_page
from explainer.figures import FIGURES
from explainer.tools.browser import launch_args

# (file suffix, viewport width, colour scheme): the README shows the wide, light view.
VIEWS = (("", 1280, "light"),)


def take(out_dir: Path) -> list[Path]:
    """Write one PNG per figure and view into ``out_dir``; returns their paths."""
    from playwright.sync_api import sync_playwright

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_args())
        export_site(Path(tmp))
        for figure in FIGURES:
            name = figure.name
            page_file = Path(tmp) / f"{name}.html"
            for suffix, width, scheme in VIEWS:
                page = browser.new_page(viewport={"width": width, "height": 800}, color_scheme=scheme)
                page.goto(page_file.as_uri())
                page.locator(".fig-caption").wait_for()
                # Wait for fonts and the cutoff marker's placement before the picture.
                page.evaluate("document.fonts.ready")
                path = out_dir / f"{name}{suffix}.png"
                page.locator(".fig-frame").screenshot(path=path)
                written.append(path)
                page.close()
        written += _workbench(browser, Path(tmp), out_dir)
        browser.close()
    return written


# The workbench on the golden set's query the candidate lost most on, opened at its terms: wide
# and light, and on a phone, dark.
WORKBENCH_QUERY = "g044"
WORKBENCH_VIEWS = (
    ("workbench.png", {"viewport": {"width": 1280, "height": 800}, "color_scheme": "light"}),
    (
        "workbench-phone-dark.png",
        {
            "viewport": {"width": 390, "height": 844},
            "color_scheme": "dark",
            "has_touch": True,
            "device_scale_factor": 2,
        },
    ),
)


def _workbench(browser, tmp: Path, out_dir: Path) -> list[Path]:
    from explainer.workbench import Workbench

    page_file = tmp / "evaluate.html"
    page_file.write_text(workbench_page(Workbench.golden(preload=True, uploads=False)), encoding="utf-8")
    written = []
    for name, options in WORKBENCH_VIEWS:
        context = browser.new_context(**options)
        page = context.new_page()
        page.goto(f"{page_file.as_uri()}?query={WORKBENCH_QUERY}")
        page.locator(".wb-figure .fig").first.wait_for()
        page.evaluate("document.fonts.ready")
        # A link that names a query focuses its pane, for keyboards: a picture shows no focus ring,
        # and a little room above the heading.
        page.evaluate("document.activeElement?.blur()")
        page.locator(".wb-query .wb-heading").evaluate(
            "el => { el.scrollIntoView({ block: 'start' }); scrollBy(0, -12); }"
        )
        path = out_dir / name
        page.screenshot(path=path)
        written.append(path)
        context.close()
    return written
