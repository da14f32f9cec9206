"""Users and tokens over HTTP (admins only); a token's secret is returned once and never again."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel, Field

from xmd.http.deps import DB, Admin
from xmd.http.pagination import Limit, Offset, Page, page_of
from xmd.users import service
from xmd.users.models import Role, User

router = APIRouter(prefix="/api", tags=["users"])


class UserOut(BaseModel):
    id: int
    name: str
    role: Role
    created_at: datetime


class UserCreate(BaseModel):
    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.@-]+$")
    role: Role = Role.VIEWER


class TokenCreate(BaseModel):
    name: str = Field(default="", max_length=100)


class TokenOut(BaseModel):
    user: UserOut
    token: str = Field(description="the secret; shown only in this response")


def _user(u: User) -> UserOut:
    return UserOut(id=u.id, name=u.name, role=u.role, created_at=u.created_at)


@router.get("/users", response_model=Page[UserOut])
def list_users(db: DB, _: Admin, offset: Offset = 0, limit: Limit = 100) -> Page[UserOut]:
    """Every user and their role."""
    return Page[UserOut](**page_of([_user(u) for u in service.list_users(db_session=db)], offset, limit))


@router.post("/users", status_code=201, response_model=TokenOut)
def create_user(body: UserCreate, db: DB, _: Admin) -> TokenOut:
    """Create a user with a first token (409 if the name is taken)."""
    user = service.create_user(db_session=db, name=body.name, role=body.role)
    _, secret = service.create_token(db_session=db, user=user, name="first")
    return TokenOut(user=_user(user), token=secret)


@router.post("/users/{user_id}/tokens", status_code=201, response_model=TokenOut)
def create_token(user_id: int, body: TokenCreate, db: DB, _: Admin) -> TokenOut:
    """Another token for a user (e.g. one per script)."""
    user = service.get_or_raise(db_session=db, user_id=user_id)
    _, secret = service.create_token(db_session=db, user=user, name=body.name)
    return TokenOut(user=_user(user), token=secret)
