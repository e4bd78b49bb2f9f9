"""Screenshots of each figure for the README, taken from the exported pages in Chromium.

Run ``./serve.sh screenshots`` (or ``relevance-explainer screenshots DIR``); it needs
Playwright, which the test tools install.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from explainer.browser import launch_args
from explainer.export import export_site
from explainer.figures import FIGURES

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
        browser.close()
    return written
