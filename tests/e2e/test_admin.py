"""Admin screens in a real browser against the real API: users and tokens (create with the token shown
once, change a role, revoke, delete) and a project's rename and delete with a confirmation that names
what goes. Each step is checked through the API as well, with the token the screen handed out."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from e2ehelpers import shot, unlabelled
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def call(service, path: str, token: str, method: str = "GET", body: dict | None = None) -> tuple[int, object]:
    req = urllib.request.Request(
        service.base_url + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read().decode()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        return e.code, None


def test_users_and_tokens(page, service):
    page.goto(f"{service.base_url}/#token={service.token}")
    page.get_by_test_id("admin-link").click()
    expect(page.get_by_role("heading", name="Users and tokens")).to_be_visible()
    form = page.get_by_test_id("new-user")
    form.get_by_label("User name").fill("alice")
    form.get_by_label("Role").select_option("annotator")
    form.get_by_role("button", name="Create user").click()
    shown = page.get_by_test_id("created-token")
    expect(shown).to_contain_text("not shown again")
    token = shown.locator("code").inner_text().strip()
    status, me = call(service, "/api/me", token)  # the token the screen showed signs in as alice
    assert status == 200 and me["name"] == "alice" and me["role"] == "annotator"
    assert unlabelled(page) == []
    shot(page, "admin-01-user-created")

    row = page.locator('tr[data-user="alice"]')
    with page.expect_response(lambda r: r.request.method == "PATCH" and "/api/users/" in r.url) as answer:
        row.get_by_label("Role of alice").select_option("viewer")
    assert answer.value.status == 200
    expect(row.get_by_label("Role of alice")).to_have_value("viewer")
    assert call(service, "/api/me", token)[1]["role"] == "viewer"

    # the last admin cannot be demoted: the screen says why and keeps the role
    page.locator('tr[data-user="e2e-admin"]').get_by_label("Role of e2e-admin").select_option("viewer")
    expect(page.get_by_role("alert")).to_contain_text("admin")
    expect(page.locator('tr[data-user="e2e-admin"]').get_by_label("Role of e2e-admin")).to_have_value("admin")

    row.get_by_test_id("tokens").click()
    tokens = page.locator('[data-tokens-of="alice"]')
    expect(tokens.locator("tr[data-token]")).to_have_count(1)
    tokens.get_by_test_id("revoke").click()
    expect(tokens.locator("tr[data-token]").first).to_contain_text("revoked")
    assert call(service, "/api/me", token)[0] == 401
    shot(page, "admin-02-token-revoked")

    row.get_by_test_id("delete").click()
    expect(row.get_by_test_id("what-goes")).to_contain_text("Delete user alice")
    row.get_by_test_id("confirm-delete").click()
    expect(page.locator('tr[data-user="alice"]')).to_have_count(0)
    names = [u["name"] for u in call(service, "/api/users", service.token)[1]["items"]]
    assert "alice" not in names


def test_project_rename_and_delete(page, service):
    status, project = call(
        service, "/api/projects", service.token, "POST", {"name": "to-rename", "model_path": str(service.model_dir)}
    )
    assert status == 201
    pid = project["id"]
    page.goto(f"{service.base_url}/#/p/{pid}/data")
    box = page.get_by_test_id("project-admin")
    box.get_by_test_id("rename").click()
    box.get_by_test_id("rename-input").fill("renamed")
    box.get_by_test_id("rename-save").click()
    expect(page.get_by_test_id("project-name")).to_have_text("renamed")
    assert call(service, f"/api/projects/{pid}", service.token)[1]["name"] == "renamed"

    box.get_by_test_id("delete").click()
    expect(box.get_by_test_id("what-goes")).to_contain_text(re.compile(r"Delete project renamed: 0 dataset\(s\)"))
    shot(page, "admin-03-confirm-project-delete")
    box.get_by_test_id("confirm-delete").click()
    expect(page.get_by_role("heading", name="Projects")).to_be_visible()
    assert call(service, f"/api/projects/{pid}", service.token)[0] == 404
    assert page.errors == []
