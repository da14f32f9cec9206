"""Helpers for API tests: a client wrapper that sends a role's token, and demo data as upload bytes."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from xmd.config import Settings
from xmd.core.demo import make_demo_dataset
from xmd.jobs.models import Job


@dataclass
class Api:
    client: TestClient
    tokens: dict[str, str]
    sent: list[tuple[Job, dict[str, str] | None]] = field(default_factory=list)
    settings: Settings | None = None

    def h(self, role: str = "admin") -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[role]}"}

    def get(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.get(url, headers=self.h(role), **kw)

    def post(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.post(url, headers=self.h(role), **kw)

    def put(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.put(url, headers=self.h(role), **kw)

    def delete(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.delete(url, headers=self.h(role), **kw)

    def patch(self, url: str, role: str = "admin", **kw: Any) -> Any:
        return self.client.patch(url, headers=self.h(role), **kw)


def make_settings(tmp_path: Path, **kw: Any) -> Settings:
    """Settings in ``tmp_path``; local model paths allowed (the tests' models are folders; the rule
    itself is tested in tests/api/test_model_paths.py)."""
    kw.setdefault("allow_local_model_paths", True)
    return Settings(data_dir=tmp_path / "data", **kw)


def demo_csv(n: int = 40, seed: int = 0, split: str = "train") -> bytes:
    """Demo shortcut data (labels as names) as CSV bytes."""
    examples = make_demo_dataset(n_train=n, n_clean=n, n_anti=n, seed=seed)[split]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label"])
    for ex in examples:
        w.writerow([ex.id, ex.text, ["negative", "positive"][ex.label]])
    return buf.getvalue().encode()
