"""Screenshot a ragmeter HTML report with headless Debian chromium (for the docs).

python examples/compare/screenshot.py REPORT.html OUT.png [--full]
"""

from __future__ import annotations

import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def main() -> None:
    from playwright.sync_api import sync_playwright

    report, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1500})
        page.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
        )
        page.goto(report.as_uri())
        page.screenshot(path=str(out), full_page="--full" in sys.argv)
        browser.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
