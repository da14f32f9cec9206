"""A newcomer with a CSV and no model (issue 30 §1), in a real browser against the real API and worker: New
project → "Fine-tune a model on my data first", the file's columns guessed, a base model from a server
folder; the fine-tune shows its phase, steps and time left; the person lands on the new project, whose
version 1 is the fine-tuned model, whose base model is recorded (the deletion-from-base control can run),
and whose training set is explained by itself.

The base is the small random BERT the demo tests fine-tune (``demo_standin_dir``): its steps last long enough
to be seen, and the whole story takes seconds of training instead of MiniLM's minutes (on two busy cores, the
fine-tune and the first explain job, which also calibrates the project's retrain estimate, take minutes)."""

from __future__ import annotations

import csv
import json
import re
import urllib.request
from pathlib import Path

import pytest
from e2ehelpers import shot, sign_in, unlabelled
from playwright.sync_api import expect
from xmd.core.demo import make_demo_dataset

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NAME = "reviews from my csv"
N_ROWS = 80  # 5 steps an epoch at the default batch of 16


def _csv(path: Path) -> Path:
    rows = make_demo_dataset(n_train=N_ROWS, n_clean=4, n_anti=4, seed=3)["train"]
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["review", "sentiment"])  # the names the server's column guess knows
        w.writerows([ex.text, ["negative", "positive"][ex.label]] for ex in rows)
    return path


def _get(service, path: str) -> object:
    req = urllib.request.Request(service.base_url + path, headers={"Authorization": f"Bearer {service.token}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read().decode())


def test_a_csv_becomes_an_explained_project(page, service, demo_standin_dir: Path, tmp_path: Path):
    data = _csv(tmp_path / "my-reviews.csv")
    sign_in(page, service)
    page.get_by_role("button", name="New project").click()
    form = page.get_by_test_id("create-project")
    form.get_by_label("Name", exact=True).fill(NAME)
    form.get_by_label("Fine-tune a model on my data first").check()
    form.get_by_label(re.compile("^Labelled data")).set_input_files(str(data))
    expect(form.get_by_test_id("from-data-columns")).to_contain_text(f"{N_ROWS} rows")
    expect(form.get_by_label("Text column")).to_have_value("review")
    expect(form.get_by_label(re.compile("^Label column"))).to_have_value("sentiment")
    form.get_by_label("Directory on the server").check()
    form.get_by_label("Model directory", exact=True).fill(str(demo_standin_dir))
    form.get_by_label(re.compile("^Epochs")).fill("8")  # 40 steps: long enough to be seen on a quiet machine
    assert unlabelled(page) == []
    shot(page, "from-data-01-form")
    form.get_by_role("button", name="Fine-tune and create project").click()

    # the fine-tune, step by step, with its time left and a Cancel button
    card = page.get_by_test_id("from-data-job")
    expect(card).to_contain_text(f"Fine-tuning a model for “{NAME}”")
    expect(card.get_by_test_id("job-phase")).to_contain_text(re.compile(r"[1-9]\d* / 40 steps"), timeout=180_000)
    expect(card.get_by_test_id("job-times")).to_contain_text(re.compile(r"about \d+ (s|min)[\w ]* left|left"))
    expect(card.get_by_role("button", name="Cancel")).to_be_visible()
    shot(page, "from-data-02-fine-tuning")

    # then the project, with version 1 and its training set explained by the job the fine-tune queued
    expect(page.get_by_test_id("project-name")).to_have_text(NAME, timeout=300_000)
    expect(page).to_have_url(re.compile(r"/p/\d+/data"))
    expect(page.get_by_test_id("version-select")).to_contain_text("v1")
    row = page.get_by_test_id("datasets").locator("tr", has_text="train")
    expect(row).to_contain_text(str(N_ROWS))
    expect(row.get_by_test_id("explained")).to_contain_text(re.compile(r"v1 · \w+: all"), timeout=420_000)
    shot(page, "from-data-03-explained")

    pid = int(re.search(r"/p/(\d+)/", page.url).group(1))
    project = _get(service, f"/api/projects/{pid}")
    assert project["labels"] == ["negative", "positive"]
    assert project["base_model"]["kind"] == "path" and project["base_model"]["source"] == str(demo_standin_dir)
    assert project["base_model"]["recipe"]["epochs"] == 8
    assert page.errors == []  # type: ignore[attr-defined]
