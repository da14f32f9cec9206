"""Celery workers: one task per registered job kind (``xmd.jobs.kinds``). Each task opens a session and calls the
job body its domain registered (``xmd.job_kinds`` imports them all);
no domain rule and no table update lives here. Workers never import FastAPI.

The jobs table is the source of truth; see ``xmd.jobs.runner`` for the job life cycle and
``workers.launch`` to start a worker process.
"""
