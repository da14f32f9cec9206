"""HateXplain's three annotators, imported as three people, against a direct computation from the CSV
(issue 32 §3): the API's token-level Krippendorff α equals the ``krippendorff`` package's on the CSV's
own 0/1 rationale lists, on SQLite and PostgreSQL.

Each rationale slot of a row is one annotator (as in ``bench/agreement``); a slot without a rationale (the
annotator judged the post normal) marked nothing, and all three saw every post (a queue with overlap 3,
every item done). A token covering k of xmd's words is k units on both sides.
"""

from __future__ import annotations

import ast
import csv
import io
import os
from itertools import islice
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from apihelpers import Api
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, InstanceFeedback
from xmd.core.words import split_words
from xmd.users import service as users_service
from xmd.users.models import Role

N_POSTS = 60
NAMES = ("annotator1", "annotator2", "annotator3")


def _rows() -> list[dict[str, str]]:
    with (Path(os.environ["XMD_HATEXPLAIN_DIR"]) / "val.csv").open(newline="", encoding="utf-8") as fh:
        return list(islice(csv.DictReader(fh), N_POSTS))  # XMD_HATEXPLAIN_DIR: set by tests/conftest.py


def align_tokens(tokens: list[str]) -> tuple[str, list[list[int]]]:
    """The tokens joined by spaces, and for each token the positions of xmd's words inside it."""
    text = " ".join(tokens)
    spans = split_words(text)[1]
    out, start, j = [], 0, 0
    for tok in tokens:
        end, mine = start + len(tok), []
        while j < len(spans) and spans[j][0] < end:
            mine.append(j)
            j += 1
        out.append(mine)
        start = end + 1
    return text, out


def _feedback(rows: list[dict[str, str]]) -> dict[str, FeedbackSet]:
    """Each rationale slot as one annotator: an *add* on every xmd word of a flagged token."""
    sets = {n: FeedbackSet() for n in NAMES}
    for row in rows:
        _, token_words = align_tokens(ast.literal_eval(row["post_tokens"]))
        for name, flags in zip(NAMES, ast.literal_eval(row["rationales"]), strict=False):
            for flag, words in zip(flags, token_words, strict=True):
                sets[name].instance.extend(InstanceFeedback(row["id"], w, Action.ADD) for w in words if flag)
    return sets


def _direct_alpha(rows: list[dict[str, str]]) -> float:
    cols: list[list[int]] = [[], [], []]
    for row in rows:
        rats = ast.literal_eval(row["rationales"])
        _, token_words = align_tokens(ast.literal_eval(row["post_tokens"]))
        for r in range(3):
            flags = rats[r] if r < len(rats) else [0] * len(token_words)
            for flag, words in zip(flags, token_words, strict=True):
                cols[r].extend([2 * int(flag)] * len(words))  # 2: add, 0: none (xmd's codes)
    return float(krippendorff.alpha(reliability_data=np.array(cols, dtype=float), level_of_measurement="nominal"))


def test_hatexplain_alpha_through_the_api(api: Api, project, db):
    rows = _rows()
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "text", "label"])
    for row in rows:
        w.writerow([row["id"], align_tokens(ast.literal_eval(row["post_tokens"]))[0], "negative"])
    r = api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": ("hx.csv", buf.getvalue().encode(), "text/csv")},
        data={"name": "hatexplain", "role": "train", "id_column": "id"},
    )
    assert r.status_code == 201, r.text
    ds = r.json()
    feedbacks = _feedback(rows)
    ids = []
    for name in NAMES:
        user = users_service.create_user(db_session=db, name=name, role=Role.ANNOTATOR)
        api.tokens[name] = users_service.create_token(db_session=db, user=user)[1]
        ids.append(user.id)
        body = {"dataset_id": ds["id"], "feedback": feedbacks[name].to_dict()}
        r = api.post(f"/api/projects/{project['id']}/feedback/import", role=name, json=body)
        assert r.status_code == 200, r.text
    body = {"name": "all three", "annotators": ids, "overlap": 3, "dataset_id": ds["id"]}
    q = api.post(f"/api/projects/{project['id']}/queues", json=body).json()
    for name in NAMES:
        while (item := api.get(f"/api/queues/{q['id']}/next", role=name).json()["item"]) is not None:
            api.put(f"/api/queues/{q['id']}/items/{item['example_id']}", role=name, json={"status": "done"})
    got = api.get(f"/api/projects/{project['id']}/agreement", role="viewer").json()
    assert got["n_examples"] == N_POSTS and got["annotators"] == list(NAMES)
    assert got["alpha"] == pytest.approx(_direct_alpha(rows), abs=1e-9)
    assert 0.2 < got["alpha"] < 0.8 and got["fleiss_kappa"] is not None
    assert len(got["pairs"]) == 3 and all(p["n_tokens"] == got["n_tokens"] for p in got["pairs"])
