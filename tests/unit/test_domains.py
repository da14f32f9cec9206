"""The service's domains form a DAG, read from the source by AST (imports at module level and inside
functions alike): no two domains import each other, and every import between domains runs down the
order that backend/xmd/README.md states (a later domain may import an earlier one, never the reverse).

``test_layers.py`` checks the kinds of file (views above flows above stores); this checks the domains.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "backend" / "xmd"
DOMAINS = (
    "users",
    "jobs",
    "projects",
    "datasets",
    "versions",
    "feedback",
    "explanations",
    "teamwork",
    "retrain",
    "workspace",
)
"""Bottom up: a domain may import the ones before it."""
KNOWN_CYCLES: set[tuple[str, str]] = set()
"""Pairs that still import each other both ways: measured 2026-11-27, 12 of the 15 pairs among the six
non-user domains did; the last, ``datasets`` <-> ``explanations``, went on 2026-11-28 (the predictions
reader and the correct/incorrect filter moved to :mod:`xmd.explanations.predictions` and the delete's
aggregate update to a hook, both registered in ``datasets`` at import). Must stay empty."""


def domain_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "xmd" and parts[1] in DOMAINS else None


def domain_imports() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) → where: every import of one domain's module by another domain's file."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in DOMAINS:
        for path in sorted((ROOT / name).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    targets = [node.module]
                else:
                    continue
                for target in targets:
                    other = domain_of(target)
                    if other is not None and other != name:
                        found[(name, other)].append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
    return found


def both_ways() -> dict[tuple[str, str], list[str]]:
    edges = domain_imports()
    return {(a, b): edges[(a, b)] + edges[(b, a)] for a, b in edges if a < b and (b, a) in edges}


def test_the_scan_sees_imports_inside_functions():
    edges = domain_imports()
    # projects/service.py imports xmd.jobs.models inside lock_when_idle only (no module-level import of jobs)
    assert any(w.startswith("projects/service.py:") for w in edges[("projects", "jobs")]), edges.keys()


def test_no_two_domains_import_each_other():
    cycles = both_ways()
    new = {pair: where for pair, where in cycles.items() if pair not in KNOWN_CYCLES}
    assert new == {}, "\n".join(f"{a} <-> {b}:\n  " + "\n  ".join(w) for (a, b), w in new.items())
    gone = KNOWN_CYCLES - set(cycles)
    assert gone == set(), f"these pairs no longer import each other both ways: take them off KNOWN_CYCLES: {gone}"


def test_imports_run_down_the_order():
    """Stronger than no pair both ways (no cycle of three either): a domain imports only the ones before it
    in ``DOMAINS``, but for the pairs still in ``KNOWN_CYCLES``."""
    rank = {name: i for i, name in enumerate(DOMAINS)}
    up = {
        pair: where
        for pair, where in domain_imports().items()
        if rank[pair[0]] < rank[pair[1]] and tuple(sorted(pair)) not in KNOWN_CYCLES
    }
    assert up == {}, "\n".join(f"{a} -> {b}:\n  " + "\n  ".join(w) for (a, b), w in up.items())
    readme = (ROOT / "README.md").read_text()
    rows = [line.split("|") for line in readme.splitlines() if line.startswith("|")]
    listed = [cells[2].strip().strip("`") for cells in rows if len(cells) > 3 and cells[1].strip().isdigit()]
    assert listed == list(DOMAINS), "backend/xmd/README.md lists the domains in this order"


def test_schemas_are_pure_data():
    """A domain's schemas.py shapes what goes in and out; what it shows is read by its service.py."""
    stores = (".service", ".ranking", ".aggregates", ".flows", ".queue")
    for name in DOMAINS:
        path = ROOT / name / "schemas.py"
        if not path.exists():
            continue
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        bad = sorted(m for m in found if m.startswith("sqlalchemy") or m.endswith(stores))
        assert bad == [], f"{name}/schemas.py imports {bad}"
