"""Secrets a job needs (a per-request Hub token) split in two so that nothing that persists holds them.

The broker keeps messages on disk (the embedded broker's ``broker.db``, Redis' snapshots) long after
a job ends, and the database is backed up; so neither may hold a token. :func:`seal` draws a random
pad as long as the secret, stores ``secret XOR pad`` in ``job_secrets`` (the database the worker
shares with the API wherever it runs) and returns the pad, which is all the message carries.
:func:`unseal` — the worker, once — joins both halves and deletes the row in the same transaction,
so a redelivered or replayed message finds nothing. Either half alone is uniformly random: a stale
``broker.db`` or a leftover SQLite page tells nothing about the token. Rows nobody read (the job was
cancelled while queued, the broker refused it) are dropped by :func:`discard` and :func:`expire`.
"""

from __future__ import annotations

import secrets as random
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from xmd.db.base import utcnow
from xmd.jobs.models import JobSecret

MAX_AGE = timedelta(days=1)
"""A sealed half nobody read within this time is deleted by the sweeper."""


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


def seal(db_session: Session, job_id: str, secrets: dict[str, str] | None) -> dict[str, str] | None:
    """Store each secret's sealed half for ``job_id`` (committed) and return the pads (hex) for the message."""
    if not secrets:
        return None
    pads: dict[str, str] = {}
    for name, value in secrets.items():
        raw = value.encode()
        pad = random.token_bytes(len(raw))
        db_session.add(JobSecret(job_id=job_id, name=name, sealed=_xor(raw, pad).hex()))
        pads[name] = pad.hex()
    db_session.commit()
    return pads


def unseal(db_session: Session, job_id: str, pads: dict[str, str] | None) -> dict[str, str]:
    """The job's secrets, read once: the stored halves are deleted (committed) whatever the pads say."""
    rows = {r.name: r.sealed for r in db_session.scalars(select(JobSecret).where(JobSecret.job_id == job_id))}
    discard(db_session, job_id)
    out: dict[str, str] = {}
    for name, pad in (pads or {}).items():
        sealed = rows.get(name)
        if sealed is None:
            continue  # already read (a redelivery) or expired: the job runs without it
        try:
            out[name] = _xor(bytes.fromhex(sealed), bytes.fromhex(pad)).decode()
        except ValueError:  # a pad of another length or not hex: not this secret's half
            continue
    return out


def discard(db_session: Session, job_id: str) -> None:
    """Delete ``job_id``'s stored halves (committed)."""
    db_session.execute(delete(JobSecret).where(JobSecret.job_id == job_id))
    db_session.commit()


def expire(db_session: Session, max_age: timedelta = MAX_AGE) -> int:
    """Delete halves older than ``max_age`` (committed); returns how many."""
    result = db_session.execute(delete(JobSecret).where(JobSecret.created_at < utcnow() - max_age))
    db_session.commit()
    return result.rowcount or 0
