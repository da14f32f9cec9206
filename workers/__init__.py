"""Celery workers: explain / retrain / evaluate / push jobs. Each task opens a session and calls the
job body its domain defines (``xmd.explanations.flows``, ``xmd.versions.flows``, ``xmd.versions.hub``);
no domain rule and no table update lives here. Workers never import FastAPI.

The jobs table is the source of truth; see ``xmd.jobs.runner`` for the job life cycle and
``workers.launch`` to start a worker process.
"""
