"""A workload: the jobs a simulation submits, the job-size bins the report
groups them by, and the ``[simulation]`` settings that derive tasks from a
trace's bytes (:class:`WorkloadSettings`)."""

from __future__ import annotations

import bisect
import math
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

# --------------------------------------------------------------------------- bounds
#
# What a workload may ask for, so that a typo'd count is one clear error instead
# of a MemoryError (or gigabytes of growth) later.  Measured costs (CPython 3.11,
# 64-bit; docs/workloads.md "What a workload costs"): a loaded workload holds
# one 8-byte reference per task (identical tasks share one TaskSpec) and about
# 3 KB per job; in a simulation a job's tasks cost about 0.75 KB each from the
# moment it becomes runnable until it finishes.  FB-2010, the largest trace we
# ship, has 24,442 jobs, 8.7 million tasks and at most 88,306 tasks in one job.

#: Most tasks (maps + reduces + plain tasks) in one job: ~7.5 GB of runtime tasks
#: once the job runs.  Hadoop's own knob for this is the JobTracker's
#: ``mapred.jobtracker.maxtasks.per.job`` (JobClient.validateNumberOfTasks:
#: "The number of tasks for this job N exceeds the configured limit M"), unlimited
#: by default; we need a finite one.
MAX_JOB_TASKS = 10_000_000
#: Most tasks in a whole workload: ~15 GB were every task in flight at once, and
#: 2.3 × FB-2010.
MAX_WORKLOAD_TASKS = 20_000_000
#: Most jobs in a workload (about 3 GB of JobSpecs; 40 × FB-2010).
MAX_WORKLOAD_JOBS = 1_000_000



def _amount(n: int) -> str:
    """A count for messages: ``12,000,000``, or ``7.45e+21`` when it is too long to read."""
    if n < 10**15:
        return f"{n:,}"
    e = int(math.log10(n))  # exact enough, and fine for ints beyond a float
    return f"{n // 10 ** (e - 2) / 100:.3g}e+{e}"


def job_tasks_problem(tasks: int) -> str | None:
    """Why a job of ``tasks`` tasks is refused (:data:`MAX_JOB_TASKS`), or None."""
    if tasks > MAX_JOB_TASKS:
        return f"{_amount(tasks)} tasks in one job; at most {MAX_JOB_TASKS:,} (MAX_JOB_TASKS, see docs/workloads.md)"
    return None


class _Tally:
    """Jobs and tasks read so far, against :data:`MAX_WORKLOAD_JOBS` and
    :data:`MAX_WORKLOAD_TASKS`; checked before a job's tasks are built."""

    __slots__ = ("jobs", "over", "tasks")

    def __init__(self) -> None:
        self.jobs = 0
        self.tasks = 0
        self.over = False  # a bound was passed (reported once): build nothing more

    def take(self, jobs: int, tasks_each: int) -> str | None:
        """Count ``jobs`` more jobs of ``tasks_each`` tasks; why not, or None."""
        if self.over:
            return None
        if self.jobs + jobs > MAX_WORKLOAD_JOBS:
            self.over = True
            return (f"the workload would have at least {_amount(self.jobs + jobs)} jobs; at most "
                    f"{MAX_WORKLOAD_JOBS:,} (MAX_WORKLOAD_JOBS, see docs/workloads.md)")
        if self.tasks + jobs * tasks_each > MAX_WORKLOAD_TASKS:
            self.over = True
            return (f"the workload would have at least {_amount(self.tasks + jobs * tasks_each)} tasks; at most "
                    f"{MAX_WORKLOAD_TASKS:,} (MAX_WORKLOAD_TASKS, see docs/workloads.md)")
        self.jobs += jobs
        self.tasks += jobs * tasks_each
        return None


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
            # names are built up front (user00…): no more than a workload can have jobs
            pools=s.number("pools", d.pools, minimum=0, maximum=MAX_WORKLOAD_JOBS, integer=True),
            users=s.number("users", d.users, minimum=1, maximum=MAX_WORKLOAD_JOBS, integer=True),
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
