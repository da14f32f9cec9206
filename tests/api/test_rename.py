"""Renaming projects and datasets (PATCH, admins only): the new name shows everywhere, a taken name or
an empty one is refused with a 4xx and changes nothing."""

from __future__ import annotations

from apihelpers import Api


def test_rename_project_and_change_its_description(api: Api, project):
    pid = project["id"]
    r = api.patch(f"/api/projects/{pid}", json={"name": "reviews", "description": "movie reviews"})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["description"]) == ("reviews", "movie reviews")
    assert api.get(f"/api/projects/{pid}", role="viewer").json()["name"] == "reviews"
    # a field left out stays
    assert api.patch(f"/api/projects/{pid}", json={"description": "x"}).json()["name"] == "reviews"


def test_project_rename_refusals_change_nothing(api: Api, project, tiny_model_dir):
    pid = project["id"]
    other = api.post("/api/projects", json={"name": "other", "model_path": str(tiny_model_dir)}).json()
    assert api.patch(f"/api/projects/{pid}", json={"name": "other"}).status_code == 409
    assert api.patch(f"/api/projects/{pid}", json={"name": ""}).status_code == 422
    assert api.patch(f"/api/projects/{pid}", role="annotator", json={"name": "z"}).status_code == 403
    assert api.patch("/api/projects/999999", json={"name": "z"}).status_code == 404
    assert api.get(f"/api/projects/{pid}").json()["name"] == "demo"
    assert api.get(f"/api/projects/{other['id']}").json()["name"] == "other"


def test_rename_dataset(api: Api, project):
    did = project["clean"]["id"]
    r = api.patch(f"/api/datasets/{did}", json={"name": "held-out"})
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "held-out" and r.json()["n_examples"] == project["clean"]["n_examples"]
    names = [d["name"] for d in api.get(f"/api/projects/{project['id']}/datasets").json()["items"]]
    assert names == ["train", "held-out"]
    assert api.patch(f"/api/datasets/{did}", json={"name": "train"}).status_code == 409
    assert api.patch(f"/api/datasets/{did}", json={"name": ""}).status_code == 422
    assert api.patch(f"/api/datasets/{did}", role="annotator", json={"name": "q"}).status_code == 403
    names = [d["name"] for d in api.get(f"/api/projects/{project['id']}/datasets").json()["items"]]
    assert names == ["train", "held-out"]
