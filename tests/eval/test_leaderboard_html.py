"""The static HTML leaderboard, driven in headless Chromium (Debian's chromium + chromedriver via
selenium): it loads without script errors, sorts on a header click, filters by pack, and shows the
per-task drill-down with each sample's code and breakdown. Plus the page's safety and the SVG plots."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegym.eval.leaderboard import display_model, export_html, leaderboard_rows, svg_grouped_bars
from codegym.eval.results_db import ResultsDB

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
NASTY_CODE = "def f():\n    return \"</script><script>window.pwned = 1</script>\" + '<b>&amp;'\n"


def run_results(run_id: str, model: str, pack: str, pass1: float, reward: float) -> dict:
    return {
        "pass@1": pass1,
        "pass@5": min(1.0, pass1 * 1.5),
        "reward": reward,
        "components": {"tests": pass1, "coverage": 0.6, "style": 0.9, "complexity": 0.8, "efficiency": 0.5},
        "strict": {"pass@1": pass1},
        "run_id": run_id,
        "model": model,
        "mode": "model",
        "pack": {"name": pack, "version": "1.0", "hash": "ef" * 32},
        "sandbox": {"backend": "local", "image": "local:bwrap:python3.11"},
        "seed": 0,
        "generation": {"n_samples": 5, "sampling": {"temperature": 0.8}},
        "k": [1, 5],
        "n_samples": {"min": 5, "max": 5},
        "tasks": {"pack_total": 2, "selected": 2, "evaluated": 2, "missing": []},
        "complete": True,
        "samples_sha256": run_id * 4,
        "per_task": {
            f"{pack}/alpha": {
                "n": 5,
                "c": 3,
                "pass@1": 0.6,
                "pass@5": 1.0,
                "reward": 0.7,
                "statuses": {"passed": 3, "failed": 2},
            },
            f"{pack}/beta": {
                "n": 5,
                "c": 0,
                "pass@1": 0.0,
                "pass@5": 0.0,
                "reward": 0.1,
                "statuses": {"timeout": 5},
            },
        },
    }


def samples(pack: str) -> list[dict]:
    rows = []
    for i in range(5):
        rows.append(
            {
                "task_id": f"{pack}/alpha",
                "sample_index": i,
                "status": "passed" if i < 3 else "failed",
                "passed": i < 3,
                "tests_passed": 3 if i < 3 else 1,
                "tests_total": 3,
                "reward": 0.9,
                "components": {"tests": 1.0, "coverage": 0.75},
                "hacks": ["stdout_forging"] if i == 4 else [],
                "message": "" if i < 3 else "AssertionError: 1 != 2",
                "code": NASTY_CODE if i == 0 else f"def alpha():\n    return {i}\n",
            }
        )
        rows.append(
            {
                "task_id": f"{pack}/beta",
                "sample_index": i,
                "status": "timeout",
                "passed": False,
                "tests_passed": 0,
                "tests_total": 2,
                "reward": -0.1,
                "components": {"tests": 0.0},
                "code": "while True:\n    pass\n",
            }
        )
    return rows


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("leaderboard")
    with ResultsDB(f"sqlite:///{root / 'results.sqlite'}") as db:
        db.record(
            run_results("aaa111", "/ckpt/step-100", "mini", 0.25, 0.3), samples("mini"), out_dir="/runs/a"
        )
        db.record(run_results("bbb222", "org/big-model", "mini", 0.75, 0.6), samples("mini"))
        db.record(run_results("ccc333", "zeta-model", "other", 0.5, 0.45), samples("other"))
        return export_html(db, root / "html", samples_per_task=3)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is a test dependency: pip install -e '.[test]' (scripts/setup.sh does this)")

    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), (
        "headless Chromium tests need Debian's chromium and chromium-driver (scripts/setup.sh installs them)"
    )
    profile = Path(tempfile.mkdtemp(prefix="codegym-chromium-"))
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # chromium writes crash reports and dconf state under $HOME / $XDG_*: keep them in the temp dir
    env = {
        **os.environ,
        "HOME": str(profile),
        "XDG_CONFIG_HOME": str(profile / "config"),
        "XDG_CACHE_HOME": str(profile / "cache"),
        "XDG_DATA_HOME": str(profile / "data"),
    }
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, env=env), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def run_ids(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [
        row.get_attribute("data-run-id") for row in driver.find_elements(By.CSS_SELECTOR, "#runs tbody tr")
    ]


def test_page_loads_sorts_filters_and_drills_down(browser, page: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(page.as_uri())
    assert driver.execute_script("return window.codegymErrors") == []
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []
    assert driver.execute_script("return window.pwned") is None  # sample code is data, never markup
    # default order: best pass@1 first
    assert run_ids(driver) == ["bbb222", "ccc333", "aaa111"]
    header = driver.find_element(By.CSS_SELECTOR, '#runs th[data-key="model"]')
    header.click()
    assert run_ids(driver) == ["bbb222", "aaa111", "ccc333"]  # org/big-model, step-100, zeta-model
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert (
        run_ids(driver) == ["ccc333", "aaa111", "bbb222"]
        and header.get_attribute("aria-sort") == "descending"
    )
    driver.find_element(By.CSS_SELECTOR, '#runs th[data-key="reward"]').click()
    assert run_ids(driver) == ["bbb222", "ccc333", "aaa111"]  # numbers sort best first
    Select(driver.find_element(By.ID, "pack-filter")).select_by_value("other")
    assert run_ids(driver) == ["ccc333"]
    Select(driver.find_element(By.ID, "pack-filter")).select_by_value("")
    assert len(run_ids(driver)) == 3

    assert not driver.find_element(By.ID, "drilldown").is_displayed()
    driver.find_element(By.CSS_SELECTOR, '#runs tbody tr[data-run-id="aaa111"]').click()
    assert driver.find_element(By.ID, "drilldown").is_displayed()
    assert driver.find_element(By.ID, "drilldown-title").text == "step-100 on mini 1.0"
    tasks = driver.find_elements(By.CSS_SELECTOR, "#tasks tbody tr")
    assert [t.get_attribute("data-task-id") for t in tasks] == ["mini/alpha", "mini/beta"]
    assert "passed ×3" in tasks[0].text and "60.0%" in tasks[0].text
    tasks[0].click()
    assert driver.find_element(By.ID, "samples").is_displayed()
    assert driver.find_element(By.ID, "samples-title").text.startswith("mini/alpha: 3 samples")
    articles = driver.find_elements(By.CSS_SELECTOR, "#sample-list article.sample")
    assert [a.get_attribute("data-sample-index") for a in articles] == ["0", "1", "2"]
    first = articles[0]
    assert first.find_element(By.CSS_SELECTOR, "pre code").text == NASTY_CODE.rstrip("\n")
    assert "passed" in first.find_element(By.CSS_SELECTOR, ".status").text
    assert "tests 3/3" in first.text and "coverage 0.75" in first.text
    driver.find_element(By.CSS_SELECTOR, '#tasks tbody tr[data-task-id="mini/beta"]').click()
    beta = driver.find_elements(By.CSS_SELECTOR, "#sample-list article.sample")
    assert (
        "while True" in beta[0].find_element(By.CSS_SELECTOR, "pre code").text and "timeout" in beta[0].text
    )
    assert driver.execute_script("return window.codegymErrors") == []


def test_page_is_self_contained_with_plots(page: Path) -> None:
    text = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)  # no CDN, no network
    assert "<script src" not in text and "<link" not in text
    assert text.count("</script>") == 3  # the error hook, the data and the code: the sample's is escaped
    assert "window.pwned" in text and "\\u003c/script" in text
    for chart in ("chart-passk", "chart-components"):
        svg = text.split(f'id="{chart}">', 1)[1].split("</figure>", 1)[0]
        assert svg.startswith("<svg") and svg.count("<rect") > 3 and "<title>" in svg


def test_svg_escapes_labels_and_handles_missing_values() -> None:
    svg = svg_grouped_bars(
        "t<1>", ["a&b", "<script>"], ["pass@1"], {("a&b", "pass@1"): 0.5, ("<script>", "pass@1"): None}
    )
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "a&amp;b" in svg and "t&lt;1&gt;" in svg
    assert 'height="100.0"' in svg  # 50% of the 200px plot
    assert "no runs to plot" in svg_grouped_bars("empty", [], [], {})


def test_rows_and_model_names(tmp_path: Path) -> None:
    with ResultsDB(f"sqlite:///{tmp_path / 'r.sqlite'}") as db:
        db.record(run_results("r1", "a", "mini", 0.1, 0.1))
        db.record(run_results("r2", "b", "mini", 0.9, 0.05))
        rows = leaderboard_rows(db.runs())
        assert [r["run_id"] for r in rows] == ["r2", "r1"] and rows[0]["pass@1"] == 0.9
        assert [r["run_id"] for r in leaderboard_rows(db.runs(), "reward")] == ["r1", "r2"]
        assert rows[0]["components"]["coverage"] == 0.6 and rows[0]["tasks"] == "2/2"
    assert (
        display_model("/abs/ckpt/step-9") == "step-9"
        and display_model("Qwen/Qwen2.5-Coder") == "Qwen/Qwen2.5-Coder"
    )
