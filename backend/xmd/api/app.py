"""The FastAPI application factory.

The app refuses to start on a database that is not at the migration head, with the command that
fixes it, instead of failing on the first request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import Depends, FastAPI
from sqlalchemy import Engine

from xmd import __version__
from xmd.api import errors
from xmd.api.deps import current_user
from xmd.config import Settings
from xmd.db.engine import make_engine, make_session_factory
from xmd.db.migrate import check_migrated
from xmd.users.models import User


def create_app(settings: Settings | None = None, *, engine: Engine | None = None) -> FastAPI:
    """Build the app; ``engine`` lets tests share one database with their fixtures."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        eng = engine or make_engine(settings.database_url, data_dir_path=settings.data_dir)
        check_migrated(eng)
        app.state.engine = eng
        app.state.session_factory = make_session_factory(eng)
        app.state.settings = settings
        yield
        if engine is None:
            eng.dispose()

    app = FastAPI(
        title="xmd",
        version=__version__,
        description="Explanation-based debugging of NLP classifiers with people in the loop.",
        lifespan=lifespan,
    )
    errors.install(app)

    @app.get("/api/health", tags=["meta"])
    def health() -> dict[str, str]:
        """Liveness: answers without authentication."""
        return {"status": "ok", "version": __version__}

    @app.get("/api/me", tags=["users"])
    def me(user: Annotated[User, Depends(current_user)]) -> dict[str, str | int]:
        """Who the token belongs to, and their role."""
        return {"id": user.id, "name": user.name, "role": user.role.value}

    return app
