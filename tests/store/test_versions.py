"""Model versions: numbering per project, lineage, paths never rewritten, concurrent retrains."""

from __future__ import annotations

import threading

import pytest
from xmd.db import ConflictError, NotFoundError
from xmd.projects import service as projects
from xmd.versions import service as versions
from xmd.versions.models import ModelKind, ModelStatus


@pytest.fixture()
def project(db):
    return projects.create(db_session=db, name="p", labels=["neg", "pos"], model_source="hub/model")


def test_numbering_and_lineage(db, project):
    other = projects.create(db_session=db, name="other", labels=["a"], model_source="m")
    base = versions.create_base(db_session=db, project=project, path="/models/base", metrics={"acc": 0.9})
    assert (base.version, base.kind, base.status, base.name) == (1, ModelKind.BASE, ModelStatus.READY, "v1")
    assert versions.create_base(db_session=db, project=other, path="/o").version == 1  # numbered per project

    v2 = versions.create_child(db_session=db, parent=base, path="/models/p/v{version}", feedback_snapshot={"task": []})
    v3 = versions.create_child(db_session=db, parent=v2, path="/models/p/v{version}", name="no spielberg")
    v4 = versions.create_child(db_session=db, parent=base, path="/models/p/v{version}")
    assert [v.version for v in (v2, v3, v4)] == [2, 3, 4]
    assert v2.path == "/models/p/v2" and v3.name == "no spielberg" and v2.status is ModelStatus.TRAINING
    assert v2.kind is ModelKind.DEBUGGED and v2.feedback_snapshot == {"task": []} and base.feedback_snapshot is None

    assert [v.version for v in versions.lineage(db_session=db, model_version=v3)] == [1, 2, 3]
    assert [v.version for v in versions.lineage(db_session=db, model_version=v4)] == [1, 4]
    assert [v.version for v in versions.lineage(db_session=db, model_version=base)] == [1]
    assert [v.version for v in versions.children(db_session=db, model_version=base)] == [2, 4]
    assert [v.version for v in versions.list_versions(db_session=db, project_id=project.id)] == [1, 2, 3, 4]

    # Finishing a training run records status and metrics; the parent's row is untouched.
    versions.mark_ready(
        db_session=db, model_version=v2, metrics={"acc": 0.95}, feedback_snapshot=v2.feedback_snapshot, config=v2.config
    )
    with pytest.raises(ConflictError, match="marked failed"):  # only a version still training becomes ready
        versions.mark_ready(db_session=db, model_version=v2, metrics={}, feedback_snapshot=None, config={})
    db.expire_all()
    v2 = versions.get_or_raise(db_session=db, model_version_id=v2.id)
    base = versions.get_or_raise(db_session=db, model_version_id=base.id)
    assert v2.status is ModelStatus.READY and v2.metrics == {"acc": 0.95} and v2.path == "/models/p/v2"
    assert base.path == "/models/base" and base.metrics == {"acc": 0.9}
    with pytest.raises(ConflictError, match="new path"):
        versions.create_child(db_session=db, parent=v2, path="/models/base")
    with pytest.raises(NotFoundError):
        versions.get_or_raise(db_session=db, model_version_id=10_000)


def test_concurrent_retrains_get_distinct_numbers(db, project, session_factory):
    base = versions.create_base(db_session=db, project=project, path="/m/base")
    n = 8
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []
    got: list[int] = []

    def worker() -> None:
        with session_factory() as s:
            try:
                parent = versions.get_or_raise(db_session=s, model_version_id=base.id)
                s.commit()
                barrier.wait(timeout=30)
                mv = versions.create_child(db_session=s, parent=parent, path="/m/v{version}")
                got.append(mv.version)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(got) == list(range(2, n + 2))
