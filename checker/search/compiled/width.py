"""The width of the key the compiled seen set dedups on, and when it is widened.

The compiled core dedups on a hash of each state's row (``checker/native/tables.h``): 64 bits
by default, 128 with ``--fingerprint-bits 128`` (a library of its own). Two distinct states
sharing a key are taken for one, and the second is never explored; TLC's optimistic estimate
of that chance is ``n·(g−n)/2^bits`` (``checker.fingerprint.collision_probability``).

Left to itself (``key_bits`` None), a search starts with 64-bit keys and, at the first level
boundary where their estimate passes ``WIDEN_AT``, starts again from the initial states with
128-bit keys, saying so in one line: 128-bit keys cannot be computed from 64-bit ones, so
the states seen so far are explored again (at most the time spent until then; the estimate
grows as n·g, so it passes 1e-3 early in a long run). The answers are the 128-bit run's.
A search given ``64`` keeps 64 bits whatever the estimate; a resumed one keeps its
checkpoint's width.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from checker.checkpoint.format import CheckpointError
from checker.checkpoint.read import Loaded
from checker.checkpoint.saving import SaveOptions, run_search
from checker.fingerprint import collision_probability
from checker.limits import Notice
from checker.native.core import give_back
from checker.result import CheckResult

WIDEN_AT = 1e-3
"""The 64-bit collision estimate past which a search left to choose widens to 128 bits."""


class Widen(Exception):
    """Raised at a level boundary of a 64-bit search left to choose its width, once its
    collision estimate passed ``WIDEN_AT``: ``distinct`` states and ``depth`` reached."""

    def __init__(self, distinct: int, generated: int, depth: int) -> None:
        self.distinct, self.generated, self.depth = distinct, generated, depth
        estimate = collision_probability(distinct, generated)
        super().__init__(
            f"the 64-bit keys' collision estimate passed {WIDEN_AT:.0e} ({estimate:.2e}) at "
            f"{distinct:,} states, depth {depth}: exploring again from the initial states "
            "with 128-bit keys (--fingerprint-bits 128 starts with them, 64 keeps 64)"
        )


def check_width(search: Any) -> None:
    """At a level boundary of ``search`` (a ``CompiledSearch``): raise ``Widen`` when it
    may widen (``search.widen``) and its 64-bit estimate passed ``WIDEN_AT``."""
    stats = search.stats
    if search.widen and collision_probability(stats.distinct, stats.generated) > WIDEN_AT:
        raise Widen(stats.distinct, stats.generated, stats.depth)


def resumed_width(loaded: Loaded, asked: int | None) -> int:
    """The key width a search resumed from ``loaded`` runs with: its checkpoint's (64 when
    it says none). Raises ``CheckpointError`` when ``asked`` (``--fingerprint-bits``) is
    another: a seen set of one width cannot be read as the other."""
    bits = int(loaded.search.get("key_bits", 64))
    if asked is not None and asked != bits:
        raise CheckpointError(
            f"the checkpoint's seen set has {bits}-bit keys, not {asked}: resume it with "
            f"--fingerprint-bits {bits} (or without the option)"
        )
    return bits


def run_widening(
    make: Callable[[int | None], Any],
    saving: SaveOptions,
    key_bits: int | None,
    on_note: Callable[[str], None] | None,
) -> CheckResult:
    """Run the compiled search ``make(bits)`` builds (``checker.search.compiled.search``) with
    ``saving``: with ``key_bits`` (a resumed one: its checkpoint's), or left to choose and,
    on ``Widen``, once more with 128 bits, ``on_note`` told why: its seconds and
    ``--time-limit`` count from the first search's start. Its tier and stream files are
    deleted, and its tables freed, whatever happens. Raises ``CheckpointError`` as ``resumed_width``."""
    if saving.resume is not None:
        key_bits = resumed_width(saving.resume, key_bits)
    clock: tuple[float, float | None] | None = None  # the first search's start and deadline
    while True:
        run = make(key_bits)
        if clock is None:
            clock = run.start, run.deadline
        run.start, run.deadline = clock  # a widened search counts, and is limited, from the first
        result = None
        try:
            result = run_search(saving.apply(run), passthrough=(Widen,))
        except Widen as widen:
            if on_note is not None:
                on_note(Notice(str(widen)))
            key_bits = 128
        finally:
            run.stream.close()
            run.tier.close()
            run.core.close()  # its C tables go now, before liveness or a wider search
        del run
        gc.collect()  # the search and its stream refer to each other: its arrays go now too
        give_back()
        if result is not None:
            return result
