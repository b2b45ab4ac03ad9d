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
import shutil
import tempfile
from dataclasses import dataclass

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
FILE_ORBIT_BYTES = 64
"""What the compiled pass holds in memory per orbit when the orbit graph's arrays are files
(``checker/native/lfiles.c``): the build's hash table and the judge's own arrays (bytes).
Measured (2026-12-01), the pass's peak anonymous memory over its orbits beyond the process
at its start: 46 at 3 replicas (280 MiB, 4,338,867 orbits), 55 at ``--max-epoch 3`` (2.2
GiB, 40,263,439 orbits)."""
FILE_PLAIN_BYTES = 250
"""The same for the whole plain graph, per state: 220 (5.4 GiB for 26,027,896 states at 3
replicas, 2026-12-01); its judge's arrays, not the graph's, are most of it."""


def _plain_states(result: CheckResult, spec: Spec) -> int:
    """The whole plain graph's states, at most: the search's count, times ``replicas!`` when it
    counted orbits."""
    symmetric = result.stats.symmetry
    return result.stats.distinct * (
        math.factorial(getattr(spec, "symmetric_ids", 1)) if symmetric else 1
    )


MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
"""File systems whose files are held in memory: a graph's files there save none."""


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
    ``checker.search.tier.spill.free_memory``, as the safety search's disk tier takes it).
    The compiled core's orbit graph takes ``ORBIT_BYTES`` an orbit in memory and
    ``FILE_ORBIT_BYTES`` with its arrays in files (the search's count); its whole plain graph
    ``PLAIN_BYTES`` and ``FILE_PLAIN_BYTES`` a state (up to ``replicas!`` states an orbit).
    In memory where it fits; else in files in ``folder`` (default ``TMPDIR``'s,
    ``tempfile.gettempdir``) where they fit, or without ``--memory``; else refused, as it
    is when the folder has less free space than the files take (the difference of the two
    figures, about). A folder on a file system held in memory (``MEMORY_FILESYSTEMS``) gets
    a warning. The reference core holds its graph in memory (``--liveness-max-states``)."""
    if core != "compiled":
        return Placement()
    from checker.search.tier.spill import free_memory, megabytes

    limit = free_memory() if memory is None else memory
    if orbits:
        count, unit = result.stats.distinct, "orbits"
        each, filed, size = ORBIT_BYTES, FILE_ORBIT_BYTES, "orbit graph's"
    else:
        count, unit = _plain_states(result, spec), "states"
        each, filed, size = PLAIN_BYTES, FILE_PLAIN_BYTES, "whole plain graph's"
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
    folder = tempfile.gettempdir() if folder is None else folder
    disk = count * (each - filed)
    try:
        free = shutil.disk_usage(folder).free
    except OSError as exc:
        return Placement(refused=f"{why}, and {folder} takes no files: {exc.strerror}")
    if disk > free:
        return Placement(
            refused=f"{why}, and its files would take about {megabytes(disk)} in {folder}, "
            f"which has {megabytes(free)} free: set TMPDIR to a folder with room"
        )
    warning = ""
    kind = filesystem(folder)
    if kind in MEMORY_FILESYSTEMS:
        warning = f"{folder} is on a {kind}, whose files are held in memory: set TMPDIR to a disk"
    return Placement(folder, why, warning)


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
