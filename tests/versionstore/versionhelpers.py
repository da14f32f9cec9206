"""Helpers for the version-store tests: build a version folder, read one back, list what a store holds."""

from __future__ import annotations

from pathlib import Path

from xmd.storage import LocalStore, VersionStore


def make_version(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True)
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def read_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def everything_stored(store: VersionStore) -> list[str]:
    """Every file or object the store holds, hidden ones included: what a failed write might leave."""
    if isinstance(store, LocalStore):
        if not store.root.exists():
            return []
        return sorted(p.relative_to(store.root).as_posix() for p in store.root.rglob("*") if not p.is_dir())
    pages = store.client.get_paginator("list_objects_v2").paginate(Bucket=store.bucket)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", []))


FILES = {
    "config.json": b'{"architectures": ["BertForSequenceClassification"]}',
    "model.safetensors": bytes(range(256)) * 1024,
    "tokenizer/vocab.txt": b"[PAD]\n[UNK]\nthe\n",
}
