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
from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from corescheduler.errors import ConfigError
from corescheduler.service.service import Service, ServiceError

API = "/api/v1"
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

    async def body_json(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ServiceError(f"the request body is over {MAX_BODY} bytes", 413)
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ServiceError(f"the body is not valid JSON: {exc}", 400, "body") from None

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

    @app.put(API + "/jobs/{job_id}/pool")
    async def move(job_id: str, request: Request, pool: str = Body(..., embed=True)) -> dict[str, Any]:
        who = principal(request, mutating=True)
        owner_or_admin(who, job_id)
        return await service.move(job_id, pool)

    @app.put(API + "/jobs/{job_id}/priority")
    async def priority(job_id: str, request: Request, priority: str = Body(..., embed=True)) -> dict[str, Any]:
        who = principal(request, mutating=True)
        owner_or_admin(who, job_id)
        return await service.set_priority(job_id, priority)

    @app.get(f"{API}/pools")
    @app.get(f"{API}/queues")
    async def pools() -> dict[str, Any]:
        return {"pools": service.pools()}

    @app.get(f"{API}/nodes")
    async def nodes() -> dict[str, Any]:
        return {"nodes": service.nodes()}

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
