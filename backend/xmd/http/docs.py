"""``/docs`` without the internet: Swagger UI's files are served from the installed ``swagger-ui-py``
package instead of a CDN (FastAPI's default page loads them from jsDelivr, so it was blank offline)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"


def swagger_static_dir() -> Path:
    """The folder of Swagger UI's built files (swagger-ui-bundle.js, swagger-ui.css) in ``swagger-ui-py``."""
    import swagger_ui

    return Path(swagger_ui.__file__).parent / "static"


def install(app: FastAPI) -> None:
    """Serve ``/docs`` from local files; the app must be created with ``docs_url=None, redoc_url=None``."""
    app.mount(ASSETS, StaticFiles(directory=swagger_static_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url="data:,",
        )
