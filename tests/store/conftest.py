"""Store tests run every module on SQLite and on PostgreSQL (fixtures in tests/dbfixtures.py)."""

from dbfixtures import db, db_url, dialect, engine, session_factory

__all__ = ["db", "db_url", "dialect", "engine", "session_factory"]
