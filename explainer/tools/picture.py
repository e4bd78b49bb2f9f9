"""``relevance-explainer picture [--chart] URL FILE [URL FILE ...]``: a figure's picture for slides, from the command line.

Each URL (a served figure page, ``http://``, or an exported one, ``file://``) is opened in the
Chromium the tests drive (``explainer.tools.browser``), and its own *Save PNG* or *Save SVG* button is
pressed (``figures/picture.js``): the file is the very picture the button saves, PNG or SVG
as FILE's extension says. With ``--chart`` it is the figure's chart alone, as its *Save chart*
button saves it (plain SVG), or that picture as PNG. Run it through ``./serve.sh picture``,
which installs Playwright.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

KINDS = {".png": "png", ".svg": "svg"}
# The window the page is opened in: a laptop's screen, as a teacher's button would see it.
VIEWPORT = {"width": 1280, "height": 720}
# Served or exported, a figure page is a light page and draws at once: the wait is for a slow machine.
FIGURE_TIMEOUT_MS = 20_000
OPEN_TIMEOUT_MS = 30_000


class PictureError(Exception):
    """Why a picture could not be made, in one line for the person who asked for it."""


def check_pairs(items: list[str]) -> list[tuple[str, Path, str]]:
    """URL FILE pairs as (url, file, kind); raises PictureError for anything that cannot work."""
    if not items or len(items) % 2:
        raise PictureError("Give a URL and a FILE for each picture: picture URL FILE [URL FILE ...]")
    pairs = []
    for url, file in zip(items[::2], items[1::2], strict=True):
        scheme = urlsplit(url).scheme
        if scheme not in ("http", "https", "file"):
            raise PictureError(f"{url}: not a page's address; give an http://, https:// or file:// URL")
        kind = KINDS.get(Path(file).suffix.lower())
        if kind is None:
            raise PictureError(f"{file}: the file name must end in .png or .svg, which says what to write")
        pairs.append((url, Path(file), kind))
    return pairs


def take(pairs: list[tuple[str, Path, str]], chart: bool = False) -> list[Path]:
    """Save each URL's figure, or with ``chart`` its chart alone, as its file (PNG or SVG); raises PictureError at the first that fails."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise PictureError("Pictures need Playwright: run ./serve.sh picture URL FILE, which installs it") from None

    from explainer.tools.browser import find_chromium, launch_args

    written = []
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(**launch_args())
        except PlaywrightError as error:
            raise PictureError(
                f"Cannot start Chromium ({find_chromium() or 'Playwright' + chr(39) + 's own'}): {_first_line(error)}. "
                "Set EXPLAINER_CHROMIUM to a Chromium or Chrome executable."
            ) from None
        try:
            for url, file, kind in pairs:
                written.append(_take_one(browser, url, file, kind, chart, PlaywrightError))
        finally:
            browser.close()
    return written


def _take_one(browser, url: str, file: Path, kind: str, chart: bool, PlaywrightError) -> Path:
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    try:
        page = context.new_page()
        try:
            response = page.goto(url, timeout=OPEN_TIMEOUT_MS)
        except PlaywrightError as error:
            raise PictureError(f"{url}: cannot open it ({_first_line(error)})") from None
        if response is not None and response.status >= 400:
            raise PictureError(f"{url}: the server answered {response.status} {response.status_text}".rstrip())
        buttons = page.locator(f".fig-picture-save[data-type={kind}]")
        try:
            # Attached, not visible: presenter view (present=1) hides the buttons, and the picture is the same.
            buttons.first.wait_for(state="attached", timeout=FIGURE_TIMEOUT_MS)
        except PlaywrightError:
            raise PictureError(
                f"{url}: no figure to picture there; give a figure's page, as /binary or binary.html (not embed=1)"
            ) from None
        if (count := buttons.count()) > 1:
            raise PictureError(
                f"{url}: this page has {count} figures; give one figure's page, as /binary or binary.html"
            )
        if chart:
            # The chart shown (figure 1 shows one of its two views); its button saves SVG, or PNG when told.
            buttons = page.locator(".kchart:not([hidden]) > .kchart-save")
            if not buttons.count():
                raise PictureError(f"{url}: this figure has no chart; leave out --chart for the whole figure")
            buttons.first.evaluate("(button, type) => (button.dataset.type = type)", kind)
        file.parent.mkdir(parents=True, exist_ok=True)
        try:
            with page.expect_download(timeout=OPEN_TIMEOUT_MS) as download:
                buttons.first.dispatch_event("click")
            download.value.save_as(file)
        except PlaywrightError as error:
            raise PictureError(f"{url}: the picture could not be made ({_first_line(error)})") from None
        except OSError as error:
            raise PictureError(f"{file}: cannot write it ({error.strerror or error})") from None
        return file
    finally:
        context.close()


def _first_line(error: Exception) -> str:
    """Playwright's message without its call's name and the URL already said: "net::ERR_FILE_NOT_FOUND"."""
    lines = str(error).strip().splitlines()
    if not lines:
        return type(error).__name__
    line = re.sub(r"^(Error: )?[A-Za-z]+\.[A-Za-z]+: ", "", lines[0].strip())
    return re.sub(r" at \S+$", "", line)
