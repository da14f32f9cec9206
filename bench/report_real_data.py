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
    "remove+attribution_every=4": "**debugged**: remove, `attribution_every=4`",
    "remove+attribution_every=2": "**debugged**: remove, `attribution_every=2`",
    "remove+attribution_rows=4": "**debugged**: remove, `attribution_rows=4`",
}
LEVERS = ("remove+attribution_every=2", "remove+attribution_rows=4", "remove+attribution_every=4")
"""The ER speed levers (issue 16) a real-data run may carry beside the default ``remove`` arm."""
TARGET_NAMES = {
    "fpr_identity_relative_drop": "identity FPR down (relative to the base)",
    "accuracy_change_points": "accuracy change (points, vs the base)",
    "fpr_identity_better_than_lambda0": "identity FPR better than λ = 0 beyond noise",
    "fpr_identity_better_than_deletion": "identity FPR better than deletion beyond noise",
    "auprc_better_than_lambda0": "rationale add: AUPRC better than λ = 0 beyond noise",
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
    for arm, a in arms.items():
        rows.append(
            [
                ARM_NAMES.get(arm, f"`{arm}`"),
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


def _comparison_cells(key: str) -> list[str]:
    """``remove_vs_lambda0:fpr_identity`` as table cells: the debugged arm, its control, the metric."""
    arm_control, metric = key.split(":")
    arm, control = arm_control.split("_vs_")
    return [ARM_NAMES.get(arm, arm).replace("**", ""), ARM_NAMES.get(control, control), metric]


def _comparisons(doc: dict[str, Any]) -> list[str]:
    if not doc["summary"]["comparisons"]:
        return ["No comparison yet: no debugged arm and its control both finished (see above).", ""]
    rows = []
    for key, c in doc["summary"]["comparisons"].items():
        rows.append(
            [
                *_comparison_cells(key),
                ", ".join(f"{d:+.3f}" for d in c["per_seed_diff"]),
                f"{c['diff']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}]",
                _v(c.get("seed_noise")),
                f"**{c['verdict'].replace('_', ' ')}**",
            ]
        )
    return _table(["debugged", "vs control", "metric", "per seed", "mean [95 % CI]", "seed noise", "verdict"], rows)


def _targets(doc: dict[str, Any]) -> list[str]:
    names = TARGET_NAMES
    if not doc["summary"]["targets"]:
        return ["**Not measured**: the arms the targets compare did not finish (see above).", ""]
    rows = []
    for key, t in doc["summary"]["targets"].items():
        value = t["value"].replace("_", " ") if isinstance(t["value"], str) else f"{t['value']:.3f}"
        rows.append(
            [names.get(key, key), f"{t['op']} {t['threshold']}", value, "**met**" if t["met"] else "**missed**"]
        )
    return _table(["target", "threshold", "measured", ""], rows)


def _dev(dev: dict[str, Any] | None, doc: dict[str, Any] | None = None, title: str = "") -> list[str]:
    lines = [title or "### Candidates on the dev split", ""]
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
        f"{_v(b['dev_plausibility'].get('auprc'))}. {dev['environment'].get('device_name', '?')}"
        + (f"; ER defaults of this run: {c['er_defaults']}" if c.get("er_defaults") else "")
        + ".",
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
    lines += _dev_reading(dev)
    return lines


def _dev_reading(dev: dict[str, Any]) -> list[str]:
    """Which candidate did best on dev after the last epoch, in the table's own numbers (one seed)."""
    last = {r["arm"]: r["epoch_dev"][-1] for r in dev["runs"] if r.get("epoch_dev")}
    removes = {a: e for a, e in last.items() if a.startswith("remove") and e.get("fpr_identity") is not None}
    plaus = {r["arm"]: (r.get("dev_plausibility") or {}).get("auprc") for r in dev["runs"]}
    plaus = {a: v for a, v in plaus.items() if v is not None}
    out = []
    if removes and "lambda0" in last:
        best = min(removes, key=lambda a: removes[a]["fpr_identity"])
        n = max(last["lambda0"].get("n_normal_identity") or 1, 1)
        gap = round((last["lambda0"]["fpr_identity"] - removes[best]["fpr_identity"]) * n)
        out.append(
            f"After the last epoch the lowest dev identity FPR among the *remove* candidates is `{best}`'s "
            f"{removes[best]['fpr_identity']:.3f} (accuracy {removes[best]['accuracy']:.3f}) against λ = 0's "
            f"{last['lambda0']['fpr_identity']:.3f} (accuracy {last['lambda0']['accuracy']:.3f}): {gap} of "
            f"{n} posts, on one seed."
        )
    if plaus:
        best = max(plaus, key=plaus.get)
        out.append(
            f"Highest dev AUPRC: `{best}` ({plaus[best]:.3f}); "
            + ", ".join(f"`{a}` {v:.3f}" for a, v in plaus.items() if a != best)
            + "."
        )
    return [" ".join(out), ""] if out else []


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


def _setup(doc: dict[str, Any], derivation: bool) -> list[str]:
    """How one run was made: splits, base model, retraining, seeds, machine (and the feedback, once)."""
    c = doc["config"]
    env = doc["environment"]
    fmt = lambda x: "/".join(f"{v:.2f}" for v in x) if x else "?"  # noqa: E731
    lines = [f"**{c['note']}**", ""] if c.get("note") else []
    lines += [
        f"`bench/real_data.py` (mode `{c['mode']}`): {c['task']}. Train: {c['splits']['train']}; dev: "
        f"{c['splits']['dev']}; test: {c['splits']['test']} (measured only). The user's model: {c['base_model']} "
        f"({c['base_train']['epochs']} epochs, lr {c['base_train']['lr']}, batch {c['base_train']['batch_size']}, "
        f"max length {c['base_train']['max_length']}). Every arm continues from that model with the same seeds, "
        f"data order and steps ({c['retrain']['epochs']} epochs, lr {c['retrain']['lr']}, batch "
        f"{c['retrain']['batch_size']}, max length {c['retrain']['max_length']}); ER: objective "
        f"`{c['er']['objective']}`, λ = {c['er']['lam']}, *add* target `{c['er'].get('add_target', 'magnitude')}`. "
        f"Seeds: {', '.join(map(str, c['seeds']))}"
        + (
            ""
            if c["complete"]
            else " (**incomplete**; not run, out of time: "
            + ", ".join(f"`{r['arm']}` seed {r['seed']}" for r in c["not_run"])
            + ")"
        )
        + f". {env['device_name']}, torch {env.get('torch')}, torch threads {env['torch_threads']}, load average "
        f"(1/5/15 min) {fmt(env.get('loadavg_start'))} at start, {fmt(env.get('loadavg_end'))} at end; "
        + (
            f"assembled from arms that ran in separate processes side by side ({c['assembled_from']}; "
            f"{c['arm_seconds_total'] / 60:.0f} min of arm time in all)."
            if c.get("assembled_from")
            else f"{c['wall_seconds'] / 60:.1f} min wall."
        ),
        "",
    ]
    if derivation:
        lines += [
            f"- **Task level**: *remove* on the {len(c['identity_words'])} identity words of "
            f"`{c['identity_words_file']}`, scope all ({c['remove_feedback']['train_posts_touched']} training posts, "
            f"{c['remove_feedback']['positions']} positions). Derivation: {c['identity_derivation']['rule']}; "
            f"communities: {', '.join(c['identity_derivation']['communities'])}. Slurs and pejorative spellings are "
            "left out on purpose: they are evidence of toxicity, the bias is flagging a neutral mention.",
            *_analysis(c["identity_derivation"].get("train_analysis")),
            f"- **Instance level**: *add* on {c['add_feedback']['source']} "
            f"({c['add_feedback']['train_posts_touched']} posts, {c['add_feedback']['positions']} word positions).",
            "",
        ]
    return lines


def _footnotes(c: dict[str, Any]) -> list[str]:
    return [
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
    ]


VERDICT_RULE = (
    "Debugged vs each control, paired by seed: the difference per seed, and the paired bootstrap 95 % "
    "interval over test posts of the seed-averaged difference (`xmd.core.compare.compare_predictions` for "
    "accuracy and FPR; the same resampling of per-post scores for plausibility). Verdict "
    "(`xmd.core.compare.verdict`): *better* / *worse* = the interval excludes 0 on that side **and** the mean "
    "difference exceeds the seed noise (the larger standard deviation over seeds of the two arms; 0 with one "
    "seed, so one seed can only show that a difference is larger than test-set sampling noise)."
)


def _abs_note(doc: dict[str, Any]) -> list[str]:
    """Signed vs |grad x input| plausibility, where the signed one fell (the old magnitude add target)."""
    arms = doc["summary"]["arms"]
    ab = {a: arms.get(a, {}).get("auprc_abs") for a in ("lambda0", "rationale_add")}
    signed = {a: arms.get(a, {}).get("auprc") for a in ("lambda0", "rationale_add")}
    if not all(ab.values()) or not all(signed.values()):
        return []
    if signed["rationale_add"]["mean"] >= signed["lambda0"]["mean"]:
        return [
            f"Plausibility of |grad x input|: AUPRC {_ms(ab['lambda0'])} for λ = 0 and {_ms(ab['rationale_add'])} "
            "for the rationale *add* arm — with the sign-aware *add* target the signed and the absolute "
            "plausibility rise together.",
            "",
        ]
    return [
        "Plausibility of |grad x input| (the scale the ER loss works on, which also counts words pushing "
        f"*against* the gold label): AUPRC {_ms(ab['lambda0'])} for λ = 0 and {_ms(ab['rationale_add'])} for the "
        "rationale *add* arm. The ER term (the *add* target of this run) raises the rationale words' |attribution| "
        "share, but partly with the wrong sign, so the signed (positive-part) plausibility above falls.",
        "",
    ]


def _result(doc: dict[str, Any], title: str, derivation: bool, plot: str | None) -> list[str]:
    """One real_data.py result: setup, table, comparisons, targets (and its figure)."""
    lines = [title, "", *_setup(doc, derivation)]
    lines += _main_table(doc)
    lines += _footnotes(doc["config"])
    lines += [VERDICT_RULE, ""] if derivation else []
    lines += _comparisons(doc)
    lines += _abs_note(doc)
    lines += ["Targets (benchmark, not tests):", ""]
    lines += _targets(doc)
    if plot and doc["summary"]["arms"]:
        lines += [f"![real data](bench/results/{plot}.png)", ""]
    return lines


LEVER_METRICS = (
    ("identity FPR", "fpr_identity", lambda r: r["test"]["fpr_identity"]),
    ("accuracy", "accuracy", lambda r: r["test"]["accuracy"]),
    ("id. share, grad x input", "share_grad_x_input", lambda r: (r.get("shares") or {}).get("grad_x_input")),
)
"""What a speed lever is compared on: label, summary key, value of one run."""


def _paired(doc: dict[str, Any], arm: str, control: str) -> list[tuple[str, list[float], float, float]]:
    """``arm`` against ``control`` on :data:`LEVER_METRICS`, paired by seed: ``(metric, per-seed differences,
    their mean, seed noise)``, the noise being the larger seed std of the two arms."""
    by = {(r["arm"], r["seed"]): r for r in doc["runs"]}
    arms = doc["summary"]["arms"]
    seeds = sorted(s for (a, s) in by if a == arm and (control, s) in by)
    out = []
    for label, key, get in LEVER_METRICS:
        d = [get(by[(arm, s)]) - get(by[(control, s)]) for s in seeds]
        out.append((label, d, sum(d) / len(d), max(arms[arm][key]["std"], arms[control][key]["std"])))
    return out


def _lever_diffs(doc: dict[str, Any], arm: str = "remove+attribution_every=4") -> list[str]:
    """A speed lever's arm vs λ = 0 and vs ``remove``, per seed (the script compares only remove)."""
    if arm not in doc["summary"]["arms"]:
        return []
    rows = [
        [
            ARM_NAMES.get(control, control).replace("**", ""),
            metric,
            ", ".join(f"{x:+.3f}" for x in d),
            f"{mean:+.3f}",
            f"{noise:.3f}",
            "beyond seed noise" if abs(mean) > noise else "within seed noise",
        ]
        for control in ("lambda0", "remove")
        for metric, d, mean, noise in _paired(doc, arm, control)
    ]
    return [
        f"`{arm}` against each arm of the same run, paired by seed (mean of the per-seed differences against the "
        "larger seed std of the two arms; the script's bootstrap comparisons cover `remove` vs λ = 0 only, above):",
        "",
        *_table(["vs", "metric", "per seed", "mean", "seed noise", ""], rows),
    ]


def _lever_speed(doc: dict[str, Any]) -> list[str]:
    """Each arm's training time against λ = 0's, paired by seed: what the ER term costs on this data."""
    by = {(r["arm"], r["seed"]): r for r in doc["runs"]}
    rows = []
    for arm in doc["summary"]["arms"]:
        seeds = sorted(s for (a, s) in by if a == arm and ("lambda0", s) in by)
        if not seeds:
            continue
        ratios = [by[(arm, s)]["train_seconds"] / by[("lambda0", s)]["train_seconds"] for s in seeds]
        secs = [by[(arm, s)]["train_seconds"] for s in seeds]
        rows.append(
            [
                ARM_NAMES.get(arm, f"`{arm}`").replace("**", ""),
                f"{sum(secs) / len(secs):.1f}",
                f"{sum(ratios) / len(ratios):.2f}x ({min(ratios):.2f}–{max(ratios):.2f})",
            ]
        )
    return [
        "Training time per arm (one epoch, the same steps and batches in every arm; the retrain's default precision "
        "on this host), against λ = 0's run of the same seed — the whole retrain's ER cost on this data, batches "
        "without feedback included:",
        "",
        *_table(["arm", "training s (mean)", "x λ = 0 (mean, range)"], rows),
    ]


def _lever_reading(doc: dict[str, Any]) -> list[str]:
    """What the levers kept of the default's effect, read off the same run (paired by seed, seed noise)."""
    by = {(r["arm"], r["seed"]): r for r in doc["runs"]}
    arms = doc["summary"]["arms"]
    if "remove" not in arms or "lambda0" not in arms:
        return []

    def seeds(arm: str, control: str) -> list[int]:
        return sorted(s for (a, s) in by if a == arm and (control, s) in by)

    def time_ratio(arm: str) -> float:
        both = seeds(arm, "lambda0")
        return sum(by[(arm, s)]["train_seconds"] / by[("lambda0", s)]["train_seconds"] for s in both) / len(both)

    names = {"id. share, grad x input": "the identity words' share"}
    out, kept = [], []
    for arm in (a for a in LEVERS if a in arms):
        held, within = [], True
        for label, _, mean, noise in _paired(doc, arm, "remove"):
            within = within and abs(mean) <= noise
            held.append(
                f"{names.get(label, label)} {mean:+.3f} ({'within' if abs(mean) <= noise else 'beyond'} seed noise "
                f"{noise:.3f})"
            )
        out.append(
            f"`{arm.removeprefix('remove+')}` trained in {time_ratio(arm):.2f}x λ = 0's time (every row: "
            f"{time_ratio('remove'):.2f}x) and moved {', '.join(held)}"
        )
        if within:
            kept.append(f"`{arm.removeprefix('remove+')}`")
    verdict = (
        f"On this data {' and '.join(kept)} kept what the default did, within seed noise on all three. "
        if kept
        else "No lever kept all three within seed noise on this data. "
    )
    return [
        "Reading, against the default (`remove`: the attribution term on every feedback row of every batch), "
        "paired by seed: " + "; ".join(out) + ". " + verdict + "The default still keeps every row: on the demo "
        "`attribution_rows=4` left the removed word's share on the corrected examples 75–83 % lower against 82–87 % "
        "(*The attribution term on a sampled subset* above; the core engine's acceptance asks 80 %), and its step "
        "at the demo's feedback share cost 1.28–1.35x a plain step on two hosts: no setting measured keeps the "
        "effect on both data sets inside the CPU's 1.3x. `attribution_rows` is on the Retrain screen for a person "
        "who wants the shorter retrain.",
        "",
    ]


def section(docs: dict[str, dict[str, Any] | None]) -> list[str]:
    """The '## Real data' section: the 3-seed GPU result (the one the targets read), the test-time erasure
    ceiling, the full mode, every-k, the dev-split candidates, and the earlier seed-0 CPU run."""
    lines = ["## Real data: HateXplain, debugged vs controls", "", CREDIT, ""]
    main, cpu = docs.get("real_data_gpu"), docs.get("real_data")
    if main is None and cpu is None:
        return [*lines, "Not measured yet (`bench/real_data.py`).", ""]
    if main:
        lines += [
            "The GPU runs used the lent H100 (no network; the model travelled as float16-rounded weights cast back "
            "to float32, as in the GPU section above; torch and transformers are that machine's). Each run "
            "fine-tunes its own base model, so arms compare within one run only.",
            "",
        ]
        lines += _result(
            main, "### Three seeds, the CPU protocol on a GPU (the result the targets read)", True, "real_data_gpu"
        )
    lines += ceiling(docs.get("real_data_ceiling"), main)
    full = docs.get("real_data_cuda")
    if full:
        lines += _result(full, "### Full mode on the GPU (max length 128, 2 epochs)", False, None)
        if not full["config"]["complete"]:
            lines += [
                "Seed 2 of full mode ran out of the lent GPU time, so this table rests on seeds 0 and 1; with two "
                "seeds the seed noise is a poor estimate.",
                "",
            ]
    every = docs.get("real_data_every4_cuda")
    if every:
        lines += _result(every, "### `attribution_every=4` on real data (the ER speed lever, issue 16)", False, None)
        lines += [
            "This run fine-tuned its own base model on the second GPU machine (base accuracy "
            f"{every['base']['test']['accuracy']:.3f}, identity FPR {_v(every['base']['test']['fpr_identity'])}), "
            "so compare its arms with each other, not with the tables above.",
            "",
        ]
        lines += _lever_diffs(every)
    levers = docs.get("real_data_levers")
    if levers:
        seeds = levers["config"]["seeds"]
        lines += _result(
            levers, f"### The ER speed levers on real data, on the CPU (issue 16): {len(seeds)} seeds", False, None
        )
        lines += _lever_speed(levers)
        for arm in LEVERS:
            lines += _lever_diffs(levers, arm)
            lines += [""]
        lines += _lever_reading(levers)
    lines += _dev(docs.get("real_data_dev_cuda"), main, "### What we tried: candidates on the dev split (GPU)")
    if cpu:
        seeds, wall = cpu["config"]["seeds"], cpu["config"]["wall_seconds"] / 60
        title = (
            f"### The CPU protocol end to end on the 2-core CPU: {len(seeds)} seed{'s' if len(seeds) > 1 else ''}, "
            f"{wall:.0f} min wall"
        )
        lines += _result(cpu, title, main is None, "real_data" if main is None else None)
        if cpu["config"]["complete"] and len(seeds) >= 3:
            lines += [
                f"One `bench/real_data.py` run with the defaults (mode `cpu`: the base fine-tune, {len(cpu['runs'])} "
                f"arms over {len(seeds)} seeds and every measurement) took {wall:.1f} minutes on the 2-core CPU "
                "(the protocol's budget: 60), two torch threads, nothing else heavy running. How it fits: one "
                "retraining epoch, max length 64, the identity-word shares on 32 test posts and plausibility on 400; "
                "the training and test splits are not subsampled.",
                "",
            ]
        if cpu["config"]["er"].get("add_target") is None:
            lines += [
                "This CPU run predates the sign-aware *add* target (`add_target=signed`, now the default): its "
                "rationale *add* arm used the magnitude target, which is why its AUPRC fell below λ = 0.",
                "",
            ]
        lines += _dev(docs.get("real_data_dev"), cpu, "#### Dev-split candidates on the CPU (earlier)")
    lines += precision(docs.get("real_data_fp32_stop27"), docs.get("real_data_bf16"))
    return lines


PRECISION_METRICS = (
    ("accuracy", "accuracy"),
    ("fpr_identity", "identity FPR"),
    ("share_grad_x_input", "id. share, grad x input"),
    ("auprc", "AUPRC"),
)


def _run_value(r: dict[str, Any] | None, key: str) -> float | None:
    """One run's value of a summary measure (``real_data_stats.summarise`` names)."""
    if not r:
        return None
    if key.startswith("share_"):
        return (r.get("shares") or {}).get(key.removeprefix("share_"))
    if key in ("auprc", "token_f1"):
        return (r.get("plausibility") or {}).get(key)
    return (r.get("test") or {}).get(key)


def precision(fp32: dict[str, Any] | None, bf16: dict[str, Any] | None) -> list[str]:
    """bf16 against float32 retraining on HateXplain (``TrainConfig.mixed_precision``), arm by arm and seed by
    seed from one cached base: what it changes in each measure and in each verdict against the controls,
    beside the seed noise, and what it saves in training time."""
    if not fp32 or not bf16:
        return []
    runs = {(p, r["arm"], r["seed"]): r for p, doc in (("f", fp32), ("b", bf16)) for r in doc["runs"]}
    seeds = sorted(set(fp32["config"]["seeds"]) & set(bf16["config"]["seeds"]))
    arms = [a for a in fp32["summary"]["arms"] if a in bf16["summary"]["arms"]]
    rows, gaps = [], []
    for arm in arms:
        fa, ba = fp32["summary"]["arms"][arm], bf16["summary"]["arms"][arm]
        for key, label in PRECISION_METRICS:
            if key not in fa or key not in ba:
                continue
            pairs = [
                (_run_value(runs.get(("f", arm, s)), key), _run_value(runs.get(("b", arm, s)), key)) for s in seeds
            ]
            diffs = [b - f for f, b in pairs if f is not None and b is not None]
            if key == "fpr_identity":
                gaps += [abs(d) for d in diffs]
            rows.append(
                [ARM_NAMES.get(arm, arm), label, _ms(fa[key]), _ms(ba[key]), ", ".join(f"{d:+.3f}" for d in diffs)]
            )
    speed = []
    for arm in arms:
        f_s = [runs[("f", arm, s)]["train_seconds"] for s in seeds if ("f", arm, s) in runs]
        b_s = [runs[("b", arm, s)]["train_seconds"] for s in seeds if ("b", arm, s) in runs]
        if f_s and b_s:
            speed.append(
                f"{ARM_NAMES.get(arm, arm).replace('**', '')} {sum(f_s) / len(f_s):.0f} → {sum(b_s) / len(b_s):.0f} s"
            )
    verdicts = []
    for key, c in fp32["summary"]["comparisons"].items():
        d = bf16["summary"]["comparisons"].get(key)
        if d is None:
            continue
        verdicts.append(
            [
                *_comparison_cells(key),
                f"{c['diff']:+.3f} (noise {_v(c.get('seed_noise'))}): **{c['verdict'].replace('_', ' ')}**",
                f"{d['diff']:+.3f} (noise {_v(d.get('seed_noise'))}): **{d['verdict'].replace('_', ' ')}**",
            ]
        )
    noise = [c.get("seed_noise") for c in fp32["summary"]["comparisons"].values() if c.get("seed_noise")]
    fpr_noise = fp32["summary"]["comparisons"].get("remove_vs_lambda0:fpr_identity", {}).get("seed_noise")
    b_env, f_env = bf16["environment"], fp32["environment"]
    same_base = fp32["base"]["test"]["accuracy"] == bf16["base"]["test"]["accuracy"]
    n_id = fp32["base"]["test"]["n_normal_identity"]
    lines = [
        f"### bf16 against float32 on the CPU (`mixed_precision`, issue 16): {len(seeds)} seeds",
        "",
        f"`bench/real_data.py --mixed-precision` and `--no-mixed-precision`, back to back on one host "
        f"({b_env.get('cpu_model')}, 2 cores, AVX512-BF16; load average {'/'.join(map(str, b_env['loadavg_start']))} "
        f"at the bf16 run's start, {'/'.join(map(str, f_env['loadavg_start']))} at the float32 run's), "
        + (
            "from one cached float32 base (the same test accuracy in both files)"
            if same_base
            else "each from its own base"
        )
        + ": every arm retrained in each precision with the same seeds and data order; every measurement runs in "
        "float32. Results: `real_data_bf16.json`, `real_data_fp32_stop27.json`.",
        "",
        *_table(["arm", "measure (test.csv)", "float32", "bf16", "bf16 − float32, per seed"], rows),
        *_table(["debugged", "vs control", "metric", "float32: diff (seed noise): verdict", "bf16"], verdicts),
        "Training time per arm, mean over the seeds, float32 → bf16: " + "; ".join(speed) + ".",
        "",
    ]
    if gaps and fpr_noise:
        same = all(v[3].split("**")[1] == v[4].split("**")[1] for v in verdicts)
        lines += [
            f"bf16 moved an arm's identity FPR by at most {max(gaps):.3f} on a seed ({max(gaps) * n_id:.0f} of "
            f"the {n_id} normal identity posts, a mean of {sum(gaps) / len(gaps):.4f}), against a seed noise of "
            f"{fpr_noise:.3f} in the λ = 0 comparison"
            + (f" (seed noise of the other comparisons {min(noise):.3f}–{max(noise):.3f})" if noise else "")
            + (
                ". Every verdict is the same in both precisions."
                if same
                else ". Where a verdict differs between the two precisions, the debugged arm's margin over its "
                "control sits at the seed noise in both: the seeds decide it, not the precision."
            ),
            "",
        ]
    if len(seeds) == 5:
        lines += [
            "The comparison first ran seeds 0–2. There the *remove* arm's identity-FPR margin over λ = 0 sat at the "
            "seed noise in both precisions (float32 −0.028 against a noise of 0.022: better; bf16 −0.023 against "
            "0.024: within noise), so seeds 3 and 4 were added in both precisions (the first three seeds' runs are "
            "kept, `--log`). With five seeds the margin is clear in both. `mixed_precision` auto (bf16 on such a "
            "CPU) became the default on this evidence and the demo's (*bf16 on a CPU that has it*).",
            "",
        ]
    return lines


def draw(results: Path, name: str = "real_data_gpu") -> Path | None:
    """Identity FPR, accuracy, identity shares and AUPRC per arm (mean ± std over seeds)."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = results / f"{name}.json"
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
        f"HateXplain test: debugged (blue) vs controls (grey), mean ± std over seeds {doc['config']['seeds']} "
        f"({doc['environment'].get('device_name', '?')})",
        fontsize=9,
    )
    fig.tight_layout()
    out = results / f"{name}.png"
    fig.savefig(out, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return out


CEILING_VARIANTS = {
    "delete": "words deleted",
    "random_delete": "random words deleted⁵",
    "mask": "mask token",
    "random_mask": "random words masked⁵",
    "person": '"person"',
    "random_person": 'random words → "person"⁵',
}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:+.0%}"


def _ceiling_row(label: str, split: str, t: dict[str, Any]) -> list[str]:
    e = t["erasure"]
    cells = []
    for key in CEILING_VARIANTS:
        v = e.get(key)
        if v is None:
            cells.append("–")
        elif key == "random_delete":
            cells.append(f"{_v(v['fpr_identity'])} ± {v['fpr_identity_std']:.3f} ({_pct(v['relative_change'])})")
        else:
            cells.append(f"{_v(v['fpr_identity'])} ({_pct(v['relative_change'])})")
    acc = f"{_v(t['accuracy'])} → {_v(e['delete']['accuracy'])}"
    return [label, split, str(t["n_normal_identity"]), _v(t["fpr_identity"]), *cells, _v(t["fpr_other"]), acc]


def _words(rows: list[dict[str, Any]], n: int = 8) -> str:
    return ", ".join(
        (f"**{r['word']}**" if r["identity"] else f"`{r['word']}`") + f" ({r['top1']}/{r['top3']})" for r in rows[:n]
    )


def _specific(b: dict[str, Any] | None) -> str:
    """Identity-word deletion vs random deletion, judged by the paired bootstrap interval over posts."""
    if not b:
        return "."
    diff, (lo, hi) = b["diff"], b["ci95"]
    span = f"{diff:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    if hi < 0:
        return (
            f"; the identity-word erasure lowers the FPR by {-diff:.3f} more ({span}): that part is specific to them."
        )
    if lo > 0:
        return f"; the random erasure lowers the FPR more ({span}): the erasure effect is not specific to the words."
    return f"; the two are within test-set noise of each other ({span}): no effect specific to the words is shown."


def ceiling(doc: dict[str, Any] | None, ref: dict[str, Any] | None = None) -> list[str]:
    """``real_data_ceiling.json``: how much of the identity FPR test-time erasure of the identity words removes
    (the most a word-level debug run can expect by making the model ignore them), read from the numbers."""
    if not doc or "base" not in doc.get("models", {}):
        return []
    c, env, models = doc["config"], doc["environment"], doc["models"]
    base, s = models["base"], doc["summary"]
    fmt = lambda x: "/".join(f"{v:.2f}" for v in x) if x else "?"  # noqa: E731
    lines = [
        "### How much of the identity FPR can the identity words explain? (test-time erasure)",
        "",
        f"`bench/real_data_ceiling.py` (mode `{c['mode']}`, the protocol of `bench/real_data.py`; base model "
        f"{c['base_fine_tune']}): the fine-tuned base model predicts every post that contains an identity word "
        'again with the identity words deleted, replaced by the tokenizer\'s mask token or by "person", and — the '
        "controls — with as many random other words erased the same way. Nothing is trained for this: a word-level "
        "debug run can at best make the model ignore the words, so an erasure's drop beyond its control is about "
        "the most such a run can buy by ignoring them (erasing anything also shifts the input; the controls "
        "measure that shift). "
        f"{env['device_name']}, torch threads {env['torch_threads']}, load average (1/5/15 min) "
        f"{fmt(env.get('loadavg_start'))} at start, {fmt(env.get('loadavg_end'))} at end; "
        f"{c['wall_seconds'] / 60:.1f} min wall"
        + (
            f"; the retrained arms came from a separate run on the same base model "
            f"({c['arms_wall_seconds'] / 60:.1f} min wall, load average "
            f"{fmt(c['arms_environment'].get('loadavg_start'))} at start, "
            f"{fmt(c['arms_environment'].get('loadavg_end'))} at end)."
            if c.get("arms_environment") and c.get("arms_wall_seconds")
            else "."
        )
        + (f" {c['note']}" if c.get("note") else ""),
        "",
    ]
    rows = [_ceiling_row("fine-tuned base", split, base[split]) for split in ("test", "dev") if split in base]
    for arm in ("lambda0", "remove"):
        for seed, r in sorted((models.get(arm) or {}).items()):
            rows.append(_ceiling_row(f"{ARM_NAMES.get(arm, arm)}, seed {seed}", "test", r["test"]))
    lines += _table(
        [
            "model",
            "split",
            "normal posts with an identity word",
            "identity FPR",
            *(f"FPR, {v}" for v in CEILING_VARIANTS.values()),
            "other FPR",
            "accuracy → words deleted",
        ],
        rows,
    )
    t = base["test"]
    e = t["erasure"]
    d, rnd = e["delete"], e.get("random_delete")
    text = (
        f"On test, deleting the identity words moves the base model's identity FPR from {_v(t['fpr_identity'])} to "
        f"{_v(d['fpr_identity'])} ({_pct(d['relative_change'])}; 95 % interval of the change "
        f"[{d['diff_ci95'][0]:+.3f}, {d['diff_ci95'][1]:+.3f}]; {d['fp_removed']} false positives cleared, "
        f"{d['fp_added']} new)"
    )
    if rnd:
        text += (
            f"; deleting as many random other words gives {_v(rnd['fpr_identity'])} ± {rnd['fpr_identity_std']:.3f}"
            + _specific(rnd.get("identity_minus_random") or rnd.get("delete_minus_random"))
        )
    else:
        text += "."
    for name, control in (("mask", "random_mask"), ("person", "random_person")):
        if name in e:
            x = e[name]
            label = "the mask token" if name == "mask" else CEILING_VARIANTS[name]
            text += (
                f" Replaced by {label}: {_v(x['fpr_identity'])} ({_pct(x['relative_change'])}; toxic recall on the "
                f"toxic posts with an identity word {_v(t['toxic_recall_identity'])} → "
                f"{_v(x['toxic_recall_identity'])})"
            )
            if control in e:
                text += f" against {_v(e[control]['fpr_identity'])} for as many random other words" + _specific(
                    e[control].get("identity_minus_random")
                )
            else:
                text += "."
    lines += [text, ""]
    best = s.get("best_specific")
    if best:
        v = best["variant"]
        raw = max(s[k]["drop"] for k in ("delete", "mask", "person") if k in s)
        lines += [
            f"**Ceiling.** The −{s['target_drop']:.0%} target needs an identity FPR of {_v(s['target_fpr_identity'])}. "
            f"The largest raw drop of an erasure is {raw:.0%}, but the part the identity words account for — an "
            "erasure's drop minus the drop of the same erasure of as many random other words — is at most "
            f"{best['drop']:.0%} ({CEILING_VARIANTS[v]}"
            + (
                f"; 95 % interval {ci[0]:.0%} to {ci[1]:.0%} of the base FPR"
                if (ci := s[v].get("specific_ci95"))
                else ""
            )
            + "): "
            + (
                "a model that ignored the identity words entirely could reach the target on this data."
                if best["reaches_target"]
                else "even a model that ignored the identity words entirely would miss the target on this data (the "
                "whole interval lies below it), so no word-level debugging of these words can reach it here; the rest "
                "of the identity FPR comes from the other words of those posts."
                if (ci := s[v].get("specific_ci95")) and ci[1] < s["target_drop"]
                else "a model that ignored the identity words entirely would likely miss the target on this data, "
                "though within test-set noise it might reach it."
            ),
            "",
        ]
    fp = t.get("false_positives")
    if fp:
        g = fp["by_top_word"]
        it, ot = g["identity_top"], g["other_top"]
        lines += [
            f"In {it['fp']} of the {fp['n_fp_identity']} identity false positives on test the top grad x input word "
            f"toward *toxic* is an identity word — {_v(it['fpr_part'])} of the {_v(t['fpr_identity'])} identity "
            f"FPR; deleting the identity words clears {it['cleared']} of those and {ot['cleared']} of the other "
            f"{ot['fp']}. The words the model leans on in its identity false positives (top-1/top-3 counts; "
            f"identity words in bold): {_words(fp['top_words_identity_fp'])}; in its {fp['n_fp_other']} false "
            f"positives without an identity word: {_words(fp['top_words_other_fp'])}.",
            "",
        ]
    rows = []
    for b in ("0", "1", "2", "3+"):
        cells = [b if b != "0" else "0 (other normal posts)"]
        for split in ("test", "dev"):
            bc = base.get(split, {}).get("by_count", {}).get(b)
            cells += [str(bc["n"]), _v(bc["rate"]), _v(bc["rate_deleted"])] if bc else ["–"] * 3
        rows.append(cells)
    lines += _table(
        [
            "identity words in the normal post",
            "posts (test)",
            "FPR (test)",
            "FPR, words deleted (test)",
            "posts (dev)",
            "FPR (dev)",
            "FPR, words deleted (dev)",
        ],
        rows,
    )
    bc = t["by_count"]
    rates = [bc[b]["rate"] for b in ("1", "2", "3+") if bc[b]["n"]]
    if len(rates) > 1:
        trend = "rises" if rates[-1] > rates[0] else "falls" if rates[-1] < rates[0] else "stays flat"
        lines += [
            f"On test the FPR {trend} from {_v(rates[0])} (one identity word) to {_v(rates[-1])} (the most), "
            f"against {_v(bc['0']['rate'])} on normal posts without one.",
            "",
        ]
    arms = s.get("arms") or {}
    if arms:
        parts = [
            f"{ARM_NAMES.get(a, a).replace('**', '')}, seed{'s' * (len(v['seeds']) > 1)} "
            f"{', '.join(map(str, v['seeds']))}: "
            f"{_v(v['fpr_identity'])} → {_v(v['fpr_identity_deleted'])} with the words deleted"
            + (f", {_v(v['fpr_identity_random'])} with random words deleted" if v.get("fpr_identity_random") else "")
            for a, v in arms.items()
        ]
        lines += [
            "The retrained arms, test identity FPR as trained and with the identity words deleted at prediction "
            "time (what reliance on the words is left), mean over the seeds both arms finished: "
            + "; ".join(parts)
            + "."
            + "".join(
                f" {ARM_NAMES.get(a, a).replace('**', '')} seed {', '.join(map(str, v['unpaired_seeds']))} finished "
                "without its pair and is in the table only."
                for a, v in arms.items()
                if v.get("unpaired_seeds")
            ),
            "",
        ]
    r = c.get("reference")
    if r is None and ref and ref.get("base"):
        r = {"fpr_identity": ref["base"]["test"]["fpr_identity"], "test_agreement": None}
    if r:
        same = abs(r["fpr_identity"] - t["fpr_identity"]) < 1e-9
        agree = (
            f" (the two base models agree on {r['test_agreement']:.1%} of the test posts)"
            if r.get("test_agreement") is not None
            else ""
        )
        lines += [
            f"This run fine-tuned its own base model ({env['device_name']}): its test identity FPR "
            f"{_v(t['fpr_identity'])} "
            + ("equals" if same else "is not")
            + f" the {_v(r['fpr_identity'])} of the 3-seed GPU run the targets read{agree}"
            + ("." if same else ", so compare relative changes across the two."),
            "",
        ]
    lines += [
        f"⁵ mean ± std over {c['random_draws']} seeded draws; per post as many words as it has identity words, "
        "never punctuation, an identity word or the inside of a `<user>` placeholder. Dev numbers are for "
        "reasoning; nothing here chose a setting.",
        "",
    ]
    return lines
