"""The REST API under ``/api/v1`` (SPEC §8), with FastAPI; OpenAPI at ``/api/v1/openapi.json``.

Every refused request is a 4xx with ``{"error": ..., "field": ...}`` naming what
was wrong; nothing is stored for it.  Mutating requests need a token
(``Authorization: Bearer …``) when the service has a tokens file: 401 without a
valid one, 403 for a non-admin acting on someone else's job or on the
scheduling mode.  Without a tokens file the service is open (it binds to
127.0.0.1 unless told otherwise) and the user is ``X-User`` or ``anonymous``.
"""


import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from corescheduler.errors import ConfigError
from corescheduler.service.service import Service, ServiceError

API = "/api/v1"
#: the cookie that keeps the page's token
COOKIE = "corescheduler_token"
#: the largest request body accepted (a job document)
MAX_BODY = 4 << 20


@frozen
class Principal:
    """Who is asking."""

    user: str
    groups: tuple[str, ...] = ()
    admin: bool = False


def load_tokens(path: str | Path) -> dict[str, Principal]:
    """``--tokens FILE``: ``[tokens."SECRET"]`` tables with ``user``, ``groups``, ``admin``."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the tokens file: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    tokens = data.get("tokens")
    if not isinstance(tokens, Mapping) or set(data) - {"tokens"}:
        raise ConfigError(f"{path}: expected only [tokens.\"SECRET\"] tables")
    out = {}
    for secret, entry in tokens.items():
        where = f"{path}: [tokens.\"{secret[:4]}…\"]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("user"), str) or not entry["user"]:
            raise ConfigError(f"{where}: expected user = \"name\"")
        unknown = set(entry) - {"user", "groups", "admin"}
        if unknown:
            raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}; expected user, groups, admin")
        groups = entry.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise ConfigError(f"{where}: groups: expected a list of names")
        admin = entry.get("admin", False)
        if not isinstance(admin, bool):
            raise ConfigError(f"{where}: admin: expected true or false")
        if len(secret) < 8:
            raise ConfigError(f"{where}: a token must be at least 8 characters")
        out[secret] = Principal(entry["user"], tuple(groups), admin)
    return out


def create_app(service: Service, tokens: Mapping[str, Principal] | None = None, manage: bool = True) -> Any:
    """The ASGI application of ``service``; ``manage``: the app's lifespan starts and stops it."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        if manage:
            await service.start()
        try:
            yield
        finally:
            if manage:
                await service.stop()

    app = FastAPI(title="corescheduler", version=_version(), openapi_url=f"{API}/openapi.json",
                  docs_url=f"{API}/docs", redoc_url=None, lifespan=lifespan)
    app.state.service = service

    def error(status: int, message: str, field: str | None = None) -> JSONResponse:
        return JSONResponse({"error": message, "field": field}, status_code=status)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return error(exc.status, exc.message, exc.field)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "path", "query")]
        return error(400, first.get("msg", "bad request"), ".".join(loc) or None)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, str(exc.detail))

    def principal(request: Request, mutating: bool) -> Principal:
        header = request.headers.get("authorization", "")
        if tokens is None:
            return Principal(request.headers.get("x-user") or "anonymous", admin=True)
        if not header.lower().startswith("bearer "):
            if mutating:
                raise ServiceError("a token is needed: Authorization: Bearer <token>", 401, "Authorization")
            return Principal("anonymous")
        who = tokens.get(header[7:].strip())
        if who is None:
            raise ServiceError("unknown token", 401, "Authorization")
        return who

    async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
        """The body, refused (413) as soon as it passes ``limit`` bytes: never held whole."""
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise ServiceError(f"the request body is over {limit} bytes", 413, "body")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ServiceError(f"the request body is over {limit} bytes", 413, "body")
            chunks.append(chunk)
        return b"".join(chunks)

    async def body_json(request: Request) -> Any:
        raw = await read_body(request)
        try:
            return json.loads(raw)
        except RecursionError:
            raise ServiceError("the body nests too deep", 400, "body") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ServiceError(f"the body is not valid JSON: {exc}", 400, "body") from None

    async def body_field(request: Request, name: str) -> str:
        """A one-field JSON body ``{"name": "..."}``: its string, or a 400 naming it."""
        doc = await body_json(request)
        if not isinstance(doc, dict) or set(doc) != {name}:
            raise ServiceError(f"expected {{\"{name}\": \"...\"}}", 400, name)
        value = doc[name]
        if not isinstance(value, str):
            raise ServiceError("expected a string", 400, name)
        return value

    def owner_or_admin(who: Principal, job_id: str) -> None:
        row = service.store.job(job_id)
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        if not who.admin and row["user"] != who.user:
            raise ServiceError(f"job {job_id} belongs to {row['user']}; only it or an admin may change it", 403, "id")

    @app.post(f"{API}/jobs", status_code=201, openapi_extra={"requestBody": {"content": {"application/json": {
        "schema": {"type": "object"}}}, "required": True}})
    async def submit(request: Request) -> JSONResponse:
        """Submit a job (SPEC §8 job format)."""
        who = principal(request, mutating=True)
        doc = await body_json(request)
        return JSONResponse(await service.submit(doc, who.user, list(who.groups)), status_code=201)

    @app.get(f"{API}/jobs")
    async def jobs(state: str | None = None, limit: int = 200) -> dict[str, Any]:
        """Jobs, newest first."""
        if not 1 <= limit <= 10_000:
            raise ServiceError("expected 1 to 10000", 400, "limit")
        rows = service.store.jobs(limit=limit, state=state)
        return {"jobs": [service.describe(r["id"]) for r in rows]}

    @app.get(API + "/jobs/{job_id}")
    async def job(job_id: str) -> dict[str, Any]:
        return service.describe(job_id)

    @app.get(API + "/jobs/{job_id}/result")
    async def result(job_id: str) -> Any:
        return {"id": job_id, "result": service.result(job_id)}

    @app.delete(API + "/jobs/{job_id}")
    async def kill(job_id: str, request: Request) -> dict[str, Any]:
        who = principal(request, mutating=True)
        owner_or_admin(who, job_id)
        return await service.kill_job(job_id, f"killed by {who.user}")

    def _one(name: str) -> dict[str, Any]:
        return {"requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {name: {"type": "string"}}, "required": [name]}}}}}

    @app.put(API + "/jobs/{job_id}/pool", openapi_extra=_one("pool"))
    async def move(job_id: str, request: Request) -> dict[str, Any]:
        """Move a job to another pool (its owner or an admin)."""
        who = principal(request, mutating=True)
        owner_or_admin(who, job_id)
        return await service.move(job_id, await body_field(request, "pool"))

    @app.put(API + "/jobs/{job_id}/priority", openapi_extra=_one("priority"))
    async def priority(job_id: str, request: Request) -> dict[str, Any]:
        """Change a job's priority (its owner or an admin)."""
        who = principal(request, mutating=True)
        owner_or_admin(who, job_id)
        return await service.set_priority(job_id, await body_field(request, "priority"))

    @app.get(f"{API}/pools")
    @app.get(f"{API}/queues")
    async def pools() -> dict[str, Any]:
        return {"pools": service.pools()}

    @app.get(f"{API}/nodes")
    async def nodes() -> dict[str, Any]:
        return {"nodes": service.nodes()}

    @app.put(f"{API}/admin/scheduling-mode", openapi_extra={"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object", "required": ["pool", "mode"], "properties": {
            "pool": {"type": "string"}, "mode": {"type": "string", "enum": ["fifo", "fair"]}}}}}}})
    async def scheduling_mode(request: Request) -> dict[str, Any]:
        """Switch a pool between fifo and fair (admins)."""
        who = principal(request, mutating=True)
        if not who.admin:
            raise ServiceError("only an admin may change the scheduling mode", 403, "mode")
        doc = await body_json(request)
        if not isinstance(doc, dict) or set(doc) != {"pool", "mode"}:
            raise ServiceError("expected {\"pool\": \"...\", \"mode\": \"fifo\" | \"fair\"}", 400, "body")
        for key in ("pool", "mode"):
            if not isinstance(doc[key], str):
                raise ServiceError("expected a string", 400, key)
        return await service.set_mode(doc["pool"], doc["mode"])

    @app.post(f"{API}/admin/reload")
    async def reload(request: Request) -> dict[str, Any]:
        """Reload the allocation file now (admins)."""
        who = principal(request, mutating=True)
        if not who.admin:
            raise ServiceError("only an admin may reload the allocations", 403, None)
        return await service.reload()

    # ------------------------------------------------------------------ the /scheduler page
    def page_principal(request: Request) -> Principal | None:
        """The page's user: the Authorization header, else the token cookie; None if none valid."""
        if tokens is None:
            return Principal("anonymous", admin=True)
        header = request.headers.get("authorization", "")
        secret = header[7:].strip() if header.lower().startswith("bearer ") else request.cookies.get(COOKIE)
        return tokens.get(secret or "")

    def back(request: Request, message: str | None = None) -> Any:
        from urllib.parse import quote

        target = "/scheduler" + ("?advanced" if "advanced" in request.query_params else "")
        if message:
            target += ("&" if "?" in target else "?") + "message=" + quote(message)
        return RedirectResponse(target, status_code=303)

    async def form(request: Request) -> dict[str, str]:
        from urllib.parse import parse_qs

        raw = await read_body(request, 65536)
        return {k: v[0] for k, v in parse_qs(raw.decode(errors="replace")).items()}

    @app.get("/scheduler", response_class=HTMLResponse)
    async def scheduler_page(request: Request) -> Any:
        from corescheduler.service.page import render

        token = request.query_params.get("token")
        if token is not None and tokens is not None:
            response = back(request, None if token in tokens else "unknown token")
            if token in tokens:
                response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
            return response
        who = page_principal(request)
        return HTMLResponse(render(service, service.history, "advanced" in request.query_params,
                                   request.query_params.get("message"), token_ok=who is not None))

    async def page_action(request: Request, job_id: str | None, action: Any) -> Any:
        who = page_principal(request)
        if who is None:
            return back(request, "a token is needed: open /scheduler?token=… first")
        try:
            if job_id is not None:
                owner_or_admin(who, job_id)
            await action(who, await form(request))
        except ServiceError as exc:
            return back(request, exc.message)
        return back(request)

    @app.post("/scheduler/jobs/{job_id}/pool", include_in_schema=False)
    async def page_move(job_id: str, request: Request) -> Any:
        return await page_action(request, job_id, lambda who, f: service.move(job_id, f.get("pool", "")))

    @app.post("/scheduler/jobs/{job_id}/priority", include_in_schema=False)
    async def page_priority(job_id: str, request: Request) -> Any:
        return await page_action(request, job_id, lambda who, f: service.set_priority(job_id, f.get("priority", "")))

    @app.post("/scheduler/pools/{pool:path}/mode", include_in_schema=False)
    async def page_mode(pool: str, request: Request) -> Any:
        async def act(who: Principal, f: dict[str, str]) -> Any:
            if not who.admin:
                raise ServiceError("only an admin may change the scheduling mode", 403)
            return await service.set_mode(pool, f.get("mode", ""))

        return await page_action(request, None, act)

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        ok, why = service.healthy()
        return JSONResponse({"ok": ok, "status": why}, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics() -> PlainTextResponse:
        from corescheduler.service.metrics import render

        return PlainTextResponse(render(service), media_type="text/plain; version=0.0.4")

    return app


def _version() -> str:
    from corescheduler import __version__

    return __version__
