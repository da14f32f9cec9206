"""A project's job list over HTTP (listed with the other job routes, before ``xmd.jobs.views``). The
project routes themselves (create, list with counts, delete) are :mod:`xmd.workspace.views`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from xmd.http.deps import DB, Viewer, settings_of
from xmd.http.pagination import Offset
from xmd.http.params import Id
from xmd.jobs import flows as jobs_flows
from xmd.jobs.models import JobStatus
from xmd.jobs.queue import queue_for
from xmd.jobs.schemas import JobKind, JobPage
from xmd.jobs.supervision import notices_of
from xmd.projects import service

job_router = APIRouter(prefix="/api", tags=["jobs"])
"""A project's job list (listed with the other job routes, before ``xmd.jobs.views``)."""


@job_router.get("/projects/{project_id}/jobs", response_model=JobPage)
def list_jobs(
    project_id: Id,
    request: Request,
    db: DB,
    _: Viewer,
    status: JobStatus | None = None,
    kind: JobKind | None = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> JobPage:
    """The project's jobs, newest first; ``workers``: an embedded worker of ``xmd serve`` that died lately."""
    service.get_or_raise(db_session=db, project_id=project_id)
    settings = settings_of(request)
    filters = {"project_id": project_id, "status": status, "kind": kind}
    return jobs_flows.jobs_page(
        db, lambda k: queue_for(settings, k), filters, offset, limit, notices_of(request.app.state)
    )
