"""The service's layers, read from the source: no import runs from a lower layer to a higher one except
the few named in backend/xmd/README.md, and no view imports another domain's view.

Layers, bottom up: core (0); config, db and the version store (1); each domain's store — tables, queries, the job queue
and job context (2); the HTTP kit (3); each domain's schemas and flows, which orchestrate several
domains, and the job runner (4); views and the workers' tasks, the two front ends of the flows (5); the composition root
and entry points: app, serve, cli (6).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPPER = {
    "schemas": 4,
    "flows": 4,
    "hub": 4,
    "runner": 4,
    "controls": 4,
    "followup": 4,
    "estimate": 4,
    "calibration": 4,
    "forecast": 4,
    "demo": 4,
    "from_data": 4,
    "finetune": 4,
    "views": 5,
}
TOP = ("app", "serve", "cli", "tables")
"""Composition roots and entry points: the router list, the table list, the commands."""
FRONT = ("job_kinds",)
"""Every job kind (the domains' modules that register them), for the two front ends: the API and the worker."""


def layer(module: str) -> int:
    parts = module.split(".")
    if parts[0] == "workers":
        return 5
    if len(parts) == 1:
        return 0  # xmd/__init__.py holds the version only
    if parts[1] in FRONT:
        return 5
    if parts[1] in TOP or parts[1].startswith("cli_"):
        return 6  # cli_<group>.py: a command group of the CLI, an entry point like cli.py
    top = parts[1]
    if top == "core":
        return 0
    if top in ("config", "db", "storage"):
        return 1
    if top == "http":
        return 3
    last = parts[2] if len(parts) > 2 else "__init__"
    if last in UPPER:
        return UPPER[last]
    return 2


def modules() -> dict[str, Path]:
    out = {}
    for base in (ROOT / "backend", ROOT):
        pkg = "xmd" if base.name == "backend" else "workers"
        for path in sorted((base / pkg).rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            name = ".".join(p for p in rel.parts if p != "__init__")
            out[name] = path
    return out


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def edges() -> list[tuple[str, str]]:
    mods = modules()
    out = []
    for name, path in mods.items():
        for target in imports(path):
            if target in mods and target != name:
                out.append((name, target))
    return out


def upward() -> list[tuple[str, str]]:
    return sorted((a, b) for a, b in edges() if layer(b) > layer(a))


def test_upward_imports_are_the_named_few():
    found = upward()
    assert len(found) <= 5, found
    readme = (ROOT / "backend" / "xmd" / "README.md").read_text()
    for a, b in found:
        assert f"`{a}` → `{b}`" in readme, f"upward import {a} -> {b} is not named in backend/xmd/README.md"


def test_no_view_imports_another_view():
    bad = [(a, b) for a, b in edges() if a.endswith(".views") and b.endswith(".views")]
    assert bad == []


def test_the_core_imports_nothing_of_the_service():
    bad = [(a, b) for a, b in edges() if layer(a) == 0 and layer(b) > 0]
    assert bad == []
    for name, path in modules().items():
        if layer(name) == 0:
            assert not {i.split(".")[0] for i in imports(path)} & {"sqlalchemy", "fastapi", "celery"}, name


def test_no_file_of_the_service_or_the_core_is_over_450_lines():
    long = {n: len(p.read_text().splitlines()) for n, p in modules().items()}
    assert {n: k for n, k in long.items() if k > 450} == {}
