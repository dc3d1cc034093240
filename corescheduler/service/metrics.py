"""``GET /metrics``: Prometheus text (``prometheus_client``), one registry per request.

Per pool: running and pending tasks, fair share; the service: jobs by state,
preemptions, attempts running, workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Gauge, generate_latest

from corescheduler.core.model import KINDS

if TYPE_CHECKING:
    from corescheduler.service.gate import ReadTurns
    from corescheduler.service.views import ServiceView as Service


def render(service: Service, turns: ReadTurns | None = None) -> str:
    """The metrics of ``service``, and of its read gate's ``turns`` if given."""
    registry = CollectorRegistry()
    running = Gauge("corescheduler_pool_running_tasks", "Tasks running in the pool", ["pool", "kind"],
                    registry=registry)
    pending = Gauge("corescheduler_pool_demand_tasks", "Tasks the pool's jobs still want (running + pending)",
                    ["pool", "kind"], registry=registry)
    fair = Gauge("corescheduler_pool_fair_share", "The pool's fair share", ["pool", "kind"], registry=registry)
    sched = service.scheduler
    if service.resource_mode:
        for name, entry in sched.shares()["queues"].items():
            for resource in ("memory", "vcores"):
                running.labels(name, resource).set(entry["usage"].get(resource, 0))
                pending.labels(name, resource).set(entry["demand"].get(resource, 0))
                fair.labels(name, resource).set(entry["fair"].get(resource, 0))
    else:
        for name, pool in sched.pools.items():
            for kind in KINDS:
                s = pool.sched[kind]
                running.labels(name, kind).set(s.running)
                pending.labels(name, kind).set(s.demand)
                fair.labels(name, kind).set(s.fair_share or 0.0)
    Gauge("corescheduler_jobs_live", "Jobs accepted and not ended", registry=registry).set(len(sched.jobs))
    Gauge("corescheduler_attempts_running", "Task attempts on the engine", registry=registry).set(len(service.grants))
    Gauge("corescheduler_workers", "Live Dask workers", registry=registry).set(len(service.workers))
    Gauge("corescheduler_preemptions", "Tasks preempted since the service started",
          registry=registry).set(service.preemptions)
    if turns is not None:
        Gauge("corescheduler_reads_admitted", "API reads of the ledger admitted since the service started",
              registry=registry).set(turns.admitted)
        Gauge("corescheduler_reads_spaced", "Times a heavy caller's read waited for the gap",
              registry=registry).set(turns.spaced)
        Gauge("corescheduler_read_gap_seconds", "Seconds a heavy caller's read waits after the last one now",
              registry=registry).set(turns.gap)
        Gauge("corescheduler_loop_lag_seconds", "How late the event loop ran its timers lately with reads on it "
              "(smoothed)", registry=registry).set(turns.lag)
        Gauge("corescheduler_loop_lag_without_reads_seconds", "How late the event loop ran its timers lately "
              "with no read on it (smoothed)", registry=registry).set(turns.base_lag)
    return generate_latest(registry).decode()
