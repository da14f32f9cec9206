"""Training steps as CUDA graphs (``TrainConfig.cuda_graphs``): record a step once, replay it for every batch.

Why: on a GPU a retrain step of a small model waits on the host issuing kernels, not on arithmetic (a plain
MiniLM step at batch 16 launches 570 kernels, the ER step with its second-order pass 2,390; ``bench/er_speed``).
A CUDA graph issues a recorded step's kernels in one launch. It needs every step to be the same program on
the same memory: the static step (:mod:`.static`) has fixed shapes and no host syncs; the optimiser is fused
AdamW with a device-side learning rate, so the schedule is not baked in.

A step of a batch without feedback replays the *plain* graph; a batch whose attribution term
``attribution_every`` skips, the *erasure* graph. The first :data:`WARMUP` steps of each graph run eagerly
(the same function, real steps of the run), as CUDA graph capture needs. On a CPU there is nothing to replay:
a run takes this step only on CUDA, and tests run the same static step eagerly on the CPU.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from xmd.core.modeling import LoadedModel
from xmd.core.retrain.batching import FeedbackTargets, feedback_tensors, pick_attribution_rows
from xmd.core.retrain.optim import adamw, graph_optimizer
from xmd.core.retrain.settings import ERConfig, TrainConfig
from xmd.core.retrain.steps import static
from xmd.core.types import Example

WARMUP = 2
"""Eager steps of each graph before it is recorded (lazy initialisation must not happen during capture)."""
CAPTURE = True
"""False runs the graphed steps eagerly on a GPU as well (bench/graphs_gpu/graphs_check.py compares the two)."""


def unsupported(config: TrainConfig, er: ERConfig | None) -> str | None:
    """Why a run cannot take graphed steps (None: it can)."""
    if config.grad_accum != 1:
        return "gradient accumulation"
    return None


class GraphedStep:
    """Runs each training step through the graph of its bucket and kind, recording graphs as they are needed.

    :meth:`run` works out the batch's feedback and attribution rows on the CPU (as the eager step does), puts
    the rows with feedback first, pads the batch and :meth:`replay` s its graph, which does what an eager step
    does up to and including the optimiser step (the learning-rate schedule stays outside: it writes the
    device-side rate the graphs read). ``capture`` False runs every step eagerly (the CPU, and tests)."""

    def __init__(
        self,
        model: torch.nn.Module,
        optim: torch.optim.Optimizer,
        config: TrainConfig,
        er: ERConfig | None,
        hide: tuple[int, ...],
        capture: bool,
        bf16: bool = False,
        targets: FeedbackTargets | None = None,
        er_gen: torch.Generator | None = None,
    ) -> None:
        self.model, self.optim, self.config, self.er, self.hide, self.capture = model, optim, config, er, hide, capture
        self.bf16, self.targets = bf16, targets or {}
        self.er_gen = er_gen if er_gen is not None else torch.Generator()
        self.taken: dict[str, int] = {}  # feedback examples' attribution-term count (ERConfig.attribution_rows)
        self.graphs: dict[tuple[int, str, int], dict] = {}
        self.record = {"graphs": 0, "eager_steps": 0, "replays": 0}

    def _eager(self, b: static.StaticBatch, kind: str, er_rows: int) -> torch.Tensor:
        self.optim.zero_grad(set_to_none=True)
        parts, loss = static.static_losses(self.model, b, self.er, kind, self.hide, er_rows)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optim.step()
        return parts

    def _amp(self):
        # Autocast's weight-cast cache would hold tensors made during capture: graphs need it off.
        device = next(self.model.parameters()).device
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=self.bf16, cache_enabled=False)

    def replay(self, host: static.StaticBatch, kind: str, er_rows: int | None = None) -> torch.Tensor:
        """One optimiser step on ``host`` (a padded CPU batch, its feedback rows within the first ``er_rows``);
        returns its ``[loss, task, ER, n_fb]``."""
        device = next(self.model.parameters()).device
        er_rows = host.input_ids.shape[0] if er_rows is None or kind == "plain" else er_rows
        key = (host.input_ids.shape[1], kind, er_rows)
        entry = self.graphs.get(key)
        if entry is None:
            entry = self.graphs[key] = {"batch": host.to(device), "warm": 0, "graph": None, "out": None}
        else:
            entry["batch"].copy_(host)
        if not self.capture or entry["warm"] < WARMUP:
            entry["warm"] += 1
            self.record["eager_steps"] += 1
            if not self.capture:
                with self._amp():
                    return self._eager(entry["batch"], kind, er_rows)
            side = torch.cuda.Stream(device)
            side.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(side), self._amp():
                parts = self._eager(entry["batch"], kind, er_rows)
            torch.cuda.current_stream(device).wait_stream(side)
            return parts
        if entry["graph"] is None:
            graph = torch.cuda.CUDAGraph()
            self.optim.zero_grad(set_to_none=True)
            with torch.cuda.graph(graph), self._amp():
                parts, loss = static.static_losses(self.model, entry["batch"], self.er, kind, self.hide, er_rows)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
                self.optim.step()
            entry["graph"], entry["out"] = graph, parts
            self.record["graphs"] += 1
        entry["graph"].replay()
        self.record["replays"] += 1
        return entry["out"].clone()

    def run(self, enc, batch: Sequence[Example], skip_attribution: bool) -> list[float]:
        er, config = self.er, self.config
        labels = torch.tensor([ex.label for ex in batch])
        fb = feedback_tensors(batch, self.targets, enc.max_words, torch.device("cpu")) if er is not None else None
        attr = None
        if fb is None:
            kind = "plain"
        elif er.objective != "erasure" and not skip_attribution:
            rows = (fb[1] != 0).any(dim=1)
            attr = pick_attribution_rows(rows, er.attribution_rows, self.er_gen, batch, self.taken)
            kind = "attribution"
        else:
            kind = "erasure"
        length = static.bucket(enc.input_ids.shape[1], config.max_length)
        if fb is None:
            host = static.StaticBatch.pad(enc, labels, None, None, config.batch_size, length)
            return self.replay(host, kind).tolist()
        with_fb = (fb[1] != 0).any(dim=1).tolist()
        order = [i for i, f in enumerate(with_fb) if f] + [i for i, f in enumerate(with_fb) if not f]
        host = static.StaticBatch.pad(enc, labels, fb[1], attr, config.batch_size, length, order)
        return self.replay(host, kind, static.er_rows(sum(with_fb), config.batch_size)).tolist()

    def update(self) -> None:
        """Nothing: a graphed step clipped and stepped the optimiser inside the graph."""


def wanted(config: TrainConfig, device: torch.device) -> bool:
    """Whether a run asks for graphed steps on a device that has them (tests patch it to run the static
    step eagerly on a CPU)."""
    return config.cuda_graphs and device.type == "cuda"


def takes_4d_mask(model: torch.nn.Module) -> bool:
    """Whether ``model`` reads the prepared 4-D mask of :func:`static.additive_mask` as it reads the 2-D padding mask.

    Encoders built on transformers' mask utilities (BERT, RoBERTa, DistilBERT, ELECTRA, ALBERT, …) take a 4-D
    mask as it is; others read it otherwise (DeBERTa-v2 turns it to bool, which inverts it) or refuse it. Two
    tiny forwards in eval mode, one padded row, compared: a model that fails keeps eager steps."""
    device = next(model.parameters()).device
    vocab = model.get_input_embeddings().num_embeddings
    ids = (torch.arange(8, device=device) % max(vocab - 2, 1) + 1).view(1, -1).repeat(2, 1)
    mask = torch.ones_like(ids)
    mask[1, 5:] = 0
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            ref = model(input_ids=ids, attention_mask=mask).logits.float()
            dtype = next(model.parameters()).dtype
            got = model(input_ids=ids, attention_mask=static.additive_mask(mask, dtype)).logits.float()
        return bool(torch.allclose(ref, got, rtol=1e-3, atol=1e-4))
    except (RuntimeError, ValueError, TypeError, IndexError):
        return False
    finally:
        model.train(was_training)


def build(
    loaded: LoadedModel,
    params: list[dict],
    config: TrainConfig,
    er: ERConfig | None,
    targets: FeedbackTargets,
    er_gen: torch.Generator,
    bf16: bool,
) -> tuple[GraphedStep | None, str | None]:
    """The graphed step of a run with its optimiser, or ``(None, why)`` where the run takes eager steps
    (``why`` is None where the run did not ask for graphs)."""
    device = loaded.device
    if not config.cuda_graphs:
        return None, None
    if not wanted(config, device):
        return None, f"no CUDA device (ran on {device.type})"
    if reason := unsupported(config, er):
        return None, reason
    if not takes_4d_mask(loaded.model):
        return None, "the model does not read a prepared 4-D attention mask as its padding mask"
    capture = device.type == "cuda" and CAPTURE
    optim = graph_optimizer(params, config.lr, device) if capture else adamw(params, config.lr, device)
    hide = static.hidden_kinds(er, targets) if er is not None else ()
    return GraphedStep(loaded.model, optim, config, er, hide, capture, bf16, targets, er_gen), None
