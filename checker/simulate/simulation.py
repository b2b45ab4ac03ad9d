"""``hwcheck simulate``'s driver: seeded random walks in chunks, on this process, on a pool of
worker processes or as Spark jobs, then the first violating walk of each property shrunk.

Walks are cut into chunks of ``CHUNK`` consecutive walk indices, the same chunks whatever runs
them; chunk results are merged in walk order, so statistics, first violating walks and shrunk
counterexamples are identical on 1 or N workers and on any number of Spark partitions. Under
``time_limit`` the run ends after the last whole *wave* of chunks finished in time (each walk
is still the same; only how many there are depends on the machine's speed).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from checker.limits import interruption
from checker.model import Recipe
from checker.native.layout import compiled_model
from checker.properties import SOMETIMES
from checker.result import EXIT_CODES, CheckResult, Stats, Status, peak_rss_mb
from checker.search import CoreName, choose_core
from checker.search.partitioned import pool
from checker.simulate.shrink import BUDGET, Shrunk, shrink
from checker.simulate.walks import Batch, WalkPlan, run_batch

if TYPE_CHECKING:
    from checker.simulate.compiled import CompiledWalks

CHUNK = 20
"""Walks per task (walks): small enough for an even spread, large enough to amortise a task."""

STATUS = {
    "violated": Status.VIOLATED,
    "none found": Status.OK,
    "vacuous": Status.VACUOUS,
    "incomplete": Status.INCOMPLETE,
    "error": Status.ERROR,
}
"""A simulation's status in words, and the search ``Status`` it stands for."""


@dataclass(frozen=True)
class Tick:
    """Progress: ``walks`` done (of ``total``, None under a time limit), ``steps``,
    ``seconds`` since the start, ``violations`` (properties violated so far), ``note``."""

    walks: int
    total: int | None
    steps: int
    seconds: float
    violations: int
    note: str = ""


@dataclass
class Simulation:
    """What a simulation found. ``batch``: the merged statistics of every finished walk;
    ``checked``: the properties checked; ``shrunk``: per violated property, in the order of
    ``checked`` (the model's catalog: loss and divergence first), the shrunk counterexample; ``status``: ``violated``, ``none found``,
    ``vacuous`` (none found, a guard never reached), ``incomplete`` (Ctrl-C before any
    violation) or ``error``; ``reason``: why, in words; ``seconds`` (wall time, shrinking
    included), ``walk_seconds`` (wall time of the walks alone, without Spark's start-up); ``engine``; ``interrupted``:
    Ctrl-C ended it; ``peak_rss_mb``: this process's peak memory (MiB); ``core``: the core
    the walks ran on, and why when it is the reference."""

    plan: WalkPlan
    batch: Batch
    checked: tuple[Any, ...]
    shrunk: list[Shrunk] = field(default_factory=list)
    status: str = "none found"
    reason: str = ""
    seconds: float = 0.0
    walk_seconds: float = 0.0
    engine: str = "local"
    interrupted: bool = False
    peak_rss_mb: float = 0.0
    core: str = "reference"

    @property
    def unreached(self) -> list[str]:
        """Names of the "sometimes" guards no walk reached."""
        return [
            p.name for p in self.checked if p.kind == SOMETIMES and p.name not in self.batch.guards
        ]

    @property
    def exit_code(self) -> int:
        """12 violated, 0 none found, 13 a guard never reached, 3 Ctrl-C, 75 the spec raised
        (``explore``'s codes for the same ``Status``)."""
        return EXIT_CODES[STATUS[self.status]]


@functools.lru_cache(maxsize=4)
def _built(recipe: Any) -> tuple[Any, list[Any]]:
    built: tuple[Any, list[Any]] = recipe.build()
    return built


@functools.lru_cache(maxsize=4)
def compiled_walks(
    recipe: Recipe,
    plan: WalkPlan,
    on_compile: Callable[[float], None] | None = None,
    certified: bool = True,
    core: CoreName = "compiled",
) -> tuple[CompiledWalks | None, str]:
    """``(walker, "")``: ``recipe``'s walks on its compiled core
    (``checker.simulate.compiled.CompiledWalks``, built once per process), or ``(None, why
    not)`` when ``checker.search.choose_core`` picks the reference core for ``core`` (the
    library built first if need be, ``on_compile`` told) or the walks cannot run on it. A
    worker passes ``certified`` False: its driver chose the core and checked its
    certificate."""
    from checker.native.build import NativeUnavailable
    from checker.simulate.compiled import CompiledWalks

    spec, props = _built(recipe)
    if certified:
        chosen = choose_core(spec, props, core, on_compile=on_compile)
        model, why = chosen.model, chosen.why
    else:
        model, why = compiled_model(spec)
    if model is None:
        return None, why
    try:
        return CompiledWalks(model, spec, props, plan), ""
    except NativeUnavailable as exc:
        return None, str(exc)


def walk_chunk(
    recipe: Recipe, plan: WalkPlan, start: int, count: int, core: CoreName = "reference"
) -> Batch | str:
    """Walks ``start .. start + count - 1`` of ``recipe``'s model (built once per process) on
    ``core`` (``compiled`` falls back to the reference where the compiled core cannot run:
    the walks are the same); their ``Batch``, or the spec's exception as text
    (``Type: message``)."""
    spec, props = _built(recipe)
    walker = compiled_walks(recipe, plan, certified=False)[0] if core == "compiled" else None
    try:
        if walker is not None:
            batch: Batch = walker.batch(start, count)
            return batch
        return run_batch(spec, props, plan, start, count)
    except Exception as exc:  # noqa: BLE001 -- a bug in the model: an ERROR result
        return f"{type(exc).__name__}: {exc}"


Runner = Callable[[list[tuple[int, int]]], Iterator[Batch | str]]
"""Runs a wave of ``(start, count)`` chunks; yields their results in chunk order."""


def simulate(
    recipe: Any,
    plan: WalkPlan,
    walks: int | None = None,
    time_limit: float | None = None,
    workers: int = 1,
    on_progress: Callable[[Tick], None] | None = None,
    spark: Callable[[Any, WalkPlan, CoreName], tuple[Runner, int, str]] | None = None,
    budget: int = BUDGET,
    until: Callable[[Batch], bool] | None = None,
    core: CoreName = "reference",
    on_compile: Callable[[float], None] | None = None,
    resume: tuple[int, Batch] | None = None,
    on_wave: Callable[[int, Batch], None] | None = None,
) -> Simulation:
    """Run ``walks`` walks (or as many as ``time_limit`` seconds allow; one of the two must be
    given) of ``recipe``'s model and shrink each property's first violating walk.

    ``workers`` > 1 runs chunks on that many forked processes; ``spark`` runs them as Spark
    jobs instead: given ``(recipe, plan, core)`` it returns ``(run_wave, chunks per wave,
    engine text)`` (``checker.spark.walks.on``; this module never imports Spark). Raises
    ``ValueError`` when neither ``walks`` nor ``time_limit`` is given; ``SparkUnavailable`` as
    the Spark engine does. Ctrl-C ends the run with the walks finished so far. ``until``
    (for benchmarks), given the merged statistics after each wave, ends the run when it says
    True: the first violating walks stay the same, but how many walks ran then depends on
    the wave width, so the statistics do not. ``core``: ``compiled`` walks on the model's
    compiled core where it can run (the same walks; ``Simulation.core`` says which ran and
    why), ``on_compile(seconds)`` is told when its library had to be built first.
    ``resume``: ``(next walk index, merged Batch of the walks before it)`` from a checkpoint,
    so the run goes on with the walks one long run would take; ``on_wave(next index, merged
    Batch)`` is called after every whole wave (to save such a checkpoint).
    """
    if walks is None and time_limit is None:
        raise ValueError("give walks or time_limit")
    spec, props = _built(recipe)
    began = time.perf_counter()
    first, total = resume or (0, Batch())
    result = Simulation(plan, total, tuple(props))
    walker, why = compiled_walks(recipe, plan, on_compile, core=core)
    core = "compiled" if walker is not None else "reference"  # what the workers run
    result.core = core if walker is not None else f"reference ({why})"
    executor = None
    if spark is not None:
        runner, width, result.engine = spark(recipe, plan, core)
    elif workers > 1:
        executor = pool.executor(workers, quiet_interrupt=True)
        width, result.engine = workers * 4, f"local ({workers} workers)"

        def runner(chunks: Any) -> Any:
            return executor.map(walk_chunk, *zip(*[(recipe, plan, s, c, core) for s, c in chunks]))
    else:
        width = 1

        def runner(chunks: Any) -> Any:
            return (walk_chunk(recipe, plan, s, c, core) for s, c in chunks)

    walking = time.perf_counter()  # after Spark's start-up, which walk_seconds leaves out
    try:
        _waves(
            runner, width, walks, time_limit, walking, result, on_progress, until, first, on_wave
        )
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
    result.walk_seconds = time.perf_counter() - walking
    if result.status != "error":
        # catalog order: NoCommittedLoss and NoDivergence before the ISR properties
        found = [p.name for p in props if p.name in total.first]
        byname = {p.name: p for p in props}
        for index, name in enumerate(found):
            if on_progress:
                on_progress(
                    Tick(
                        total.walks,
                        walks,
                        total.steps,
                        time.perf_counter() - began,
                        len(found),
                        f"shrinking {name} ({index + 1}/{len(found)})",
                    )
                )
            result.shrunk.append(shrink(spec, byname[name], total.first[name][1], budget))
        result.status, result.reason = _verdict(result, walks)
    result.seconds = time.perf_counter() - began
    result.peak_rss_mb = peak_rss_mb()
    return result


def _waves(
    runner: Runner,
    width: int,
    walks: Any,
    time_limit: Any,
    began: Any,
    result: Simulation,
    on_progress: Any,
    until: Any = None,
    start: int = 0,
    on_wave: Any = None,
) -> None:
    """Run chunks wave by wave (``width`` chunks a wave) from walk ``start``, merging results
    in order; ``on_wave(next walk index, merged batch)`` after each whole wave."""
    total = result.batch
    while walks is None or start < walks:
        if on_wave is not None and start:
            on_wave(start, total)
        if time_limit is not None and time.perf_counter() - began >= time_limit:
            return
        if until is not None and start and until(total):
            return
        chunks: list[tuple[int, int]] = []
        while len(chunks) < width and (walks is None or start < walks):
            count = CHUNK if walks is None else min(CHUNK, walks - start)
            chunks.append((start, count))
            start += count
        for batch in runner(chunks):
            if isinstance(batch, str):
                result.status, result.reason = "error", f"the spec raised {batch}"
                return
            total.merge(batch)
            if on_progress:
                on_progress(
                    Tick(
                        total.walks,
                        walks,
                        total.steps,
                        time.perf_counter() - began,
                        len(total.first),
                    )
                )


def _verdict(result: Simulation, walks: int | None) -> tuple[str, str]:
    done = result.batch.walks
    cut = f"; {interruption()}" if result.interrupted else ""
    if result.shrunk:
        n = len(result.shrunk)
        return "violated", (
            f"{n} propert{'y' if n == 1 else 'ies'} violated in {done:,} "
            f"walk{'' if done == 1 else 's'}{cut}"
        )
    if result.interrupted:
        return "incomplete", f"{interruption()} after {done:,} walks"
    if walks is not None and done < walks:
        return "incomplete", f"the time limit ended the run after {done:,} of {walks:,} walks"
    if result.unreached:
        return "vacuous", (
            f"no violation in {done:,} walks, but no walk reached " + ", ".join(result.unreached)
        )
    return "none found", f"no violation in {done:,} walks (simulation proves nothing)"


def as_check_result(result: Simulation) -> CheckResult:
    """The simulation as a ``CheckResult`` (``sampled`` = walks run) for the gate's judgement
    and reports: its shrunk counterexamples as violations, steps as states generated."""
    status = STATUS[result.status]
    batch = result.batch
    stats = Stats(
        distinct=batch.distinct,
        generated=batch.steps,
        depth=max(batch.lengths, default=0),
        seconds=result.seconds,
        actions={name: [taken, taken] for name, (_, taken) in batch.actions.items()},
        peak_rss_mb=result.peak_rss_mb,
        engine=f"simulate, {result.engine}",
        core=result.core,
    )
    return CheckResult(
        status,
        stats,
        result.checked,
        [s.violation for s in result.shrunk],
        result.unreached,
        result.reason,
        exhausted=False,
        sampled=max(batch.walks, 1),
    )
