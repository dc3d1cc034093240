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
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

log = logging.getLogger("corescheduler.service")
#: what a write to the ledger may raise: SQLite's errors, and a value it cannot bind
_WRITE_ERRORS = (sqlite3.Error, UnicodeError, OverflowError, ValueError)

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
CREATE INDEX IF NOT EXISTS jobs_seq ON jobs (seq);
CREATE INDEX IF NOT EXISTS jobs_ended ON jobs (ended);
-- a job's last task error without scanning its tasks (partial: free for tasks without one)
CREATE INDEX IF NOT EXISTS tasks_errors ON tasks (job, kind, idx) WHERE error IS NOT NULL;
CREATE TABLE IF NOT EXISTS modes (
    pool TEXT PRIMARY KEY,
    mode TEXT NOT NULL
);
"""

#: a statement writer: ``write(sql, args)``
Write = Callable[..., None]
#: the readers' caches: jobs whose stats are kept, bytes of documents kept
STATS_CACHE = 4096
DOCUMENT_CACHE = 64 << 20
#: bytes of answers built from a job's rows (encoded task pages) kept for the readers
ANSWER_CACHE = 16 << 20
#: job list pages kept (until the next commit)
JOBS_PAGES = 64
#: job states that never change again
ENDED = ("finished", "killed", "failed")
#: the longest error text kept for a task or a job (characters); the rest is cut, and the text
#: says how much was (an error may carry a whole stderr tail or a user's exception message)
MAX_ERROR = 4000


def bounded_error(text: str | None, limit: int = MAX_ERROR) -> str | None:
    """``text`` as the ledger keeps an error: whole up to ``limit`` characters, else its first
    part and ``… [cut: N more characters]``."""
    if text is None:
        return text
    # a task's own text may hold what SQLite cannot store (a lone surrogate): escaped, so the
    # ledger takes it and the statement never blocks the writes after it
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) <= limit:
        return text
    note = f"… [cut: {len(text) - limit} more characters]"
    return text[:limit] + note


class LedgerError(Exception):
    """The ledger could not be written (the change was rolled back): ``cause`` says why."""


class Store:
    """One SQLite database: ``state.db`` in the state directory; without one, in a private
    temporary directory removed at :meth:`close` (not durable, and ``synchronous = OFF``).

    The service's loop writes through one connection; :meth:`jobs_page`, :meth:`job_stats`,
    :meth:`tasks_page` and :meth:`job_summary` read through a connection of the calling thread
    (WAL: a reader never waits for the writer, nor the writer for it), so the API runs them
    in threads off the event loop."""

    def __init__(self, directory: str | Path | None) -> None:
        self._temp: str | None = None
        if directory is None:
            self._temp = directory = tempfile.mkdtemp(prefix="corescheduler-state-")  # 0700
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
        self._db.execute("PRAGMA synchronous = " + ("OFF" if self._temp else "NORMAL"))
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._db.executescript(SCHEMA)
        self._pending: list[tuple[str, tuple[Any, ...]]] = []
        self._local = threading.local()  # each reading thread's connection
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        # what the readers may serve again without asking SQLite: a job's stats until a commit
        # touches the job (``_touched``: job -> the commit that last did; ``_all_touched``: the
        # last commit that may have touched any), and documents (they never change)
        self.commits = 0
        self._touched: dict[str, int] = {}
        self._all_touched = 0
        self._pending_jobs: set[str] = set()
        self._stats: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        #: job rows as :meth:`job_summary` read them, kept like the stats (until a commit touches the job)
        self._summaries: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self._documents: OrderedDict[str, bytes] = OrderedDict()
        #: (job, key) -> (the commit it was read from, an encoded answer): see :meth:`keep`
        self._answers: OrderedDict[tuple[str, Hashable], tuple[int, bytes]] = OrderedDict()
        self._answers_size = 0
        self._jobs_pages: OrderedDict[tuple[int, str | None, str | None, str | None],
                                      tuple[int, tuple[list[dict[str, Any]], str | None]]] = OrderedDict()
        self._documents_size = 0
        self._cache_lock = threading.Lock()
        #: stats being counted now, by job: (the commit they count from, set when counted); a
        #: reader wanting them waits for that count instead of running the same one again
        self._counting: dict[str, tuple[int, threading.Event]] = {}
        self._closed = False

    def close(self) -> None:
        self.flush()
        with self._lock, self._readers_lock:
            self._closed = True
            self._db.close()
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)

    def defer(self, sql: str, args: tuple[Any, ...], job: str | None = None) -> None:
        """A task state change, written with the next :meth:`flush` (the service flushes once a
        loop turn and before any job-level write): a crash loses at most the last turn's task
        changes, and a task not recorded complete simply runs again."""
        with self._lock:
            self._pending.append((sql, args))
            if job is None:
                self._pending_jobs.add("")  # "": any job
            else:
                self._pending_jobs.add(job)

    def flush(self) -> None:
        """Write the deferred task changes (:meth:`_tx` takes them first; a transaction that
        fails keeps them for the next write)."""
        with self._lock:
            if not self._pending:
                return
        self._tx([], ())

    def _keep(self, pending: list[tuple[str, tuple[Any, ...]]], jobs: set[str]) -> None:
        """Deferred changes whose transaction was rolled back: first in line again (under the lock)."""
        self._pending = pending + self._pending
        self._pending_jobs |= jobs

    def _execute(self, sql: str, args: tuple[Any, ...] | list[tuple[Any, ...]] = ()) -> sqlite3.Cursor:
        """Every statement goes through here (one place to watch, or to make fail in a test);
        ``args`` a list: the statement once for each of its tuples (``executemany``: a job's
        100,000 task rows in one call, the loop in SQLite's C, not in Python)."""
        if isinstance(args, list):
            return self._db.executemany(sql, args)
        return self._db.execute(sql, args)

    def _tx(self, statements: list[tuple[str, tuple[Any, ...]]], jobs: Iterable[str] | None = None) -> None:
        """``statements`` in one transaction (after the deferred ones); ``jobs``: the jobs they
        change (None: any)."""
        touched: set[str] | None = set(jobs) if jobs is not None else None
        with self._lock:
            deferred, deferred_jobs = self._pending, self._pending_jobs
            if deferred:
                statements = deferred + statements  # task changes go first, in their order
                self._pending = []
            if touched is not None:
                touched |= deferred_jobs
            self._pending_jobs = set()
            try:
                self._execute("BEGIN IMMEDIATE")
                try:
                    for sql, args in statements:
                        self._execute(sql, args)
                    self._execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except sqlite3.OperationalError:  # rolled back (full, locked, I/O): the deferred changes wait
                self._keep(deferred, deferred_jobs)
                raise
            except BaseException as exc:  # a statement that can never be stored: not kept to block the rest
                if deferred:
                    log.error("the ledger dropped %d task changes it cannot store: %s: %s", len(deferred),
                              type(exc).__name__, exc)
                raise
            self._committed(touched)

    def _committed(self, jobs: set[str] | None) -> None:
        """After a commit (under the lock): the readers' stats of ``jobs`` (None or "": any) are stale."""
        self.commits += 1
        if jobs is None or "" in jobs or len(self._touched) > 100_000:
            self._all_touched = self.commits
            self._touched.clear()
        else:
            for job in jobs:
                self._touched[job] = self.commits

    def _rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def change(self, write: Callable[[Write], None], apply: Callable[[], Any], undo: Callable[[Any], None],
               after: Callable[[Write, Any], None] | None = None, jobs: Iterable[str] | None = None) -> Any:
        """One change of a request, ledger first.  ``write(w)`` gives its statements
        (``w(sql, args)``, executed at once: a value SQLite cannot take fails here, before
        anything else changed); then ``apply()`` changes the scheduler; then ``after(w,
        applied)`` may write what the scheduler decided (the pool it placed a job in); then
        the commit.  ``apply`` raising rolls the statements back; a write after it or the
        commit failing rolls back and calls ``undo(applied)``.  Either way the ledger and
        the scheduler agree.  A failed write or commit raises :class:`LedgerError`; an error
        of ``apply`` propagates as it is.  Returns what ``apply`` returned.  ``jobs``: the jobs
        whose tasks the statements change (None: any; the readers' kept stats of others stay)."""
        try:
            self.flush()
        except _WRITE_ERRORS as exc:
            raise LedgerError(f"{type(exc).__name__}: {exc}") from None

        def w(sql: str, args: tuple[Any, ...] | list[tuple[Any, ...]] = ()) -> None:
            try:
                self._execute(sql, args)
            except _WRITE_ERRORS as exc:
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
                self._committed(set(jobs) if jobs is not None else None)
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
                                     submitted), [job_id])

    @staticmethod
    def job_statements(job_id: str, seq: int, user: str | None, groups: list[str], document: dict[str, Any],
                       name: str, pool: str | None, priority: str, maps: int, reduces: int,
                       submitted: float | None = None) -> list[tuple[str, Any]]:
        """The statements that store a new job and its tasks (a statement whose arguments are a
        list of tuples runs once for each: :meth:`_execute`)."""
        statements: list[tuple[str, Any]] = [(
            "INSERT INTO jobs (id, seq, user, groups, document, name, pool, priority, state, submitted) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'accepted', ?)",
            (job_id, seq, user, json.dumps(groups), json.dumps(document), name, pool, priority,
             submitted if submitted is not None else time.time()),
        )]
        for kind, n in (("map", maps), ("reduce", reduces)):
            if n:  # one statement for all of a kind's rows (a list of arguments: executemany)
                statements.append((f"INSERT INTO tasks (job, kind, idx, state) VALUES (?, '{kind}', ?, 'pending')",
                                   [(job_id, i) for i in range(n)]))
        return statements

    def job_started(self, job_id: str, pool: str) -> None:
        self._tx([("UPDATE jobs SET state = 'running', started = COALESCE(started, ?), pool = ? "
                   "WHERE id = ? AND state IN ('accepted', 'running')", (time.time(), pool, job_id))], [job_id])

    def set_job(self, job_id: str, **values: Any) -> None:
        """Admin changes: ``pool``, ``priority``."""
        allowed = {"pool", "priority"}
        sets = [k for k in values if k in allowed]
        if sets:
            self._tx([(f"UPDATE jobs SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                       (*(values[k] for k in sets), job_id))], [job_id])

    def task_started(self, job_id: str, kind: str, idx: int, node: str) -> None:
        self.defer("UPDATE tasks SET state = 'running', attempts = attempts + 1, node = ? "
                   "WHERE job = ? AND kind = ? AND idx = ?", (node, job_id, kind, idx), job_id)

    def task_ended(self, job_id: str, kind: str, idx: int, state: str, error: str | None = None,
                   result: Any = None, failed: bool = False) -> None:
        """``state``: ``complete``, ``pending`` again (killed or failed: it will re-run), or
        ``failed`` (its last attempt failed: its job fails).  ``error`` is kept bounded
        (:func:`bounded_error`)."""
        text = _json(result)
        self.defer("UPDATE tasks SET state = ?, error = COALESCE(?, error), result = ?, "
                   "failures = failures + ? WHERE job = ? AND kind = ? AND idx = ?",
                   (state, bounded_error(error), text, 1 if failed else 0, job_id, kind, idx), job_id)

    def job_ended(self, job_id: str, state: str, error: str | None = None, result: Any = None) -> None:
        """A job's end as the scheduler decided it (finished, or failed by its task's attempts).
        The scheduler has already let the job go, so an end the ledger cannot take now (a
        transient failure: full, locked, I/O) is kept with the deferred task changes, after
        them, and written by the next :meth:`flush` (the loop flushes every turn): it was lost,
        and the ledger kept the job running until a restart.  Its statements are idempotent
        (they change only a job not ended yet)."""
        statements = self.end_statements(job_id, state, error, result)
        try:
            self._tx(statements, [job_id])
        except sqlite3.OperationalError as exc:
            log.error("the ledger could not record that job %s %s (%s); it is written with the next flush",
                      job_id, state, exc)
            with self._lock:
                self._pending.extend(statements)
                self._pending_jobs.add(job_id)

    @staticmethod
    def end_statements(job_id: str, state: str, error: str | None = None,
                       result: Any = None) -> list[tuple[str, tuple[Any, ...]]]:
        """The statements that end a job (``finished``, ``killed`` or ``failed``)."""
        text = _json(result)
        return [("UPDATE jobs SET state = ?, ended = ?, error = ?, result = ? WHERE id = ? "
                 "AND state NOT IN ('finished', 'killed', 'failed')",
                 (state, time.time(), bounded_error(error), text, job_id)),
                # a task that failed (its job failed for it) stays failed; the others not done are killed
                ("UPDATE tasks SET state = CASE WHEN state IN ('complete', 'failed') THEN state ELSE ? END "
                 "WHERE job = ?", ("killed" if state != "finished" else "complete", job_id))]

    # ------------------------------------------------------------------ reads
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        if self._pending:
            try:
                self.flush()
            except _WRITE_ERRORS as exc:  # a read still answers
                log.error("the ledger could not be written before a read: %s: %s", type(exc).__name__, exc)
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

    # ------------------------------------------------------------------ reads off the loop
    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Rows through this thread's own read-only connection: committed data, never waiting
        for the loop's writes (WAL).  The task changes deferred to the loop's next flush are
        at most one loop turn old."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._readers_lock:  # not the writer's lock: a read never waits for a write
                if self._closed:
                    raise sqlite3.ProgrammingError("the ledger is closed")
                conn = sqlite3.connect(f"file:{quote(self.path)}?mode=ro", uri=True, check_same_thread=False,
                                       isolation_level=None)
                conn.execute("PRAGMA busy_timeout = 5000")
                self._readers.append(conn)
            self._local.conn = conn
        cur = conn.execute(sql, args)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    _COLUMNS = "id, seq, user, groups, name, pool, priority, state, submitted, started, ended, error"

    def job_summary(self, job_id: str) -> dict[str, Any] | None:
        """A job's row without its document and result (cheap however many tasks it has); kept
        until a commit touches the job, as :meth:`job_stats` (callers never change it)."""
        with self._cache_lock:
            stamp = self.commits  # before the query: a commit after it makes this answer stale
            cached = self._fresh_in(self._summaries, job_id)
            if cached is not None:
                return cached
        rows = self._read(f"SELECT {self._COLUMNS} FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            return None
        row = rows[0]
        row["groups"] = json.loads(row["groups"])
        with self._cache_lock:
            self._summaries[job_id] = (stamp, row)
            self._summaries.move_to_end(job_id)
            while len(self._summaries) > STATS_CACHE:
                self._summaries.popitem(last=False)
        return row

    def cached_summary(self, job_id: str) -> dict[str, Any] | None:
        """:meth:`job_summary` if it is kept and no commit touched the job since (no query: the
        loop may ask); None otherwise."""
        with self._cache_lock:
            return self._fresh_in(self._summaries, job_id)

    def stamp(self) -> int:
        """The commits so far: taken before reading what :meth:`keep` will keep."""
        with self._cache_lock:
            return self.commits

    def keep(self, job_id: str, key: Hashable, stamp: int, answer: bytes) -> None:
        """Keep ``answer`` — built from ``job_id``'s rows as they were at commit ``stamp``
        (:meth:`stamp`, taken before the read) — under ``key`` until a commit touches the job
        (up to :data:`ANSWER_CACHE` bytes, the least recently asked dropped first)."""
        if len(answer) > ANSWER_CACHE // 16:
            return
        with self._cache_lock:
            if stamp < self._stale_after(job_id):
                return  # a commit touched the job during the read
            old = self._answers.pop((job_id, key), None)
            if old is not None:
                self._answers_size -= len(old[1])
            self._answers[(job_id, key)] = (stamp, answer)
            self._answers_size += len(answer)
            while self._answers_size > ANSWER_CACHE:
                _, (_, dropped) = self._answers.popitem(last=False)
                self._answers_size -= len(dropped)

    def kept(self, job_id: str, key: Hashable) -> bytes | None:
        """The answer :meth:`keep` kept under ``key`` if no commit touched ``job_id`` since
        (no query: the loop may ask); None otherwise."""
        with self._cache_lock:
            cached = self._answers.get((job_id, key))
            if cached is None or cached[0] < self._stale_after(job_id):
                return None
            self._answers.move_to_end((job_id, key))
            return cached[1]

    def cached_document(self, job_id: str) -> bytes | None:
        """:meth:`job_document` if it is kept (no query: the loop may ask); None otherwise."""
        with self._cache_lock:
            return self._documents.get(job_id)

    def job_document(self, job_id: str) -> bytes | None:
        """A job's document as stored (JSON, UTF-8, not decoded); the last read ones are kept
        (up to :data:`DOCUMENT_CACHE` bytes: a document never changes)."""
        with self._cache_lock:
            cached = self._documents.get(job_id)
            if cached is not None:
                self._documents.move_to_end(job_id)
                return cached
        rows = self._read("SELECT document FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            return None
        data = rows[0]["document"].encode()
        if len(data) <= DOCUMENT_CACHE // 4:
            with self._cache_lock:
                if job_id not in self._documents:
                    self._documents[job_id] = data
                    self._documents_size += len(data)
                while self._documents_size > DOCUMENT_CACHE:
                    _, old = self._documents.popitem(last=False)
                    self._documents_size -= len(old)
        return data

    def job_result(self, job_id: str) -> dict[str, Any] | None:
        """A job's state and its result (decoded)."""
        rows = self._read("SELECT state, result FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            return None
        rows[0]["result"] = json.loads(rows[0]["result"]) if rows[0]["result"] is not None else None
        return rows[0]

    def jobs_page(self, limit: int, after: str | None = None, state: str | None = None, user: str | None = None,
                  ) -> tuple[list[dict[str, Any]], str | None]:
        """Up to ``limit`` jobs, newest first, after the job ``after`` (the previous page's
        last); and the id to ask the next page after (None: this is the last page).  A
        ``after`` that names no job raises KeyError.  ``user``: that user's jobs only.  Kept
        until the next commit (:meth:`cached_jobs_page`; callers never change the rows)."""
        key = (limit, after, state, user)
        with self._cache_lock:
            stamp = self.commits  # before the query: any commit after it makes this page stale
        page = self._jobs_page(limit, after, state, user)
        with self._cache_lock:
            if stamp == self.commits:
                self._jobs_pages[key] = (stamp, page)
                self._jobs_pages.move_to_end(key)
                while len(self._jobs_pages) > JOBS_PAGES:
                    self._jobs_pages.popitem(last=False)
        return page

    def cached_jobs_page(self, limit: int, after: str | None = None, state: str | None = None,
                         user: str | None = None) -> tuple[list[dict[str, Any]], str | None] | None:
        """:meth:`jobs_page` if it is kept and nothing was committed since (no query: the loop
        may ask); None otherwise."""
        with self._cache_lock:
            cached = self._jobs_pages.get((limit, after, state, user))
            return cached[1] if cached is not None and cached[0] == self.commits else None

    def _jobs_page(self, limit: int, after: str | None, state: str | None, user: str | None = None,
                   ) -> tuple[list[dict[str, Any]], str | None]:
        where, args = [], []
        if user is not None:
            where.append("user = ?")
            args.append(user)
        if after is not None:
            seq = self._read("SELECT seq FROM jobs WHERE id = ?", (after,))
            if not seq:
                raise KeyError(after)
            where.append("seq < ?")
            args.append(seq[0]["seq"])
        if state is not None:
            where.append("state = ?")
            args.append(state)
        sql = f"SELECT {self._COLUMNS} FROM jobs" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._read(sql + " ORDER BY seq DESC LIMIT ?", (*args, limit + 1))
        for r in rows:
            r["groups"] = json.loads(r["groups"])
        more = len(rows) > limit
        rows = rows[:limit]
        return rows, (rows[-1]["id"] if more and rows else None)

    def job_stats(self, job_id: str) -> dict[str, Any]:
        """A job's task counts per kind and state, its failed attempts and its last task error,
        counted by SQLite (no row comes to Python); served again until a commit touches the job.
        Readers asking at once share one count (a big job's count scans its tasks: many readers
        counting it together would take the CPU from the scheduler and the workers)."""
        for _ in range(100):  # bounded: a count that fails hands over to the next reader
            with self._cache_lock:
                stamp = self.commits  # before the query: a commit after it makes this answer stale
                cached = self._fresh(job_id)
                if cached is not None:
                    return cached
                counting = self._counting.get(job_id)
                if counting is None or counting[0] < self._stale_after(job_id):
                    counting = (stamp, threading.Event())
                    self._counting[job_id] = counting
                    mine = True
                else:
                    mine = False
            if not mine:
                counting[1].wait(60)
                continue  # counted (now kept), or that count failed: ask again
            try:
                stats = self._count(job_id)
                with self._cache_lock:
                    self._stats[job_id] = (stamp, stats)
                    self._stats.move_to_end(job_id)
                    while len(self._stats) > STATS_CACHE:
                        self._stats.popitem(last=False)
            finally:
                with self._cache_lock:
                    if self._counting.get(job_id) is counting:
                        del self._counting[job_id]
                counting[1].set()
            return stats
        return self._count(job_id)

    def _count(self, job_id: str) -> dict[str, Any]:
        counts: dict[str, dict[str, int]] = {"map": {}, "reduce": {}}
        failures = 0
        for r in self._read("SELECT kind, state, COUNT(*) AS n, SUM(failures) AS f FROM tasks WHERE job = ? "
                            "GROUP BY kind, state", (job_id,)):
            counts.setdefault(r["kind"], {})[r["state"]] = r["n"]
            failures += r["f"] or 0
        last = self._read("SELECT error FROM tasks WHERE job = ? AND error IS NOT NULL "
                          "ORDER BY kind DESC, idx DESC LIMIT 1", (job_id,))  # the index tasks_errors
        return {"counts": counts, "failures": failures, "last_error": last[0]["error"] if last else None}

    def _stale_after(self, job_id: str) -> int:
        """The last commit that may have changed ``job_id``'s tasks: stats counted from before it are stale."""
        return max(self._touched.get(job_id, 0), self._all_touched)

    def _fresh(self, job_id: str) -> dict[str, Any] | None:
        """The kept stats of ``job_id`` if no commit touched it since (under the cache lock)."""
        return self._fresh_in(self._stats, job_id)

    def _fresh_in(self, kept: OrderedDict[str, tuple[int, dict[str, Any]]], job_id: str) -> dict[str, Any] | None:
        """``kept[job_id]`` if no commit touched the job since it was read (under the cache lock)."""
        cached = kept.get(job_id)
        if cached is not None and cached[0] >= self._stale_after(job_id):
            kept.move_to_end(job_id)
            return cached[1]
        return None

    def cached_stats(self, job_id: str) -> dict[str, Any] | None:
        """:meth:`job_stats` if it is kept and no commit touched the job since (no query: the
        loop may ask); None otherwise."""
        with self._cache_lock:
            return self._fresh(job_id)

    def tasks_page(self, job_id: str, limit: int, after: tuple[str, int] | None = None,
                   ) -> tuple[list[dict[str, Any]], tuple[str, int] | None]:
        """Up to ``limit`` of a job's tasks, maps then reduces by index, after the task
        ``after`` (kind, index); and the task to ask the next page after (None: last page)."""
        cols = "kind, idx, state, attempts, failures, node, error"
        if after is None:
            rows = self._read(f"SELECT {cols} FROM tasks WHERE job = ? ORDER BY kind, idx LIMIT ?",
                              (job_id, limit + 1))
        else:
            rows = self._read(f"SELECT {cols} FROM tasks WHERE job = ? AND (kind, idx) > (?, ?) "
                              "ORDER BY kind, idx LIMIT ?", (job_id, after[0], after[1], limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        return rows, ((rows[-1]["kind"], rows[-1]["idx"]) if more and rows else None)

    def recent_ended(self, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` jobs that ended (finished, killed or failed), latest first."""
        rows = self._read(f"SELECT {self._COLUMNS} FROM jobs WHERE state IN ('finished', 'killed', 'failed') "
                          "ORDER BY ended DESC LIMIT ?", (limit,))
        for r in rows:
            r["groups"] = json.loads(r["groups"])
        return rows

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
    try:
        out["document"] = json.loads(out["document"])
    except (ValueError, RecursionError):  # a ledger this reader cannot take (nested past its
        # recursion limit): None, which the restore fails as a job it cannot rebuild
        out["document"] = None
    out["result"] = json.loads(out["result"]) if out.get("result") is not None else None
    return out
