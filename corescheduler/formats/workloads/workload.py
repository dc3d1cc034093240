"""A workload: the jobs a simulation submits, the job-size bins the report
groups them by, and the ``[simulation]`` settings that derive tasks from a
trace's bytes (:class:`WorkloadSettings`)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from attrs import field, frozen

from corescheduler.config import Config
from corescheduler.core.model import JobSpec
from corescheduler.errors import ConfigError
from corescheduler.settings import Settings

MiB = 2**20

#: Tasks never last less than this (seconds); derived durations are rounded to it.
MIN_DURATION = 0.001

BUILTIN_PREFIX = "builtin:"

# --------------------------------------------------------------------------- job-size bins

#: The job-size bins of the delay-scheduling paper (Zaharia et al., EuroSys
#: 2010, Table 3), by number of maps, smallest first.  The report groups jobs
#: by these labels.
SIZE_BINS: tuple[str, ...] = ("1", "2", "3-20", "21-60", "61-150", "151-300", "301-500", "501-1500", ">1500")
_BIN_UPPER: tuple[int, ...] = (1, 2, 20, 60, 150, 300, 500, 1500)


def size_bin(maps: int) -> str:
    """The :data:`SIZE_BINS` label for a job with ``maps`` map tasks (a job
    with no maps counts as bin ``"1"``)."""
    return SIZE_BINS[bisect.bisect_left(_BIN_UPPER, max(1, maps))]


# --------------------------------------------------------------------------- values


@frozen
class Workload:
    """The jobs of a simulation, sorted by ``(submit, id)``.

    Every :class:`JobSpec` has ``id`` and ``submit`` set and every
    :class:`TaskSpec` a ``duration`` > 0.  Maps with empty ``input_nodes``
    have no replicas yet: the simulator places them (with
    :class:`ReplicaPlacer`).  Identical tasks of a job may be one shared
    :class:`TaskSpec` object.
    """

    jobs: tuple[JobSpec, ...] = field(converter=tuple)
    source: str
    name: str

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[JobSpec]:
        return iter(self.jobs)

    def size_bin(self, job: JobSpec) -> str:
        """The job's size bin label (one of :data:`SIZE_BINS`), by its map count."""
        return size_bin(len(job.maps))

    @property
    def bins(self) -> tuple[str, ...]:
        """All bin labels in order, smallest jobs first (:data:`SIZE_BINS`)."""
        return SIZE_BINS

    def task_counts(self) -> tuple[int, int]:
        """Total ``(maps, reduces)`` over all jobs."""
        return sum(len(j.maps) for j in self.jobs), sum(len(j.reduces) for j in self.jobs)


#: The ``[simulation]`` keys read by :class:`WorkloadSettings`; the simulator
#: owns every other key of that table.
WORKLOAD_KEYS: tuple[str, ...] = (
    "block_size",
    "map_rate",
    "shuffle_rate",
    "reduce_rate",
    "task_overhead",
    "bytes_per_reduce",
    "max_maps",
    "max_reduces",
    "pools",
    "users",
    "shuffle",
    "shuffle_skew",
)

#: ``[simulation] shuffle``: which jobs' reduces fetch their input over the network model
SHUFFLE_MODES: tuple[str, ...] = ("auto", "network", "off")


@frozen
class WorkloadSettings:
    """How tasks are derived from a SWIM trace's bytes, and how its jobs get
    users and pools.  Read from ``[simulation]`` (keys :data:`WORKLOAD_KEYS`);
    the defaults and formulas are in ``docs/workloads.md``.
    """

    #: bytes of input per map (the HDFS block size)
    block_size: int = 128 * MiB
    #: bytes/s one map slot reads and processes
    map_rate: float = 10.0 * MiB
    #: bytes/s one reduce copies (shuffle)
    shuffle_rate: float = 20.0 * MiB
    #: bytes/s one reduce (or a map of a map-only job) writes output
    reduce_rate: float = 10.0 * MiB
    #: seconds added to every task (JVM start, setup, commit)
    task_overhead: float = 2.0
    #: shuffle bytes per reduce (Hive's hive.exec.reducers.bytes.per.reducer)
    bytes_per_reduce: int = 1_000_000_000
    #: cap on maps per job (0 = none)
    max_maps: int = 0
    #: cap on reduces per job (0 = none; default Hive's hive.exec.reducers.max)
    max_reduces: int = 999
    #: pools pool00… (0 = leave the pool unset, the PoolResolver decides)
    pools: int = 10
    #: users user00…, drawn Zipf-like per job
    users: int = 50
    #: "auto": jobs that describe their shuffle (JSON ``shuffle``) fetch over the network
    #: model and SWIM reduces copy at ``shuffle_rate`` as before; "network": SWIM jobs too
    #: (their shuffle bytes, split by ``shuffle_skew``); "off": no job does
    shuffle: str = "auto"
    #: SWIM jobs under ``shuffle = "network"``: the Zipf exponent of their partitions (0: uniform)
    shuffle_skew: float = 0.0

    @classmethod
    def from_settings(cls, s: Settings) -> WorkloadSettings:
        """Read this class's keys from ``s`` (recording problems in it).

        The simulator can read ``[simulation]`` through one
        :class:`~corescheduler.settings.Settings`, call this, read its own
        keys and then report unknown keys and problems together.
        """
        d = cls()
        return cls(
            block_size=s.number("block_size", d.block_size, minimum=1, integer=True),
            map_rate=float(s.number("map_rate", d.map_rate, minimum=0, exclusive_minimum=True)),
            shuffle_rate=float(s.number("shuffle_rate", d.shuffle_rate, minimum=0, exclusive_minimum=True)),
            reduce_rate=float(s.number("reduce_rate", d.reduce_rate, minimum=0, exclusive_minimum=True)),
            task_overhead=float(s.number("task_overhead", d.task_overhead, minimum=0)),
            bytes_per_reduce=s.number("bytes_per_reduce", d.bytes_per_reduce, minimum=1, integer=True),
            max_maps=s.number("max_maps", d.max_maps, minimum=0, integer=True),
            max_reduces=s.number("max_reduces", d.max_reduces, minimum=0, integer=True),
            pools=s.number("pools", d.pools, minimum=0, integer=True),
            users=s.number("users", d.users, minimum=1, integer=True),
            shuffle=s.string("shuffle", d.shuffle, choices=SHUFFLE_MODES),
            shuffle_skew=float(s.number("shuffle_skew", d.shuffle_skew, minimum=0)),
        )

    @classmethod
    def from_config(cls, config: Config | None) -> WorkloadSettings:
        """Read :data:`WORKLOAD_KEYS` from ``config.simulation``.

        Other keys of ``[simulation]`` are left alone (the simulator checks
        them).  Bad values raise :class:`~corescheduler.errors.ConfigError`
        naming the config file, line and key.
        """
        if config is None:
            return cls()
        s = Settings(config.simulation, where="[simulation]")
        value = cls.from_settings(s)
        if s.problems:
            problems = []
            for key, message in s.problems:
                label = f"[simulation] {key}" if key else "[simulation]"
                problems.append(f"{config.locate('simulation', key)}: {label}: {message}")
            raise ConfigError(problems)
        return value
