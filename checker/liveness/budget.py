"""What the liveness graph may cost before it is built: the states (or orbits) it may hold on
each core (``--liveness-max-states``), and the memory it would take against ``--memory``,
both judged from the safety search's count (``checker.commands.liveness``). Past
``--memory`` (or what the machine has free), the compiled core holds the graph's arrays in
files instead (``place``); a graph past the states budget, or whose files would not fit
either, is refused, its properties unknown, with the reason these functions give.
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from shutil import disk_usage

from checker.limits import free_memory, megabytes
from checker.model import Spec
from checker.result import CheckResult

MAX_STATES = 2_000_000
"""The default budget of the liveness graph (states) on the reference core: about 2 GiB of
Python objects and a minute of graph building."""
COMPILED_MAX_STATES = 100_000_000
"""The default budget on the compiled core: rows, edges and arrays in C and numpy, about
150 bytes a state (18,329,597 states, the kafka model's at 3 replicas, fit in a few GiB)."""


ORBIT_BYTES = 160
"""What the compiled liveness pass holds at its peak per orbit of the orbit graph, beyond the
process (bytes): the estimate ``--memory`` is held to. Measured (2026-11-30), the whole run's
peak over its orbits: 127 at 3 replicas beyond a 90 MiB process (641 MiB, 4,338,867 orbits),
136 at ``--max-epoch 3`` (5.2 GiB, 40,263,439 orbits; 148 with the build before), 143 at 4
replicas, 2 records, epoch 1 (11.7 GiB, 87,883,526 orbits)."""
PLAIN_BYTES = 330
"""The same for the compiled core's whole plain graph, per state: 8,232 MiB for 26,027,896
states at 3 replicas (2026-11-30)."""
FILE_BYTES = 16
"""What the compiled pass holds in memory per orbit (or per state, on the plain graph) when
its arrays are files: the graph's (``checker/native/lfiles.c``) and the judge's from a
quarter of a byte a node up (``checker.liveness.scratch``), so that what stays is the judge's
chunk-sized temporaries and arrays under that (bytes). Measured (2026-12-01), the pass's peak
anonymous memory (``RssAnon``) over its nodes beyond the process at its start: 12 at 3
replicas (4,338,867 orbits; 48 with the judge's arrays in memory, 128 with the graph's too),
4 at ``--max-epoch 3`` (40,263,439 orbits; 56 and 135), 3 on the plain graph at 3 replicas
(26,027,896 states; 225 with the judge's arrays in memory). Not counted, as the process's
own 60 to 90 MiB is not: under about 4 million nodes the judge's per-node arrays are under
the 4 MiB floor and stay on the heap, some tens of MiB (at 3 replicas all of the 51 MiB)."""
DISK_ORBIT_BYTES = 192
"""What the orbit graph's files and the judge's take on disk per orbit at their largest
(bytes): the arrays with their growth room (a file is reserved half again as it grows), the
sealing's hashes and codes beside the tables that replace them, and the judge's arrays.
Measured (2026-12-01), the temporary folder's peak use over the orbits: 149 at 3 replicas,
147 at ``--max-epoch 3`` (the graph's alone: 111 and 88 once built). The folder must have
this much free."""
DISK_PLAIN_BYTES = 384
"""The same for the whole plain graph, per state: 337 at 3 replicas (8.2 GiB for 26,027,896
states; the graph's alone about 134 at 1 record, epoch 1, 99 once built)."""


def _plain_states(result: CheckResult, spec: Spec) -> int:
    """The whole plain graph's states, at most: the search's count, times ``replicas!`` when it
    counted orbits."""
    symmetric = result.stats.symmetry
    return result.stats.distinct * (
        math.factorial(getattr(spec, "symmetric_ids", 1)) if symmetric else 1
    )


MEMORY_FILESYSTEMS = frozenset({"tmpfs"})
"""File systems whose files are held in memory (and report free space): a graph's files
there save none."""


@dataclass(frozen=True)
class Placement:
    """Where the compiled liveness pass holds its graph: in memory, or (``folder`` set) with
    its arrays in files there (``checker/native/lfiles.c``), ``why`` saying why not in
    memory and ``warning`` what the user should know of the folder; or it is refused,
    ``refused`` saying why."""

    folder: str | None = None
    why: str = ""
    warning: str = ""
    refused: str = ""


def filesystem(folder: str) -> str:
    """The type of the file system ``folder`` is on (``/proc/mounts``' longest mount point
    holding it), "" where there is no ``/proc``."""
    path, best, kind = os.path.realpath(folder), -1, ""
    try:
        with open("/proc/mounts", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) < 3:
                    continue
                point = fields[1].replace("\\040", " ")
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if inside and len(point) > best:
                    best, kind = len(point), fields[2]
    except OSError:
        return ""
    return kind


def place(
    result: CheckResult,
    spec: Spec,
    memory: int | None,
    core: str,
    orbits: bool,
    folder: str | None = None,
) -> Placement:
    """Where the liveness graph of a finished safety search goes on ``core``, against
    ``memory`` (``--memory`` in bytes; None: what the machine has free,
    ``checker.limits.free_memory``, as the safety search's disk tier takes it).
    The compiled core's orbit graph takes ``ORBIT_BYTES`` an orbit in memory, and
    ``FILE_BYTES`` in memory and ``DISK_ORBIT_BYTES`` on disk with its arrays in files
    (the search's count); its whole plain graph ``PLAIN_BYTES``, ``FILE_BYTES`` and
    ``DISK_PLAIN_BYTES`` a state (up to ``replicas!`` states an orbit). In memory where it
    fits; else in files in ``folder`` (default ``TMPDIR``'s, ``tempfile.gettempdir``) where
    the process's share fits and the folder has room for the files; else refused under
    ``--memory``, or in memory as before without it. A folder on a file system held in
    memory (``MEMORY_FILESYSTEMS``) gets a warning. The reference core holds its graph in
    memory (``--liveness-max-states``). Raises nothing: a folder that cannot be used is a
    refusal (or, without ``--memory``, the graph in memory)."""
    if core != "compiled":
        return Placement()
    limit = free_memory() if memory is None else memory
    if orbits:
        count, unit, size = result.stats.distinct, "orbits", "orbit graph's"
        each, filed, disk = ORBIT_BYTES, FILE_BYTES, DISK_ORBIT_BYTES
    else:
        count, unit, size = _plain_states(result, spec), "states", "whole plain graph's"
        each, filed, disk = PLAIN_BYTES, FILE_BYTES, DISK_PLAIN_BYTES
    need = count * each
    if need <= limit:
        return Placement()
    past = f"--memory {megabytes(limit)}" if memory is not None else f"the {megabytes(limit)} free"
    why = (
        f"the {size} {count:,} {unit} need about {megabytes(need)} in memory ({each} bytes "
        f"each), past {past}"
    )
    if memory is not None and count * filed > limit:
        return Placement(
            refused=f"{why}, and about {megabytes(count * filed)} with its arrays in files "
            f"({filed} bytes each): raise --memory or lower the bounds"
        )
    problem, where = "", folder or ""
    try:
        where = tempfile.gettempdir() if folder is None else folder
        free = disk_usage(where).free
    except OSError as exc:
        problem = f"no folder for its files ({exc.strerror or exc})"
    else:
        if count * disk > free:
            problem = (
                f"its files would take about {megabytes(count * disk)} in {where}, which has "
                f"{megabytes(free)} free: set TMPDIR to a folder with room"
            )
    if problem:
        return Placement(refused=f"{why}, and {problem}") if memory is not None else Placement()
    warning = ""
    kind = filesystem(where)
    if kind in MEMORY_FILESYSTEMS:
        warning = f"{where} is on a {kind}, whose files are held in memory: set TMPDIR to a disk"
    return Placement(where, why, warning)


def budget(core: str) -> int:
    """The default liveness budget of ``core`` (``compiled`` or ``reference``)."""
    return COMPILED_MAX_STATES if core == "compiled" else MAX_STATES


def too_large(
    result: CheckResult, spec: Spec, max_states: int, core: str = "reference", orbits: bool = False
) -> str:
    """Why the liveness graph of a finished safety search cannot fit ``max_states`` (the
    budget of ``core``, the core liveness will run on), or "": with ``orbits``, the orbit
    graph (the search's count), else the plain graph.

    With symmetry the search counted orbits; each holds at most ``replicas!`` states, so the
    plain graph has between ``orbits`` and ``orbits * replicas!`` states (the upper bound is
    nearly exact for the Kafka model: 3,055,224 orbits, 18,329,597 states at 3 replicas)."""
    count = result.stats.distinct
    if orbits:
        if count <= max_states:
            return ""
        return (
            f"the orbit graph has {count:,} orbits, past the liveness budget of "
            f"{max_states:,} (--liveness-max-states): lower the bounds or raise the budget"
        )
    states = _plain_states(result, spec)
    if states <= max_states:
        return ""
    size = f"{count:,} states" if states == count else f"up to {states:,} states"
    return (
        f"the whole plain graph has {size}, past the liveness budget of {max_states:,} "
        f"(--liveness-max-states); liveness holds it in memory on the {core} core: lower "
        "the bounds (e.g. --replicas 2) or raise the budget"
    )
