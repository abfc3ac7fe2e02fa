"""python -m analysis.browser PAGE.html SHOT.png [--full] [--width W] [--height H]

Opens a report in headless Chromium (the system's ``chromium``, driven by Playwright) and
saves a screenshot; ``inspect`` also returns what the page rendered (headings and each
image's natural size), which is how the tests tell a readable report from a broken one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PAGE_FACTS = """() => ({
  title: document.title,
  headings: Array.from(document.querySelectorAll('h1, h2')).map(h => [h.tagName, h.textContent]),
  images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), complete: i.complete,
                                               width: i.naturalWidth, height: i.naturalHeight})),
  tables: document.querySelectorAll('table').length,
})"""


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise RuntimeError("no chromium on PATH (make test installs Debian's chromium package)")
    return path


def inspect(page_path, screenshot, full_page: bool = False, width: int = 1200, height: int = 1600) -> dict:
    """Load ``page_path``, wait until its images are loaded, save ``screenshot``, and return
    the page's title, headings, images (src, complete, natural size) and table count."""
    return inspect_pages([(page_path, screenshot)], full_page, width, height)[0]


def inspect_pages(pages, full_page: bool = False, width: int = 1200, height: int = 1600) -> list[dict]:
    """``inspect`` for each (page, screenshot) pair, in one browser started once."""
    from playwright.sync_api import sync_playwright

    facts = []
    with sync_playwright() as pw:
        # --no-sandbox: Chromium refuses its sandbox when run as root, as on these machines.
        browser = pw.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            for page_path, screenshot in pages:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(Path(page_path).resolve().as_uri(), wait_until="load")
                facts.append(page.evaluate(PAGE_FACTS))
                page.screenshot(path=str(screenshot), full_page=full_page)
                page.close()
        finally:
            browser.close()
    return facts


def main(argv=None) -> int:
    from sim.cli import OneLineParser, whole_number

    p = OneLineParser(prog="python -m analysis.browser", description=__doc__.split("\n\n")[1])
    p.add_argument("page")
    p.add_argument("screenshot", help="a new PNG file")
    p.add_argument("--full", action="store_true", help="the whole page, not just the first screen")
    p.add_argument("--width", type=whole_number, default=1200)
    p.add_argument("--height", type=whole_number, default=1600)
    args = p.parse_args(argv)
    if not Path(args.page).is_file():
        p.error(f"no page at {args.page}")
    if os.path.lexists(args.screenshot):
        p.error(f"{args.screenshot} exists already: give a new file for the screenshot")
    try:
        facts = inspect(args.page, args.screenshot, args.full, args.width, args.height)
    except Exception as exc:  # Playwright's errors (no chromium, a screenshot it cannot write) in one line
        return p.fail(f"cannot show {args.page}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    broken = [i["src"] for i in facts["images"] if not i["width"]]
    print(f"{len(facts['headings'])} headings, {len(facts['images'])} images, {facts['tables']} tables"
          + (f"; broken images: {', '.join(broken)}" if broken else ""))
    return 1 if broken else 0


if __name__ == "__main__":
    from sim.cli import exit_with

    exit_with(main, "python -m analysis.browser")
