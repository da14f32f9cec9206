"""Helpers shared by the e2e tests (a plain module: conftest.py names clash under importlib mode)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "e2e"
HUB_TOKEN = "hf_test_write"


def shot(page, name: str) -> Path:
    """Save a full-page screenshot under test-output/e2e/."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


UNLABELLED_JS = """() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.offsetParent !== null)
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.textContent.trim())
  .map((el) => el.outerHTML.slice(0, 120))"""


def tab(page, name: str) -> None:
    """Open a project section by its link in the navigation, as a person would."""
    page.get_by_role("navigation", name="Project sections").get_by_role("link", name=name).click()


def unlabelled(page) -> list[str]:
    """Visible form controls and buttons a screen reader could not name (no label, aria-label or text)."""
    return page.evaluate(UNLABELLED_JS)


def sign_in(page, service) -> None:
    """Open the sign-in link and wait until the app has landed on the project list. Only then may a test
    open a route by its address: a hash route opened while the router's first navigation (to the list,
    whose view it may still be loading on a busy machine) is under way can be overtaken by it, leaving the
    project list on screen."""
    page.goto(f"{service.base_url}/#token={service.token}")
    expect(page.get_by_test_id("who")).to_contain_text("e2e-admin")
    expect(page).not_to_have_url(re.compile("token="))  # initAuth strips it before the router starts
    expect(page.get_by_role("heading", name="Projects", level=1)).to_be_visible()


def upload(page, path, name: str, role: str) -> None:
    """Upload a data file through the Data screen's form, after its preview, as one role (train, eval…)."""
    form = page.get_by_test_id("dataset-upload")
    form.get_by_label("File (CSV, TSV, JSONL, JSON or Parquet)").set_input_files(str(path))
    expect(form.get_by_test_id("preview")).to_be_visible()
    form.get_by_label("Dataset name").fill(name)
    form.get_by_label("Use").select_option(role)
    form.get_by_role("button", name="Upload dataset").click()
    expect(page.get_by_test_id("datasets").locator(f'tr[data-dataset="{name}"]')).to_contain_text(role)
