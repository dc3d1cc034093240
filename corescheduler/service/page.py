"""``GET /scheduler``: the page Hadoop users know (``FairSchedulerServlet``), server-rendered.

Hadoop 1's ``/scheduler`` shows the pools (running jobs, min maps/reduces,
running maps/reduces) and the running jobs (submitted, id, user, name, the pool
and the priority as selects that move the job or change its priority at once,
maps and reduces finished/total, running, fair share); ``?advanced`` adds each
job's weight, deficit and min share; a form switches the scheduling mode.
Here the switch is per pool (fifo/fair, SPEC §8), the pools also show demand
and fair share, a Kill button ends a job (Hadoop's jobtracker page had one), and
a small chart plots each pool's running tasks against its fair share over the
last minutes, on a clock-time axis with each pool's name at the end of its line.
A reader sees only the controls they may use: a job's for its owner, admins and
its queue's ``aclAdministerApps``; the mode switches for admins (the API refuses
the rest anyway).  ``?advanced`` sets the job table in a smaller type so it fits
1,280 pixels; a wider table scrolls inside its own box.  The page refreshes itself every
``REFRESH`` seconds.  Actions are HTML forms posting to ``/scheduler/…`` and
redirecting back (POST, not Hadoop's GET, so a reload never repeats one), each
with a CSRF token (a hidden field).  With a tokens file a sign-in form (POST
``/scheduler/login``) starts a session (an HttpOnly, SameSite=Strict cookie);
a token is never taken from a URL.
"""

from __future__ import annotations

import html
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from corescheduler.core.model import MAP, PRIORITY_WEIGHT, REDUCE
from corescheduler.wording import plural

if TYPE_CHECKING:
    from corescheduler.service.views import ServiceView as Service

REFRESH = 10
#: chart samples kept per pool (one a second at most)
HISTORY = 300

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
.box { max-width: 100%; overflow-x: auto; margin-bottom: 1.5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #999; padding: 3px 5px; text-align: right; }
th { background: #eee; } td.l { text-align: left; }
td.l { min-width: 5em; max-width: 14em; overflow-wrap: anywhere; } td.id { white-space: nowrap; }
td.name { min-width: 8em; }
select { max-width: 8em; font-size: inherit; }
table.advanced { font-size: 0.8em; } table.advanced th, table.advanced td { padding: 3px; }
.err { color: #a00; } .muted { color: #777; } form { display: inline; }
"""
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


class History:
    """Per pool: (time, running tasks, fair share) samples for the chart."""

    def __init__(self) -> None:
        self.samples: dict[str, deque[tuple[float, float, float]]] = {}
        self._last = -1.0

    def sample(self, service: Service) -> None:
        now = time.time()
        if now - self._last < 1.0:
            return
        self._last = now
        for name, running, fair in _pool_totals(service):
            self.samples.setdefault(name, deque(maxlen=HISTORY)).append((now, running, fair))

    def forget(self, pools: list[str]) -> None:
        """Pools the service forgot (empty dynamic pools): their series go too."""
        for name in pools:
            self.samples.pop(name, None)


def _pool_totals(service: Service) -> list[tuple[str, float, float]]:
    sched = service.scheduler
    out = []
    if service.resource_mode:
        running_in: dict[str, int] = {}  # tasks on the engine per queue, counted once
        for grant in service.grants.values():
            job = sched.jobs.get(grant.job)
            if job is not None:
                running_in[job.pool] = running_in.get(job.pool, 0) + 1
        size = max(1, sched.config.scheduler.task_resources.memory)
        tree = sched.resource_engine.tree  # type: ignore[union-attr]
        for q in tree.queues.values():
            if q.is_leaf:
                fair = q.sched.fair_share.memory if q.sched.fair_share else 0
                out.append((q.name, float(running_in.get(q.name, 0)), float(fair) / size))
        return out
    for name, pool in sched.pools.items():
        running = pool.sched[MAP].running + pool.sched[REDUCE].running
        fair = (pool.sched[MAP].fair_share or 0.0) + (pool.sched[REDUCE].fair_share or 0.0)
        out.append((name, float(running), float(fair)))
    return out


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _u(value: Any) -> str:
    """A path segment: URL-quoted (a pool may be named "a/b"), then HTML-escaped."""
    from urllib.parse import quote

    return _e(quote(str(value), safe=""))


def _num(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return "∞" if value == float("inf") else f"{value:.1f}"
    return str(value)


def render(service: Service, history: History, advanced: bool = False, message: str | None = None,
           token_ok: bool = True, csrf: str | None = None, user: Any = None, login_csrf: str | None = None,
           visible: Callable[[dict[str, Any]], bool] | None = None,
           ended: list[tuple[dict[str, Any], str | None]] | None = None,
           rows: dict[str, dict[str, Any]] | None = None,
           may_act: Callable[[dict[str, Any]], bool] | None = None, admin: bool = True,
           overview: bool = True) -> str:
    """The whole page.  ``csrf``: the token its forms carry (None: no one is signed in);
    ``user``: who is signed in (None: no one, or an open service); ``login_csrf``: the
    sign-in form's (a service with tokens); ``visible``: which jobs' rows to show (all if None);
    ``ended``: the jobs that ended last, each with the error its reader may see (None: none,
    or not theirs to read); ``rows``: the running jobs' ledger rows, read before (else here).
    ``may_act``: on which jobs (by ledger row) the reader may act — move, change the priority,
    kill: its owner, an admin, its queue's ``aclAdministerApps`` (None: on every job, an open
    service); ``admin``: the reader may switch a pool's scheduling mode.  Controls the reader
    may not use are not shown (the server refuses them anyway).  ``overview`` False: the
    sign-in form alone — no pool, job or count (an anonymous reader under ``public_read =
    "none"``: a job's default pool is its user's name)."""
    sched = service.scheduler
    q = "?advanced" if advanced else ""
    hidden = f"<input type='hidden' name='csrf' value='{_e(csrf)}'>" if csrf else ""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<meta http-equiv='refresh' content='{REFRESH}'>",
        "<title>corescheduler Job Scheduler Administration</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>corescheduler Job Scheduler Administration</h1>",
    ]
    if message:
        parts.append(f"<p class='err' id='message'>{_e(message)}</p>")
    if user is not None:
        parts.append(f"<p class='muted' id='user'>Signed in as {_e(user.user)}{' (admin)' if user.admin else ''}. "
                     f"<form method='post' action='/scheduler/logout'>{hidden}"
                     "<button type='submit' id='logout'>Sign out</button></form></p>")
    elif login_csrf is not None:
        parts.append("<form method='post' action='/scheduler/login' id='login'>"
                     f"<input type='hidden' name='csrf' value='{_e(login_csrf)}'>"
                     "<label>Token <input type='password' name='token' autocomplete='off'></label> "
                     "<button type='submit'>Sign in</button></form>")
    if not overview:
        parts.append("<p class='muted'>Sign in to see the pools and jobs.</p></body></html>")
        return "".join(parts)
    ok, why = service.healthy()
    parts.append(f"<p class='muted' id='summary'>{plural(len(service.workers), 'worker')}, "
                 f"{plural(len(service.grants), 'task running', 'tasks running')}, "
                 f"{plural(len(sched.jobs), 'job')}; {'healthy' if ok else _e(why)}.</p>")
    # ------------------------------------------------------------------ pools
    parts.append("<h2>Pools</h2><div class='box'><table id='pools'><tr><th>Pool</th><th>Running Jobs</th>"
                 "<th>Min Maps</th><th>Min Reduces</th><th>Running Maps</th><th>Running Reduces</th>"
                 "<th>Map Demand</th><th>Reduce Demand</th><th>Map Fair Share</th><th>Reduce Fair Share</th>"
                 + ("<th>Weight</th>" if advanced else "") + "<th>Scheduling Mode</th></tr>")
    if service.resource_mode:
        for entry in service.pools():
            if not entry["leaf"]:
                continue
            parts.append(f"<tr data-pool='{_e(entry['name'])}'><td class='l'>{_e(entry['name'])}</td>"
                         f"<td>{entry['apps']}</td><td colspan=2>{_e(entry['min_share'])}</td>"
                         f"<td colspan=2>{_e(entry['running'])}</td><td colspan=2>{_e(entry['demand'])}</td>"
                         f"<td colspan=2>{_e(entry['fair_share'])}</td>"
                         + (f"<td>{_num(entry['weight'])}</td>" if advanced else "")
                         + f"<td>{_e(entry['policy'])}</td></tr>")
    else:
        allocs = sched.allocations
        names = sorted(sched.pools, key=lambda n: (n == "default", n))
        for name in names:
            pool = sched.pools[name]
            m, r = pool.sched[MAP], pool.sched[REDUCE]
            mode = pool.policy
            other = "fair" if mode == "fifo" else "fifo"
            parts.append(
                f"<tr data-pool='{_e(name)}'><td class='l'>{_e(name)}</td><td>{len(pool.jobs)}</td>"
                f"<td>{allocs.pool(name).min_maps}</td><td>{allocs.pool(name).min_reduces}</td>"
                f"<td>{m.running}</td><td>{r.running}</td><td>{m.demand}</td><td>{r.demand}</td>"
                f"<td>{_num(m.fair_share)}</td><td>{_num(r.fair_share)}</td>"
                + (f"<td>{_num(m.weight)}</td>" if advanced else "")
                + f"<td class='l'>{_e(mode)}"
                + (f" <form method='post' action='/scheduler/pools/{_u(name)}/mode{q}'>"
                   f"<input type='hidden' name='mode' value='{other}'>{hidden}"
                   f"<button type='submit' id='mode-{_e(name)}'>Switch to {other}</button></form>" if admin else "")
                + "</td></tr>")
    parts.append("</table></div>")
    parts.append(_chart(history))
    # ------------------------------------------------------------------ jobs
    cols = 6 if advanced else 3
    pairs = [(job, (rows.get(job.id) if rows is not None else service.store.job_summary(job.id)) or {})
             for job in sorted(sched.jobs.values(), key=lambda j: (j.submit_time, j.id))]
    pairs = [(job, row) for job, row in pairs if visible is None or (row and visible(row))]
    acts = {job.id: bool(row) and (may_act is None or may_act(row)) for job, row in pairs}
    kill = "<th rowspan=2>Kill</th>" if any(acts.values()) else ""
    wide = " class='advanced'" if advanced else ""  # more columns, a smaller font: fits 1,280 pixels
    parts.append(f"<h2>Running Jobs</h2><div class='box'><table id='jobs'{wide}><tr><th rowspan=2>Submitted</th>"
                 "<th rowspan=2>JobID</th><th rowspan=2>User</th><th rowspan=2>Name</th><th rowspan=2>Pool</th>"
                 "<th rowspan=2>Priority</th>"
                 f"<th colspan={cols}>Maps</th><th colspan={cols}>Reduces</th>{kill}</tr><tr>")
    extra = "<th>Weight</th><th>Deficit</th><th>Min Share</th>" if advanced else ""
    parts.append(f"<th>Finished</th><th>Running</th><th>Fair Share</th>{extra}" * 2 + "</tr>")
    pool_names = sorted(set(sched.pools) | set(sched.allocations.pool_names())) if not service.resource_mode \
        else sorted(n for n, q2 in sched.resource_engine.tree.queues.items() if q2.is_leaf)  # type: ignore[union-attr]
    for job, row in pairs:
        submitted = time.strftime("%b %d, %H:%M:%S", time.localtime(row.get("submitted") or time.time()))
        name = row.get("name", "")
        parts.append(f"<tr data-job='{_e(job.id)}'><td>{submitted}</td><td class='l id'>"
                     f"<a href='/api/v1/jobs/{_e(job.id)}'>{_e(job.id)}</a></td><td class='l'>{_e(job.user)}</td>"
                     f"<td class='l name'>{_e(name)}</td>")
        if acts[job.id]:
            parts.append(_select(f"/scheduler/jobs/{_u(job.id)}/pool{q}", "pool", pool_names, job.pool,
                                 f"pool-{job.id}", hidden))
            parts.append(_select(f"/scheduler/jobs/{_u(job.id)}/priority{q}", "priority", list(PRIORITY_WEIGHT),
                                 job.priority, f"priority-{job.id}", hidden))
        else:
            parts.append(f"<td class='l' id='pool-{_e(job.id)}'>{_e(job.pool)}</td>"
                         f"<td class='l' id='priority-{_e(job.id)}'>{_e(job.priority)}</td>")
        for kind in (MAP, REDUCE):
            total = job.num_maps if kind == MAP else job.num_reduces
            done = job.complete[kind] if hasattr(job, "complete") else 0
            s = job.sched.get(kind)
            share = s.fair_share if s is not None else None
            parts.append(f"<td>{done} / {total}</td><td>{job.running.get(kind, 0)}</td><td>{_num(share)}</td>")
            if advanced:
                parts.append(f"<td>{_num(s.weight if s else None)}</td><td>--</td>"
                             f"<td>{_num(s.min_share if s else None)}</td>")
        if kill:
            parts.append("<td>" + (f"<form method='post' action='/scheduler/jobs/{_u(job.id)}/kill{q}' "
                                   f"onsubmit=\"return confirm('Kill job {_e(job.id)}?')\">{hidden}"
                                   f"<button type='submit' id='kill-{_e(job.id)}'>Kill</button></form>"
                                   if acts[job.id] else "") + "</td>")
        parts.append("</tr>")
    parts.append("</table></div>")
    if ended:
        parts.append("<h2>Recently Ended Jobs</h2><div class='box'><table id='ended'><tr><th>Ended</th>"
                     "<th>JobID</th><th>User</th><th>Name</th><th>Pool</th><th>State</th><th>Error</th></tr>")
        for row, err in ended:
            when = time.strftime("%b %d, %H:%M:%S", time.localtime(row.get("ended") or time.time()))
            parts.append(f"<tr data-job='{_e(row['id'])}' class='{_e(row['state'])}'><td>{when}</td>"
                         f"<td class='l'><a href='/api/v1/jobs/{_e(row['id'])}'>{_e(row['id'])}</a></td>"
                         f"<td class='l'>{_e(row.get('user') or '')}</td><td class='l'>{_e(row.get('name') or '')}</td>"
                         f"<td class='l'>{_e(row.get('pool') or '')}</td><td>{_e(row['state'])}</td>"
                         f"<td class='l err'>{_e((err or '')[:500])}</td></tr>")
        parts.append("</table></div>")
    if not token_ok:
        parts.append("<p class='muted'>Actions need you to sign in (the form above).</p>")
    parts.append("</body></html>")
    return "".join(parts)


def _select(action: str, name: str, choices: list[str], selected: str | None, element_id: str,
            hidden: str = "") -> str:
    options = "".join(f"<option value='{_e(c)}'{' selected' if c == selected else ''}>{_e(c)}</option>"
                      for c in choices)
    return (f"<td><form method='post' action='{_e(action)}'>{hidden}<select id='{_e(element_id)}' name='{name}' "
            f"onchange='this.form.submit()'>{options}</select></form></td>")


#: seconds between the time axis' ticks: the first that gives at most ``MAX_TICKS`` ticks
_TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)
MAX_TICKS = 6


def time_ticks(t0: float, t1: float) -> list[float]:
    """Round clock times (multiples of a step from :data:`_TIME_STEPS`) between ``t0`` and
    ``t1``: at most :data:`MAX_TICKS` of them, at least one."""
    span = max(0.0, t1 - t0)
    step = next((s for s in _TIME_STEPS if span / s < MAX_TICKS), _TIME_STEPS[-1])
    first = -(-t0 // step) * step
    ticks = [first + k * step for k in range(int((t1 - first) // step) + 1)] if first <= t1 else []
    return ticks or [t0]


def value_ticks(top: float) -> list[float]:
    """0 and round values (1, 2 or 5 × 10ⁿ apart) up to the first at or above ``top``: at most six."""
    step, k = 1.0, 0
    while top / step > 4:
        step *= (2.0, 2.5, 2.0)[k % 3]  # 1 → 2 → 5 → 10 → 20 …
        k += 1
    return [k * step for k in range(int(-(-top // step)) + 1)]


def _chart(history: History, width: int = 760, height: int = 220) -> str:
    """Running tasks (solid) against fair share (dashed) per pool, as inline SVG, with a time
    axis (clock times) and each pool's name at the end of its line."""
    series = {name: list(s) for name, s in history.samples.items() if s}
    if not series:
        return "<svg id='chart' width='0' height='0'></svg>"
    left, right, top_pad, bottom = 44, 150, 26, 38  # room for the value ticks, the names, the key, the times
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    t0 = min(s[0][0] for s in series.values())
    t1 = max(s[-1][0] for s in series.values())
    top = max(1.0, max(max(r, f) for s in series.values() for _, r, f in s))
    yticks = value_ticks(top)
    top = max(top, yticks[-1])
    span = max(1.0, t1 - t0)

    def x(t: float) -> float:
        return left + (t - t0) / span * plot_w

    def y(v: float) -> float:
        return top_pad + plot_h - v / top * plot_h

    out = [f"<h2>Running tasks and fair share</h2><svg id='chart' width='{width}' height='{height}' "
           "role='img' aria-label='running tasks per pool against fair share, over time' font-size='11'>"]
    for v in yticks:  # the value axis: grid lines and their numbers
        out.append(f"<line class='ytick' x1='{left}' x2='{left + plot_w}' y1='{y(v):.1f}' y2='{y(v):.1f}' "
                   f"stroke='#ddd'/><text x='{left - 4}' y='{y(v) + 4:.1f}' text-anchor='end'>{v:g}</text>")
    out.append(f"<text x='4' y='{top_pad - 10}'>tasks</text>")
    clock = "%H:%M:%S" if span < 600 else "%H:%M"
    for t in time_ticks(t0, t1):  # the time axis: clock times
        out.append(f"<g class='xtick'><line x1='{x(t):.1f}' x2='{x(t):.1f}' y1='{top_pad + plot_h}' "
                   f"y2='{top_pad + plot_h + 4}' stroke='#444'/><text x='{x(t):.1f}' y='{top_pad + plot_h + 16}' "
                   f"text-anchor='middle'>{time.strftime(clock, time.localtime(t))}</text></g>")
    out.append(f"<line x1='{left}' x2='{left + plot_w}' y1='{top_pad + plot_h}' y2='{top_pad + plot_h}' "
               f"stroke='#444'/><line x1='{left}' x2='{left}' y1='{top_pad}' y2='{top_pad + plot_h}' stroke='#444'/>"
               f"<text x='{left + plot_w / 2:.0f}' y='{height - 4}' text-anchor='middle'>time (this server's clock; "
               f"the last {max(1, int(span))} s)</text>")
    # the key, on the chart: what solid and dashed mean
    out.append(f"<line x1='{left + 8}' x2='{left + 30}' y1='{top_pad - 14}' y2='{top_pad - 14}' stroke='#444' "
               f"stroke-width='2'/><text x='{left + 34}' y='{top_pad - 10}'>running tasks</text>"
               f"<line x1='{left + 130}' x2='{left + 152}' y1='{top_pad - 14}' y2='{top_pad - 14}' stroke='#444' "
               f"stroke-dasharray='4 3'/><text x='{left + 156}' y='{top_pad - 10}'>fair share</text>")
    labels = []
    for i, (name, samples) in enumerate(sorted(series.items())):
        colour = _COLOURS[i % len(_COLOURS)]
        running = " ".join(f"{x(t):.1f},{y(r):.1f}" for t, r, _ in samples)
        fair = " ".join(f"{x(t):.1f},{y(f):.1f}" for t, _, f in samples)
        out.append(f"<polyline fill='none' stroke='{colour}' stroke-width='2' points='{running}'/>")
        out.append(f"<polyline fill='none' stroke='{colour}' stroke-dasharray='4 3' points='{fair}'/>")
        labels.append([y(samples[-1][1]), name, colour, x(samples[-1][0])])
    # each pool's name at the end of its running line, nudged apart so that none overlap
    labels.sort()
    gap = 12.0
    for k in range(1, len(labels)):
        labels[k][0] = max(labels[k][0], labels[k - 1][0] + gap)
    overflow = labels[-1][0] - (top_pad + plot_h) if labels else 0
    if overflow > 0:
        for lab in labels:
            lab[0] -= overflow
    for k in range(len(labels) - 2, -1, -1):
        labels[k][0] = min(labels[k][0], labels[k + 1][0] - gap)
    for ly, name, colour, lx in labels:
        shown = name if len(name) <= 20 else name[:19] + "…"
        out.append(f"<text class='label' data-pool='{_e(name)}' x='{lx + 6:.1f}' y='{ly + 4:.1f}' fill='{colour}'>"
                   f"{_e(shown)}<title>{_e(name)}</title></text>")
    out.append("</svg>")
    return "".join(out)
