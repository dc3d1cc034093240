"""The REST API under ``/api/v1`` (SPEC §8, §8b), with FastAPI; OpenAPI at ``/api/v1/openapi.json``.

Every refused request is a 4xx with ``{"error": ..., "field": ...}`` naming what
was wrong; nothing is stored for it.  Mutating requests need a token
(``Authorization: Bearer …``) when the service has a tokens file: 401 without a
valid one, 403 for a non-admin acting on someone else's job or on the
scheduling mode.  Without a tokens file the service is open (it binds to
127.0.0.1 unless told otherwise) and the user is ``X-User`` or ``anonymous``.

Reading (SPEC §8b, YARN's ``mapreduce.job.acl-view-job``): a job's result, errors and
document (arguments, ``env``, command) are for its owner, admins and the users its
queue's ``aclAdministerApps`` names; anyone else sees its summary, or nothing with
``[service] public_read = "none"`` — 403 with a token, 401 without.

The ``/scheduler`` page signs in with a form (POST ``/scheduler/login``) that sets an
HttpOnly, SameSite=Strict session cookie (a random id, never the token); each of its
forms carries a CSRF token.  No token is taken from a URL, and the access log holds no
client-controlled text (:mod:`corescheduler.service.accesslog`).
"""

import asyncio
import functools
import hashlib
import hmac
import json
import logging
import math
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, HTTPConnection

from corescheduler.core.queues import full_queue_name
from corescheduler.service.accesslog import AccessLog, DropUvicornAccess, RedactTokens
from corescheduler.service.gate import ReadGate, ReadTurns
from corescheduler.service.service import Service, ServiceError
from corescheduler.service.tokens import Principal, TokenTable, load_tokens

__all__ = ["API", "COOKIE", "MAX_BODY", "Principal", "TokenTable", "create_app", "load_tokens"]

API = "/api/v1"
#: the page's session cookie (a random id; the token itself is never stored in the browser)
COOKIE = "corescheduler_session"
#: the largest request body accepted (a job document)
MAX_BODY = 4 << 20
#: a body larger than this is decoded in a thread (the loop keeps answering meanwhile)
LARGE_BODY = 256 << 10
#: a page session's life, and the most sessions kept (the oldest go first)
SESSION_TTL = 12 * 3600.0
MAX_SESSIONS = 10_000
#: the most page sessions of one user (the oldest go first): one tenant cannot flush the others'
MAX_SESSIONS_PER_USER = 20
#: the sign-in form's cookie: a random per-browser value its CSRF token is bound to
LOGIN_COOKIE = "corescheduler_login"
#: what a job summary shows to those who may not read the job (SPEC §8b)
SUMMARY = ("id", "name", "user", "pool", "priority", "state", "submitted", "started", "ended", "maps", "reduces")
JOB_STATES = ("accepted", "running", "finished", "killed", "failed")
_JOB_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_TASK_ID = re.compile(r"^([A-Za-z0-9_.-]{1,64})_([mr])_(\d{1,9})$")
#: the jobs that ended last, on the page
RECENT = 20
#: a page of jobs or tasks: its default and largest size
PAGE = 100
MAX_PAGE = 1000
_LOGIN_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (RFC 8259)")


def _finite(text: str) -> float:
    """A JSON number with a fraction or an exponent, as a float; one past a float's range
    (``1e999``, which Python reads as ``inf``) is refused: stored, it would be answered as
    ``Infinity``."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is past a float's range (about 1.8e308)")
    return value


def _strict_json(raw: bytes) -> Any:
    """``raw`` read as JSON, and only JSON: Python's reader also takes ``NaN`` and ``Infinity``,
    and reads ``1e999`` as ``inf``, which a stored job would then echo in its answers as
    ``Infinity``, breaking every strict JSON client."""
    return json.loads(raw, parse_constant=_not_json, parse_float=_finite)


def _safe(text: str | None) -> str | None:
    """Text a response can carry: a lone surrogate (from a request) as its escape."""
    return None if text is None else text.encode("utf-8", "backslashreplace").decode("utf-8")


def create_app(service: Service, tokens: TokenTable | Mapping[str, Principal] | None = None,
               manage: bool = True) -> Any:
    """The ASGI application of ``service``; ``manage``: the app's lifespan starts and stops it.
    ``tokens``: a :class:`TokenTable` (``load_tokens``), or plain tokens -> principals."""
    from contextlib import asynccontextmanager

    from corescheduler.service.schema import job_schema

    table: TokenTable | None
    if tokens is None or isinstance(tokens, TokenTable):
        table = tokens
    else:
        table = TokenTable.from_plain(tokens)
    redact = RedactTokens(table)
    drop_uvicorn_access = DropUvicornAccess()
    #: page sessions: sha256(session id) -> (principal, expiry)
    sessions: OrderedDict[bytes, tuple[Principal, float]] = OrderedDict()
    page_key = secrets.token_bytes(32)  # signs the page's CSRF tokens; new each start

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        loggers = [logging.getLogger(n) for n in ("uvicorn.access", "uvicorn.error", "uvicorn")]
        for lg in loggers:
            lg.addFilter(redact)
        loggers[0].addFilter(drop_uvicorn_access)  # ours (AccessLog) carry no client text
        try:
            if manage:
                await service.start()
            try:
                yield
            finally:
                if manage:
                    await service.stop()
        finally:
            app.state.read_turns.close()
            for lg in loggers:
                lg.removeFilter(redact)
            loggers[0].removeFilter(drop_uvicorn_access)

    app = FastAPI(title="corescheduler", version=_version(), openapi_url=f"{API}/openapi.json",
                  docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.service = service
    # reads take turns (inside the access log: a line's latency has the wait for a turn)
    app.state.read_turns = ReadTurns()

    def identify(scope: dict[str, Any]) -> str | None:
        """The user a read's credential names, if it is one this service knows (a valid token,
        a live page session): the read gate counts costs by it; by the client's host otherwise."""
        if table is None:  # no credentials: X-User is anyone's to set
            return None
        conn = HTTPConnection(scope)
        headers = conn.headers.getlist("authorization")
        header = headers[0] if len(headers) == 1 else None  # two: refused by the route (principal)
        if header is not None and header.lower().startswith("bearer "):
            who = table.lookup(header[7:].strip())
            if who is not None:
                return who.user
        _, who = session_of(conn)
        return who.user if who is not None else None

    app.add_middleware(ReadGate, turns=app.state.read_turns, identify=identify)
    app.add_middleware(AccessLog)
    job_ref, job_components = job_schema()

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            doc = get_openapi(title=app.title, version=app.version, routes=app.routes)
            doc.setdefault("components", {}).setdefault("schemas", {}).update(job_components)
            if table is not None:
                doc["components"].setdefault("securitySchemes", {})["bearer"] = {"type": "http", "scheme": "bearer"}
                doc["security"] = [{"bearer": []}, {}]
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    def error(status: int, message: str, field: str | None = None) -> JSONResponse:
        return JSONResponse({"error": _safe(message), "field": _safe(field)}, status_code=status)

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

    # ------------------------------------------------------------------ who is asking
    def principal(request: Request, mutating: bool) -> Principal | None:
        """The token's principal; None for an anonymous read (a mutating request without a
        token is a 401).  Without a tokens file everyone is an admin (``X-User`` names them)."""
        if table is None:
            return Principal(request.headers.get("x-user") or "anonymous", admin=True)
        headers = request.headers.getlist("authorization")
        if len(headers) > 1:  # which one is meant? a proxy may check another than the first
            raise ServiceError(f"expected one Authorization header, got {len(headers)}", 401, "Authorization")
        header = headers[0] if headers else None
        if header is None:
            if mutating:
                raise ServiceError("a token is needed: Authorization: Bearer <token>", 401, "Authorization")
            return None
        if not header.lower().startswith("bearer "):
            raise ServiceError("expected Authorization: Bearer <token>", 401, "Authorization")
        who = table.lookup(header[7:].strip())
        if who is None:
            raise ServiceError("unknown token", 401, "Authorization")
        return who

    def queue_admin(who: Principal, pool: str | None) -> bool:
        """The queue's ``aclAdministerApps`` (or an ancestor's) names ``who`` — only where the
        allocation file sets one (SPEC §3: ACLs apply where the file has them)."""
        if not pool:
            return False
        try:
            queues = service.scheduler.allocations.queue_config()
            name = full_queue_name(pool)
            for q in (name, *queues.ancestors(name)):
                acl = queues.spec(q).acl_administer_apps
                if acl is not None and acl.allows(who.user, who.groups):
                    return True
        except Exception:  # a pool name the queue tree cannot take: no queue ACL applies
            return False
        return False

    def may_act(who: Principal | None, row: Mapping[str, Any]) -> bool:
        """Its owner, an admin, or its queue's administrators (YARN's view and modify ACLs)."""
        if who is None:
            return False
        return who.admin or row["user"] == who.user or queue_admin(who, row.get("pool"))

    def live_row(job_id: str) -> dict[str, Any]:
        row = service.store.job_summary(job_id) if _JOB_ID.match(job_id) else None
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        return row

    def refuse(who: Principal | None, job_id: str, what: str) -> ServiceError:
        if who is None:
            return ServiceError(f"a token is needed to read {what} of job {job_id}", 401, "Authorization")
        return ServiceError(f"{what} of job {job_id} is for its owner, admins and its queue's administrators",
                            403, "id")

    def readable(who: Principal | None, row: Mapping[str, Any], job_id: str, what: str) -> bool:
        """True: the whole job; False: its summary; a refusal (401/403) when not even that."""
        if may_act(who, row):
            return True
        if service.settings.public_read == "none":
            raise refuse(who, job_id, what)
        return False

    def summary(described: dict[str, Any]) -> dict[str, Any]:
        return {k: described[k] for k in SUMMARY if k in described}

    def mover(who: Principal) -> tuple[str | None, tuple[str, ...]]:
        """Whose submit access a move's target queue must grant, and whose priority ACL a
        priority change must pass: the caller's, or nobody's for an admin
        (``ClientRMService.moveApplicationAcrossQueues``, ``updateApplicationPriority``)."""
        return (None, ()) if who.admin else (who.user, tuple(who.groups))

    def owner_or_admin(who: Principal, job_id: str) -> Callable[[Any], None]:
        """Refuses (403) a caller who may not change the job; returns the same check for the
        service to run again under its lock, against the job as it is then (a request queued
        behind another's move of the job out of the caller's queue acted on it there:
        YARN checks ``MODIFY_APP`` on the application as it is, ``QueueACLsManager.checkAccess``)."""
        row = live_row(job_id)

        def refuse_unless(current: Mapping[str, Any]) -> None:
            if not may_act(who, current):
                # the owner is named only where anyone may read it (a job's summary)
                whose = "is not yours" if service.settings.public_read == "none" else f"belongs to {current['user']}"
                raise ServiceError(f"job {job_id} {whose}; only its owner, an admin or its "
                                   f"queue's administrators may change it", 403, "id")

        refuse_unless(row)
        return lambda job: refuse_unless({"user": job.user, "pool": job.pool})

    # ------------------------------------------------------------------ bodies
    async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
        """The body, refused (413) as soon as it passes ``limit`` bytes: never held whole."""
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise ServiceError(f"the request body is over {limit} bytes", 413, "body")
        chunks, size = [], 0
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise ServiceError(f"the request body is over {limit} bytes", 413, "body")
                chunks.append(chunk)
        except ClientDisconnect:  # gone mid-body (a client's timeout): nothing done, and no traceback
            raise ServiceError("the client closed the connection before the body ended", 400, "body") from None
        return b"".join(chunks)

    async def body_json(request: Request) -> Any:
        raw = await read_body(request)
        try:
            if len(raw) > LARGE_BODY:  # a large job's document is decoded off the event loop
                return await asyncio.to_thread(_strict_json, raw)
            return _strict_json(raw)
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

    # ------------------------------------------------------------------ jobs
    @app.post(f"{API}/jobs", status_code=201, openapi_extra={"requestBody": {"content": {"application/json": {
        "schema": job_ref}}, "required": True}})
    async def submit(request: Request) -> JSONResponse:
        """Submit a job (SPEC §8 job format)."""
        who = principal(request, mutating=True)
        assert who is not None
        doc = await body_json(request)
        return JSONResponse(await service.submit(doc, who.user, list(who.groups)), status_code=201)

    @app.get(f"{API}/jobs")
    async def jobs(request: Request, state: str | None = None, limit: int = PAGE, after: str | None = None,
                   ) -> JSONResponse:
        """Jobs, newest first, ``limit`` at a time (default 100): ``after`` is the previous
        page's ``next``.  Whole for those who may read them, else their summaries (or none,
        with ``public_read = "none"``)."""
        if not 1 <= limit <= MAX_PAGE:
            raise ServiceError(f"expected 1 to {MAX_PAGE}", 400, "limit")
        if state is not None and state not in JOB_STATES:
            raise ServiceError(f"expected one of {', '.join(JOB_STATES)}", 400, "state")
        if after is not None and not _JOB_ID.match(after):
            raise ServiceError("expected a job id (the previous page's next)", 400, "after")
        who = principal(request, mutating=False)
        hidden = service.settings.public_read == "none"
        if hidden and who is None:
            raise ServiceError("a token is needed to list jobs", 401, "Authorization")
        try:
            if hidden and who is not None and not who.admin:
                rows, following = await own_page(who, limit, after, state)
            else:
                rows, following = service.store.cached_jobs_page(limit, after, state) \
                    or await service.read(service.store.jobs_page, limit, after, state)
        except KeyError:
            raise ServiceError(f"no job {after!r}", 400, "after") from None
        whole = [may_act(who, row) for row in rows]
        shown = [row for row, w in zip(rows, whole) if w or not hidden]
        out = []
        for described, w in zip(await service.describe_many(shown), [w for w in whole if w or not hidden]):
            out.append(described if w else summary(described))
        return JSONResponse({"jobs": out, "next": following})

    def administers_a_queue(who: Principal) -> bool:
        """Some queue's ``aclAdministerApps`` names ``who``."""
        try:
            return any(spec.acl_administer_apps is not None and spec.acl_administer_apps.allows(who.user, who.groups)
                       for _, spec in service.scheduler.allocations.queue_config().walk())
        except Exception:  # a queue tree that cannot be read: no queue ACL applies (as queue_admin)
            return False

    async def own_page(who: Principal, limit: int, after: str | None, state: str | None,
                       ) -> tuple[list[dict[str, Any]], str | None]:
        """Under ``public_read = "none"``, a page of the jobs ``who`` may read — and a cursor
        that is one of them: a cursor read past another's job named it, and its state with
        ``state=``.  Their own jobs (the ledger filters by user); a queue administrator's
        are read a page at a time until ``limit`` of them are found."""
        store = service.store
        if not administers_a_queue(who):
            return store.cached_jobs_page(limit, after, state, who.user) \
                or await service.read(store.jobs_page, limit, after, state, who.user)
        shown: list[dict[str, Any]] = []
        cursor = after
        while True:
            rows, following = store.cached_jobs_page(MAX_PAGE, cursor, state) \
                or await service.read(store.jobs_page, MAX_PAGE, cursor, state)
            for i, row in enumerate(rows):
                if may_act(who, row):
                    shown.append(row)
                    if len(shown) == limit:  # more may follow it (rows left, or pages)
                        return shown, row["id"] if i + 1 < len(rows) or following else None
            if following is None:
                return shown, None
            cursor = following

    async def job_row(job_id: str) -> dict[str, Any]:
        """A job's ledger row (without its document): kept in memory, or read in a reading thread
        (the loop never waits for SQLite: a read there waited for the GIL behind the reading
        threads); 404 if none."""
        if not _JOB_ID.match(job_id):
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        row = service.store.cached_summary(job_id) or await service.read(service.store.job_summary, job_id)
        if row is None:
            raise ServiceError(f"no job {job_id!r}", 404, "id")
        return row

    @app.get(API + "/jobs/{job_id}")
    async def job(job_id: str, request: Request) -> Response:
        """A job; for its owner, admins and its queue's administrators with its errors and its
        document as submitted (arguments, env, commands)."""
        who = principal(request, mutating=False)
        store = service.store

        def fetch() -> tuple[dict[str, Any] | None, dict[str, Any] | None, bytes | None]:
            """The row, its stats and its document (kept bytes, never decoded): one trip to a
            reading thread for the whole answer."""
            row = store.job_summary(job_id) if _JOB_ID.match(job_id) else None
            if row is None:
                return None, None, None
            return row, store.job_stats(job_id), store.job_document(job_id)

        # kept answers (no commit touched the job since they were read) come from memory: no
        # trip to a reading thread, so a job's status never queues behind other readers' reads
        row = store.cached_summary(job_id) if _JOB_ID.match(job_id) else None
        stats = store.cached_stats(job_id) if row is not None else None
        if row is None or stats is None:
            row, stats, document = await service.read(fetch)
            if row is None or stats is None:
                raise ServiceError(f"no job {job_id!r}", 404, "id")
            whole = readable(who, row, job_id, "the job")
        else:
            whole = readable(who, row, job_id, "the job")
            document = (store.cached_document(job_id) or await service.read(store.job_document, job_id)) \
                if whole else None
        described = service.described(row, stats)
        if not whole:
            return JSONResponse(summary(described))
        # the stored document spliced in as it is
        return Response(b"".join((json.dumps(described)[:-1].encode(), b', "document": ', document or b"null", b"}")),
                        media_type="application/json")

    @app.get(API + "/jobs/{job_id}/tasks")
    async def tasks(job_id: str, request: Request, limit: int = PAGE, after: str | None = None) -> Response:
        """A job's tasks, maps then reduces by index, ``limit`` at a time (default 100):
        ``after`` is the previous page's ``next`` (a task id, ``job_0001_m_000041``).  Each
        task's error only for those who may read the job."""
        if not 1 <= limit <= MAX_PAGE:
            raise ServiceError(f"expected 1 to {MAX_PAGE}", 400, "limit")
        cursor = None
        if after is not None:
            m = _TASK_ID.match(after)
            if m is None or m.group(1) != job_id:
                raise ServiceError(f"expected a task id of job {job_id} (the previous page's next)", 400, "after")
            cursor = ("map" if m.group(2) == "m" else "reduce", int(m.group(3)))
        who = principal(request, mutating=False)
        row = await job_row(job_id)
        whole = readable(who, row, job_id, "the tasks")
        # a page is kept encoded until a commit touches the job: readers of a job that does not
        # change (one waiting in its queue) are answered from memory, without a reading thread
        store, key = service.store, ("tasks", limit, cursor, whole)
        kept = store.kept(job_id, key)
        if kept is not None:
            return Response(kept, media_type="application/json")
        stamp = store.stamp()
        rows, following = await service.read(store.tasks_page, job_id, limit, cursor)

        def task_id(kind: str, idx: int) -> str:
            return f"{job_id}_{kind[0]}_{idx:06d}"

        out = []
        for t in rows:
            entry = {"id": task_id(t["kind"], t["idx"]), "kind": t["kind"], "index": t["idx"], "state": t["state"],
                     "attempts": t["attempts"], "failed_attempts": t["failures"], "node": t["node"]}
            if whole:
                entry["error"] = t["error"]
            out.append(entry)
        answer = JSONResponse({"tasks": out, "next": task_id(*following) if following else None})
        store.keep(job_id, key, stamp, bytes(answer.body))
        return answer

    @app.get(API + "/jobs/{job_id}/result")
    async def result(job_id: str, request: Request) -> Any:
        who = principal(request, mutating=False)
        row = await job_row(job_id)
        if not may_act(who, row):
            raise refuse(who, job_id, "the result")
        return JSONResponse({"id": job_id, "result": await service.read(service.result, job_id)})

    @app.delete(API + "/jobs/{job_id}")
    async def kill(job_id: str, request: Request) -> dict[str, Any]:
        who = principal(request, mutating=True)
        assert who is not None
        allowed = owner_or_admin(who, job_id)
        return await service.kill_job(job_id, f"killed by {who.user}", allowed=allowed)

    def _one(name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {"requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {name: schema}, "required": [name], "additionalProperties": False}}}}}

    from corescheduler.service.schema import POOL

    @app.put(API + "/jobs/{job_id}/pool", openapi_extra=_one("pool", {"type": "string", "minLength": 1,
                                                                      "maxLength": 200, "pattern": POOL}))
    async def move(job_id: str, request: Request) -> dict[str, Any]:
        """Move a job to another pool (its owner, an admin or its queue's administrators; into a
        queue the caller may submit to, unless an admin)."""
        who = principal(request, mutating=True)
        assert who is not None
        allowed = owner_or_admin(who, job_id)
        return await service.move(job_id, await body_field(request, "pool"), *mover(who), allowed=allowed)

    @app.put(API + "/jobs/{job_id}/priority", openapi_extra=_one("priority", {
        "type": "string", "enum": ["VERY_LOW", "LOW", "NORMAL", "HIGH", "VERY_HIGH"]}))
    async def priority(job_id: str, request: Request) -> dict[str, Any]:
        """Change a job's priority (its owner, an admin or its queue's administrators; to a
        priority the queue's priority ACL allows the caller, unless an admin)."""
        who = principal(request, mutating=True)
        assert who is not None
        allowed = owner_or_admin(who, job_id)
        return await service.set_priority(job_id, await body_field(request, "priority"), *mover(who),
                                          allowed=allowed)

    def overview_reader(request: Request, what: str) -> None:
        """Under ``public_read = "none"``, the pools, nodes and metrics are for token holders
        (401 without): a job's default pool is its user's name, and a pool any name a tenant
        gave it.  Under ``"summary"`` they are anyone's, as Hadoop's scheduler page was."""
        if table is not None and service.settings.public_read == "none" \
                and principal(request, mutating=False) is None:
            raise ServiceError(f"a token is needed to read {what}", 401, "Authorization")

    @app.get(f"{API}/pools")
    @app.get(f"{API}/queues")
    async def pools(request: Request) -> dict[str, Any]:
        overview_reader(request, "the pools")
        return {"pools": service.pools()}

    @app.get(f"{API}/nodes")
    async def nodes(request: Request) -> dict[str, Any]:
        overview_reader(request, "the nodes")
        return {"nodes": service.nodes()}

    @app.put(f"{API}/admin/scheduling-mode", openapi_extra={"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object", "required": ["pool", "mode"], "additionalProperties": False,
                                        "properties": {"pool": {"type": "string", "minLength": 1, "maxLength": 200},
                                                       "mode": {"type": "string", "enum": ["fifo", "fair"]}}}}}}})
    async def scheduling_mode(request: Request) -> dict[str, Any]:
        """Switch a pool between fifo and fair (admins)."""
        who = principal(request, mutating=True)
        if who is None or not who.admin:
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
        if who is None or not who.admin:
            raise ServiceError("only an admin may reload the allocations", 403, None)
        return await service.reload()

    # ------------------------------------------------------------------ the /scheduler page
    def session_of(request: HTTPConnection) -> tuple[bytes | None, Principal | None]:
        """The page's session (its key) and user, from the session cookie."""
        sid = request.cookies.get(COOKIE)
        if not sid:
            return None, None
        key = hashlib.sha256(sid.encode("utf-8", "surrogatepass")).digest()
        entry = sessions.get(key)
        if entry is None:
            return None, None
        who, expires = entry
        if time.monotonic() > expires:
            sessions.pop(key, None)
            return None, None
        return key, who

    def csrf_for(scope: bytes | str) -> str:
        """The CSRF token of a session (or of the open page, or of the sign-in form): a MAC
        that a page of another site cannot read."""
        data = scope if isinstance(scope, bytes) else scope.encode()
        return hmac.new(page_key, data, hashlib.sha256).hexdigest()

    def page_user(request: Request) -> tuple[Principal | None, str | None]:
        """The page's user and the CSRF token its forms carry (None: no one signed in)."""
        if table is None:
            return Principal("anonymous", admin=True), csrf_for("open")
        key, who = session_of(request)
        if who is None or key is None:
            return None, None
        return who, csrf_for(key)

    def back(request: Request, message: str | None = None) -> Any:
        from urllib.parse import quote

        target = "/scheduler" + ("?advanced" if "advanced" in request.query_params else "")
        message = _safe(message)  # (a lone surrogate as its escape: quoted and signed as UTF-8)
        if message:
            target += (("&" if "?" in target else "?") + "message=" + quote(message)
                       + "&sig=" + csrf_for(f"message:{message}"))
        return RedirectResponse(target, status_code=303)

    async def form(request: Request) -> dict[str, str]:
        from urllib.parse import parse_qs

        raw = await read_body(request, 65536)
        return {k: v[0] for k, v in parse_qs(raw.decode(errors="replace")).items()}

    @app.get("/scheduler", response_class=HTMLResponse)
    async def scheduler_page(request: Request) -> Any:
        from corescheduler.service.page import render

        who, csrf = page_user(request)
        if "token" in request.query_params:  # never from a URL: it would be in logs and histories
            message, status = "a token is not taken from a URL: sign in with the form", 400
        else:  # a message the service wrote (signed): any other text is a link's bait, not shown
            message, status = request.query_params.get("message"), 200
            if message is not None and not hmac.compare_digest(
                    request.query_params.get("sig", ""), csrf_for(f"message:{message}")):
                message = None
        if who is None and request.headers.get("authorization") is not None:
            try:  # a client with a token (its posts need no CSRF token): shown what that token may do
                who = principal(request, mutating=False)
            except ServiceError as exc:
                message, status = exc.message, exc.status
        visible = None
        if service.settings.public_read == "none" and not (who is not None and who.admin):
            visible = functools.partial(may_act, who)
        store = service.store
        live = list(service.scheduler.jobs)

        def read() -> tuple[dict[str, Any], list[tuple[dict[str, Any], str | None]]]:
            rows = {job_id: row for job_id in live if (row := store.job_summary(job_id)) is not None}
            recent = store.recent_ended(RECENT)
            return rows, [(row, row["error"] or (store.job_stats(row["id"])["last_error"]
                                                 if row["state"] != "finished" else None)) for row in recent]

        # an anonymous reader under public_read = "none" gets the sign-in form alone
        overview = table is None or who is not None or service.settings.public_read != "none"
        rows, recent = await service.read(read) if overview else ({}, [])
        ended = [(row, err if may_act(who, row) else None) for row, err in recent
                 if visible is None or visible(row)]  # the error for those who may read the job (SPEC §8b)
        # the sign-in form's CSRF token is bound to this browser's own random cookie (a
        # constant one could be replayed by another site to sign a victim in as the attacker)
        pre = request.cookies.get(LOGIN_COOKIE) or ""
        fresh = table is not None and who is None and status == 200 and not _LOGIN_VALUE.fullmatch(pre)
        if fresh:
            pre = secrets.token_urlsafe(32)
        response = HTMLResponse(render(service, service.history, "advanced" in request.query_params, message,
                                       token_ok=who is not None, csrf=csrf, user=None if table is None else who,
                                       login_csrf=csrf_for(f"login:{pre}") if table is not None else None,
                                       visible=visible, ended=ended, rows=rows,
                                       may_act=None if table is None else functools.partial(may_act, who),
                                       admin=who is not None and who.admin, overview=overview),
                                status_code=status)
        if fresh:
            response.set_cookie(LOGIN_COOKIE, pre, max_age=int(SESSION_TTL), httponly=True, samesite="strict",
                                path="/scheduler")
        return response

    @app.post("/scheduler/login", include_in_schema=False)
    async def page_login(request: Request) -> Any:
        fields = await form(request)
        if table is None:
            return back(request)
        pre = request.cookies.get(LOGIN_COOKIE) or ""
        if not _LOGIN_VALUE.fullmatch(pre) or not hmac.compare_digest(fields.get("csrf", ""),
                                                                      csrf_for(f"login:{pre}")):
            return back(request, "the sign-in form expired (or came from another site): try again")
        who = table.lookup(fields.get("token", "").strip())
        if who is None:
            return back(request, "unknown token")
        sid = secrets.token_urlsafe(32)
        now = time.monotonic()
        for key in [k for k, (_, expires) in sessions.items() if expires < now]:
            del sessions[key]
        mine = [k for k, (p, _) in sessions.items() if p.user == who.user]  # oldest first
        for key in mine[:max(0, len(mine) - MAX_SESSIONS_PER_USER + 1)]:
            del sessions[key]
        while len(sessions) >= MAX_SESSIONS:
            sessions.popitem(last=False)
        sessions[hashlib.sha256(sid.encode()).digest()] = (who, now + SESSION_TTL)
        response = back(request)
        response.set_cookie(COOKIE, sid, max_age=int(SESSION_TTL), httponly=True, samesite="strict", path="/")
        return response

    @app.post("/scheduler/logout", include_in_schema=False)
    async def page_logout(request: Request) -> Any:
        fields = await form(request)
        key, _ = session_of(request)
        if key is not None and hmac.compare_digest(fields.get("csrf", ""), csrf_for(key)):
            sessions.pop(key, None)
        response = back(request)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return response

    async def page_action(request: Request, job_id: str | None, action: Any) -> Any:
        fields = await form(request)
        if request.headers.get("authorization") is not None:  # a client, not a browser form: no CSRF
            try:
                who: Principal | None = principal(request, mutating=True)
            except ServiceError as exc:
                return back(request, exc.message)
        else:
            who, csrf = page_user(request)
            if who is None or csrf is None:
                return back(request, "sign in first")
            if not hmac.compare_digest(fields.get("csrf", ""), csrf):
                return back(request, "the form expired (or came from another site): try again")
        assert who is not None
        try:
            allowed = owner_or_admin(who, job_id) if job_id is not None else None
            await action(who, fields, allowed)
        except ServiceError as exc:
            return back(request, exc.message)
        return back(request)

    @app.post("/scheduler/jobs/{job_id}/pool", include_in_schema=False)
    async def page_move(job_id: str, request: Request) -> Any:
        return await page_action(request, job_id, lambda who, f, allowed: service.move(
            job_id, f.get("pool", ""), *mover(who), allowed=allowed))

    @app.post("/scheduler/jobs/{job_id}/priority", include_in_schema=False)
    async def page_priority(job_id: str, request: Request) -> Any:
        return await page_action(request, job_id, lambda who, f, allowed: service.set_priority(
            job_id, f.get("priority", ""), *mover(who), allowed=allowed))

    @app.post("/scheduler/jobs/{job_id}/kill", include_in_schema=False)
    async def page_kill(job_id: str, request: Request) -> Any:
        return await page_action(request, job_id, lambda who, f, allowed: service.kill_job(
            job_id, f"killed by {who.user}", allowed=allowed))

    @app.post("/scheduler/pools/{pool:path}/mode", include_in_schema=False)
    async def page_mode(pool: str, request: Request) -> Any:
        async def act(who: Principal, f: dict[str, str], allowed: Any) -> Any:
            if not who.admin:
                raise ServiceError("only an admin may change the scheduling mode", 403)
            return await service.set_mode(pool, f.get("mode", ""))

        return await page_action(request, None, act)

    @app.get(f"{API}/docs", include_in_schema=False, response_class=HTMLResponse)
    async def api_docs() -> HTMLResponse:
        """The API's operations, from its OpenAPI document, as a page with no script and no
        outside asset (it works offline); the document itself is linked."""
        import html

        rows = []
        for path, ops in openapi().get("paths", {}).items():
            for method, op in ops.items():
                text = op.get("summary") or ""
                doc = (op.get("description") or "").strip()
                rows.append(f"<tr><td>{html.escape(method.upper())}</td><td><code>{html.escape(path)}</code></td>"
                            f"<td>{html.escape(text)}</td><td>{html.escape(doc)}</td></tr>")
        return HTMLResponse(
            "<!doctype html><html><head><meta charset='utf-8'><title>corescheduler API</title>"
            "<style>body{font-family:sans-serif;margin:1em}td{border-top:1px solid #ccc;padding:4px;"
            "vertical-align:top}td:last-child{white-space:pre-wrap}</style></head><body>"
            f"<h1>corescheduler API {html.escape(app.version)}</h1><p>The whole description, with every "
            f"schema: <a href='{API}/openapi.json'>{API}/openapi.json</a> (OpenAPI 3; any OpenAPI viewer "
            "reads it).</p><table><tr><th>method</th><th>path</th><th>summary</th><th>description</th></tr>"
            + "".join(rows) + "</table></body></html>")

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        ok, why = service.healthy()
        return JSONResponse({"ok": ok, "status": why}, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics(request: Request) -> PlainTextResponse:
        from corescheduler.service.metrics import render

        overview_reader(request, "the metrics")

        return PlainTextResponse(render(service, app.state.read_turns), media_type="text/plain; version=0.0.4")

    return app


def _version() -> str:
    from corescheduler import __version__

    return __version__
