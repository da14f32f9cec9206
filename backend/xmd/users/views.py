"""Users and tokens over HTTP (admins only); a token's secret is returned once and never again."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter

from xmd.http.deps import DB, Admin
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.http.params import Id
from xmd.users import service
from xmd.users.models import User
from xmd.users.schemas import RoleChange, TokenCreate, TokenInfo, TokenOut, UserCreate, UserOut

router = APIRouter(prefix="/api", tags=["users"])


def _user(u: User) -> UserOut:
    return UserOut(id=u.id, name=u.name, role=u.role, created_at=u.created_at)


def _lifetime(body: TokenCreate | UserCreate) -> timedelta | None:
    return timedelta(days=body.expires_in_days) if body.expires_in_days is not None else None


@router.get("/users", response_model=Page[UserOut])
def list_users(db: DB, _: Admin, offset: Offset = 0, limit: Limit = 100) -> Page[UserOut]:
    """Every user and their role."""
    return Page[UserOut](**page_of([_user(u) for u in service.list_users(db_session=db)], offset, limit))


@router.post("/users", status_code=201, response_model=TokenOut)
def create_user(body: UserCreate, db: DB, _: Admin) -> TokenOut:
    """Create a user with a first token (409 if the name is taken)."""
    user = service.create_user(db_session=db, name=body.name, role=body.role)
    _, secret = service.create_token(db_session=db, user=user, name="first", expires_in=_lifetime(body))
    return TokenOut(user=_user(user), token=secret)


@router.post("/users/{user_id}/tokens", status_code=201, response_model=TokenOut)
def create_token(user_id: Id, body: TokenCreate, db: DB, _: Admin) -> TokenOut:
    """Another token for a user (e.g. one per script), optionally expiring after ``expires_in_days``."""
    user = service.get_or_raise(db_session=db, user_id=user_id)
    _, secret = service.create_token(db_session=db, user=user, name=body.name, expires_in=_lifetime(body))
    return TokenOut(user=_user(user), token=secret)


@router.get("/users/{user_id}/tokens", response_model=Page[TokenInfo])
def list_tokens(user_id: Id, db: DB, _: Admin, offset: Offset = 0, limit: Limit = 100) -> Page[TokenInfo]:
    """A user's tokens, newest first, revoked and expired ones included (never their secrets)."""
    user = service.get_or_raise(db_session=db, user_id=user_id)
    items = [
        TokenInfo(
            id=t.id,
            name=t.name,
            prefix=t.prefix,
            created_at=t.created_at,
            last_used_at=t.last_used_at,
            expires_at=t.expires_at,
            revoked_at=t.revoked_at,
            active=service.is_active(t),
        )
        for t in service.list_tokens(db_session=db, user=user)
    ]
    return Page[TokenInfo](**page_of(items, offset, limit))


@router.delete("/users/{user_id}/tokens/{token_id}", status_code=204)
def revoke_token(user_id: Id, token_id: Id, db: DB, _: Admin) -> None:
    """Revoke a token: it answers 401 from now on; the row stays for the record."""
    service.get_or_raise(db_session=db, user_id=user_id)
    service.revoke(db_session=db, token_id=token_id, user_id=user_id)


@router.patch("/users/{user_id}", response_model=UserOut)
def change_role(user_id: Id, body: RoleChange, db: DB, _: Admin) -> UserOut:
    """Change a user's role (409 if that would leave no admin)."""
    user = service.get_or_raise(db_session=db, user_id=user_id)
    return _user(service.set_role(db_session=db, user=user, role=body.role))


@router.delete("/users/{user_id}", status_code=204)
def delete_user(user_id: Id, db: DB, _: Admin) -> None:
    """Delete a user and their tokens; the feedback they gave stays, without its author (409 for the last admin)."""
    user = service.get_or_raise(db_session=db, user_id=user_id)
    service.delete_user(db_session=db, user=user)
