"""Uploads as a newcomer meets them: the preview guesses the columns from the server's one list, a
train set may come without labels while an eval set may not, and errors name the person's file and
the form field (never the server's temporary copy or command-line flags)."""

from __future__ import annotations

import pytest
from apihelpers import Api
from sqlalchemy import func, select
from xmd.core.data import COLUMN_GUESSES, guess_columns
from xmd.datasets.models import Dataset


@pytest.mark.parametrize("label", ["sentiment", "Labels", "class", "target", "y", "gold"])
def test_preview_guesses_common_label_names(api: Api, project, label):
    csv = f"Review,{label},note\ngreat film,positive,a\n".encode()
    r = api.post(f"/api/projects/{project['id']}/datasets/preview", files={"file": ("mine.csv", csv)})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["guess"] == {"text": "Review", "label": label, "id": None}
    assert body["label_required_for"] == ["eval"]


def test_guess_uses_the_one_list_and_falls_back_to_a_free_column():
    assert "sentiment" in COLUMN_GUESSES["label"]
    assert guess_columns(["uid", "words", "gold"]) == {"text": "words", "label": "gold", "id": "uid"}
    assert guess_columns([]) == {"text": None, "label": None, "id": None}


def test_unlabelled_train_set_is_accepted_and_eval_set_refused(api: Api, project, db):
    pid = project["id"]
    csv = b"text\nhello there\nbye now\n"
    r = api.post(
        f"/api/projects/{pid}/datasets",
        files={"file": ("plain.csv", csv)},
        data={"unlabelled": "true", "role": "train"},
    )
    assert r.status_code == 201, r.text
    assert r.json()["label_counts"] == {"(none)": 2}
    before = db.scalar(select(func.count()).select_from(Dataset))
    r = api.post(
        f"/api/projects/{pid}/datasets", files={"file": ("held.csv", csv)}, data={"unlabelled": "true", "role": "eval"}
    )
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail.startswith("held.csv: ") and "label_column" in detail
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Dataset)) == before


def test_errors_name_the_users_file_and_the_form_field(api: Api, project):
    r = api.post(
        f"/api/projects/{project['id']}/datasets",
        files={"file": ("my reviews.csv", b"words,sentiment\nhello,positive\n")},
    )
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail.startswith("my reviews.csv: text column 'text' not found"), detail
    assert "text_column" in detail and "label_column" in detail and "'words'" in detail
    assert "data.csv" not in detail and "Pass " not in detail and "/tmp" not in detail
