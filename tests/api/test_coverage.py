"""Coverage through the API (issue 15): the word ranking, a word's examples and the coverage route say
how many training examples they are built from under the version and method shown, and which explain
job is filling in the rest; the datasets list says which versions and methods are explained."""

from __future__ import annotations

from apihelpers import Api


def _ids(api: Api, did: int) -> list[int]:
    return [e["id"] for e in api.get(f"/api/datasets/{did}/examples", params={"limit": 100}).json()["items"]]


def test_a_ranking_from_a_few_examples_says_so(api: Api, project):
    pid, did = project["id"], project["train"]["id"]
    ids = _ids(api, did)
    for eid in ids[:2]:
        assert api.get(f"/api/examples/{eid}/explanation").status_code == 200

    words = api.get(f"/api/projects/{pid}/words", role="viewer").json()
    cov = words["coverage"]
    assert (cov["explained"], cov["total"], cov["complete"], cov["job_id"]) == (2, 40, False, None)
    assert cov["method"] == "grad_x_input" and cov["version"] == 1 and cov["version_id"] == words["version_id"]
    assert cov["datasets"] == [{"dataset_id": did, "name": "train", "explained": 2, "total": 40}]
    word = words["items"][0]["word"]
    examples = api.get(f"/api/projects/{pid}/words/{word}/examples", role="viewer").json()
    assert examples["coverage"] == cov
    assert api.get(f"/api/projects/{pid}/coverage", role="viewer").json() == cov

    # another method: nothing explained with it, so the ranking is empty for that reason
    sal = api.get(f"/api/projects/{pid}/words", params={"method": "saliency"}).json()
    assert sal["items"] == [] and sal["coverage"]["explained"] == 0 and sal["coverage"]["method"] == "saliency"
    assert api.get(f"/api/projects/{pid}/coverage", params={"method": "magic"}).status_code == 422
    assert api.get(f"/api/projects/{pid}/coverage", params={"version_id": 99999}).status_code == 404

    # an explain job for this version and method is named while it is queued; one for another method is not
    job = api.post(f"/api/projects/{pid}/jobs/explain", json={"dataset_id": did}).json()
    other = api.post(f"/api/projects/{pid}/jobs/explain", json={"dataset_id": did, "method": "saliency"}).json()
    assert api.get(f"/api/projects/{pid}/words").json()["coverage"]["job_id"] == job["id"]
    assert api.get(f"/api/projects/{pid}/coverage", params={"method": "saliency"}).json()["job_id"] == other["id"]


def test_the_datasets_list_says_which_versions_and_methods_are_explained(api: Api, project):
    pid, did = project["id"], project["train"]["id"]
    ids = _ids(api, did)
    for eid in ids:
        assert api.get(f"/api/examples/{eid}/explanation").status_code == 200
    assert api.get(f"/api/examples/{ids[0]}/explanation", params={"method": "saliency"}).status_code == 200

    sets = {d["name"]: d for d in api.get(f"/api/projects/{pid}/datasets", role="viewer").json()["items"]}
    vid = api.get(f"/api/projects/{pid}/words").json()["version_id"]
    assert sets["train"]["explained"] == [
        {"version_id": vid, "version": 1, "method": "grad_x_input", "n_explained": 40, "complete": True},
        {"version_id": vid, "version": 1, "method": "saliency", "n_explained": 1, "complete": False},
    ]
    assert sets["clean"]["explained"] == []
    cov = api.get(f"/api/projects/{pid}/coverage").json()
    assert (cov["explained"], cov["total"], cov["complete"]) == (40, 40, True)


def test_coverage_follows_every_new_explanation_though_it_is_cached(api: Api, project):
    """The per-dataset counts are kept between requests (counting every explanation per page was the task
    view's largest cost at 1M examples); each stored explanation must still show at once, on every reader."""
    pid, did = project["id"], project["train"]["id"]
    ids = _ids(api, did)
    seen = []
    for eid in ids[:3]:
        assert api.get(f"/api/examples/{eid}/explanation").status_code == 200
        seen.append(api.get(f"/api/projects/{pid}/words", role="viewer").json()["coverage"]["explained"])
        assert api.get(f"/api/projects/{pid}/coverage").json()["explained"] == seen[-1]
    assert seen == [1, 2, 3]
    # explaining an example again replaces its explanation: the count stays
    assert api.get(f"/api/examples/{ids[0]}/explanation").status_code == 200
    assert api.get(f"/api/projects/{pid}/coverage").json()["explained"] == 3
