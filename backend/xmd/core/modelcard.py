"""Model cards for debugged models: a README.md that says what was corrected and what it changed.

The card is ordinary Hugging Face metadata (YAML front matter) plus prose, so the model directory
loads and displays anywhere without xmd.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from xmd.core.vs_parent import sentences

CARD_PLACEHOLDER = "<this repo or directory>"
"""Where the loading snippet names the model; a push replaces it with the repo id."""


def shown_source(base: Any) -> str:
    """A model's origin as a card may show it: a Hub id as it is, a filesystem path (the server's own
    folders) only by its last component — a card travels with the model and must not map the server."""
    s = str(base or "unknown")
    if s.startswith(("/", "~", ".", "\\")) or (len(s) > 2 and s[1] == ":" and s[2] in "/\\"):
        return f"a local model ({PurePath(s.replace(chr(92), '/')).name or 'folder'})"
    return s


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def _metrics_table(before: dict | None, after: dict | None) -> list[str]:
    if not after and not before:
        return ["No evaluation sets were given."]
    rows = [
        "| eval set | n | accuracy before | accuracy after | macro-F1 before | macro-F1 after |",
        "|---|---|---|---|---|---|",
    ]
    names = list((after or before or {}).keys())
    for name in names:
        b = (before or {}).get(name, {})
        a = (after or {}).get(name, {})
        rows.append(
            f"| {name} | {a.get('n', b.get('n', '–'))} | {_fmt(b.get('accuracy'))} | {_fmt(a.get('accuracy'))} "
            f"| {_fmt(b.get('macro_f1'))} | {_fmt(a.get('macro_f1'))} |"
        )
    return rows


def _pt(x: Any) -> str:
    return "–" if x is None else f"{x * 100:+.1f}"


def _vs_parent_lines(vs: dict[str, Any] | None) -> list[str]:
    """The version against its parent on the same examples (:mod:`xmd.core.vs_parent`): per eval set
    and metric, both values, the change in points with its paired bootstrap 95% interval, the verdict."""
    if not vs or not vs.get("sets"):
        return []
    parent = (vs.get("names") or ["the parent"])[0]
    pos = vs.get("positive") or {}
    lines = [
        "",
        f"## Against the parent model ({parent})",
        "",
        "Same examples for both; change in points with its paired bootstrap 95% interval. `fpr_words`: how often "
        f"examples that are not `{pos.get('label', '–')}` but contain the corrected words "
        f"({', '.join(f'`{w}`' for w in (vs.get('words') or [])[:10]) or 'none'}) are flagged "
        f"`{pos.get('label', '–')}`; `fpr_other`: the same on the other examples.",
        "",
        "| eval set | metric | parent | this model | change (pt) | 95% interval (pt) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in vs["sets"].items():
        for metric, r in (s.get("metrics") or {}).items():
            lines.append(
                f"| {name} | {metric} | {_fmt(r.get('parent'))} | {_fmt(r.get('new'))} | {_pt(r.get('diff'))} "
                f"| {_pt(r.get('ci_low'))} to {_pt(r.get('ci_high'))} | {r.get('verdict', '–').replace('_', ' ')} |"
            )
    lines += [""] + [f"- {t[:1].upper() + t[1:]}" for t in sentences(vs, names=[parent, "this model"])]
    return lines


def _word_count(entry: Any) -> str:
    """``{"word": w, "count": n}`` (what FeedbackSet.counts gives) as `w` (n); a bare word as `w`."""
    if isinstance(entry, dict):
        n = entry.get("count")
        return f"`{entry.get('word')}`" + (f" ({n})" if n is not None else "")
    return f"`{entry}`"


def _comparison_lines(cmp: dict[str, Any] | None) -> list[str]:
    """Mean ± std over seeds per arm and the verdict, from ``Comparison.summary()`` (xmd.core.controls)."""
    if not cmp or not cmp.get("sets"):
        return []
    arms = cmp.get("arms") or []
    lines = [
        "",
        "## Compared with controls",
        "",
        f"Same parent, data order, steps and seeds {cmp.get('seeds')}; mean ± std over seeds. Controls: "
        "`lambda0` = the same training without the ER term, `deletion` = the removed words deleted from the "
        "training texts, `deletion_base` = the base model's recipe on those cleaned texts, `strip` = no training, "
        "the `lambda0` model (or the parent) predicting with the removed words stripped from its input. "
        "Verdict: the paired bootstrap 95% interval of the difference must exclude 0 and the "
        f"difference must exceed the seed std (details in `{cmp.get('file', 'comparison.json')}`).",
        "",
        "| eval set | metric | " + " | ".join(arms) + " | verdict |",
        "|---|---|" + "---|" * len(arms) + "---|",
    ]
    for name, rows in cmp["sets"].items():
        for metric, row in rows.items():
            cells = []
            for arm in arms:
                mean, std = (row.get(arm) or [None, None])[:2]
                cells.append(_fmt(mean) + ("" if std is None else f" ± {std:.4f}"))
            lines.append(f"| {name} | {metric} | " + " | ".join(cells) + f" | {row.get('verdict', '–')} |")
    lines += [f"\n**Note:** {n}" for n in cmp.get("strip_notes") or []]
    return lines


def _precision(meta: dict[str, Any]) -> str:
    """What the training steps ran in: the run's record (``TrainHistory.bf16``), since the default (auto)
    depends on the machine that trained; older runs recorded nothing."""
    bf16 = (meta.get("history") or {}).get("bf16")
    if bf16 is None:
        return "not recorded"
    return "bf16 autocast (weights kept in float32)" if bf16 else "float32"


def _team_lines(team: dict[str, Any] | None) -> list[str]:
    """Who gave the feedback and how it was combined: the consensus policy, each contributor's mark
    count (names and counts only), and their token-level agreement at the time of the retrain."""
    if not team:
        return []
    policy = str(team.get("policy") or "union") + (f" (k = {team['k']})" if team.get("k") else "")
    people = team.get("contributors") or {}
    lines = ["", "## Annotators and consensus", "", f"- Consensus policy: `{policy}`"]
    lines.append(f"- Contributors: {len(people)}" + (": " if people else ""))
    lines[-1] += ", ".join(f"{name} ({n} marks)" for name, n in sorted(people.items()))
    if team.get("conflicts"):
        lines.append(f"- Unsettled disagreements left out of the training mask: {team['conflicts']}")
    for a in team.get("agreement") or []:
        if a.get("alpha") is None:
            lines.append(f"- Agreement on `{a.get('dataset')}`: {a.get('note') or 'not measured'}")
            continue
        lines.append(
            f"- Agreement on `{a.get('dataset')}`: Krippendorff's α = {_fmt(a.get('alpha'))} over "
            f"{a.get('n_tokens')} tokens of {a.get('n_examples')} examples seen by two or more people"
            + (f", Fleiss' κ = {_fmt(a['fleiss_kappa'])}" if a.get("fleiss_kappa") is not None else "")
        )
        for p in a.get("pairs") or []:
            lines.append(f"  - Cohen's κ {p.get('a')} × {p.get('b')}: {_fmt(p.get('kappa'))}")
    return lines


def render_model_card(meta: dict[str, Any]) -> str:
    """Render README.md from the run metadata written next to the model (``xmd.json``)."""
    base = shown_source(meta.get("base_model"))
    kind = meta.get("kind", "debug")
    er = meta.get("er") or {}
    fb = meta.get("feedback_counts") or {}
    labels = meta.get("labels") or []
    lines = [
        "---",
        "library_name: transformers",
        "pipeline_tag: text-classification",
        "tags:",
        "- xmd",
        "- explanation-based-debugging",
    ]
    if base and "/" in str(base) and not str(base).startswith(("/", ".")):
        lines.append(f"base_model: {base}")
    lines += ["---", "", f"# {meta.get('name') or 'xmd model'}", ""]
    if kind == "debug":
        lines += [
            "This text classifier was **debugged with [xmd](https://pypi.org/project/xmd/)**: a person marked "
            "words the model should not rely on (*remove*) or should rely on (*add*), and the model was "
            "retrained with `L = L_task + λ·L_ER`, where the explanation regulariser `L_ER` pulls the "
            "model's behaviour toward that feedback.",
            "",
            f"- Debugged from: `{base}`"
            + (f" (originally fine-tuned from `{meta['parent']['root_model']}`)" if meta.get("parent") else ""),
            f"- Classes: {', '.join(f'`{x}`' for x in labels)}",
            f"- ER objective: `{er.get('objective')}`, λ = {er.get('lam')}, "
            f"attribution weight {er.get('attribution_weight')}",
            "",
            "## Feedback used",
            "",
            f"- Instance-level: {fb.get('instance', {}).get('remove', 0)} remove, "
            f"{fb.get('instance', {}).get('add', 0)} add",
            f"- Task-level: {fb.get('task', {}).get('remove', 0)} remove, {fb.get('task', {}).get('add', 0)} add",
            f"- Word positions regularised in training: {meta.get('n_feedback_positions', '–')}",
        ]
        for src, n in (fb.get("sources") or {}).items():  # simulated feedback is never passed off as human
            lines.append(f"- From `{src}`: {n.get('instance', 0)} instance-level, {n.get('task', 0)} task-level")
        for key, title in (("top_removed", "Top removed words"), ("top_added", "Top added words")):
            if fb.get(key):
                lines.append(f"- {title}: " + ", ".join(_word_count(w) for w in fb[key][:10]))
        lines += _team_lines(meta.get("team"))
    else:
        lines += [f"Fine-tuned from `{base}` with xmd (plain cross-entropy, no explanation regulariser).", ""]
        if meta.get("arm"):
            lines += [f"- A **control** (`{meta['arm']}`, seed {meta.get('seed')}) of an xmd debug comparison."]
        lines += [f"- Classes: {', '.join(f'`{x}`' for x in labels)}"]
    train = meta.get("train") or {}
    lines += [
        "",
        "## Training",
        "",
        f"- Examples: {meta.get('n_train', '–')}; epochs {train.get('epochs')}, lr {train.get('lr')}, "
        f"batch size {train.get('batch_size')}, max length {train.get('max_length')}, seed {train.get('seed')}",
        f"- Precision: {_precision(meta)}",
        f"- Final loss: {_fmt(meta.get('final_loss'))} (task {_fmt(meta.get('final_task_loss'))}, "
        f"ER {_fmt(meta.get('final_er_loss'))})",
        "",
        "## Evaluation (before → after)",
        "",
        *_metrics_table(meta.get("metrics_before"), meta.get("metrics_after")),
        *_vs_parent_lines(meta.get("vs_parent")),
    ]
    lines += _comparison_lines(meta.get("comparison"))
    sb, sa = meta.get("shares_before"), meta.get("shares_after")
    if sb and sa:
        lines += [
            "",
            "## Attribution on the corrected words",
            "",
            "Mean share of the example's attribution (0–1) that falls on the corrected words.",
            "",
            "| words | method | before | after |",
            "|---|---|---|---|",
        ]
        for m in sorted(set(sb) & set(sa)):
            for kind_ in ("remove", "add"):
                b, a = sb[m].get(kind_, {}), sa[m].get(kind_, {})
                if b.get("n"):
                    lines.append(f"| {kind_} | {m} | {_fmt(b.get('mean_share'))} | {_fmt(a.get('mean_share'))} |")
    lines += [
        "",
        "## How to load",
        "",
        "```python",
        "from transformers import AutoModelForSequenceClassification, AutoTokenizer",
        "",
        f'model = AutoModelForSequenceClassification.from_pretrained("{CARD_PLACEHOLDER}")',
        f'tokenizer = AutoTokenizer.from_pretrained("{CARD_PLACEHOLDER}")',
        "```",
        "",
        "Nothing from xmd is needed to load or run this model.",
        "",
    ]
    return "\n".join(lines)


def render_base_card(meta: dict[str, Any], metrics: dict[str, Any]) -> str:
    """Card for a version that xmd did not retrain (the user's imported model)."""
    rows = [
        f"| {name} | {m.get('n', '–')} | {m.get('accuracy', 0):.4f} | {m.get('macro_f1', 0):.4f} |"
        for name, m in metrics.items()
        if isinstance(m, dict)
    ]
    table = ["| eval set | n | accuracy | macro-F1 |", "|---|---|---|---|", *rows] if rows else ["Not evaluated."]
    lines = [
        "---", "library_name: transformers", "pipeline_tag: text-classification", "tags:", "- xmd", "---", "",
        f"# {meta['name']}", "",
        f"The model imported into xmd from `{shown_source(meta.get('base_model'))}`; it was not retrained.", "",
        f"- Classes: {', '.join(f'`{x}`' for x in meta.get('labels') or [])}", "",
        "## Evaluation", "", *table, "",
        "## How to load", "", "```python",
        "from transformers import AutoModelForSequenceClassification, AutoTokenizer", "",
        f'model = AutoModelForSequenceClassification.from_pretrained("{CARD_PLACEHOLDER}")',
        f'tokenizer = AutoTokenizer.from_pretrained("{CARD_PLACEHOLDER}")', "```", "",
    ]  # fmt: skip
    return "\n".join(lines)


FEEDBACK_HEADING = "## Feedback dataset"


def link_feedback_dataset(card: str, dataset_repo: str, url: str) -> str:
    """``card`` linking the dataset of the feedback it was debugged with: in its metadata (``datasets``,
    which the Hub shows beside the model) and in a section of its own. Idempotent: a second push of the
    feedback replaces the section instead of adding another."""
    from huggingface_hub import ModelCard, ModelCardData

    parsed = ModelCard(card, ignore_metadata_errors=True)
    data = parsed.data
    assert isinstance(data, ModelCardData)  # what a ModelCard parses its metadata into
    linked = [d for d in (data.datasets or []) if d != dataset_repo]
    data.datasets = [*linked, dataset_repo]
    body = parsed.text
    if FEEDBACK_HEADING in body:  # drop the section a previous push wrote, up to the next heading
        head, _, rest = body.partition(FEEDBACK_HEADING)
        nxt = rest.find("\n## ")
        body = head.rstrip("\n") + ("\n" + rest[nxt:] if nxt >= 0 else "")
    section = (
        f"\n\n{FEEDBACK_HEADING}\n\nThe word-level feedback behind this model (each annotator's marks, the "
        f"consensus, the reviewers' decisions) is the dataset [`{dataset_repo}`]({url}).\n"
    )
    parsed.text = body.rstrip("\n") + section
    return str(parsed)


def render_feedback_card(meta: dict[str, Any]) -> str:
    """README.md of a feedback dataset repository: what it holds, the model it belongs to, how to load it."""
    policy = str(meta.get("policy") or "union") + (f" (k = {meta['k']})" if meta.get("k") else "")
    lines = [
        "---", "tags:", "- xmd", "- explanation-feedback", "---", "",
        f"# Feedback on `{meta['model_repo']}`", "",
        f"Word-level explanation feedback given in the xmd project `{meta.get('project')}` on the model "
        f"[`{meta['model_repo']}`]({meta.get('model_url')}): {meta.get('examples', 0)} examples.", "",
        "- `examples`: the text, its label, xmd's words, each annotator's code per word (0 none, 1 remove, "
        f"2 add) and the consensus by the policy `{policy}`",
        "- `task_words`: the task-level words with who set them and the consensus's action",
        "- `reviews`: the reviewers' decisions (accept, reject, edit) with the reviewer's name", "",
        "Saved with `datasets`' `save_to_disk`: download the repository and load the folder.", "",
        "```python", "from datasets import load_from_disk", "from huggingface_hub import snapshot_download", "",
        f'feedback = load_from_disk(snapshot_download("{meta.get("repo_id")}", repo_type="dataset"))', "```", "",
        "xmd imports it into another project (`POST /api/projects/{pid}/feedback/dataset`, the same files packed "
        "as a .tar.gz of a folder `feedback/`).", "",
    ]  # fmt: skip
    return "\n".join(lines)
