"""``/docs`` works offline: the page and Swagger UI's files come from this server, not from a CDN."""

from __future__ import annotations

from apihelpers import Api


def test_docs_page_uses_local_swagger_assets(api: Api):
    r = api.client.get("/docs")
    assert r.status_code == 200
    html = r.text
    assert "/docs-assets/swagger-ui-bundle.js" in html and "/docs-assets/swagger-ui.css" in html
    assert "cdn" not in html.lower() and "https://" not in html
    js = api.client.get("/docs-assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and "SwaggerUIBundle" in js.text
    assert api.client.get("/docs-assets/swagger-ui.css").status_code == 200
    # the schema the page loads is there too, and it is OpenAPI 3.1 (which this Swagger UI renders)
    assert api.client.get("/openapi.json").json()["openapi"].startswith("3.1")
