"""A hostile call: it reaches for the Dask worker and client it runs under and reports what
it got (tests/service/test_result_isolation.py)."""

from __future__ import annotations

import os


def probe() -> dict[str, object]:
    out: dict[str, object] = {"uid": os.getuid()}
    try:
        import distributed

        try:
            out["worker"] = repr(distributed.get_worker())
        except Exception as exc:
            out["worker_error"] = f"{type(exc).__name__}: {exc}"
        try:
            client = distributed.get_client(timeout=2)
            out["client"] = repr(client)
            out["scheduler_uid"] = client.run_on_scheduler(os.getuid)
        except Exception as exc:
            out["client_error"] = f"{type(exc).__name__}: {exc}"
    except ImportError as exc:
        out["import_error"] = str(exc)
    return out
