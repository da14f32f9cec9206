"""The project's agreement, kept up to date incrementally (issue 32 §3, §7: no full scan per request).

Units are the word positions (tokens) of the examples seen by two or more people, coded none / remove /
add as in :mod:`xmd.core.agreement`. Every statistic there is a sum over tokens, so each shared example
stores its own contribution (:class:`ExampleAgreement`): Krippendorff's coincidence matrix, a 3×3
confusion per pair of people, the Fleiss sums, and the same per word key. :func:`refresh` reads the
feedback and queue logs past the state's cursors (at most :data:`EVENT_CAP` events a call), recomputes
the changed examples only, and applies new − old to the project's totals and word rows. A summary is
then the state row plus a page of words: O(changed examples + page), whatever the project's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from sqlalchemy import exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from xmd.core.agreement import CODE, alpha_from_coincidences, kappa_from_confusion
from xmd.core.types import Action
from xmd.core.words import split_words, word_key
from xmd.datasets.models import Example
from xmd.db.base import utcnow
from xmd.feedback.models import ExampleDone, FeedbackEvent
from xmd.teamwork import marks
from xmd.teamwork.models import AgreementState, ExampleAgreement, QueueEvent, WordAgreement

EVENT_CAP = 20_000
"""Log events read per refresh; a longer backlog is caught up over the next calls (``pending``)."""
K = 3  # categories: none, remove, add


def _zeros() -> list[float]:
    return [0.0] * (K * K)


def _add(into: list[float], other: Sequence[float], sign: int) -> None:
    for i, v in enumerate(other):
        into[i] += sign * v


def example_stats(words: Sequence[str], people: Mapping[int, Mapping[int, Action]]) -> dict[str, Any]:
    """One example's contribution: ``words`` its word keys, ``people`` each rater's marks (none: {})."""
    raters = sorted(people)
    m, n = len(raters), len(words)
    marked = sorted({i for r in raters for i in people[r] if 0 <= i < n})
    o, conf = _zeros(), {f"{a}:{b}": _zeros() for a, b in combinations(raters, 2)}
    fleiss = [0.0, 0.0, 0.0, 0.0]  # Σ_c n_c² over tokens, then the category totals
    per_word: dict[str, list[float]] = {}
    rest = n - len(marked)
    o[0] += m * rest
    fleiss[0] += m * m * rest
    fleiss[1] += m * rest
    for c in conf.values():
        c[0] += rest
    codes_at = {i: [CODE.get(people[r].get(i), 0) for r in raters] for i in marked}  # type: ignore[arg-type]
    disputed = 0
    for i, w in enumerate(words):
        row = per_word.setdefault(w, [0.0, 0.0, 0.0, *_zeros()])  # tokens, marked, unanimous, o
        row[0] += 1
        codes = codes_at.get(i)
        if codes is None:
            row[3] += m
            continue
        counts = [codes.count(c) for c in range(K)]
        unanimous = max(counts) == m
        row[1] += 1
        row[2] += unanimous
        disputed += not unanimous
        for c in range(K):
            fleiss[0] += counts[c] * counts[c]
            fleiss[1 + c] += counts[c]
            for k in range(K):
                v = counts[c] * (counts[k] - (c == k)) / (m - 1)
                o[c * K + k] += v
                row[3 + c * K + k] += v
        for (a, b), key in zip(combinations(range(m), 2), conf, strict=True):
            conf[key][codes[a] * K + codes[b]] += 1
    return {
        "n": n,
        "m": m,
        "raters": raters,
        "o": o,
        "fleiss": fleiss,
        "pairs": conf,
        "words": per_word,
        "disputed": disputed,
    }


def _state(db: Session, project_id: int) -> AgreementState:
    stmt = (
        select(AgreementState)
        .where(AgreementState.project_id == project_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    state = db.scalars(stmt).first()
    if state is None:
        try:
            with db.begin_nested():
                db.add(AgreementState(project_id=project_id, totals={}))
        except IntegrityError:
            pass  # another request made it first
        state = db.scalars(stmt).one()
    return state


def _changed(db: Session, state: AgreementState, totals: dict[str, Any]) -> tuple[set[int], bool]:
    """Examples touched since the cursors (moved forward; the ``feedback_done`` one lives in
    ``totals``), and whether more events are waiting."""
    ev = db.execute(
        select(FeedbackEvent.id, FeedbackEvent.example_id)
        .where(FeedbackEvent.project_id == state.project_id, FeedbackEvent.id > state.last_event_id)
        .order_by(FeedbackEvent.id)
        .limit(EVENT_CAP)
    ).all()
    qe = db.execute(
        select(QueueEvent.id, QueueEvent.example_id)
        .where(QueueEvent.project_id == state.project_id, QueueEvent.id > state.last_queue_event_id)
        .order_by(QueueEvent.id)
        .limit(EVENT_CAP)
    ).all()
    done = db.execute(
        select(ExampleDone.id, ExampleDone.example_id)
        .where(ExampleDone.project_id == state.project_id, ExampleDone.id > int(totals.get("last_done_id", 0)))
        .order_by(ExampleDone.id)
        .limit(EVENT_CAP)
    ).all()
    if done:
        totals["last_done_id"] = done[-1][0]
    if ev:
        state.last_event_id = ev[-1][0]
    if qe:
        state.last_queue_event_id = qe[-1][0]
    ids = {eid for _, eid in ev if eid is not None} | {eid for _, eid in qe} | {eid for _, eid in done}
    return ids, EVENT_CAP in (len(ev), len(qe), len(done))


def _apply(totals: dict[str, Any], st: Mapping[str, Any], sign: int) -> None:
    totals["n_examples"] = totals.get("n_examples", 0) + sign
    totals["n_tokens"] = totals.get("n_tokens", 0) + sign * st["n"]
    _add(totals.setdefault("o", _zeros()), st["o"], sign)
    f = totals.setdefault("fleiss", {}).setdefault(str(st["m"]), [0.0] * 5)
    _add(f, [st["n"], *st["fleiss"]], sign)
    if not any(f):
        del totals["fleiss"][str(st["m"])]
    for key, c in st["pairs"].items():
        _add(totals.setdefault("pairs", {}).setdefault(key, _zeros()), c, sign)
    raters = totals.setdefault("raters", {})
    for r in st["raters"]:
        raters[str(r)] = raters.get(str(r), 0) + sign
        if not raters[str(r)]:
            del raters[str(r)]


def _anything_new(db: Session, state: AgreementState) -> bool:
    """One round trip, no lock: has any log grown past the state's cursors?"""
    pid, totals = state.project_id, state.totals or {}
    probes = [
        select(FeedbackEvent.id).where(FeedbackEvent.project_id == pid, FeedbackEvent.id > state.last_event_id),
        select(QueueEvent.id).where(QueueEvent.project_id == pid, QueueEvent.id > state.last_queue_event_id),
        select(ExampleDone.id).where(
            ExampleDone.project_id == pid, ExampleDone.id > int(totals.get("last_done_id", 0))
        ),
    ]
    return bool(db.execute(select(*(exists(p) for p in probes))).one() != (False, False, False))


def refresh(db: Session, project_id: int, example_ids: Iterable[int] | None = None) -> dict[str, Any]:
    """Bring the project's statistics up to the logs (or recompute ``example_ids``); the caller commits.

    Nothing new (the usual read): one probe, no lock, no write. Otherwise the state row is locked, the
    logs are read past its cursors and the changed examples' contributions replaced. Returns the
    totals, with ``pending`` True while a backlog beyond :data:`EVENT_CAP` remains.
    """
    wanted = set(example_ids or ())
    seen = db.get(AgreementState, project_id)
    if seen is not None and not wanted and not _anything_new(db, seen):
        return dict(seen.totals or {})
    state = _state(db, project_id)
    totals = dict(state.totals or {})
    changed, pending = _changed(db, state, totals)
    changed |= wanted
    word_delta: dict[str, list[float]] = {}
    ids = sorted(changed)
    for i in range(0, len(ids), marks.CHUNK):
        _update_chunk(db, project_id, ids[i : i + marks.CHUNK], totals, word_delta)
    totals["n_words"] = totals.get("n_words", 0) + _apply_words(db, project_id, word_delta)
    state.totals = {**totals, "pending": pending}
    state.updated_at = utcnow()
    db.flush()
    return state.totals


def _update_chunk(
    db: Session, project_id: int, ids: Sequence[int], totals: dict[str, Any], word_delta: dict[str, list[float]]
) -> None:
    old = {
        r.example_id: r
        for r in db.scalars(
            select(ExampleAgreement).where(
                ExampleAgreement.project_id == project_id, ExampleAgreement.example_id.in_(ids)
            )
        )
    }
    texts = dict(db.execute(select(Example.id, Example.text).where(Example.id.in_(ids))).all())
    inst = marks.instance_marks(db, project_id, ids)
    seen = marks.seen_by(db, project_id, ids)
    for eid in ids:
        row = old.get(eid)
        if row is not None:
            _apply(totals, row.stats, -1)
            _words(word_delta, row.stats["words"], -1)
            db.delete(row)
        people: dict[int, Mapping[int, Action]] = {u: {} for u in seen.get(eid, ())}
        people.update(inst.get(eid, {}))
        if len(people) < 2 or eid not in texts:
            continue
        words = [word_key(w) for w in split_words(texts[eid])[0]]
        st = example_stats(words, people)
        _apply(totals, st, 1)
        _words(word_delta, st["words"], 1)
        db.add(
            ExampleAgreement(project_id=project_id, example_id=eid, n_raters=st["m"], disputed=st["disputed"], stats=st)
        )
    db.flush()


def _words(into: dict[str, list[float]], words: Mapping[str, Sequence[float]], sign: int) -> None:
    for w, v in words.items():
        _add(into.setdefault(w, [0.0] * (3 + K * K)), v, sign)


def _apply_words(db: Session, project_id: int, delta: Mapping[str, Sequence[float]]) -> int:
    """Apply per-word deltas; returns the change in the number of words anyone marked."""
    marked_words = 0
    keys = sorted(w for w, d in delta.items() if any(d))
    for i in range(0, len(keys), marks.CHUNK):
        chunk = keys[i : i + marks.CHUNK]
        rows = {
            r.word: r
            for r in db.scalars(
                select(WordAgreement).where(WordAgreement.project_id == project_id, WordAgreement.word.in_(chunk))
            )
        }
        for w in chunk:
            d = delta[w]
            r = rows.get(w) or WordAgreement(
                project_id=project_id, word=w, n_tokens=0, marked=0, unanimous=0, disputed=0, coincidences=_zeros()
            )
            was = r.marked > 0
            r.n_tokens += round(d[0])
            r.marked += round(d[1])
            r.unanimous += round(d[2])
            r.disputed = r.marked - r.unanimous
            r.coincidences = [a + b for a, b in zip(r.coincidences, d[3:], strict=True)]
            marked_words += (r.marked > 0 and r.n_tokens > 0) - was
            if r.n_tokens <= 0:
                if w in rows:
                    db.delete(r)
            elif w not in rows:
                db.add(r)
    db.flush()
    return marked_words


def pairs_of(totals: Mapping[str, Any], names: Mapping[int, str]) -> list[dict[str, Any]]:
    """Cohen's κ per pair of people from their confusion counts."""
    out = []
    for key, c in sorted(totals.get("pairs", {}).items()):
        a, b = (int(x) for x in key.split(":"))
        n = sum(c)
        if not n:
            continue
        matrix = [c[i * K : (i + 1) * K] for i in range(K)]
        out.append(
            {
                "a": names.get(a, str(a)),
                "b": names.get(b, str(b)),
                "n_tokens": int(n),
                "observed": sum(matrix[i][i] for i in range(K)) / n,
                "kappa": kappa_from_confusion(matrix),
            }
        )
    return out


def alpha_of(o: Sequence[float]) -> float | None:
    """Nominal α from a flat 3×3 coincidence matrix (None when undefined)."""
    return alpha_from_coincidences([list(o[i * K : (i + 1) * K]) for i in range(K)]) if o else None


def fleiss_of(totals: Mapping[str, Any]) -> float | None:
    """Fleiss' κ when every shared token was rated by the same m ≥ 3 people who are all the raters."""
    f = totals.get("fleiss", {})
    if len(f) != 1:
        return None
    ((m_s, (n, sumsq, *cats)),) = f.items()
    m = int(m_s)
    if m < 3 or m != len(totals.get("raters", {})) or n <= 0:
        return None
    p_bar = (sumsq - n * m) / (n * m * (m - 1))
    p_e = sum((c / (n * m)) ** 2 for c in cats)
    return None if abs(1 - p_e) < 1e-12 else (p_bar - p_e) / (1 - p_e)
