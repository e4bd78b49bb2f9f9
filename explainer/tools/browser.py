"""Finding and starting the Chromium that the tests, the screenshots and the benchmark drive."""

from __future__ import annotations

import os
import shutil

# Flags Debian's Chromium needs to run headless as root on a machine with a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium() -> str | None:
    """The Chromium to drive: EXPLAINER_CHROMIUM (empty means Playwright's own), else a system one."""
    if "EXPLAINER_CHROMIUM" in os.environ:
        return os.environ["EXPLAINER_CHROMIUM"] or None
    # Debian's headless shell first: the same Blink and V8, a quarter faster to drive than the full
    # browser in its headless mode.
    for name in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def launch_args() -> dict:
    """Keyword arguments for Playwright's ``chromium.launch``."""
    executable = find_chromium()
    return {**({"executable_path": executable} if executable else {}), "args": CHROMIUM_ARGS}
