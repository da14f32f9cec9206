"""Request dependencies: a database session per request, the authenticated user, the role policy,
and what the composition root (:mod:`xmd.app`) put on the app: settings and the model cache.

Authorisation is an explicit call in each route (a ``Viewer`` / ``Annotator`` / ``Reviewer`` / ``Admin`` parameter,
i.e. ``Depends(require(role))``), so a test can walk the whole route x role matrix. The role
aliases are declared here once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from xmd.config import Settings
from xmd.core.cache import ModelCache
from xmd.http import links
from xmd.jobs.queue import Enqueue
from xmd.users import service as users_service
from xmd.users.models import Role, User

RANK = {Role.VIEWER: 0, Role.ANNOTATOR: 1, Role.REVIEWER: 2, Role.ADMIN: 3}
bearer = HTTPBearer(auto_error=False, description="an xmd API token: `xmd users create` prints one")


async def get_db(request: Request) -> AsyncIterator[Session]:
    """A session for this request; rolled back if the view raised before committing.

    An ``async`` generator, so that FastAPI does not hop to its thread pool to open and again to close
    the session: opening does no I/O (the connection is checked out at the first statement), and closing
    does none once the view committed. Only a session still in a transaction (a read, a failed view)
    goes back to a worker thread to roll back, since that is a round trip the event loop must not wait on.
    The session is opened in one of the pool's slots (:mod:`xmd.http.slots`), waited for on the loop.
    """
    async with request.app.state.db_slots.slot() as held:
        request.state.db_slot = held
        session: Session = request.app.state.session_factory()
        try:
            yield session
        except Exception:
            await run_in_threadpool(_rollback_and_close, session)
            raise
        finally:  # also when the request is cancelled (FastAPI shields a dependency's exit, so awaiting is safe)
            if session.in_transaction():
                await run_in_threadpool(session.close)
            else:
                session.close()


def end_session(request: Request, session: Session) -> None:
    """Close the request's session and give back its slot now, not after the response: a view whose
    answer streams for as long as the client reads (a download) must not hold a connection meanwhile.
    Its objects stay readable (detached); the dependency's own close is then a no-op. A round trip when
    the session is in a transaction, so an ``async`` view calls it through the thread pool."""
    session.close()
    held = getattr(request.state, "db_slot", None)
    if held is not None:
        held.release()


def _rollback_and_close(session: Session) -> None:
    try:
        session.rollback()
    finally:
        session.close()


DB = Annotated[Session, Depends(get_db)]


def current_user(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)], db: DB) -> User:
    """The user owning the bearer token; 401 without a valid one (the token itself is never logged)."""
    if credentials is None or not credentials.credentials:
        raise HTTPException(401, "missing bearer token", headers={"WWW-Authenticate": "Bearer"})
    user = users_service.authenticate(db_session=db, secret=credentials.credentials)
    if user is None:
        raise HTTPException(401, "invalid or revoked token", headers={"WWW-Authenticate": "Bearer"})
    return user


def user_from_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    db: DB,
    token: Annotated[str | None, Query(description="for EventSource, which cannot send headers")] = None,
) -> User:
    """Like :func:`current_user`, also accepting ``?token=`` (server-sent events and downloads use it)."""
    if credentials is None and token:
        credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=token)
    return current_user(credentials, db)


def link_or_token_user(
    version_id: int,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    db: DB,
    token: Annotated[str | None, Query(description="an API token, for links that cannot send headers")] = None,
    link: Annotated[
        str | None, Query(description="a signed link from POST /api/versions/{version_id}/download-link")
    ] = None,
) -> User:
    """Downloads: a bearer token, ``?token=``, or a short-lived signed ``?link=`` for this version."""
    if credentials is None and not token and link:
        user = links.verify(db, version_id, link)
        if user is None:
            raise HTTPException(401, "the download link is invalid or has expired; ask for a new one")
        return user
    return user_from_token(credentials, db, token)


link_or_token_user.required_role = Role.VIEWER  # type: ignore[attr-defined]


def require(role: Role) -> Callable[[User], Coroutine[Any, Any, User]]:
    """Dependency allowing ``role`` and every role above it (admin > reviewer > annotator > viewer); ``async``
    since it does no I/O, so it runs on the event loop instead of taking a thread-pool hop."""

    async def check(user: Annotated[User, Depends(current_user)]) -> User:
        if RANK[user.role] < RANK[role]:
            raise HTTPException(403, f"this needs the {role.value} role; you are {user.role.value}")
        return user

    check.required_role = role  # type: ignore[attr-defined]
    return check


Viewer = Annotated[User, Depends(require(Role.VIEWER))]
Annotator = Annotated[User, Depends(require(Role.ANNOTATOR))]
Reviewer = Annotated[User, Depends(require(Role.REVIEWER))]
Admin = Annotated[User, Depends(require(Role.ADMIN))]


def settings_of(request: Request) -> Settings:
    """The settings the app was created with."""
    return request.app.state.settings


def enqueue_of(request: Request) -> Enqueue:
    """How this app sends jobs (set by the composition root; tests record instead)."""
    return request.app.state.enqueue


def models_of(request: Request) -> ModelCache:
    """The app's cache of loaded models (explain on request, "what if")."""
    return request.app.state.models
