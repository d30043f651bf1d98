"""The page for people: ``/`` (start research), ``/sessions`` (history), ``/sessions/{id}`` (a session,
live or finished), ``/library`` (your documents: upload, list, delete, ask), ``/operations`` (the judge, the
sessions, the Ray dashboard), and its script, style and icon, all from ``serve/web/`` (no build step). A
browser that asks for an address nothing serves gets the page with status 404 (its script shows "No
such page"); any other client keeps the API's JSON 404.

The page itself holds no data, so it needs no token; what it shows comes from the API with the
bearer token the page asks for. Every answer carries a strict Content-Security-Policy: scripts,
styles and connections to this origin only, no frames, no plugins, no images from anywhere else.
"""

from __future__ import annotations

import html
from importlib.resources import files

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

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
ASSETS = {"app.js": "text/javascript", "style.css": "text/css", "icon.svg": "image/svg+xml"}
PAGES = ("/", "/sessions", "/sessions/{session_id}", "/library", "/operations")
API_PATHS = ("/research", "/documents", "/ask", "/status", "/health", "/static")  # keep their JSON 404


def _asset(name: str) -> str:
    return files("serve").joinpath("web", name).read_text(encoding="utf-8")


def _root(request: Request) -> str:
    """Where the app is mounted ("" at the host's root)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def _page(request: Request, status: int = 200) -> HTMLResponse:
    root = html.escape(_root(request), quote=True)
    return HTMLResponse(_asset("index.html").replace("{{root}}", root), status, headers=HEADERS)


def add_web_routes(app: FastAPI) -> None:
    async def page(request: Request) -> HTMLResponse:
        return _page(request)

    @app.exception_handler(StarletteHTTPException)
    async def not_here(request: Request, error: StarletteHTTPException) -> Response:
        """A person's browser asking for a page that is not there reads "No such page" in words."""
        wants_page = request.method == "GET" and "text/html" in request.headers.get("accept", "")
        path = request.url.path.removeprefix(_root(request))
        if error.status_code == 404 and wants_page and not path.startswith(API_PATHS):
            return _page(request, 404)
        return await http_exception_handler(request, error)

    for path in PAGES:  # one page; its script shows the view the path names
        app.add_api_route(path, page, include_in_schema=False, response_class=HTMLResponse)

    @app.get("/static/{name}", include_in_schema=False)
    async def asset(name: str) -> Response:
        if name not in ASSETS:
            raise HTTPException(404, "no such file")
        return Response(_asset(name), media_type=ASSETS[name], headers=HEADERS)
