"""Users and API tokens. A token's secret is shown once; only its SHA-256 is stored, so a database
leak does not leak usable tokens, and lookup by hash needs no constant-time comparison."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlalchemy.orm import Session

from xmd.db.base import utcnow
from xmd.db.engine import lock_row
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


def _other_admins(db_session: Session, user: User) -> int:
    stmt = select(func.count()).select_from(User).where(User.role == Role.ADMIN, User.id != user.id)
    return int(db_session.scalar(stmt) or 0)


def _lock_admins(db_session: Session, user: User) -> None:
    """Take the admins' row locks before counting them, so that two admins demoting or deleting each
    other at once cannot both see "one other admin" and both commit (the second waits, then counts
    again and gets 409). PostgreSQL: ``FOR NO KEY UPDATE`` on every admin row; SQLite: the database
    write lock. ``user`` is re-read under the lock (another request may have changed its role)."""
    lock_row(db_session, User, User.role == Role.ADMIN)
    db_session.refresh(user)


def _refuse_last_admin(db_session: Session, user: User, message: str) -> None:
    if user.role is Role.ADMIN and _other_admins(db_session, user) == 0:
        db_session.rollback()  # let the lock go before answering
        raise ConflictError(message)


def set_role(*, db_session: Session, user: User, role: Role | str) -> User:
    """Change a user's role; ConflictError when that would leave no admin (nobody could manage users)."""
    new = Role(role)
    if new is not Role.ADMIN:
        _lock_admins(db_session, user)
        _refuse_last_admin(db_session, user, f"{user.name!r} is the only admin; make another user admin first")
    user.role = new
    db_session.commit()
    return user


def delete_user(*, db_session: Session, user: User) -> None:
    """Delete a user and their tokens; their feedback and projects stay (author set to NULL).

    ConflictError for the last admin, who is the only one able to create users again.
    """
    _lock_admins(db_session, user)
    _refuse_last_admin(db_session, user, f"{user.name!r} is the only admin and cannot be deleted")
    db_session.delete(user)
    db_session.commit()


def create_token(
    *, db_session: Session, user: User, name: str = "", expires_in: timedelta | None = None
) -> tuple[ApiToken, str]:
    """New API token for ``user``; returns the row and the plaintext secret, which is never stored.

    ``expires_in``: the token stops authenticating after that long (None: valid until revoked).
    """
    if expires_in is not None and expires_in <= timedelta(0):
        raise ValueError("a token's lifetime must be positive")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires_at = utcnow() + expires_in if expires_in is not None else None
    token = ApiToken(
        user_id=user.id, token_hash=hash_token(secret), prefix=secret[:8], name=name, expires_at=expires_at
    )
    db_session.add(token)
    db_session.commit()
    return token, secret


def list_tokens(*, db_session: Session, user: User) -> list[ApiToken]:
    """A user's tokens, newest first (revoked ones included, for the audit trail)."""
    stmt = select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id.desc())
    return list(db_session.scalars(stmt))


def usable() -> ColumnElement[bool]:
    """Neither revoked nor expired, now."""
    return ApiToken.revoked_at.is_(None) & or_(ApiToken.expires_at.is_(None), ApiToken.expires_at > utcnow())


def is_active(token: ApiToken) -> bool:
    """Whether ``token`` authenticates now (for listings)."""
    return token.revoked_at is None and (token.expires_at is None or token.expires_at > utcnow())


def authenticate(*, db_session: Session, secret: str) -> User | None:
    """User owning the un-revoked, unexpired token ``secret``, or None; refreshes ``last_used_at``.

    Token and user are read in one query: every request authenticates, and on a loaded server each
    round trip waits for a core."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    found = db_session.execute(
        select(ApiToken, User)
        .join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_hash == hash_token(secret), usable())
    ).one_or_none()
    if found is None:
        return None
    token, user = found
    now = utcnow()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        db_session.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=now))
        db_session.commit()
        token.last_used_at = now
    return user


def token_of(*, db_session: Session, secret: str) -> ApiToken | None:
    """The usable token row of ``secret``, or None (signed links are keyed with its stored hash)."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    return db_session.scalars(select(ApiToken).where(ApiToken.token_hash == hash_token(secret), usable())).one_or_none()


def revoke(*, db_session: Session, token_id: int, user_id: int | None = None) -> ApiToken:
    """Revoke a token (kept for the record, rejected by :func:`authenticate` from now on);
    ``user_id``: NotFoundError unless the token is that user's."""
    token = db_session.get(ApiToken, token_id)
    if token is None or (user_id is not None and token.user_id != user_id):
        raise NotFoundError(f"API token {token_id} not found")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        db_session.commit()
    return token
