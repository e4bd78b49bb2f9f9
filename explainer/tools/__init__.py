"""Developer tools that drive a browser: the README's screenshots, the picture command's driver, and the Chromium they start.

No served page and no exported one needs them; they need Playwright, which the test tools install.
"""
