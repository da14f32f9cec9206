"""Token life cycle (issue 13): optional expiry, list, revoke, change role, delete user — over the
admin API (SQLite and PostgreSQL) and the ``xmd users`` CLI."""

from __future__ import annotations

import json
import time
from datetime import timedelta

from apihelpers import Api
from sqlalchemy import select
from xmd.cli import main
from xmd.feedback.models import FeedbackEvent
from xmd.users import service as users_service
from xmd.users.models import ApiToken, User


def _me(api: Api, token: str) -> int:
    return api.client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code


def _new_user(api: Api, name: str, role: str = "viewer", **kw) -> dict:
    r = api.post("/api/users", json={"name": name, "role": role, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def test_expired_token_gets_401(api: Api, db):
    bob = users_service.create_user(db_session=db, name="bob")
    _, short = users_service.create_token(db_session=db, user=bob, expires_in=timedelta(seconds=1))
    _, never = users_service.create_token(db_session=db, user=bob)
    assert _me(api, short) == 200
    time.sleep(1.2)
    assert _me(api, short) == 401
    assert _me(api, never) == 200
    tokens = {t["id"]: t for t in api.get(f"/api/users/{bob.id}/tokens").json()["items"]}
    assert [t["active"] for t in sorted(tokens.values(), key=lambda t: t["id"])] == [False, True]


def test_token_with_expiry_over_the_api(api: Api):
    carol = _new_user(api, "carol", expires_in_days=7)
    r = api.post(f"/api/users/{carol['user']['id']}/tokens", json={"name": "script", "expires_in_days": 30})
    assert r.status_code == 201 and _me(api, r.json()["token"]) == 200
    listed = api.get(f"/api/users/{carol['user']['id']}/tokens").json()["items"]
    assert [t["name"] for t in listed] == ["script", "first"]
    days = sorted(
        (time.mktime(time.strptime(t["expires_at"][:19], "%Y-%m-%dT%H:%M:%S")) - time.time()) / 86400 for t in listed
    )
    assert 6.9 < days[0] < 7.1 and 29.9 < days[1] < 30.1
    assert all("token" not in t and t["prefix"].startswith("xmd_") for t in listed)  # no secrets listed
    for bad in (0, -1, 100_000, "soon"):
        r = api.post(f"/api/users/{carol['user']['id']}/tokens", json={"expires_in_days": bad})
        assert r.status_code == 422, (bad, r.text)


def test_revoked_token_gets_401(api: Api):
    dave = _new_user(api, "dave", "annotator")
    uid, token = dave["user"]["id"], dave["token"]
    tid = api.get(f"/api/users/{uid}/tokens").json()["items"][0]["id"]
    assert _me(api, token) == 200
    assert api.delete(f"/api/users/{uid}/tokens/{tid}").status_code == 204
    assert _me(api, token) == 401
    listed = api.get(f"/api/users/{uid}/tokens").json()["items"]
    assert listed[0]["revoked_at"] is not None and listed[0]["active"] is False
    other = _new_user(api, "erin")["user"]["id"]
    assert api.delete(f"/api/users/{other}/tokens/{tid}").status_code == 404  # not erin's token
    assert api.delete(f"/api/users/{uid}/tokens/999999").status_code == 404


def test_change_role_and_delete_user(api: Api, db):
    frank = _new_user(api, "frank", "viewer")
    uid, token = frank["user"]["id"], frank["token"]
    assert api.client.get("/api/users", headers={"Authorization": f"Bearer {token}"}).status_code == 403
    r = api.client.patch(f"/api/users/{uid}", headers=api.h(), json={"role": "admin"})
    assert r.status_code == 200 and r.json()["role"] == "admin"
    assert api.client.get("/api/users", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert api.client.patch(f"/api/users/{uid}", headers=api.h(), json={"role": "owner"}).status_code == 422
    assert api.delete(f"/api/users/{uid}").status_code == 204
    assert _me(api, token) == 401
    assert db.scalar(select(User).where(User.id == uid)) is None
    assert db.scalars(select(ApiToken).where(ApiToken.user_id == uid)).all() == []
    assert api.delete(f"/api/users/{uid}").status_code == 404


def test_the_last_admin_stays(api: Api):
    admin_id = api.get("/api/me").json()["id"]
    r = api.client.patch(f"/api/users/{admin_id}", headers=api.h(), json={"role": "viewer"})
    assert r.status_code == 409 and "only admin" in r.json()["detail"]
    assert api.delete(f"/api/users/{admin_id}").status_code == 409
    assert api.get("/api/me").json()["role"] == "admin"


def test_non_admins_get_403_on_every_token_route(api: Api):
    uid = _new_user(api, "gina")["user"]["id"]
    calls = [
        ("GET", f"/api/users/{uid}/tokens", None),
        ("POST", f"/api/users/{uid}/tokens", {}),
        ("DELETE", f"/api/users/{uid}/tokens/1", None),
        ("PATCH", f"/api/users/{uid}", {"role": "admin"}),
        ("DELETE", f"/api/users/{uid}", None),
    ]
    for role in ("viewer", "annotator"):
        for method, url, body in calls:
            r = api.client.request(method, url, headers=api.h(role), json=body)
            assert r.status_code == 403, (role, method, url, r.text)
    assert api.get(f"/api/users/{uid}/tokens").json()["total"] == 1  # nothing changed


def test_deleting_a_user_keeps_their_feedback(api: Api, project, db):
    hal = _new_user(api, "hal", "annotator")
    ex = api.get(f"/api/datasets/{project['train']['id']}/examples", params={"limit": 1}).json()["items"][0]
    r = api.client.put(
        f"/api/examples/{ex['id']}/feedback",
        headers={"Authorization": f"Bearer {hal['token']}"},
        json={"word_index": 0, "action": "remove"},
    )
    assert r.status_code == 200, r.text
    assert api.delete(f"/api/users/{hal['user']['id']}").status_code == 204
    events = db.scalars(select(FeedbackEvent).where(FeedbackEvent.project_id == project["id"])).all()
    assert len(events) == 1 and events[0].user_id is None


def test_cli_token_life_cycle(engine, db_url, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XMD_DATABASE_URL", db_url)
    monkeypatch.setenv("XMD_DATA_DIR", str(tmp_path))

    def run(*argv: str) -> dict | list:
        assert main([*argv, "--json"]) == 0, capsys.readouterr().err
        return json.loads(capsys.readouterr().out)

    run("users", "create", "root", "--role", "admin")
    ivy = run("users", "create", "ivy", "--expires-days", "3")
    assert ivy["role"] == "viewer" and ivy["expires_at"] is not None
    second = run("users", "token", "ivy")
    tokens = run("users", "tokens", "ivy")
    assert [t["id"] for t in tokens] == [second["token_id"], ivy["token_id"]]
    assert all(t["active"] for t in tokens) and tokens[1]["expires_at"] is not None
    assert all(ivy["token"] not in json.dumps(t) for t in tokens)
    run("users", "revoke", "ivy", "--token-id", str(ivy["token_id"]))
    tokens = run("users", "tokens", "ivy")
    assert [t["active"] for t in tokens] == [True, False]
    assert run("users", "role", "ivy", "--role", "annotator")["role"] == "annotator"
    assert main(["users", "role", "root", "--role", "viewer"]) == 2  # the only admin
    assert "only admin" in capsys.readouterr().err
    assert main(["users", "revoke", "ivy"]) == 2 and "--token-id" in capsys.readouterr().err
    assert main(["users", "token", "ivy", "--expires-days", "0"]) == 2
    capsys.readouterr()
    run("users", "delete", "ivy")
    assert [u["name"] for u in run("users", "list")] == ["root"]
