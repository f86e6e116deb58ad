"""The HTML report opened in headless Chromium (Debian's chromium, driven through Playwright): no console error,
every plot drawn, nothing fetched; a screenshot is kept in artifacts/report.png (CI's artifact)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from tests.conftest import REPO

#: Debian's chromium package (Playwright's own browser download is not used).
CHROMIUM = Path("/usr/bin/chromium")
#: Kept by CI as an artifact; git-ignored.
SCREENSHOT = REPO / "artifacts" / "report.png"
#: Per plot div: whether its svg has a size and holds traces (each plot type draws its data as g.trace).
DRAWN = """() => [...document.querySelectorAll("div.plotly-graph-div")].map(div => {
  const svg = div.querySelector("svg.main-svg");
  const box = svg ? svg.getBoundingClientRect() : null;
  return {id: div.id, drawn: !!box && box.width > 0 && box.height > 0 && div.querySelectorAll(".trace").length > 0};
})"""


def browser_or_skip() -> None:
    """Skip without chromium or Playwright, except under CI, where both must be there (.ci/run installs chromium)."""
    missing = _missing()
    if not missing:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser test; missing: {', '.join(missing)}")
    pytest.skip(f"missing: {', '.join(missing)}")


def _missing() -> list[str]:
    import importlib.util

    missing = []
    if not CHROMIUM.exists():
        missing.append("Debian's chromium (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        missing.append("playwright (pip install playwright)")
    return missing


@pytest.mark.slow
def test_the_report_renders_in_headless_chromium(tmp_path: Path, results: dict[str, Path]) -> None:
    """Every kind of result in one page: each plot's svg drawn with its traces, no console error or page error,
    no request but the file itself."""
    browser_or_skip()
    from playwright.sync_api import Route, sync_playwright

    page_file = tmp_path / "report.html"
    outcome = CliRunner().invoke(main, ["report", *(str(p) for p in results.values()), "-o", str(page_file)])
    assert outcome.exit_code == 0, outcome.output
    plots = int(outcome.stderr.split(" plot(s)")[0].rsplit(" ", 1)[1])
    errors: list[str] = []
    fetched: list[str] = []

    def refuse_the_network(route: Route) -> None:
        if route.request.url == page_file.as_uri():
            route.continue_()
        else:
            fetched.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        # Root in CI: Chromium's sandbox needs an unprivileged user; /dev/shm may be small in containers.
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.route("**/*", refuse_the_network)
            page.goto(page_file.as_uri(), wait_until="load")
            page.wait_for_function(f"document.querySelectorAll('div.plotly-graph-div svg.main-svg').length >= {plots}",
                                   timeout=60_000)
            drawn = page.evaluate(DRAWN)
            SCREENSHOT.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOT), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert fetched == []
    assert len(drawn) == plots
    assert [d["id"] for d in drawn if not d["drawn"]] == []
    assert SCREENSHOT.stat().st_size > 0
