"""Every list route answers the one page envelope ``{items, total, offset, limit}``: read from the
OpenAPI schema, so a new route that returns a bare list fails here."""

from __future__ import annotations

from xmd.app import create_app


def _schema(spec: dict, ref_or_schema: dict) -> dict:
    ref = ref_or_schema.get("$ref")
    return spec["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else ref_or_schema


def test_no_route_answers_a_bare_list_and_every_page_has_the_envelope():
    spec = create_app(serve_ui=False).openapi()
    bare, pages = [], []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            content = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
            if not content:
                continue
            schema = _schema(spec, content["schema"])
            if schema.get("type") == "array":
                bare.append(f"{method.upper()} {path}")
            elif "items" in schema.get("properties", {}):
                pages.append(f"{method.upper()} {path}")
                assert {"items", "total", "offset", "limit"} <= set(schema["properties"]), path
    assert bare == []
    # the lists the UI pages through, including the ones that used to answer bare lists
    for route in (
        "GET /api/projects",
        "GET /api/projects/{project_id}/datasets",
        "GET /api/projects/{project_id}/slices",
        "GET /api/projects/{project_id}/jobs",
        "GET /api/jobs/{job_id}/metrics",
        "GET /api/projects/{project_id}/versions",
        "GET /api/users",
        "GET /api/projects/{project_id}/feedback/events",
        "GET /api/datasets/{dataset_id}/examples",
        "GET /api/projects/{project_id}/words",
    ):
        assert route in pages, route
