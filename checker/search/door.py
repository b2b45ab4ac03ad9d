"""The library's door to a search: which core runs it (``choose_core``) and the local engine
on that core (``explore``).

A model has two implementations: its Python source, the reference core, and, for the
built-in models, a compiled core in C (``checker.native``) that gives the same answers
faster. The compiled core runs a search when the model has one at its bounds
(``checker.model.compiled_model``), it was proven on the sources as they are
(``checker.native.certificate``), it compiles every property checked, and it builds and loads
here; else the reference core runs, and ``Stats.core`` says why. The command line asks the
same question (``checker.commands.engines``, for Spark too) and says the notes this module
only reports through its callbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from checker.checkpoint.saving import SaveOptions
from checker.limits import NO_LIMITS, Limits, Notice, Progress
from checker.model import CompiledModel, Recipe, Spec
from checker.native import certificate
from checker.native.build import NativeUnavailable
from checker.native.core import Core
from checker.native.layout import compiled_model
from checker.properties import Property
from checker.result import CheckResult
from checker.search.compiled import search as compiled
from checker.search.partitioned import pool
from checker.search.partitioned.compiled_level import COMPILED
from checker.search.partitioned.job import LevelCore
from checker.search.partitioned.level import REFERENCE
from checker.search.reference import bfs

CoreName = Literal["compiled", "reference"]
"""The core a caller asks for (``--core``): ``compiled`` where it can run, or ``reference``."""

ASKED = "--core reference"
"""Why the reference core runs when it was asked for."""


@dataclass(frozen=True)
class CoreChoice:
    """The core a search runs on: ``model``, the compiled model, when the compiled core runs;
    else None and ``why`` the reference core runs, in a few words ("" with the compiled)."""

    model: CompiledModel | None
    why: str = ""

    @property
    def levels(self) -> LevelCore:
        """The partitioned engines' level functions on this core."""
        return COMPILED if self.model is not None else REFERENCE

    @property
    def text(self) -> str:
        """What ``Stats.core`` says: ``compiled``, or ``reference (why)``."""
        return "compiled" if self.model is not None else f"reference ({self.why})"


def stale(core: CoreName = "compiled") -> bool:
    """Whether ``core`` is the compiled one and its certificate keeps it from running: the
    sources changed since it was proven (``checker.native.certificate``; unless
    ``HWCHECK_UNCERTIFIED_CORE=1``). Computed once a process."""
    return core == "compiled" and certificate.enforced() and not certificate.current()


def choose_core(
    spec: Spec,
    properties: Sequence[Property] = (),
    core: CoreName = "compiled",
    on_note: Callable[[str], None] | None = None,
    on_compile: Callable[[float], None] | None = None,
    build: bool = True,
) -> CoreChoice:
    """The core that runs a search of ``spec`` checking ``properties`` when ``core`` is asked
    for. The reference core runs, ``why`` says, when it was asked for (``ASKED``), when the
    model has no compiled core at these bounds (its own words: ``user variant rules.py``,
    ``--max-records above 7``), when the certificate is stale (``certificate.STALE``), when
    a property has no compiled form, or (with ``build``) when the core cannot be built or
    loaded here (``NativeUnavailable``'s one line: ``no C compiler (cc not found)``).

    ``on_note(why)`` is told the two reasons a person should hear about: a stale certificate
    and a core that cannot run here. With ``build`` the library is built first if the cache
    has none, and ``on_compile(seconds)`` is told. Raises nothing of its own."""
    if core == "reference":
        return CoreChoice(None, ASKED)
    model, why = compiled_model(spec)
    if model is not None and stale(core):
        model, why = None, certificate.STALE
    if model is None:
        if why == certificate.STALE and on_note is not None:
            on_note(why)
        return CoreChoice(None, why)
    missing = [p.name for p in properties if p.name not in model.property_bits]
    if missing:
        return CoreChoice(None, f"property {missing[0]} has no compiled form")
    if build:
        try:
            Core(model, on_compile=on_compile).close()
        except NativeUnavailable as exc:
            if on_note is not None:
                on_note(str(exc))
            return CoreChoice(None, str(exc))
    return CoreChoice(model)


def explore(
    spec: Spec,
    properties: Sequence[Property],
    limits: Limits = NO_LIMITS,
    on_progress: Callable[[Progress], None] | None = None,
    symmetry: bool = False,
    *,
    core: CoreName = "compiled",
    workers: int = 1,
    recipe: Recipe | None = None,
    saving: SaveOptions | None = None,
    memory: int | None = None,
    key_bits: int | None = None,
    on_note: Callable[[str], None] | None = None,
    on_compile: Callable[[float], None] | None = None,
) -> CheckResult:
    """Explore every reachable state of ``spec`` checking ``properties`` on the local engine,
    on the core ``choose_core`` picks (``core``, ``on_note``, ``on_compile`` as there): the
    answers of ``checker.search.reference.bfs.explore`` (counts, depth, coverage, verdicts, shortest
    counterexamples), ``Stats.core`` saying which core ran (``compiled`` or ``reference
    (why)``).

    ``workers``: on the compiled core, threads expanding each level; on the reference core,
    processes (``checker.search.partitioned.pool``), which rebuild the model from ``recipe`` (its
    ``build()`` must give this spec and these properties); without a recipe the reference
    core runs in this process. ``symmetry``: one state per orbit of replica renamings (raises
    ``SymmetryError`` where that is unsound); ``saving``: checkpoints and resume
    (``checker.checkpoint.saving``); ``memory``: the compiled core's budget in bytes before
    it spills to disk (``checker.search.tier.spill``; None: what the machine has free; on the
    reference core ``on_note`` says it is not applied); ``key_bits``: the width of the
    compiled seen set's keys (``checker.search.compiled.width``; where the reference core runs,
    ``on_note`` says 128 is not applied). The outcomes (a violation, a limit,
    Ctrl-C, the spec raising) are results, as ``checker.search.reference.bfs.explore`` gives them.
    """
    # no trial build: the compiled search builds and loads the core itself, and a core that
    # cannot run here falls back below with the same note
    chosen = choose_core(spec, properties, core, on_note, on_compile, build=False)
    if chosen.model is not None:
        try:
            return compiled.explore(
                chosen.model,
                spec,
                properties,
                limits,
                on_progress,
                symmetry,
                workers,
                on_compile=on_compile,
                saving=saving,
                memory=memory,
                key_bits=key_bits,
                on_note=on_note,
            )
        except NativeUnavailable as exc:  # no compiler, or the library will not load here
            if on_note is not None:
                on_note(str(exc))
            chosen = CoreChoice(None, str(exc))
    if key_bits == 128 and on_note is not None:
        on_note(
            Notice(
                f"--fingerprint-bits 128 is not applied: the search runs on the reference "
                f"core ({chosen.why}), which dedups on its 64-bit fingerprint"
            )
        )
    if memory is not None and on_note is not None:
        on_note(
            Notice(
                f"--memory {memory // 2**20:,} MiB is not applied: the search runs on the "
                f"reference core ({chosen.why}), which keeps its seen set in memory"
            )
        )
    if workers <= 1 or recipe is None:
        result = bfs.explore(spec, properties, limits, on_progress, symmetry, saving)
    else:
        result = pool.explore(recipe, workers, limits, on_progress, symmetry, saving=saving)
    result.stats.core = chosen.text
    return result
