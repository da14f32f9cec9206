"""Two people on one project in a real browser (issue 32): two browser contexts, each signed in as its
own annotator, open the same example and mark the same word at once, one *remove* and one *add*.
Neither overwrites the other: each sees their own mark on the text and, within the marks' refresh,
the other's mark with its name beside it; both marks persist after a reload, and the API holds two rows.
Then blind mode: a third look at a fresh example shows nothing of the other until "Done".

The project and the users are made through the API; everything after that is clicked.
"""

from __future__ import annotations

import csv
import io
import json
import re

import httpx
import pytest
from e2ehelpers import shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
PEOPLE = ("team-ann", "team-bea")


@pytest.fixture(scope="module")
def team(service) -> dict:
    h = {"Authorization": f"Bearer {service.token}"}
    examples = [json.loads(line) for line in service.demo["train"].read_text().splitlines() if line.strip()][:20]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label"])
    for ex in examples:
        w.writerow([ex["id"], ex["text"], ["negative", "positive"][ex["label"]]])
    with httpx.Client(base_url=service.base_url, headers=h, timeout=60) as c:
        r = c.post("/api/projects", json={"name": "team-story", "model_path": str(service.model_dir)})
        assert r.status_code == 201, r.text
        pid = r.json()["id"]
        r = c.post(
            f"/api/projects/{pid}/datasets",
            files={"file": ("team.csv", buf.getvalue().encode(), "text/csv")},
            data={"name": "team", "role": "train", "id_column": "id"},
        )
        assert r.status_code == 201, r.text
        tokens = {}
        for name in PEOPLE:
            r = c.post("/api/users", json={"name": name, "role": "annotator"})
            assert r.status_code == 201, r.text
            tokens[name] = r.json()["token"]
    return {"pid": pid, "tokens": tokens, "headers": h}


def _open(browser, service, token: str, name: str, pid: int):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{service.base_url}/#token={token}")
    expect(page.get_by_test_id("who")).to_contain_text(name)
    expect(page.get_by_role("heading", name="Projects", level=1)).to_be_visible()
    page.goto(f"{service.base_url}/#/p/{pid}/instances")
    page.get_by_label("Predictions").select_option("all")
    return context, page


def _example(page, n: int):
    page.get_by_test_id("example-list").locator("button.list-item").nth(n).click()
    detail = page.get_by_test_id("example-detail")
    expect(detail.locator("button.w").first).to_be_visible()
    return detail


def _mark(page, detail, i: int, action: str):
    detail.locator(f'button.w[data-i="{i}"]').click()
    popup = page.get_by_role("dialog", name=re.compile("Feedback on"))
    popup.get_by_role("button", name=re.compile(action, re.I)).click()
    expect(detail.locator(f'button.w[data-i="{i}"]')).to_have_class(re.compile(rf"\bm-{action}\b"))


def test_two_people_mark_one_word_at_once_and_neither_loses_work(browser, service, team):
    pid = team["pid"]
    ann_ctx, ann = _open(browser, service, team["tokens"]["team-ann"], "team-ann", pid)
    bea_ctx, bea = _open(browser, service, team["tokens"]["team-bea"], "team-bea", pid)
    try:
        # both have the example open before either clicks
        d_ann, d_bea = _example(ann, 0), _example(bea, 0)
        expect(ann.get_by_test_id("no-others")).to_be_visible()
        # the same word at once, one each way: both pop-ups open, then both clicks, before either answer
        popups = []
        for page, detail in ((ann, d_ann), (bea, d_bea)):
            detail.locator('button.w[data-i="0"]').click()
            popups.append(page.get_by_role("dialog", name=re.compile("Feedback on")))
        popups[0].get_by_role("button", name=re.compile("remove", re.I)).click()
        popups[1].get_by_role("button", name=re.compile("add", re.I)).click()
        # each sees the other's mark with its name (the marks refresh every few seconds) and keeps their own
        expect(ann.get_by_test_id("other-person")).to_contain_text("team-bea: add")
        expect(bea.get_by_test_id("other-person")).to_contain_text("team-ann: remove")
        expect(d_ann.locator('button.w[data-i="0"]')).to_have_class(re.compile(r"\bm-remove\b"))
        expect(d_bea.locator('button.w[data-i="0"]')).to_have_class(re.compile(r"\bm-add\b"))
        shot(ann, "30-team-two-people")
        # a further click shows on the other screen without a reload
        _mark(bea, d_bea, 1, "remove")
        expect(ann.get_by_test_id("other-person")).to_contain_text("team-bea: add")
        expect(ann.get_by_test_id("other-person")).to_contain_text("remove")
        # after a reload both marks are still there, each on its owner's screen
        for page, action in ((ann, "remove"), (bea, "add")):
            page.reload()
            page.get_by_label("Predictions").select_option("all")
            d = _example(page, 0)
            expect(d.locator('button.w[data-i="0"]')).to_have_class(re.compile(rf"\bm-{action}\b"))
        with httpx.Client(base_url=service.base_url, headers=team["headers"], timeout=30) as c:
            items = c.get(f"/api/projects/{pid}/feedback").json()["items"]
        assert sorted((f["updated_by"], f["word_index"], f["action"]) for f in items) == [
            ("team-ann", 0, "remove"),
            ("team-bea", 0, "add"),
            ("team-bea", 1, "remove"),
        ]

        # blind mode: on another example, the second person sees nothing of the first's until "Done"
        with httpx.Client(base_url=service.base_url, headers=team["headers"], timeout=30) as c:
            r = c.put(f"/api/projects/{pid}/team/settings", json={"policy": "union", "blind": True})
            assert r.status_code == 200, r.text
        d_ann = _example(ann, 1)
        _mark(ann, d_ann, 2, "remove")
        d_bea = _example(bea, 1)
        expect(bea.get_by_test_id("blind-note")).to_be_visible()
        expect(d_bea.locator("button.w.m-remove")).to_have_count(0)
        bea.get_by_test_id("done-button").click()
        expect(bea.get_by_test_id("other-person")).to_contain_text("team-ann: remove")
        shot(bea, "31-team-blind-done")
    finally:
        ann_ctx.close()
        bea_ctx.close()
