"""The page for people: ``/`` (start research), ``/sessions`` (history), ``/sessions/{id}`` (a session,
live or finished), ``/library`` (your documents: upload, list, delete, ask), ``/operations`` (the judge, the
sessions, the Ray dashboard), and its script and style, all from ``serve/web/`` (no build step).

The page itself holds no data, so it needs no token; what it shows comes from the API with the
bearer token the page asks for. Every answer carries a strict Content-Security-Policy: scripts,
styles and connections to this origin only, no frames, no plugins, no images from anywhere else.
"""

from __future__ import annotations

import html
from importlib.resources import files

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": PAGE_CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
ASSETS = {"app.js": "text/javascript", "style.css": "text/css"}
PAGES = ("/", "/sessions", "/sessions/{session_id}", "/library", "/operations")


def _asset(name: str) -> str:
    return files("serve").joinpath("web", name).read_text(encoding="utf-8")


def add_web_routes(app: FastAPI) -> None:
    async def page(request: Request) -> HTMLResponse:
        root = html.escape(str(request.scope.get("root_path", "")).rstrip("/"), quote=True)
        return HTMLResponse(_asset("index.html").replace("{{root}}", root), headers=HEADERS)

    for path in PAGES:  # one page; its script shows the view the path names
        app.add_api_route(path, page, include_in_schema=False, response_class=HTMLResponse)

    @app.get("/static/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(404, "no such file")
        return Response(_asset(name), media_type=ASSETS[name], headers=HEADERS)
