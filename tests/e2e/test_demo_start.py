"""The first start of ``xmd serve --demo`` in a real browser (issue 15): the URL opens the UI at once, which
shows the demo's preparation (phase, fine-tuning steps, time left) and then the demo project, ready to open.

The server is the real ``xmd serve --demo`` (embedded broker and workers, SQLite) fine-tuning on 320 demo
reviews: 20 steps. ``--demo-model`` points it at a small random BERT (``demo_standin_dir``) instead of MiniLM:
what the screen shows does not depend on the model, and its steps last long enough to be seen while the
whole test takes seconds of training instead of minutes. The set-up with the real MiniLM is tested by
``tests/integration/test_serve.py`` and timed by ``bench/first_start/first_start.py``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2ehelpers import shot, unlabelled
from playwright.sync_api import expect
from servehelpers import Serve, free_port, kill_workers

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist" / "index.html"
N_TRAIN = 320
DEMO = "demo: spielberg shortcut"


def test_the_ui_shows_the_demo_preparation_then_the_project(browser, tmp_path: Path, demo_standin_dir: Path):
    if not DIST.is_file():
        pytest.fail(f"{DIST} is missing: run `make frontend` (npm ci && npm run build in frontend/)")
    data = tmp_path / "data"
    serve = Serve(data, free_port(), N_TRAIN, model=demo_standin_dir)
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        url = serve.url_line()
        serve.wait_health()
        page.goto(url)
        prep = page.get_by_test_id("demo-prep")
        expect(prep).to_contain_text("Preparing the demo project")
        assert page.locator(f'[data-project="{DEMO}"]').count() == 0  # not there yet
        # the fine-tune, step by step, with the time left once a step was measured
        expect(prep.get_by_test_id("job-phase")).to_contain_text("fine-tuning MiniLM", timeout=600_000)
        expect(prep.get_by_test_id("job-phase")).to_contain_text(re.compile(r"[1-9]\d* / 20 steps"), timeout=300_000)
        expect(prep.get_by_test_id("job-times")).to_contain_text(re.compile(r"about \d+ (s|min|h)[\w ]* left"))
        assert unlabelled(page) == []
        shot(page, "demo-start-01-preparing")
        # then the project appears in the list, and the panel says so with a link to it
        expect(page.get_by_test_id("demo-ready")).to_contain_text("The demo project is ready", timeout=600_000)
        expect(page.locator(f'[data-project="{DEMO}"]')).to_be_visible()
        shot(page, "demo-start-02-ready")
        page.get_by_test_id("demo-ready").get_by_role("link", name="open it").click()
        expect(page.get_by_test_id("project-name")).to_have_text(DEMO)
        assert errors == []
    finally:
        context.close()
        serve.stop()
        kill_workers(data)
