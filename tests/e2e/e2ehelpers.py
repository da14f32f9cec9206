"""Helpers shared by the e2e tests (a plain module: conftest.py names clash under importlib mode)."""

from __future__ import annotations

from pathlib import Path

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


def unlabelled(page) -> list[str]:
    """Visible form controls and buttons a screen reader could not name (no label, aria-label or text)."""
    return page.evaluate(UNLABELLED_JS)
