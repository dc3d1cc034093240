"""Preloaded into every worker process of the embedded cluster (``LocalCluster(preload=...)``),
before the worker registers with its scheduler, so before any task reaches it.

- Its environment becomes the minimal one of an attempt (``PATH``, ``HOME``, ``LANG``): the
  worker was spawned with the service's, and a call under ``isolation = "thread"`` runs in
  this process.  The initial environment the kernel shows in ``/proc/<pid>/environ`` is
  wiped too.
- ``--run-as ACCOUNT`` (the service runs as root with ``isolation = "thread"``): the worker
  process takes that account (``initgroups``, ``setgid``, ``setuid``) after giving it its
  scratch directory, so thread-isolated calls run as it (SPEC §8b).
"""

from __future__ import annotations

import os
import pwd
from typing import Any

import click

from corescheduler.service.hide import wipe_initial_environ
from corescheduler.service.runner import base_env


@click.command()
@click.option("--run-as", "run_as", default=None, help="The OS account the worker process runs as.")
def dask_setup(worker: Any, run_as: str | None) -> None:
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
