"""Screenshots of the page for people, as the README shows it: `fathom serve --web offline`, the
README's question started from the form at quick depth, the finished session at a desktop's and a
phone's width, into docs/images/.

    .venv/bin/python scripts/page_screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from fathom_ray.settings import BrowserSettings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.net import interrupt, wait_until_healthy  # noqa: E402

OUT = ROOT / "docs" / "images"
GOAL = "Which Python version introduced assignment expressions, and who wrote the PEP?"
PORT = 8765
WIDTHS = {"desktop": (1280, 1000), "phone": (390, 844)}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "FATHOM_DATA_DIR": tempfile.mkdtemp(prefix="fathom-shots-")}
    fathom = str(Path(sys.executable).with_name("fathom"))
    server = subprocess.Popen([fathom, "serve", "--web", "offline", "--port", str(PORT)], env=env, text=True)
    url = f"http://127.0.0.1:{PORT}"
    try:
        wait_until_healthy(url, timeout_s=300)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(BrowserSettings().executable), args=["--no-sandbox"]
            )
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(f"{url}/")
            page.get_by_label("Goal").fill(GOAL)
            page.get_by_label("Depth").select_option("quick")
            page.get_by_role("button", name="Start research").click()
            expect(page.locator("#s-report-box")).to_be_visible(timeout=300_000)
            session = page.url
            for name, (width, height) in WIDTHS.items():
                shot = browser.new_page(viewport={"width": width, "height": height})
                shot.goto(session)
                expect(shot.locator("#s-report-box")).to_be_visible(timeout=60_000)
                shot.screenshot(path=str(OUT / f"page-session-{name}.png"))  # the first screen
                shot.close()
            browser.close()
    finally:
        interrupt(server)
    print(f"wrote {', '.join(f'page-session-{n}.png' for n in WIDTHS)} into {OUT}")


if __name__ == "__main__":
    main()
