"""``corescheduler.toml``: which plugins run where, their settings, the
allocation file and the simulated cluster (SPEC §3).

Read with :mod:`tomllib` into frozen attrs values through named constructors
(:meth:`Config.from_file`, :meth:`Config.from_toml`, :meth:`Config.from_dict`).
Every problem is reported at once, each naming the file, the line where the
key is, the table and key, and what was expected.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, field, frozen

from corescheduler.errors import ConfigError, ResourceParseError
from corescheduler.resources import Resources, parse_configurable
from corescheduler.settings import Settings, _show

#: Top-level tables; ``simulation`` and ``service`` belong to those commands.
TABLES = ("scheduler", "plugins", "cluster", "simulation", "service")
#: ``[scheduler] mode``: MR1 slots or YARN resources
MODES = ("slots", "resources")


#: resource mode: share policies that place apps themselves, and the PoolResolver that
#: is then the default (YARN's Capacity Scheduler places by its file's queue-mappings and
#: refuses what its queues refuse; the fair scheduler's placement rules do not apply)
RESOURCE_POLICY_RESOLVERS: dict[object, tuple[str, ...]] = {"yarn_capacity": ("yarn_capacity",)}
#: resource mode: share policies whose plugin is also the default TaskSelector (YARN's Capacity
#: Scheduler's locality delay reads its capacity file: ``node-locality-delay`` …)
RESOURCE_POLICY_SELECTORS: dict[object, str] = {"yarn_capacity": "yarn_capacity"}
#: share policies that run in resource mode only (YARN's Capacity Scheduler schedules
#: containers by memory and vcores over a queue tree; MR1's slots have neither)
RESOURCE_ONLY_POLICIES = frozenset({"yarn_capacity"})


def _share_policy(s: Settings, mode: str, default: str) -> str:
    """``[scheduler] share_policy``; one that runs in resource mode only is refused in slot
    mode (it would fail at the first update instead, naming no key)."""
    name = s.string("share_policy", default)
    if mode != "resources" and name in RESOURCE_ONLY_POLICIES:
        s.problem("share_policy", f"{name!r} runs in resource mode only (YARN containers, not MR1 slots): "
                  f"add mode = \"resources\" to [scheduler] (docs/yarn-capacity.md)")
    return str(name)


@frozen
class SchedulerConfig:
    """``[scheduler]``: the plugin chosen at each extension point and the
    scheduler's own switches.

    Every default is the Hadoop 1.x fair scheduler's out of the box
    (``FairScheduler.start``): several tasks a heartbeat
    (``mapred.fairscheduler.assignmultiple`` true), ``cap_based``
    (``CapBasedLoadManager``, the default ``mapred.fairscheduler.loadmanager``),
    ``delay`` (delay scheduling is always on in Hadoop 1.x:
    ``JobSchedulable.assignTask``; its waits default to min(15 s, 1.5 ×
    the heartbeat interval)), fair sharing, no weight adjuster, no
    preemption.  ``docs/configuration.md`` lists them with Hadoop's keys."""

    allocation_file: str | None = None
    pool_resolver: tuple[str, ...] = ("property",)
    weight_adjusters: tuple[str, ...] = ()
    #: mapred.fairscheduler.loadmanager (default CapBasedLoadManager)
    load_manager: str = "cap_based"
    #: delay scheduling, always on in Hadoop 1.x ("locality" = greedy, never waiting)
    task_selector: str = "delay"
    share_policy: str = "fair"
    victim_selector: str = "newest"
    listeners: tuple[str, ...] = ()
    blocked_plugins: tuple[str, ...] = ()
    #: mapred.fairscheduler.assignmultiple (default true)
    assign_multiple: bool = True
    #: mapred.fairscheduler.assignmultiple.maps / .reduces (-1 = no cap)
    map_assign_cap: int = -1
    reduce_assign_cap: int = -1
    #: mapred.fairscheduler.preemption (default false)
    preemption: bool = False
    #: mapred.fairscheduler.preemption.only.log: plan and log preemption, kill nothing
    preemption_only_log: bool = False
    #: mapred.fairscheduler.preemption.interval, seconds (default 15 s)
    preemption_interval: float = 15.0
    #: mapred.fairscheduler.update.interval, seconds (default 0.5 s)
    update_interval: float = 0.5
    #: mapred.reduce.slowstart.completed.maps (default 0.05)
    reduce_slowstart: float = 0.05
    #: "slots" (MR1: map and reduce slots) or "resources" (YARN: memory, vcores, extras)
    mode: str = "slots"
    #: yarn.scheduler.fair.reservable-nodes: the most nodes reserved at once, as a fraction of the cluster
    reservable_nodes: float = 0.05
    #: yarn.scheduler.fair.user-as-default-queue (YARN's default placement: the user's queue)
    user_as_default_queue: bool = True
    #: yarn.scheduler.fair.allow-undeclared-pools (queues not in the allocation file may be created)
    allow_undeclared_pools: bool = True
    #: resource mode, with assign_multiple: yarn.scheduler.fair.dynamic.max.assign (hand out at
    #: most half of what the node had free per heartbeat) and max.assign (-1 = no cap)
    dynamic_max_assign: bool = True
    max_assign: int = -1
    #: resource mode: the smallest request that may reserve a node (YARN: increment allocation
    #: 1024 MB / 1 vcore × yarn.scheduler.reservation-threshold.increment-multiple 2.0)
    reservation_threshold: Resources = field(factory=lambda: Resources(2048, 2))
    #: resource mode: the size of a task its workload gives none (MapReduce's defaults,
    #: mapreduce.map.memory.mb / mapreduce.map.cpu.vcores: 1024 MB, 1 vcore)
    task_resources: Resources = field(factory=lambda: Resources(1024, 1))
    #: resource mode: preempt only while the cluster is used above this fraction (max over
    #: memory and vcores; yarn.scheduler.fair.preemption.cluster-utilization-threshold)
    preemption_utilization_threshold: float = 0.8
    #: resource mode: YARN's delay scheduling by scheduling opportunities
    #: (yarn.scheduler.fair.locality.threshold.node / .rack, read by the ``locality`` TaskSelector):
    #: fractions of the cluster's nodes an app's priority passes up before it may run a container
    #: rack-local / off-switch; -1 (any negative: either one) = off, Hadoop's default; above 1 = 1
    locality_threshold_node: float = -1.0
    locality_threshold_rack: float = -1.0

    @classmethod
    def from_table(cls, s: Settings) -> SchedulerConfig:
        d = cls()
        mode = s.string("mode", d.mode, choices=MODES)
        if mode == "resources":  # YARN's defaults where they differ from Hadoop 1.x's
            # yarn.scheduler.fair.assignmultiple false; no delay scheduling
            # (locality.threshold.node/rack -1); containers fit by resources, not slots
            # and YARN's queue placement (the allocation file's queuePlacementPolicy, else its default)
            d = evolve(d, assign_multiple=False, load_manager="slots",
                       task_selector=RESOURCE_POLICY_SELECTORS.get(s.table.get("share_policy"), "locality"),
                       pool_resolver=RESOURCE_POLICY_RESOLVERS.get(s.table.get("share_policy"), ("rules",)))
        return cls(
            mode=mode,
            # FairSchedulerConfiguration.getReservableNodes / getPreemptionUtilizationThreshold read
            # any float (getFloat, no upper bound): above 1, no cap on reservations / never preempt
            reservable_nodes=float(s.number("reservable_nodes", d.reservable_nodes, minimum=0)),
            user_as_default_queue=s.boolean("user_as_default_queue", d.user_as_default_queue),
            allow_undeclared_pools=s.boolean("allow_undeclared_pools", d.allow_undeclared_pools),
            dynamic_max_assign=s.boolean("dynamic_max_assign", d.dynamic_max_assign),
            max_assign=s.number("max_assign", d.max_assign, minimum=-1, integer=True),
            reservation_threshold=_resources(s, "reservation_threshold", d.reservation_threshold),
            task_resources=_resources(s, "task_resources", d.task_resources),
            preemption_utilization_threshold=float(
                s.number("preemption_utilization_threshold", d.preemption_utilization_threshold, minimum=0)
            ),
            # FairSchedulerConfiguration.getLocalityThresholdNode / Rack: getFloat, any value
            locality_threshold_node=float(s.number("locality_threshold_node", d.locality_threshold_node)),
            locality_threshold_rack=float(s.number("locality_threshold_rack", d.locality_threshold_rack)),
            allocation_file=s.string("allocation_file", None),
            pool_resolver=s.names("pool_resolver", d.pool_resolver),
            weight_adjusters=s.names("weight_adjusters", d.weight_adjusters),
            load_manager=s.string("load_manager", d.load_manager),
            task_selector=s.string("task_selector", d.task_selector),
            share_policy=_share_policy(s, mode, d.share_policy),
            victim_selector=s.string("victim_selector", d.victim_selector),
            listeners=s.names("listeners", d.listeners),
            blocked_plugins=s.names("blocked_plugins", d.blocked_plugins),
            assign_multiple=s.boolean("assign_multiple", d.assign_multiple),
            map_assign_cap=s.number("map_assign_cap", d.map_assign_cap, minimum=-1, integer=True),
            reduce_assign_cap=s.number("reduce_assign_cap", d.reduce_assign_cap, minimum=-1, integer=True),
            preemption=s.boolean("preemption", d.preemption),
            preemption_only_log=s.boolean("preemption_only_log", d.preemption_only_log),
            preemption_interval=float(s.number("preemption_interval", d.preemption_interval, minimum=0)),
            update_interval=float(s.number("update_interval", d.update_interval, minimum=MIN_INTERVAL)),
            reduce_slowstart=float(s.number("reduce_slowstart", d.reduce_slowstart, minimum=0, maximum=1)),
        )

    def selected_plugins(self) -> list[str]:
        """Every plugin name the config puts to use, in config order, once each."""
        names = [
            *self.pool_resolver,
            *self.weight_adjusters,
            self.load_manager,
            self.task_selector,
            self.share_policy,
            self.victim_selector,
            *self.listeners,
        ]
        return list(dict.fromkeys(names))


#: The most nodes a cluster (``racks × nodes_per_rack``) may have: a simulated node costs
#: about 2.2 KB (the node, its heartbeat state and events), so a million is ~2.2 GB and
#: 25 × the largest Hadoop clusters reported (~40,000 nodes); see docs/workloads.md.
MAX_CLUSTER_NODES = 1_000_000
#: the shortest update, heartbeat or sample interval, seconds: Hadoop's intervals are whole
#: milliseconds (mapred.fairscheduler.update.interval, the heartbeat interval); a shorter
#: one (1e-7) only makes a run spin through empty updates
MIN_INTERVAL = 0.001


@frozen
class ClusterConfig:
    """``[cluster]``: the simulated cluster (racks × nodes, slots per node)."""

    racks: int = 10
    nodes_per_rack: int = 10
    map_slots: int = 2
    reduce_slots: int = 1
    replication: int = 3
    #: seconds between a node's heartbeats on a small cluster (Hadoop's
    #: ``HEARTBEAT_INTERVAL_MIN``, 3 s)
    heartbeat_interval: float = 3.0
    #: Hadoop's ``mapred.heartbeats.in.second`` (100 there): the JobTracker
    #: spaces heartbeats so that it gets at most this many a second.  0 (our
    #: default) = off, every node beats every ``heartbeat_interval``
    heartbeats_per_second: float = 0.0
    #: resource mode: what each node offers (YARN's NodeManager defaults: 8192 MB, 8 vcores)
    node_resources: Resources = field(factory=lambda: Resources(8192, 8))
    #: resource mode: how asks are sized (YARN's yarn.scheduler.minimum-allocation-*,
    #: yarn.resource-types.*.increment-allocation, yarn.scheduler.maximum-allocation-*):
    #: each resource at least the minimum, rounded up to the increment, at most the maximum;
    #: an ask above the maximum is refused (SPEC §6b)
    minimum_allocation: Resources = field(factory=lambda: Resources(1024, 1))
    increment_allocation: Resources = field(factory=lambda: Resources(1024, 1))
    maximum_allocation: Resources = field(factory=lambda: Resources(8192, 4))
    #: network distance (same node, same rack, other rack): hop counts of a two-level tree,
    #: CoGRS's values and Hadoop's ``NetworkTopology.getDistance``'s
    network_distances: tuple[float, float, float] = (0.0, 2.0, 4.0)
    #: bytes/s a reduce fetches map output on its own node (a local disk's sequential read)
    disk_bandwidth: float = 100e6
    #: bytes/s a reduce fetches from another node of its rack (a 1 Gbit/s Ethernet link)
    rack_bandwidth: float = 125e6
    #: bytes/s a reduce fetches from another rack (the same link behind a 5:1
    #: oversubscribed rack uplink; conventional tree data-centre networks are 1:5 or worse)
    core_bandwidth: float = 25e6

    @property
    def nodes(self) -> int:
        return self.racks * self.nodes_per_rack

    def total_resources(self) -> Resources:
        """The whole cluster in resource mode: ``node_resources`` × nodes."""
        r = self.node_resources
        n = self.nodes
        return Resources(r.memory * n, r.vcores * n, {k: v * n for k, v in r.extras})

    def next_heartbeat_interval(self, nodes: int) -> float:
        """Seconds between a node's heartbeats on a cluster of ``nodes``
        (Hadoop 1.x ``JobTracker.getNextHeartbeatInterval``: the larger of
        ``heartbeat_interval`` and ``(int) (1000 × nodes / heartbeats_per_second)``
        milliseconds — 350 nodes at 100 a second beat every 3.5 s)."""
        interval = self.heartbeat_interval
        if self.heartbeats_per_second > 0:
            interval = max(interval, int(1000.0 * (nodes / self.heartbeats_per_second)) / 1000.0)
        return interval

    @classmethod
    def from_table(cls, s: Settings) -> ClusterConfig:
        d = cls()
        racks = s.number("racks", d.racks, minimum=1, integer=True)
        nodes_per_rack = s.number("nodes_per_rack", d.nodes_per_rack, minimum=1, integer=True)
        if racks * nodes_per_rack > MAX_CLUSTER_NODES:
            nodes = racks * nodes_per_rack
            shown = f"{nodes:,}" if nodes < 10**15 else f"{nodes:.3g}"
            # the key that is too big by itself (both when both are), else the one the product grows by
            keys = [k for k, v in (("racks", racks), ("nodes_per_rack", nodes_per_rack)) if v > MAX_CLUSTER_NODES]
            for key in keys or ["racks" if racks >= nodes_per_rack else "nodes_per_rack"]:
                s.problem(key, f"racks × nodes_per_rack = {shown} nodes; at most "
                          f"{MAX_CLUSTER_NODES:,} (MAX_CLUSTER_NODES)")
            racks, nodes_per_rack = d.racks, d.nodes_per_rack
        minimum = _resources(s, "minimum_allocation", d.minimum_allocation)
        maximum = _resources(s, "maximum_allocation", d.maximum_allocation)
        if not minimum.fits_in(maximum):
            # FairScheduler.validateConf (AbstractYarnScheduler): the RM does not start; "Invalid resource
            # scheduler memory / vcores allocation configuration", one resource at a time
            below = ["memory" if n == "memory-mb" else n for n in minimum.names if minimum.get(n) > maximum.get(n)]
            s.problem("maximum_allocation", f"maximum_allocation {maximum} is below minimum_allocation {minimum} "
                                            f"in {', '.join(below)}")
            minimum, maximum = d.minimum_allocation, d.maximum_allocation
        return cls(
            racks=racks,
            nodes_per_rack=nodes_per_rack,
            map_slots=s.number("map_slots", d.map_slots, minimum=0, integer=True),
            reduce_slots=s.number("reduce_slots", d.reduce_slots, minimum=0, integer=True),
            replication=s.number("replication", d.replication, minimum=1, integer=True),
            heartbeat_interval=float(
                s.number("heartbeat_interval", d.heartbeat_interval, minimum=MIN_INTERVAL)
            ),
            heartbeats_per_second=float(s.number("heartbeats_per_second", d.heartbeats_per_second, minimum=0)),
            node_resources=_resources(s, "node_resources", d.node_resources),
            minimum_allocation=minimum,
            increment_allocation=_resources(s, "increment_allocation", d.increment_allocation),
            maximum_allocation=maximum,
            network_distances=s.numbers(  # type: ignore[arg-type]
                "network_distances", d.network_distances, count=3, minimum=0, ascending=True,
                example=" ([same node, same rack, other rack], like [0, 2, 4])"),
            disk_bandwidth=float(s.number("disk_bandwidth", d.disk_bandwidth, minimum=0, exclusive_minimum=True)),
            rack_bandwidth=float(s.number("rack_bandwidth", d.rack_bandwidth, minimum=0, exclusive_minimum=True)),
            core_bandwidth=float(s.number("core_bandwidth", d.core_bandwidth, minimum=0, exclusive_minimum=True)),
        )



def _resources(s: Settings, key: str, default: Resources) -> Resources:
    """A resource string setting (``"8192 mb, 8 vcores"``), amounts only."""
    text = s.string(key, None)
    if text is None:
        return default
    try:
        value = parse_configurable(text, missing=0)
    except ResourceParseError as exc:
        s.problem(key, str(exc))
        return default
    if value.is_percentage:
        s.problem(key, f'expected amounts like "8192 mb, 8 vcores", not a percentage: {text!r}')
        return default
    return value.resolve(None)


@frozen
class Config:
    """A whole ``corescheduler.toml``."""

    scheduler: SchedulerConfig = SchedulerConfig()
    cluster: ClusterConfig = ClusterConfig()
    plugins: Mapping[str, Mapping[str, Any]] = field(factory=dict)
    simulation: Mapping[str, Any] = field(factory=dict)
    service: Mapping[str, Any] = field(factory=dict)
    source: str | None = None
    text: str | None = field(default=None, repr=False, eq=False)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_file(cls, path: str | os.PathLike[str], problems: list[str] | None = None) -> Config:
        """Read and validate a TOML file (``problems``: see :meth:`from_dict`)."""
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8-sig")  # a BOM is skipped, as for JSON, TSV and XML
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read config: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source}: config is not UTF-8 text ({exc.reason})") from exc
        return cls.from_toml(text, source=source, problems=problems)

    @classmethod
    def from_toml(cls, text: str, source: str = "<config>", problems: list[str] | None = None) -> Config:
        """Parse TOML text; a syntax error names the file and line, and so does a
        value nested deeper than :data:`MAX_DEPTH` (``problems``: see :meth:`from_dict`)."""
        try:
            data = tomllib.loads(text)
        except RecursionError:  # tomllib parses nested arrays and inline tables recursively
            raise ConfigError(
                f"{source}: invalid TOML: arrays or inline tables nested too deeply "
                f"(a config needs at most {MAX_DEPTH} levels)"
            ) from None
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
            line = f":{m.group(1)}" if m else ""
            msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
            raise ConfigError(f"{source}{line}: invalid TOML: {msg}") from exc
        except ValueError as exc:  # tomllib's int() of a number of more than 4,300 digits
            what = "an integer of more than 4300 digits" if "digits" in str(exc) else str(exc)
            raise ConfigError(f"{source}: invalid TOML: {what}; TOML's integers are 64-bit") from None
        return cls.from_dict(data, source=source, text=text, problems=problems)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        source: str = "<config>",
        text: str | None = None,
        problems: list[str] | None = None,
    ) -> Config:
        """Validate an already-parsed table (as tomllib returns it).

        Every problem is raised at once as a :class:`ConfigError`; or, when a
        ``problems`` list is given, appended to it, and the config is built
        anyway with the default in place of each bad value (``corescheduler
        check`` goes on to the plugins with it, to report their problems too)."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: expected a table, got {type(data).__name__}")
        collect = problems
        problems = []

        def where(msg: str, table: str, key: str | None) -> str:
            line = locate(text, table, key) if text else None
            return f"{source}:{line}: {msg}" if line else f"{source}: {msg}"

        deep = _too_deep(data)
        if deep is not None:
            table, key = deep[0], (deep[1] if len(deep) > 1 else None)
            if table == "plugins" and len(deep) > 2:  # [plugins.NAME] key
                table, key = f"plugins.{deep[1]}", deep[2]
            path = f"[{table}] {key}" if key else f"[{table}]"
            problems.append(where(f"{path}: nested more than {MAX_DEPTH} levels deep", table, key))
            data = {k: v for k, v in data.items() if k != deep[0]}

        for name in data:
            if name not in TABLES:
                problems.append(where(f"unknown table [{name}]; expected one of {', '.join(TABLES)}", name, None))

        def read(table: str, builder: Any) -> Any:
            s = Settings(data.get(table), where=f"[{table}]")
            value = builder(s)
            for key, message in [*s.problems, *((k, "unknown setting") for k in s.unknown_keys())]:
                prefix = f"[{table}] {key}" if key else f"[{table}]"
                problems.append(where(f"{prefix}: {message}", table, key))
            return value

        scheduler = read("scheduler", SchedulerConfig.from_table)
        cluster = read("cluster", ClusterConfig.from_table)
        sim = data.get("simulation")
        cluster_table = data.get("cluster")
        if isinstance(sim, Mapping) and "heartbeats_per_second" in sim and not (
            isinstance(cluster_table, Mapping) and "heartbeats_per_second" in cluster_table
        ):  # its first home, still read (the simulator validates it there)
            hps = sim["heartbeats_per_second"]
            if isinstance(hps, (int, float)) and not isinstance(hps, bool) and 0 <= hps < math.inf:
                cluster = evolve(cluster, heartbeats_per_second=float(hps))
        plugins = data.get("plugins", {})
        if not isinstance(plugins, Mapping):
            problems.append(where("[plugins]: expected a table of [plugins.NAME] tables", "plugins", None))
            plugins = {}
        for name, table in plugins.items():
            if not isinstance(table, Mapping):
                problems.append(where(f"[plugins.{name}]: expected a table, got {_show(table)}", "plugins", name))
        tables: dict[str, dict[str, Any]] = {}
        for tname in ("simulation", "service"):
            value = data.get(tname, {})
            if isinstance(value, Mapping):
                tables[tname] = dict(value)
            else:
                problems.append(where(f"[{tname}]: expected a table", tname, None))
                tables[tname] = {}
        if problems:
            if collect is None:
                raise ConfigError(problems)
            collect.extend(problems)
        return cls(
            scheduler=scheduler,
            cluster=cluster,
            plugins={k: dict(v) for k, v in plugins.items() if isinstance(v, Mapping)},
            simulation=tables["simulation"],
            service=tables["service"],
            source=source,
            text=text,
        )

    @classmethod
    def default(cls) -> Config:
        return cls()

    # ------------------------------------------------------------------ helpers
    def plugin_table_warnings(self, installed: Iterable[str], used: Iterable[str] | None = None) -> list[str]:
        """A warning for each ``[plugins.NAME]`` table that has no effect: ``NAME`` is not
        among the ``installed`` plugins (a typo: the closest name is suggested, as for an
        unknown setting), or it is but no extension point uses it (``used``: the plugins put
        to use, by default those ``[scheduler]`` selects; add the share policies an
        allocation file names)."""
        installed = set(installed)
        used = set(self.scheduler.selected_plugins() if used is None else used)
        out = []
        for name in self.plugins:
            if name in used:
                continue
            loc = self.locate("plugins", name)
            if loc == (self.source or "<config>"):
                loc = self.locate(f"plugins.{name}", None)
            if name in installed:
                out.append(f"{loc}: [plugins.{name}]: plugin {name!r} is not selected by [scheduler] "
                           "or the allocation file, so this table has no effect")
                continue
            close = difflib.get_close_matches(name, sorted(installed | used), n=1, cutoff=0.7)
            hint = f"; did you mean [plugins.{close[0]}]?" if close else ""
            out.append(f"{loc}: [plugins.{name}]: no plugin named {name!r} is installed, "
                       f"so this table has no effect{hint}")
        return out

    def plugin_settings(self, name: str) -> Mapping[str, Any]:
        """The ``[plugins.NAME]`` table (empty when absent)."""
        return self.plugins.get(name, {})

    def locate(self, table: str, key: str | None) -> str:
        """``FILE:LINE`` (or ``FILE``) of ``key`` in ``[table]``, for messages."""
        src = self.source or "<config>"
        line = locate(self.text, table, key) if self.text else None
        return f"{src}:{line}" if line else src

    def allocation_path(self) -> Path | None:
        """The allocation file, relative paths taken from the config's folder."""
        if not self.scheduler.allocation_file:
            return None
        path = Path(self.scheduler.allocation_file)
        if not path.is_absolute() and self.source and not self.source.startswith("<"):
            path = Path(self.source).parent / path
        return path

    def with_scheduler(self, **changes: Any) -> Config:
        return evolve(self, scheduler=evolve(self.scheduler, **changes))


#: How deep a config's arrays and tables may nest (the capacity plugin's queue tree
#: is the deepest a config needs); deeper is refused before anything walks it.
MAX_DEPTH = 64


def _too_deep(data: Mapping[str, Any]) -> list[str] | None:
    """The path (top-level table, key, …) to the first value nested more than
    :data:`MAX_DEPTH` levels deep, or None; an explicit stack, not recursion."""
    stack: list[tuple[Any, list[str]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return path
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        for k, v in items:
            if isinstance(v, Mapping | list):  # only containers nest
                stack.append((v, [*path, str(k) if isinstance(value, Mapping) else f"[{k}]"]))
    return None


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def locate(text: str | None, table: str, key: str | None) -> int | None:
    """Best-effort line number of ``key`` inside ``[table]`` (or of the table
    header when ``key`` is None) in TOML ``text``."""
    if not text:
        return None
    current = ""
    key_re = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=") if key else None
    for number, line in enumerate(text.splitlines(), start=1):
        m = _HEADER.match(line)
        if m:
            current = m.group(1).replace('"', "").replace("'", "")
            if key is None and current == table:
                return number
            if key is not None and current == f"{table}.{key}":
                return number
            continue
        if key_re is not None and current == table and key_re.match(line):
            return number
    return None
