"""How many tokens per forward + backward pass integrated gradients should use on this machine.

Why: ``explain(method="integrated_gradients")`` evaluates n_steps interpolated copies of every text.
Run as one pass per batch (32 texts x 50 steps, what Captum does without ``internal_batch_size``) it was
0.42x the speed of the per-example Captum loop on a CPU: the activations of such a pass outgrow the
caches. ``xmd.core.attribution`` therefore cuts the (text, step) rows into passes of about
``IG_TOKEN_BUDGET`` tokens; this script times that choice against other budgets, one pass per batch,
the previous Captum-based implementation and the per-example Captum loop, on the same texts.

    python -m bench.attribution.ig_chunking [--n 96] [--n-steps 20] [--budgets 512 1024 2048 4096 8192]

Prints one JSON document; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from typing import Any

import torch
from xmd.core import attribution
from xmd.core.attribution import explain
from xmd.core.modeling import LoadedModel
from xmd.core.words import encode

from bench.attribution.attribution_throughput import peer_ig_loop
from bench.benchlib import (
    demo_train,
    emit,
    environment,
    load_average,
    load_demo_model,
    log,
    median,
    resolve_device,
    set_threads,
    time_call,
)


def captum_batched(loaded: LoadedModel, texts: Sequence[str], n_steps: int, batch_size: int, max_length: int) -> None:
    """The implementation before the chunked one: Captum ``LayerIntegratedGradients`` on a whole batch.

    Same length-sorted batches, targets (the predicted class) and baseline as ``explain``.
    """
    from captum.attr import LayerIntegratedGradients

    model = loaded.model

    def forward(input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        return model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits

    lig = LayerIntegratedGradients(forward, model.get_input_embeddings())
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        enc = encode(loaded.tokenizer, [texts[i] for i in order[start : start + batch_size]], max_length=max_length)
        enc = enc.to(loaded.device)
        with torch.no_grad():
            targets = model(**enc.model_inputs()).logits.argmax(dim=-1)
        tt = enc.token_type_ids if enc.token_type_ids is not None else torch.zeros_like(enc.input_ids)
        lig.attribute(
            inputs=enc.input_ids,
            baselines=attribution._baseline_ids(loaded, enc),
            additional_forward_args=(enc.attention_mask, tt),
            target=targets,
            n_steps=n_steps,
            return_convergence_delta=True,
        )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=96, help="random demo train texts (seeded), the same for every variant")
    p.add_argument("--n-steps", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-length", type=int, default=256)
    p.add_argument("--budgets", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    loadavg_start = load_average()
    set_threads(args.threads)
    device = resolve_device(args.device)
    loaded = load_demo_model(device, seed=args.seed)
    loaded.model.eval()
    texts = random.Random(args.seed).sample([ex.text for ex in demo_train(2000, seed=args.seed)], args.n)

    def chunked(budget: int | None) -> Callable[[], object]:
        def run() -> object:
            # None: one pass per batch.
            attribution.IG_TOKEN_BUDGET = attribution.IG_TOKEN_BUDGET_GPU = budget or 10**9
            return explain(
                loaded,
                texts,
                method="integrated_gradients",
                n_steps=args.n_steps,
                batch_size=args.batch_size,
                max_length=args.max_length,
            )

        return run

    defaults = attribution.IG_TOKEN_BUDGET, attribution.IG_TOKEN_BUDGET_GPU
    variants: dict[str, Callable[[], object]] = {str(b): chunked(b) for b in args.budgets}
    variants["whole batch"] = chunked(None)
    variants["captum (previous)"] = lambda: captum_batched(
        loaded, texts, args.n_steps, args.batch_size, args.max_length
    )
    variants["per-example loop"] = lambda: peer_ig_loop(loaded, texts, args.n_steps, args.max_length)
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for r in range(args.repeats):  # round-robin, so drift in machine load hits every variant alike
        for name, fn in variants.items():
            t = time_call(fn, device)
            seconds[name].append(t)
            log(f"repeat {r + 1}/{args.repeats} {name}: {t:.2f}s ({len(texts) / t:.1f} ex/s)")
    attribution.IG_TOKEN_BUDGET, attribution.IG_TOKEN_BUDGET_GPU = defaults
    loop = median(seconds["per-example loop"])
    results: dict[str, dict[str, Any]] = {}
    for name in variants:
        med = median(seconds[name])
        results[name] = {
            "seconds": seconds[name],
            "median_s": med,
            "examples_per_s": len(texts) / med,
            "vs_peer_loop": loop / med,
        }
    emit(
        {
            "benchmark": "ig_chunking",
            "environment": environment(device, loadavg_start),
            "params": {
                "n": len(texts),
                "n_steps": args.n_steps,
                "batch_size": args.batch_size,
                "max_length": args.max_length,
                "budgets": args.budgets,
                "library_default_budget": defaults[0] if device.type == "cpu" else defaults[1],
                "repeats": args.repeats,
                "seed": args.seed,
                "texts": f"random.Random({args.seed}).sample of the demo train split",
            },
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
