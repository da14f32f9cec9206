"""A downloaded model travels: its archive's top folder is a name every system accepts (no ':'), and
its model card does not show the server's folders."""

from __future__ import annotations

import io
import tarfile

from apihelpers import Api
from xmd.core.modelcard import render_base_card, render_model_card


def test_archive_top_folder_is_portable(api: Api, project):
    pid = project["id"]
    assert api.patch(f"/api/projects/{pid}", json={"name": "reviews: v1 / test"}).status_code == 200
    r = api.get(f"/api/versions/{project['base_version_id']}/download")
    assert r.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(r.content)) as tf:
        tops = {m.name.split("/")[0] for m in tf.getmembers()}
    assert tops == {"reviews_v1_test-v1"}
    assert 'filename="reviews_v1_test-v1.tar.gz"' in r.headers["content-disposition"]


def test_model_cards_hide_server_paths():
    server = "/srv/xmd/data/projects/p7/v1"
    debug = render_model_card({"name": "m", "base_model": server, "kind": "debug", "labels": ["a", "b"]})
    base = render_base_card({"name": "m", "base_model": server, "labels": ["a", "b"]}, {})
    for card in (debug, base):
        assert "/srv" not in card and "a local model (v1)" in card
    hub = render_model_card({"name": "m", "base_model": "org/model", "kind": "debug", "labels": ["a", "b"]})
    assert "base_model: org/model" in hub
