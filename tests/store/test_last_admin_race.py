"""Two admins demoting or deleting each other at once must leave one admin (issue 31), on SQLite and
PostgreSQL. Each trial runs the pair in two threads on two sessions; the count of the other admins is
slowed down so that, without serialisation, both requests see "one other admin" before either writes
(the race the hostile test hit in 4 of 13 trials); with the lock the second waits, counts again and
gets a ConflictError."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from xmd.db.errors import ConflictError
from xmd.users import service
from xmd.users.models import Role, User

TRIALS = 8


def _demote(s: Session, uid: int) -> None:
    service.set_role(db_session=s, user=service.get_or_raise(db_session=s, user_id=uid), role=Role.VIEWER)


def _delete(s: Session, uid: int) -> None:
    service.delete_user(db_session=s, user=service.get_or_raise(db_session=s, user_id=uid))


def _fire_pair(factory: sessionmaker[Session], first: Callable, second: Callable, ids: tuple[int, int]) -> list[str]:
    barrier = threading.Barrier(2)
    outcome: list[str] = []

    def run(action: Callable, uid: int) -> None:
        with factory() as s:
            service.get_or_raise(db_session=s, user_id=uid)  # the request's own reads come first
            barrier.wait()
            try:
                action(s, uid)
                outcome.append("ok")
            except ConflictError:
                outcome.append("409")

    threads = [threading.Thread(target=run, args=(a, u)) for a, u in ((first, ids[0]), (second, ids[1]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return outcome


@pytest.mark.parametrize(
    ("first", "second"), [(_demote, _demote), (_delete, _delete), (_demote, _delete)], ids=["patch", "delete", "mix"]
)
def test_two_admins_removing_each_other_leave_one_admin(
    db: Session, session_factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch, first, second
):
    counted = service._other_admins

    def slow_count(s: Session, user: User) -> int:
        n = counted(s, user)
        time.sleep(0.05)  # widen the window between the check and the write
        return n

    monkeypatch.setattr(service, "_other_admins", slow_count)
    for trial in range(TRIALS):
        a = service.create_user(db_session=db, name=f"a{trial}", role=Role.ADMIN)
        b = service.create_user(db_session=db, name=f"b{trial}", role=Role.ADMIN)
        outcome = _fire_pair(session_factory, first, second, (a.id, b.id))
        db.expire_all()
        admins = db.scalar(select(func.count()).select_from(User).where(User.role == Role.ADMIN))
        assert sorted(outcome) == ["409", "ok"] and admins == 1, (trial, outcome, admins)
        for u in db.scalars(select(User)).all():
            db.delete(u)
        db.commit()
