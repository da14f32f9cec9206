"""Users and tokens in and out of the API; a token's secret appears in :class:`TokenOut` only."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from xmd.users.models import Role

MAX_TOKEN_DAYS = 3650


class UserOut(BaseModel):
    id: int
    name: str
    role: Role
    created_at: datetime


class UserCreate(BaseModel):
    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.@-]+$")
    role: Role = Role.VIEWER
    expires_in_days: int | None = Field(
        default=None, ge=1, le=MAX_TOKEN_DAYS, description="lifetime of the first token"
    )


class TokenCreate(BaseModel):
    name: str = Field(default="", max_length=100)
    expires_in_days: int | None = Field(
        default=None, ge=1, le=MAX_TOKEN_DAYS, description="the token stops working after this many days; none: never"
    )


class TokenInfo(BaseModel):
    """A token without its secret (only a hash of which is stored)."""

    id: int
    name: str
    prefix: str = Field(description="the first characters of the secret, to recognise it")
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    active: bool


class RoleChange(BaseModel):
    role: Role


class TokenOut(BaseModel):
    user: UserOut
    token: str = Field(description="the secret; shown only in this response")
