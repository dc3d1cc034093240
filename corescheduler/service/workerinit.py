"""Preloaded into every worker process of the embedded cluster (``LocalCluster(preload=...)``),
before the worker registers with its scheduler, so before any task reaches it.

- Its environment becomes the minimal one of an attempt (``PATH``, ``HOME``, ``LANG``): the
  worker was spawned with the service's, and a call under ``isolation = "thread"`` runs in
  this process.  The initial environment the kernel shows in ``/proc/<pid>/environ`` is
  wiped too.
- Dask's "Compute Failed" error for an attempt that was killed or failed is not logged:
  the service records and reports both (a kill is how a stop, a preemption or a timeout
  ends an attempt), so the worker's copy was an ERROR and a traceback for nothing.
- The worker's "Failed to communicate with scheduler during heartbeat" error is not logged
  while the worker itself is closing: a stop closes its connections under a heartbeat in
  flight, and Dask logged that as an ERROR with three chained tracebacks in its own format.
- ``--run-as ACCOUNT`` (the service runs as root with ``isolation = "thread"``): the worker
  process takes that account (``initgroups``, ``setgid``, ``setuid``) after giving it its
  scratch directory, so thread-isolated calls run as it (SPEC §8b).
"""

from __future__ import annotations

import logging
import os
import pwd
from typing import Any

import click

from corescheduler.service.hide import wipe_initial_environ
from corescheduler.service.runner import base_env


class _OurFailures(logging.Filter):
    """Drops the worker's "Compute Failed" record of an attempt the service reports itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith("Compute Failed") and isinstance(record.args, tuple):
            text = next((a for a in record.args if isinstance(a, str) and a.startswith("Attempt")), "")
            if text.startswith(("AttemptKilled(", "AttemptFailed(")):
                return False
        return True


#: a worker's states in which a closed connection is its own doing
_CLOSING = ("closing", "closing_gracefully", "closed", "failed")


class _QuietClose(logging.Filter):
    """Drops an error record carrying a closed-connection exception while ``worker`` closes
    (``Worker.heartbeat``'s under a stop); the same error while it runs still shows."""

    def __init__(self, worker: Any) -> None:
        super().__init__()
        self.worker = worker

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[0] if record.exc_info else None
        if exc is None or exc.__name__ not in ("CommClosedError", "StreamClosedError"):
            return True
        status = getattr(self.worker, "status", None)
        return getattr(status, "name", str(status)) not in _CLOSING


@click.command()
@click.option("--run-as", "run_as", default=None, help="The OS account the worker process runs as.")
def dask_setup(worker: Any, run_as: str | None) -> None:
    logging.getLogger("distributed.worker").addFilter(_OurFailures())
    logging.getLogger("distributed.worker").addFilter(_QuietClose(worker))
    home = pwd.getpwuid(os.geteuid()).pw_dir
    account = None
    if run_as is not None and os.geteuid() == 0:
        account = pwd.getpwnam(run_as)
        home = account.pw_dir
    os.environ.clear()
    os.environ.update(base_env(home))
    wipe_initial_environ()
    if account is None:
        return
    for root, dirs, files in os.walk(worker.local_directory):
        for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
            os.chown(name, account.pw_uid, account.pw_gid, follow_symlinks=False)
    os.initgroups(run_as, account.pw_gid)
    os.setgid(account.pw_gid)
    os.setuid(account.pw_uid)
