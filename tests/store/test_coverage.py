"""Coverage of the explanations (issue 15): how many training examples each version and method has
explained (what a ranking is built from, what the Data tab lists), and the explain jobs a retrain
starts under the version it made, so the screens that default to it do not rank a handful of examples."""

from __future__ import annotations

import random
from types import SimpleNamespace

from store_helpers import make_explanation, random_examples
from xmd.core.words import split_words
from xmd.datasets import service as datasets
from xmd.explanations import service as explanations
from xmd.jobs import service as jobs
from xmd.jobs.models import JobStatus
from xmd.projects import service as projects
from xmd.retrain.flows import explain_after
from xmd.versions import service as versions
from xmd.versions.models import ModelStatus

LABELS = ["neg", "pos"]


def _explain(db, mv, method: str, rows) -> None:
    rng = random.Random(3)
    items = [(r, make_explanation(r.text, [rng.uniform(-1, 1) for _ in split_words(r.text)[0]])) for r in rows]
    explanations.upsert_explanations(db_session=db, model_version=mv, method=method, items=items)


def _setup(db):
    project = projects.create(db_session=db, name="cov", labels=LABELS, model_source="m")
    rng = random.Random(1)
    train = datasets.add_dataset(
        db_session=db, project=project, name="train", role="train", examples=random_examples(30, rng, 2)
    )
    evals = datasets.add_dataset(
        db_session=db, project=project, name="anti", role="eval", examples=random_examples(8, rng, 2, "a")
    )
    v1 = versions.create_base(db_session=db, project=project, path="/m")
    v2 = versions.create_child(db_session=db, parent=v1, path="/m2", status=ModelStatus.READY)
    return project, train, evals, v1, v2


def test_explained_counts_per_dataset_version_and_method(db):
    project, train, evals, v1, v2 = _setup(db)
    rows = datasets.list_examples(db_session=db, dataset_id=train.id, limit=100)
    anti = datasets.list_examples(db_session=db, dataset_id=evals.id, limit=100)
    _explain(db, v1, "grad_x_input", rows)
    _explain(db, v1, "saliency", rows[:5])
    _explain(db, v2, "grad_x_input", rows[:2] + anti[:3])

    got = explanations.explained_counts(db_session=db, project_id=project.id)
    assert got == [
        (train.id, v1.id, 1, "grad_x_input", 30),
        (train.id, v1.id, 1, "saliency", 5),
        (train.id, v2.id, 2, "grad_x_input", 2),
        (evals.id, v2.id, 2, "grad_x_input", 3),
    ]
    one = explanations.explained_counts(
        db_session=db, project_id=project.id, model_version_id=v2.id, method="grad_x_input", dataset_id=train.id
    )
    assert one == [(train.id, v2.id, 2, "grad_x_input", 2)]
    assert explanations.explained_counts(db_session=db, project_id=project.id, method="occlusion") == []
    # rescoring an example does not count it twice
    _explain(db, v2, "grad_x_input", rows[:2])
    assert explanations.explained_counts(db_session=db, project_id=project.id, model_version_id=v2.id)[0][4] == 2


def test_a_retrain_starts_explaining_the_training_sets_under_its_version(db, tmp_path):
    project, train, _evals, _v1, v2 = _setup(db)
    projects.update_settings(db_session=db, project=project, settings={"method": "saliency"})
    sent: list = []
    ctx = SimpleNamespace(db=db, settings=None)
    started = explain_after(ctx, project, v2.id, [train], enqueue=lambda job, secrets=None: sent.append(job.id))
    assert len(started) == 1 and started[0]["job_id"] == sent[0] and started[0]["method"] == "saliency"
    job = jobs.get_or_raise(db_session=db, job_id=sent[0])
    assert job.kind == "explain" and job.status is JobStatus.QUEUED and job.project_id == project.id
    assert job.params["version_id"] == v2.id and job.params["dataset_id"] == train.id
    assert job.params["method"] == "saliency"


def test_a_queue_that_refuses_the_follow_up_leaves_a_failed_row_not_a_failed_retrain(db):
    project, train, _evals, _v1, v2 = _setup(db)

    def refuse(job, secrets=None):
        raise ConnectionError("broker down")

    started = explain_after(SimpleNamespace(db=db, settings=None), project, v2.id, [train], enqueue=refuse)
    assert started[0]["job_id"] is None and "unavailable" in started[0]["error"]
    (row,) = jobs.list_jobs(db_session=db, project_id=project.id)
    assert row.kind == "explain" and row.status is JobStatus.FAILED and "broker down" in row.error
