"""Every job kind, for the API and the worker alike: importing the module of each domain that runs jobs
registers its kinds and bodies (:mod:`xmd.jobs.kinds`), so ``jobs/`` itself knows none.

A composition root like :mod:`xmd.tables`; :mod:`xmd.app` and ``workers.tasks`` import it before any
view or body, so the kinds register in :data:`MODULES`' order (the API schema's ``JobKind`` enum lists
them so). A new kind: register it in its domain's module and name the module here; no migration.
"""

from __future__ import annotations

import importlib

from xmd.jobs import kinds

MODULES = (
    "xmd.explanations.flows",  # explain
    "xmd.retrain.flows",  # retrain
    "xmd.retrain.calibration",  # (the retrain's calibration inside the explain job)
    "xmd.retrain.forecast",  # forecast
    "xmd.versions.flows",  # evaluate
    "xmd.versions.hub",  # push
    "xmd.workspace.demo",  # prepare_demo
    "xmd.workspace.from_data",  # from_data
    "xmd.feedback.flows",  # import
    "xmd.teamwork.hub",  # push_feedback
)
for _module in MODULES:
    importlib.import_module(_module)

KINDS = tuple(kinds.names())
"""The registered kinds."""
