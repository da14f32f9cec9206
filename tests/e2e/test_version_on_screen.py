"""The right version on screen (issue 15), in a real browser against the real API and worker.

A project whose training set has only 2 examples explained (on demand) shows a task ranking that says
it is built from 2 of 120 examples and offers "Explain all"; the Data tab lists the versions and
methods explained per dataset; an empty ranking says what is really the case (no word matches, nothing
explained with the method chosen); an example opened before a task-level click shows its new mark;
and a retrain explains the training set under its new version by itself (a follow-up job).
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

import httpx
import pytest
from e2ehelpers import shot, sign_in, unlabelled
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SHORTCUT = "spielberg"
state: dict[str, int] = {}


def call(service, path: str, method: str = "GET", body: dict | None = None) -> dict:
    req = urllib.request.Request(
        service.base_url + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {service.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read().decode() or "null")


def explained_cell(page):
    return page.get_by_test_id("datasets").locator('tr[data-dataset="train"]').get_by_test_id("explained")


def test_a_ranking_from_two_examples_says_so_and_the_data_tab_lists_what_is_explained(page, service):
    project = call(service, "/api/projects", "POST", {"name": "coverage", "model_path": str(service.model_dir)})
    pid = state["pid"] = project["id"]
    with service.demo["train"].open("rb") as f:
        r = httpx.post(
            f"{service.base_url}/api/projects/{pid}/datasets",
            headers={"Authorization": f"Bearer {service.token}"},
            files={"file": ("train.jsonl", f, "application/json")},
            data={"name": "train", "role": "train", "id_column": "id"},
            timeout=120,
        )
    assert r.status_code == 201, r.text
    did = r.json()["id"]
    ids = [e["id"] for e in call(service, f"/api/datasets/{did}/examples?search={SHORTCUT}&limit=2")["items"]]
    for eid in ids:  # two examples explained on demand, as opening them in the Instance view does
        call(service, f"/api/examples/{eid}/explanation")

    sign_in(page, service)
    page.goto(f"{service.base_url}/#/p/{pid}/data")
    expect(page).to_have_url(re.compile(rf"#/p/{pid}/data"))
    expect(explained_cell(page)).to_have_text(re.compile(r"v1 · grad_x_input:\s*2 of 120"))

    page.goto(f"{service.base_url}/#/p/{pid}/task")
    note = page.get_by_test_id("word-list").locator("xpath=..").get_by_test_id("coverage-note")
    expect(note).to_contain_text("built from 2 of 120 training examples")
    expect(note).to_contain_text("v1 with grad_x_input")
    expect(page.get_by_test_id("word-list").locator("button.list-item").first).to_be_visible()
    assert unlabelled(page) == []
    shot(page, "v15-01-ranking-from-two")

    note.get_by_test_id("explain-all").click()
    # the job runs (its progress in the note or the banner), then the ranking is the whole set's
    expect(note).to_have_count(0, timeout=120_000)
    expect(page.get_by_test_id("word-list").locator("button.list-item").first).to_be_visible()
    page.get_by_role("navigation", name="Project sections").get_by_role("link", name="Data").click()
    expect(explained_cell(page)).to_have_text(re.compile(r"v1 · grad_x_input:\s*all"))
    shot(page, "v15-02-data-explained")


def test_empty_rankings_say_what_is_the_case(page, service):
    page.get_by_role("navigation", name="Project sections").get_by_role("link", name="Task explanations").click()
    expect(page.get_by_test_id("word-list").locator("button.list-item").first).to_be_visible()
    # the minimum count the screen starts from is the server's, chosen from the label shares (issue 30 §6),
    # not a fixed 2: the empty ranking names that minimum, as the field above it shows it
    least = call(service, f"/api/projects/{state['pid']}/words?limit=1")["min_count_default"]
    expect(page.get_by_label("Seen in at least")).to_have_value(str(least))
    page.get_by_test_id("word-search").fill("xyzq")
    expect(page.get_by_test_id("words-empty")).to_have_text(
        f"No word matches “xyzq” among the words seen in at least {least} examples."
    )
    page.get_by_test_id("word-search").fill("")
    expect(page.get_by_test_id("word-list").locator("button.list-item").first).to_be_visible()

    page.get_by_label("Attribution method").select_option("saliency")
    note = page.get_by_test_id("coverage-note").first
    expect(note).to_contain_text("No training example is explained under v1 with saliency yet")
    expect(note.get_by_test_id("explain-all")).to_be_visible()
    expect(page.get_by_test_id("word-list").locator("button.list-item")).to_have_count(0)
    expect(page.get_by_text("No words yet")).to_have_count(0)
    shot(page, "v15-03-other-method")
    page.get_by_label("Attribution method").select_option("")
    expect(page.get_by_test_id("coverage-note")).to_have_count(0)


def test_an_example_opened_before_a_task_click_shows_its_new_mark(page, service):
    page.get_by_test_id("word-search").fill(SHORTCUT)
    page.get_by_test_id("word-list").locator(f'button[data-word="{SHORTCUT}"]').click()
    panel = page.get_by_test_id("word-panel")
    first = panel.get_by_test_id("word-examples").locator("li").first
    first.get_by_role("button", name="Explain").click()
    detail = first.get_by_test_id("example-detail")
    found = detail.locator("button.w", has_text=re.compile(f"^{SHORTCUT}$", re.I)).first
    expect(found).to_be_visible()
    word = detail.locator(f'button.w[data-i="{found.get_attribute("data-i")}"]')
    expect(word).not_to_have_class(re.compile(r"\bm-remove\b"))
    panel.get_by_test_id("task-remove").click()
    expect(panel.get_by_test_id("task-note")).to_contain_text(f"“{SHORTCUT}” marked remove")
    expect(word).to_have_class(re.compile(r"\bm-remove\b"))
    assert "marked remove (task-wide)" in word.get_attribute("aria-label")
    shot(page, "v15-04-open-example-marked")


def test_a_retrain_explains_the_training_set_under_its_new_version(page, service):
    pid = state["pid"]
    job = call(service, f"/api/projects/{pid}/jobs/retrain", "POST", {"epochs": 1})
    # the retrain, then its follow-up explain job, end (started through the API, so waited for there: a
    # job that starts and ends between two of the UI's polls is not seen ending) ...
    deadline = time.monotonic() + 300
    while (done := call(service, f"/api/jobs/{job['id']}"))["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, done
        time.sleep(0.5)
    assert done["status"] == "succeeded", done
    (follow,) = done["result"]["explain_jobs"]
    while (fj := call(service, f"/api/jobs/{follow['job_id']}"))["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, fj
        time.sleep(0.5)
    assert fj["status"] == "succeeded", fj
    # ... and the Data tab, opened, lists v2 as explained, all of it
    sections = page.get_by_role("navigation", name="Project sections")
    sections.get_by_role("link", name="Task explanations").click()
    sections.get_by_role("link", name="Data").click()
    expect(explained_cell(page)).to_contain_text(re.compile(r"v2 · grad_x_input:\s*all"), timeout=60_000)
    shot(page, "v15-05-v2-explained")
    # opened afresh, the screens show v2, and its ranking is the whole training set's: no coverage note
    page.reload()
    page.get_by_role("navigation", name="Project sections").get_by_role("link", name="Task explanations").click()
    expect(page.get_by_test_id("version-select").locator("option:checked")).to_have_text(re.compile(r"^v2"))
    expect(page.get_by_test_id("word-list").locator("button.list-item").first).to_be_visible()
    expect(page.get_by_test_id("coverage-note")).to_have_count(0)
    assert not page.errors, page.errors
