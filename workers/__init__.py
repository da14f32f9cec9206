"""Celery workers: explain / retrain / evaluate / push jobs, thin wrappers around ``xmd.core``.

Workers import the core and the store, never FastAPI. The jobs table is the source of truth; see
``workers.runtime`` for the job life cycle and ``workers.launch`` to start a worker process.
"""
