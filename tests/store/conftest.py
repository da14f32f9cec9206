"""Store tests run every module on SQLite and on PostgreSQL (fixtures in tests/dbfixtures.py). Every job
kind is registered first (``xmd.job_kinds``), as in the API and the worker: a job row's kind is checked
against the registry."""

from dbfixtures import db, db_url, dialect, engine, session_factory
from xmd import job_kinds  # noqa: F401 - the domains register their job kinds

__all__ = ["db", "db_url", "dialect", "engine", "session_factory"]
