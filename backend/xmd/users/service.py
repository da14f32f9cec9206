"""Users and API tokens. A token's secret is shown once; only its SHA-256 is stored, so a database
leak does not leak usable tokens, and lookup by hash needs no constant-time comparison."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from xmd.db.base import utcnow
from xmd.db.errors import ConflictError, NotFoundError, found
from xmd.users.models import ApiToken, Role, User

TOKEN_PREFIX = "xmd_"
LAST_USED_RESOLUTION = timedelta(minutes=1)
"""``last_used_at`` is refreshed at most this often, so that reads do not each become a write."""


def hash_token(secret: str) -> str:
    """SHA-256 hex of a token secret (what is stored and looked up)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def get(*, db_session: Session, user_id: int) -> User | None:
    """User by id, or None."""
    return db_session.get(User, user_id)


def get_or_raise(*, db_session: Session, user_id: int) -> User:
    """User by id; NotFoundError if there is none."""
    return found(get(db_session=db_session, user_id=user_id), f"user {user_id}")


def get_by_name(*, db_session: Session, name: str) -> User | None:
    """User by unique name, or None."""
    return db_session.scalars(select(User).where(User.name == name)).one_or_none()


def list_users(*, db_session: Session) -> list[User]:
    """All users by name."""
    return list(db_session.scalars(select(User).order_by(User.name)))


def create_user(*, db_session: Session, name: str, role: Role | str = Role.VIEWER) -> User:
    """Create a user; ConflictError if the name is taken."""
    name = name.strip()
    if not name:
        raise ValueError("a user needs a non-empty name")
    if get_by_name(db_session=db_session, name=name) is not None:
        raise ConflictError(f"user {name!r} already exists")
    user = User(name=name, role=Role(role))
    db_session.add(user)
    db_session.commit()
    return user


def set_role(*, db_session: Session, user: User, role: Role | str) -> User:
    """Change a user's role."""
    user.role = Role(role)
    db_session.commit()
    return user


def create_token(*, db_session: Session, user: User, name: str = "") -> tuple[ApiToken, str]:
    """New API token for ``user``; returns the row and the plaintext secret, which is never stored."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user_id=user.id, token_hash=hash_token(secret), prefix=secret[:8], name=name)
    db_session.add(token)
    db_session.commit()
    return token, secret


def list_tokens(*, db_session: Session, user: User) -> list[ApiToken]:
    """A user's tokens, newest first (revoked ones included, for the audit trail)."""
    stmt = select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id.desc())
    return list(db_session.scalars(stmt))


def authenticate(*, db_session: Session, secret: str) -> User | None:
    """User owning the un-revoked token ``secret``, or None; refreshes ``last_used_at``."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    token = db_session.scalars(
        select(ApiToken).where(ApiToken.token_hash == hash_token(secret), ApiToken.revoked_at.is_(None))
    ).one_or_none()
    if token is None:
        return None
    now = utcnow()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        db_session.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=now))
        db_session.commit()
        token.last_used_at = now
    return db_session.get(User, token.user_id)


def token_of(*, db_session: Session, secret: str) -> ApiToken | None:
    """The un-revoked token row of ``secret``, or None (signed links are keyed with its stored hash)."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    return db_session.scalars(
        select(ApiToken).where(ApiToken.token_hash == hash_token(secret), ApiToken.revoked_at.is_(None))
    ).one_or_none()


def revoke(*, db_session: Session, token_id: int) -> ApiToken:
    """Revoke a token (kept for the record, rejected by :func:`authenticate` from now on)."""
    token = db_session.get(ApiToken, token_id)
    if token is None:
        raise NotFoundError(f"API token {token_id} not found")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        db_session.commit()
    return token
