"""Deletes: what cascades, what is kept (the feedback log), and what is refused (a parent version)."""

from __future__ import annotations

import pytest
import xmd.tables as m
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from store_helpers import make_explanation
from xmd.core.types import Example as CoreExample
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.explanations import service as explanations
from xmd.feedback import service as feedback
from xmd.jobs import service as jobs
from xmd.projects import service as projects
from xmd.users import service as users
from xmd.versions import service as versions


def _count(db, model) -> int:
    return db.scalar(select(func.count()).select_from(model))


def _fill(db, name: str):
    user = users.create_user(db_session=db, name=f"u-{name}", role="admin")
    project = projects.create(db_session=db, name=name, labels=["a", "b"], model_source="m", created_by=user.id)
    ds = datasets.add_dataset(
        db_session=db,
        project=project,
        name="train",
        role="train",
        examples=[CoreExample(id="1", text="good film", label=1), CoreExample(id="2", text="bad film", label=0)],
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id)
    base = versions.create_base(db_session=db, project=project, path=f"/{name}/v1")
    child = versions.create_child(db_session=db, parent=base, path=f"/{name}/v2")
    items = [(r, make_explanation(r.text, [1.0] * len(split_words(r.text)[0]))) for r in rows]
    for mv in (base, child):
        explanations.upsert_explanations(db_session=db, model_version=mv, method="saliency", items=items)
    feedback.set_feedback(db_session=db, project=project, action="remove", example=rows[0], word_index=1)
    feedback.set_feedback(db_session=db, project=project, action="remove", word="film")
    job = jobs.create(db_session=db, kind="retrain", project_id=project.id)
    jobs.mark_running(db_session=db, job_id=job.id)
    jobs.report_progress(db_session=db, job_id=job.id, progress=5, step=1, loss=0.3)
    return user, project, ds, rows, base, child


def test_deleting_a_project_removes_everything_it_owns(db):
    _fill(db, "keep")
    before = {t.name: _count(db, t) for t in m.metadata.sorted_tables}
    _user, project, *_ = _fill(db, "drop")
    projects.delete(db_session=db, project=project)
    after = {t.name: _count(db, t) for t in m.metadata.sorted_tables}
    # Every project-owned table is back to what the other project holds; users survive.
    owned = {k: v for k, v in before.items() if k not in ("users", "api_tokens")}
    assert {k: after[k] for k in owned} == owned
    assert after["users"] == before["users"] + 1
    assert after["explanations"] == 4 and after["word_aggregates"] > 0  # the other project's, untouched


def test_deleting_an_example_cascades_but_keeps_the_feedback_log(db):
    _user, project, _ds, rows, _base, _child = _fill(db, "p")
    db.execute(delete(m.Example).where(m.Example.id == rows[0].id))
    db.commit()
    assert _count(db, m.Explanation) == 2  # the other example's, for both versions
    assert (
        db.scalar(select(func.count()).select_from(m.WordOccurrence).where(m.WordOccurrence.example_id == rows[0].id))
        == 0
    )
    # Current instance feedback on the example is gone; its event stays, example_id set to NULL.
    assert [f.level.value for f in feedback.list_feedback(db_session=db, project_id=project.id)] == ["task"]
    events = db.scalars(select(m.FeedbackEvent).order_by(m.FeedbackEvent.id)).all()
    assert len(events) == 2 and events[0].example_id is None and events[0].word == "film"


def test_deleting_a_dataset_or_version(db):
    user, project, ds, _rows, base, child = _fill(db, "p")
    # A version with children cannot be deleted alone: the lineage must stay whole.
    with pytest.raises(IntegrityError):
        db.execute(delete(m.ModelVersion).where(m.ModelVersion.id == base.id))
        db.commit()
    db.rollback()
    db.execute(delete(m.ModelVersion).where(m.ModelVersion.id == child.id))
    db.commit()
    assert db.scalar(select(func.count()).select_from(m.Explanation)) == 2
    assert db.scalar(select(func.count()).select_from(m.AggregateState)) == 1

    datasets.delete_dataset(db_session=db, dataset=ds)
    assert _count(db, m.Example) == 0 and _count(db, m.Explanation) == 0 and _count(db, m.WordAggregate) == 0
    assert explanations.get_state(db_session=db, model_version_id=base.id, method="saliency").n_examples == 0
    # Deleting a user keeps their feedback (authorship set to NULL) and deletes their tokens.
    users.create_token(db_session=db, user=user)
    db.delete(user)
    db.commit()
    assert _count(db, m.ApiToken) == 0 and _count(db, m.FeedbackEvent) == 2
    assert db.scalar(select(m.Project.created_by).where(m.Project.id == project.id)) is None


def test_deleting_a_job_deletes_its_metrics(db):
    _fill(db, "p")
    assert _count(db, m.JobMetric) == 1
    db.execute(delete(m.Job))
    db.commit()
    assert _count(db, m.JobMetric) == 0
