"""The real-data section of BENCHMARKS.md and its figure, from ``bench/results/real_data*.json`` alone.

Kept out of ``report.py`` (already long) so that the HateXplain benchmark's table, targets, dev-split
candidates and plot live beside each other; ``report.py`` calls :func:`section` and :func:`draw`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ARM_NAMES = {
    "base": "fine-tuned base (before)",
    "lambda0": "λ = 0 (continued training)",
    "remove": "**debugged**: remove identity words",
    "deletion": "deletion (words cut from the texts)",
    "rationale_add": "**debugged**: add rationale words",
}
CREDIT = (
    "Data: **HateXplain** — B. Mathew, P. Saha, S. M. Yimam, C. Biemann, P. Goyal, A. Mukherjee, "
    '"HateXplain: A Benchmark Dataset for Explainable Hate Speech Detection", AAAI 2021; MIT licence. '
    "Its official validation and test splits are used (the training split is not in this checkout)."
)


def _ms(s: dict[str, Any] | None, scale: float = 1.0, digits: int = 3) -> str:
    if not s:
        return "–"
    m = s["mean"] * scale
    if s["n"] < 2:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {s['std'] * scale:.{digits}f}"


def _v(x: float | None, scale: float = 1.0, digits: int = 3) -> str:
    return "–" if x is None else f"{x * scale:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return [*out, *("| " + " | ".join(r) + " |" for r in rows), ""]


def _main_table(doc: dict[str, Any]) -> list[str]:
    base, arms = doc["base"], doc["summary"]["arms"]
    t = base["test"]
    rows = [
        [
            ARM_NAMES["base"],
            "–",
            _v(t["accuracy"]),
            _v(t["macro_f1"]),
            _v(t["fpr_identity"]),
            _v(t["fpr_other"]),
            _v((base.get("shares") or {}).get("grad_x_input")),
            _v((base.get("shares") or {}).get("occlusion")),
            _v((base.get("plausibility") or {}).get("auprc")),
            _v((base.get("plausibility") or {}).get("token_f1")),
        ]
    ]
    for arm in ("lambda0", "remove", "deletion", "rationale_add"):
        a = arms.get(arm)
        if not a:
            continue
        rows.append(
            [
                ARM_NAMES[arm],
                str(a["accuracy"]["n"]),
                _ms(a.get("accuracy")),
                _ms(a.get("macro_f1")),
                _ms(a.get("fpr_identity")),
                _ms(a.get("fpr_other")),
                _ms(a.get("share_grad_x_input")),
                _ms(a.get("share_occlusion")),
                _ms(a.get("auprc")),
                _ms(a.get("token_f1")),
            ]
        )
    return _table(
        [
            "model (test.csv)",
            "seeds",
            "accuracy",
            "macro-F1",
            "identity FPR¹",
            "other FPR²",
            "id. share, grad x input³",
            "id. share, occlusion³",
            "AUPRC⁴",
            "token-F1⁴",
        ],
        rows,
    )


def _comparisons(doc: dict[str, Any]) -> list[str]:
    if not doc["summary"]["comparisons"]:
        return ["No comparison yet: no debugged arm and its control both finished (see above).", ""]
    rows = []
    for key, c in doc["summary"]["comparisons"].items():
        arm_control, metric = key.split(":")
        arm, control = arm_control.split("_vs_")
        rows.append(
            [
                ARM_NAMES.get(arm, arm).replace("**", ""),
                ARM_NAMES.get(control, control),
                metric,
                ", ".join(f"{d:+.3f}" for d in c["per_seed_diff"]),
                f"{c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}]",
                _v(c.get("seed_noise")),
                f"**{c['verdict'].replace('_', ' ')}**",
            ]
        )
    return _table(["debugged", "vs control", "metric", "per seed", "mean [95 % CI]", "seed noise", "verdict"], rows)


def _targets(doc: dict[str, Any]) -> list[str]:
    names = {
        "fpr_identity_relative_drop": "identity FPR down (relative to the base)",
        "accuracy_change_points": "accuracy change (points, vs the base)",
        "fpr_identity_better_than_lambda0": "identity FPR better than λ = 0 beyond noise",
        "fpr_identity_better_than_deletion": "identity FPR better than deletion beyond noise",
        "auprc_better_than_lambda0": "rationale add: AUPRC better than λ = 0 beyond noise",
    }
    if not doc["summary"]["targets"]:
        return ["**Not measured**: the arms the targets compare did not finish (see above).", ""]
    rows = []
    for key, t in doc["summary"]["targets"].items():
        value = t["value"].replace("_", " ") if isinstance(t["value"], str) else f"{t['value']:.3f}"
        rows.append(
            [names.get(key, key), f"{t['op']} {t['threshold']}", value, "**met**" if t["met"] else "**missed**"]
        )
    return _table(["target", "threshold", "measured", ""], rows)


def _dev(dev: dict[str, Any] | None, doc: dict[str, Any] | None = None) -> list[str]:
    lines = ["### Candidates on the dev split", ""]
    if not dev:
        return [*lines, "Not measured yet (`bench/real_data_dev.py`).", ""]
    c = dev["config"]
    b = dev["base"]
    lines += [
        f"`bench/real_data_dev.py`: {c['split']}; seed {c['seed']}, {c['epochs']} epochs, dev metrics after every "
        "epoch (what early stopping would see). Identity FPR on the dev split rests on "
        f"{b['dev']['n_normal_identity']} normal posts with an identity word, so one post moves it by "
        f"{1 / max(b['dev']['n_normal_identity'], 1):.3f}. Base model on dev: accuracy {b['dev']['accuracy']:.3f}, "
        f"identity FPR {_v(b['dev']['fpr_identity'])}, other FPR {_v(b['dev']['fpr_other'])}, AUPRC "
        f"{_v(b['dev_plausibility'].get('auprc'))}.",
        "",
    ]
    rows = []
    same = [r for r in (doc or {}).get("runs", []) if r["seed"] == dev["config"]["seed"] and r.get("epoch_dev")]
    for r in [*same, *dev["runs"]]:
        per_epoch = "; ".join(
            f"{e['accuracy']:.3f} / {_v(e['fpr_identity'])} / {_v(e['fpr_other'])}" for e in r["epoch_dev"]
        )
        pl = r.get("dev_plausibility") or {}
        name = f"`{r['arm']}`" + (" (real_data.py, defaults)" if r in same else "")
        n_epochs = len(r["epoch_dev"])
        rows.append([name, str(r["n_train"]), f"{n_epochs}: {per_epoch}", _v(pl.get("auprc")), f"{r['seconds']:.0f}"])
    lines += _table(
        ["candidate", "train rows", "epochs: per epoch acc / identity FPR / other FPR", "dev AUPRC", "s"], rows
    )
    if c.get("not_run"):
        lines += [f"Not run (time budget): {', '.join(f'`{x}`' for x in c['not_run'])}.", ""]
    return lines


def _analysis(a: dict[str, Any] | None) -> list[str]:
    if not a:
        return []
    return [
        f"- In the train part {a['posts_with_identity_word']} posts contain an identity word; they are *toxic* "
        f"{a['toxic_rate_with_identity_word']:.1%} of the time against {a['toxic_rate_without']:.1%} for the other "
        "posts, and the annotators' rationale marks an identity word in "
        f"{a['of_which_rationale_marks_an_identity_word']} of the "
        f"{a['toxic_posts_with_identity_word_and_rationale']} toxic ones with a rationale."
        + (
            " HateXplain sampled its posts by such terms, so here an identity word is no shortcut to *toxic* "
            "(unlike the Stormfront data of issue 14)."
            if a["toxic_rate_with_identity_word"] <= a["toxic_rate_without"]
            else ""
        ),
    ]


def section(doc: dict[str, Any] | None, dev: dict[str, Any] | None) -> list[str]:
    """The '## Real data' section: setup, main table, comparisons, targets, dev candidates, figure."""
    lines = ["## Real data: HateXplain, debugged vs controls", "", CREDIT, ""]
    if doc is None:
        return [*lines, "Not measured yet (`bench/real_data.py`).", ""]
    c = doc["config"]
    env = doc["environment"]
    fmt = lambda x: "/".join(f"{v:.2f}" for v in x) if x else "?"  # noqa: E731
    if c.get("note"):
        lines += [f"**{c['note']}**", ""]
    lines += [
        f"`bench/real_data.py` (mode `{c['mode']}`): {c['task']}. Train: {c['splits']['train']}; dev: "
        f"{c['splits']['dev']}; test: {c['splits']['test']} (measured only). The user's model: {c['base_model']} "
        f"({c['base_train']['epochs']} epochs, lr {c['base_train']['lr']}, batch {c['base_train']['batch_size']}, "
        f"max length {c['base_train']['max_length']}). Every arm continues from that model with the same seeds, "
        f"data order and steps ({c['retrain']['epochs']} epochs, lr {c['retrain']['lr']}, batch "
        f"{c['retrain']['batch_size']}, max length {c['retrain']['max_length']}); ER: objective "
        f"`{c['er']['objective']}`, λ = {c['er']['lam']}. Seeds: {', '.join(map(str, c['seeds']))}"
        + (
            ""
            if c["complete"]
            else " (**incomplete**; not run: " + ", ".join(f"`{r['arm']}` seed {r['seed']}" for r in c["not_run"]) + ")"
        )
        + f". {env['device_name']}, torch threads {env['torch_threads']}, load average (1/5/15 min) "
        f"{fmt(env.get('loadavg_start'))} at start, {fmt(env.get('loadavg_end'))} at end; "
        + (
            f"assembled from arms that ran in separate processes side by side ({c['assembled_from']}; "
            f"{c['arm_seconds_total'] / 60:.0f} min of arm time in all)."
            if c.get("assembled_from")
            else f"{c['wall_seconds'] / 60:.0f} min wall."
        ),
        "",
        f"- **Task level**: *remove* on the {len(c['identity_words'])} identity words of "
        f"`{c['identity_words_file']}`, scope all ({c['remove_feedback']['train_posts_touched']} training posts, "
        f"{c['remove_feedback']['positions']} positions). Derivation: {c['identity_derivation']['rule']}; "
        f"communities: {', '.join(c['identity_derivation']['communities'])}. Slurs and pejorative spellings are "
        "left out on purpose: they are evidence of toxicity, the bias is flagging a neutral mention.",
        *_analysis(c["identity_derivation"].get("train_analysis")),
        f"- **Instance level**: *add* on {c['add_feedback']['source']} ({c['add_feedback']['train_posts_touched']} "
        f"posts, {c['add_feedback']['positions']} word positions).",
        "",
    ]
    lines += _main_table(doc)
    lines += [
        "¹ share of the *normal* test posts containing an identity word that the model flags *toxic*. "
        "² the same on normal posts without one. ³ mean share of |attribution| on the identity words, toward "
        f"the gold label, over {c['share_examples']} test posts that contain one (seeded sample). "
        "⁴ plausibility of grad x input toward the gold label against the test rationales (tokens marked by "
        ">= 2 annotators), mean over "
        + (
            f"a seeded sample of {c['plausibility_examples']} test posts with a rationale"
            if isinstance(c.get("plausibility_examples"), int)
            else "all test posts with a rationale"
        )
        + "; AUPRC is average precision. Mean ± std (population) over seeds.",
        "",
        "Debugged vs each control, paired by seed: the difference per seed, and the paired bootstrap 95 % "
        "interval over test posts of the seed-averaged difference (`xmd.core.compare.compare_predictions` for "
        "accuracy and FPR; the same resampling of per-post scores for plausibility). Verdict "
        "(`xmd.core.compare.verdict`): *better* / *worse* = the interval excludes 0 on that side **and** the mean "
        "difference exceeds the seed noise (the larger standard deviation over seeds of the two arms; 0 with one "
        "seed, so one seed can only show that a difference is larger than test-set sampling noise).",
        "",
    ]
    lines += _comparisons(doc)
    ab = {a: doc["summary"]["arms"].get(a, {}).get("auprc_abs") for a in ("lambda0", "rationale_add")}
    if all(ab.values()):
        lines += [
            "Plausibility of |grad x input| (the scale the ER loss works on, which also counts words pushing "
            f"*against* the gold label): AUPRC {_ms(ab['lambda0'])} for λ = 0 and {_ms(ab['rationale_add'])} for the "
            "rationale *add* arm. The ER term raises the rationale words' |attribution| share, but partly with the "
            "wrong sign, so the signed (positive-part) plausibility above falls.",
            "",
        ]
    lines += ["Targets (benchmark, not tests):", ""]
    lines += _targets(doc)
    lines += _dev(dev, doc)
    if doc["summary"]["arms"]:
        lines += ["![real data](bench/results/real_data.png)", ""]
    return lines


def draw(results: Path) -> Path | None:
    """Identity FPR, accuracy, identity shares and AUPRC per arm (mean ± std over seeds)."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = results / "real_data.json"
    if not path.exists():
        return None
    doc = json.loads(path.read_text())
    base, arms = doc["base"], doc["summary"]["arms"]
    if not arms:
        return None
    panels = [
        ("fpr_identity", "identity-term FPR (normal posts)", base["test"]["fpr_identity"]),
        ("accuracy", "accuracy", base["test"]["accuracy"]),
        ("share_occlusion", "identity-word share (occlusion)", (base.get("shares") or {}).get("occlusion")),
        ("auprc", "rationale AUPRC (grad x input)", (base.get("plausibility") or {}).get("auprc")),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.2))
    for ax, (key, label, before) in zip(axes, panels, strict=True):
        names = [a for a in ("lambda0", "remove", "deletion", "rationale_add") if key in arms.get(a, {})]
        means = [arms[a][key]["mean"] for a in names]
        stds = [arms[a][key]["std"] for a in names]
        colours = ["#1f77b4" if a in ("remove", "rationale_add") else "#999999" for a in names]
        ax.bar(range(len(names)), means, yerr=stds, color=colours, capsize=3)
        if before is not None:
            ax.axhline(before, color="#d62728", linestyle="--", linewidth=1, label="base (before)")
            ax.legend(fontsize=7, loc="lower right")
        ax.set_xticks(range(len(names)), [n.replace("_", "\n") for n in names], fontsize=8)
        ax.set_title(label, fontsize=9)
    fig.suptitle(
        f"HateXplain test: debugged (blue) vs controls (grey), mean ± std over seeds {doc['config']['seeds']}",
        fontsize=9,
    )
    fig.tight_layout()
    out = results / "real_data.png"
    fig.savefig(out, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return out
