"""Users, API tokens and projects."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from xmd.db import ConflictError, NotFoundError
from xmd.projects import service as projects
from xmd.users import service as users
from xmd.users.models import ApiToken, Role


def test_users_and_roles(db):
    alice = users.create_user(db_session=db, name="alice", role="admin")
    bob = users.create_user(db_session=db, name=" bob ", role=Role.ANNOTATOR)
    assert alice.role is Role.ADMIN and bob.name == "bob"
    assert alice.created_at.tzinfo is not None
    with pytest.raises(ConflictError):
        users.create_user(db_session=db, name="alice")
    with pytest.raises(ValueError):
        users.create_user(db_session=db, name="carol", role="superuser")
    assert [u.name for u in users.list_users(db_session=db)] == ["alice", "bob"]
    assert users.get_by_name(db_session=db, name="bob").id == bob.id
    assert users.get_or_raise(db_session=db, user_id=alice.id) is alice
    with pytest.raises(NotFoundError):
        users.get_or_raise(db_session=db, user_id=999)
    users.set_role(db_session=db, user=bob, role="viewer")
    db.expire_all()
    assert users.get(db_session=db, user_id=bob.id).role is Role.VIEWER


def test_tokens_store_only_a_hash_and_can_be_revoked(db, session_factory):
    alice = users.create_user(db_session=db, name="alice", role="admin")
    token, secret = users.create_token(db_session=db, user=alice, name="laptop")
    assert secret.startswith("xmd_") and len(secret) > 40
    assert token.prefix == secret[:8]
    stored = db.scalars(select(ApiToken)).one()
    assert stored.token_hash == users.hash_token(secret) and secret not in (stored.token_hash, stored.name)

    # A fresh session (as a request would have) authenticates and records the use.
    with session_factory() as s:
        user = users.authenticate(db_session=s, secret=secret)
        assert user is not None and user.name == "alice"
        assert s.get(ApiToken, token.id).last_used_at is not None
        assert users.authenticate(db_session=s, secret=secret + "x") is None
        assert users.authenticate(db_session=s, secret="not-a-token") is None
        assert users.authenticate(db_session=s, secret="") is None

    _, other = users.create_token(db_session=db, user=alice, name="ci")
    users.revoke(db_session=db, token_id=token.id)
    with session_factory() as s:
        assert users.authenticate(db_session=s, secret=secret) is None
        assert users.authenticate(db_session=s, secret=other).name == "alice"
    assert [t.name for t in users.list_tokens(db_session=db, user=alice)] == ["ci", "laptop"]
    with pytest.raises(NotFoundError):
        users.revoke(db_session=db, token_id=12345)


def test_projects(db):
    alice = users.create_user(db_session=db, name="alice", role="admin")
    p = projects.create(
        db_session=db,
        name="sentiment",
        labels=["negative", "positive"],
        model_source="runs/base",
        created_by=alice.id,
        settings={"method": "grad_x_input"},
    )
    assert p.num_labels == 2 and p.settings == {"method": "grad_x_input"}
    with pytest.raises(ConflictError):
        projects.create(db_session=db, name="sentiment", labels=["a"], model_source="x")
    with pytest.raises(ValueError):
        projects.create(db_session=db, name="dup", labels=["a", "a"], model_source="x")
    with pytest.raises(ValueError):
        projects.create(db_session=db, name="none", labels=[], model_source="x")
    projects.update_settings(db_session=db, project=p, settings={"min_count": 5})
    db.expire_all()
    p2 = projects.get_or_raise(db_session=db, project_id=p.id)
    assert p2.settings == {"method": "grad_x_input", "min_count": 5}
    assert p2.labels == ["negative", "positive"]
    assert projects.get_by_name(db_session=db, name="sentiment").id == p.id
    with pytest.raises(NotFoundError):
        projects.get_or_raise(db_session=db, project_id=p.id + 100)
    projects.delete(db_session=db, project=p2)
    assert projects.list_projects(db_session=db) == []
    # Deleting the creator keeps other projects (created_by is SET NULL).
    q = projects.create(db_session=db, name="q", labels=["a"], model_source="x", created_by=alice.id)
    db.delete(alice)
    db.commit()
    db.expire_all()
    assert projects.get(db_session=db, project_id=q.id).created_by is None
