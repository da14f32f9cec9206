"""The store's plumbing: declarative base, engines and sessions, migrations.

Tables live next to their service functions, one folder per domain (``xmd.users``, ``xmd.projects``,
``xmd.datasets``, ``xmd.versions``, ``xmd.explanations``, ``xmd.feedback``, ``xmd.jobs``).
"""

from xmd.db.base import Base, utcnow
from xmd.db.engine import database_url, make_engine, make_session_factory
from xmd.db.errors import ConflictError, NotFoundError, SchemaNotMigratedError, StoreError
from xmd.db.migrate import check_migrated, downgrade, upgrade

__all__ = [
    "Base",
    "ConflictError",
    "NotFoundError",
    "SchemaNotMigratedError",
    "StoreError",
    "check_migrated",
    "database_url",
    "downgrade",
    "make_engine",
    "make_session_factory",
    "upgrade",
    "utcnow",
]
