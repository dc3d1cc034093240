"""The service's ledger: jobs and task attempts in SQLite (WAL) under ``--state``.

A job is written — in one transaction, with its document as submitted — before
``POST /jobs`` answers; every task state change and every job end is written
as it happens.  After a crash (``kill -9``) :meth:`Store.unfinished` gives the
jobs to run again with what each had completed; a job that reached an end
state never runs again.  ``synchronous = NORMAL`` with WAL: a commit survives
the process being killed (the case the service must survive), not a power cut
(``FULL`` for that, at a price per commit).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    user TEXT,
    groups TEXT NOT NULL,
    document TEXT NOT NULL,
    name TEXT NOT NULL,
    pool TEXT,
    priority TEXT NOT NULL,
    state TEXT NOT NULL,
    submitted REAL NOT NULL,
    started REAL,
    ended REAL,
    error TEXT,
    result TEXT
);
CREATE TABLE IF NOT EXISTS tasks (
    job TEXT NOT NULL,
    kind TEXT NOT NULL,
    idx INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    node TEXT,
    error TEXT,
    result TEXT,
    PRIMARY KEY (job, kind, idx)
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state);
CREATE TABLE IF NOT EXISTS modes (
    pool TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
"""

#: a statement writer: ``write(sql, args)``
Write = Callable[..., None]
#: job states that never change again
ENDED = ("finished", "killed", "failed")


class LedgerError(Exception):
    """The ledger could not be written (the change was rolled back): ``cause`` says why."""


class Store:
    """One SQLite database (``state.db`` in the state directory; ``:memory:`` without one)."""

    def __init__(self, directory: str | Path | None) -> None:
        if directory is None:
            self.path = ":memory:"
        else:
            # private: the directory 0700 and the database 0600 before SQLite opens it (its WAL
            # and shared-memory files take the database's mode)
            path = Path(directory)
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.path = str(path / "state.db")
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                if os.fstat(fd).st_mode & 0o077:
                    os.fchmod(fd, 0o600)
            finally:
                os.close(fd)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.executescript(SCHEMA)
        self._pending: list[tuple[str, tuple[Any, ...]]] = []

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._db.close()

    def defer(self, sql: str, args: tuple[Any, ...]) -> None:
        """A task state change, written with the next :meth:`flush` (the service flushes once a
        loop turn and before any job-level write): a crash loses at most the last turn's task
        changes, and a task not recorded complete simply runs again."""
        with self._lock:
            self._pending.append((sql, args))

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        if pending:
            self._tx(pending)

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """Every statement goes through here (one place to watch, or to make fail in a test)."""
        return self._db.execute(sql, args)

    def _tx(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        if self._pending and statements and statements is not self._pending:
            with self._lock:
                pending, self._pending = self._pending, []
            statements = pending + statements  # task changes go first, in their order
        with self._lock:
            self._execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self._execute(sql, args)
                self._execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def change(self, write: Callable[[Write], None], apply: Callable[[], Any], undo: Callable[[Any], None],
               after: Callable[[Write, Any], None] | None = None) -> Any:
        """One change of a request, ledger first.  ``write(w)`` gives its statements
        (``w(sql, args)``, executed at once: a value SQLite cannot take fails here, before
        anything else changed); then ``apply()`` changes the scheduler; then ``after(w,
        applied)`` may write what the scheduler decided (the pool it placed a job in); then
        the commit.  ``apply`` raising rolls the statements back; a write after it or the
        commit failing rolls back and calls ``undo(applied)``.  Either way the ledger and
        the scheduler agree.  A failed write or commit raises :class:`LedgerError`; an error
        of ``apply`` propagates as it is.  Returns what ``apply`` returned."""
        self.flush()

        def w(sql: str, args: tuple[Any, ...] = ()) -> None:
            try:
                self._execute(sql, args)
            except (sqlite3.Error, UnicodeError, OverflowError, ValueError) as exc:
                raise LedgerError(f"{type(exc).__name__}: {exc}") from None

        with self._lock:
            try:
                self._execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise LedgerError(f"{type(exc).__name__}: {exc}") from None
            try:
                write(w)
                applied = apply()
            except BaseException:
                self._rollback()
                raise
            try:
                if after is not None:
                    after(w, applied)
                try:
                    self._execute("COMMIT")
                except sqlite3.Error as exc:
                    raise LedgerError(f"{type(exc).__name__}: {exc}") from None
            except BaseException:
                self._rollback()
                undo(applied)
                raise
            return applied

    # ------------------------------------------------------------------ writes
    def next_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM jobs").fetchone()
        return int(row[0]) + 1

    def add_job(self, job_id: str, seq: int, user: str | None, groups: list[str], document: dict[str, Any],
                name: str, pool: str | None, priority: str, maps: int, reduces: int,
                submitted: float | None = None) -> None:
        """The job and its tasks, in one transaction (all or nothing)."""
        self._tx(self.job_statements(job_id, seq, user, groups, document, name, pool, priority, maps, reduces,
                                     submitted))

    @staticmethod
    def job_statements(job_id: str, seq: int, user: str | None, groups: list[str], document: dict[str, Any],
                       name: str, pool: str | None, priority: str, maps: int, reduces: int,
                       submitted: float | None = None) -> list[tuple[str, tuple[Any, ...]]]:
        """The statements that store a new job and its tasks."""
        statements: list[tuple[str, tuple[Any, ...]]] = [(
            "INSERT INTO jobs (id, seq, user, groups, document, name, pool, priority, state, submitted) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'accepted', ?)",
            (job_id, seq, user, json.dumps(groups), json.dumps(document), name, pool, priority,
             submitted if submitted is not None else time.time()),
        )]
        statements += [("INSERT INTO tasks (job, kind, idx, state) VALUES (?, 'map', ?, 'pending')", (job_id, i))
                       for i in range(maps)]
        statements += [("INSERT INTO tasks (job, kind, idx, state) VALUES (?, 'reduce', ?, 'pending')", (job_id, i))
                       for i in range(reduces)]
        return statements

    def job_started(self, job_id: str, pool: str) -> None:
        self._tx([("UPDATE jobs SET state = 'running', started = COALESCE(started, ?), pool = ? "
                   "WHERE id = ? AND state IN ('accepted', 'running')", (time.time(), pool, job_id))])

    def set_job(self, job_id: str, **values: Any) -> None:
        """Admin changes: ``pool``, ``priority``."""
        allowed = {"pool", "priority"}
        sets = [k for k in values if k in allowed]
        if sets:
            self._tx([(f"UPDATE jobs SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                       (*(values[k] for k in sets), job_id))])

    def task_started(self, job_id: str, kind: str, idx: int, node: str) -> None:
        self.defer("UPDATE tasks SET state = 'running', attempts = attempts + 1, node = ? "
                   "WHERE job = ? AND kind = ? AND idx = ?", (node, job_id, kind, idx))

    def task_ended(self, job_id: str, kind: str, idx: int, state: str, error: str | None = None,
                   result: Any = None, failed: bool = False) -> None:
        """``state``: ``complete``, or ``pending`` again (killed or failed: it will re-run)."""
        text = _json(result)
        self.defer("UPDATE tasks SET state = ?, error = COALESCE(?, error), result = ?, "
                   "failures = failures + ? WHERE job = ? AND kind = ? AND idx = ?",
                   (state, error, text, 1 if failed else 0, job_id, kind, idx))

    def job_ended(self, job_id: str, state: str, error: str | None = None, result: Any = None) -> None:
        self._tx(self.end_statements(job_id, state, error, result))

    @staticmethod
    def end_statements(job_id: str, state: str, error: str | None = None,
                       result: Any = None) -> list[tuple[str, tuple[Any, ...]]]:
        """The statements that end a job (``finished``, ``killed`` or ``failed``)."""
        text = _json(result)
        return [("UPDATE jobs SET state = ?, ended = ?, error = ?, result = ? WHERE id = ? "
                 "AND state NOT IN ('finished', 'killed', 'failed')", (state, time.time(), error, text, job_id)),
                ("UPDATE tasks SET state = CASE WHEN state = 'complete' THEN 'complete' ELSE ? END "
                 "WHERE job = ?", ("killed" if state != "finished" else "complete", job_id))]

    # ------------------------------------------------------------------ reads
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        if self._pending:
            self.flush()
        with self._lock:
            cur = self._db.execute(sql, args)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]  # type: ignore[misc]

    def job(self, job_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM jobs WHERE id = ?", (job_id,))
        return _job_row(rows[0]) if rows else None

    def jobs(self, limit: int = 1000, state: str | None = None) -> list[dict[str, Any]]:
        if state is not None:
            rows = self._rows("SELECT * FROM jobs WHERE state = ? ORDER BY seq DESC LIMIT ?", (state, limit))
        else:
            rows = self._rows("SELECT * FROM jobs ORDER BY seq DESC LIMIT ?", (limit,))
        return [_job_row(r) for r in rows]

    def tasks(self, job_id: str) -> list[dict[str, Any]]:
        return self._rows("SELECT * FROM tasks WHERE job = ? ORDER BY kind, idx", (job_id,))

    def modes(self) -> dict[str, str]:
        """Pools switched between fifo and fair at run time (``PUT /admin/scheduling-mode``)."""
        return {r["pool"]: r["mode"] for r in self._rows("SELECT pool, mode FROM modes")}

    def unfinished(self) -> Iterator[dict[str, Any]]:
        """Jobs accepted and not ended, oldest first, each with ``tasks`` (its rows)."""
        for row in self._rows("SELECT * FROM jobs WHERE state NOT IN ('finished', 'killed', 'failed') "
                              "ORDER BY seq"):
            job = _job_row(row)
            job["tasks"] = self.tasks(job["id"])
            yield job


def _json(value: Any) -> str | None:
    """``value`` as JSON text; None for None or a value with no JSON form (the service hands
    the store results already made JSON: ``service.jsonable``)."""
    if value is None:
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _job_row(row: Any) -> dict[str, Any]:
    out = dict(row)
    out["groups"] = json.loads(out["groups"])
    out["document"] = json.loads(out["document"])
    out["result"] = json.loads(out["result"]) if out.get("result") is not None else None
    return out
