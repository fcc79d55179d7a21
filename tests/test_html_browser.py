"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, driven by
Selenium through Debian's `/usr/bin/chromedriver`, so nothing is downloaded) loads the
report of a small run from `file://`, sorts the leaderboard, clicks into an instance, and
the test checks what is on the page (the leaderboard's rows, the drawings and numbers of
the instance) and that the browser's console shows no error. A screenshot of the instance
page is saved beside the report (`screenshot.png`), and its path printed.

CI installs Chromium with `scripts/setup_browser.sh`; where Chromium, its driver or
Selenium is missing the test is skipped with the reason (printed, and shown by `pytest -rs`).
With `GRACR_BROWSER_OUT=DIR` the report and the screenshot are written into DIR (to keep
them after the run), else into the test's temporary folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from gracr.bench.record import read_records
from gracrc_cli import run

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TASK, GRAPHS = "RedBlueLeaf", 12
# Chromium as root on a machine without network: without these it stalls at start.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1200,1400")


def _missing() -> str | None:
    """Why the browser cannot run here (None: it can)."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    for path in (CHROMIUM, DRIVER):
        if not os.access(path, os.X_OK):
            return (f"{path} is missing: install Debian's chromium and chromium-driver "
                    "(scripts/setup_browser.sh, as root)")
    return None


@pytest.fixture
def browser(tmp_path: Path) -> object:
    why = _missing()
    if why is not None:
        print(f"test_html_browser: skipped: {why}", file=sys.stderr)
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def test_the_report_opens_sorts_and_drills_down_in_chromium(browser: object, tmp_path: Path
                                                            ) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver

    assert isinstance(browser, WebDriver)
    chosen = os.environ.get("GRACR_BROWSER_OUT")
    folder = Path(chosen).resolve() if chosen else tmp_path
    store, bench, out = folder / "datasets", folder / "bench", folder / "report"
    shutil.rmtree(bench, ignore_errors=True)
    code, _, err = run("bench", "--tasks", TASK, "--explainers", "Saliency,Rnd", "--seeds",
                       "0", "--limit", "2", "--graphs", str(GRAPHS), "--datasets", str(store),
                       "--out", str(bench), "--quiet", "--no-report")
    assert code == 0, err
    code, printed, err = run("report", "--html", str(bench), "--datasets", str(store),
                             "--graphs", str(GRAPHS), "--out", str(out))
    assert (code, err) == (0, "")
    records = list(read_records(bench / "results.jsonl"))

    browser.get((out / "report.html").as_uri())
    assert browser.title == "GracrBench report"
    rows = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    explainers = [row.find_element(By.CSS_SELECTOR, "td.explainer").text for row in rows]
    assert sorted(explainers) == ["Rnd", "Saliency"]
    # Sorting: the F1 header sorts the rows by F1, one way then the other.
    header = next(h for h in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard th")
                  if h.text == "F1")
    column = [h.text for h in browser.find_elements(
        By.CSS_SELECTOR, "table.leaderboard th")].index("F1")

    def f1_column() -> list[float]:
        return [float(row.find_elements(By.TAG_NAME, "td")[column].get_attribute("data-sort")
                      or "nan")
                for row in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")]

    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert f1_column() == sorted(f1_column())
    header.click()
    assert f1_column() == sorted(f1_column(), reverse=True)

    # Into the first instance: its drawings (the ground truth, then each explainer's) and F1s.
    browser.find_element(By.CSS_SELECTOR, "a.instance-link").click()
    assert browser.current_url.endswith(f"{TASK}--main--s0--i0.html")
    heading = browser.find_element(By.TAG_NAME, "h1").text
    assert heading == f"{TASK} (main) seed 0, instance 0"
    drawings = browser.find_elements(By.CSS_SELECTOR, "svg.graph")
    assert len(drawings) == 3 and all(d.size["width"] > 100 for d in drawings)
    shown = sorted(cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "td.F1"))
    assert shown == sorted(f"{r.f1:.3f}" for r in records if r.instance == 0)

    screenshot = out / "screenshot.png"
    assert browser.save_screenshot(str(screenshot))
    print(f"test_html_browser: screenshot {screenshot}")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
