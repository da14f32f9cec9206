"""A retrain over HTTP: start it (202 + job id) and estimate it (its phases and expected duration)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from xmd.http.deps import DB, Annotator, Viewer, enqueue_of
from xmd.http.params import Id
from xmd.jobs.schemas import JobOut, job_out
from xmd.projects import service as projects_service
from xmd.retrain import estimate, flows
from xmd.retrain.schemas import RetrainEstimate, RetrainIn

router = APIRouter(prefix="/api", tags=["jobs"])


@router.post("/projects/{project_id}/jobs/retrain", status_code=202, response_model=JobOut)
def start_retrain(project_id: Id, body: RetrainIn, request: Request, db: DB, _: Annotator) -> JobOut:
    """Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return job_out(flows.start_retrain(db, enqueue_of(request), project, body))


@router.post("/projects/{project_id}/jobs/retrain/estimate", response_model=RetrainEstimate)
def estimate_retrain(project_id: Id, body: RetrainIn, db: DB, _: Viewer) -> RetrainEstimate:
    """The phases a retrain with these settings will run and its expected duration, from the rates the
    last retrain measured (nothing is started)."""
    project = projects_service.get_or_raise(db_session=db, project_id=project_id)
    return RetrainEstimate(**estimate.estimate_retrain(db, project, body))
