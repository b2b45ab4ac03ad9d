"""The compiled cores under AddressSanitizer and UndefinedBehaviorSanitizer, built with every
warning an error (``checker.native.build.SANITIZE``), at the largest bounds each compiled core
takes: differential walks (successors, canonical forms, marshal encodings and invariants
against the reference model, ``test_compiled._compare_state``) and each model's largest state
(every log, request, response and set filled to its bound: the largest marshal encoding,
with tied replicas so the canonical form compares renamings).

A sanitized library loads only in a process that preloads the sanitizer runtime, so the walks
run in child processes (this file run as a script), two at a time; the libraries are built in
their own cache folder (``$HWCHECK_CACHE/sanitized``) once per source change."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
TLA_VARIANTS = ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")
GROUPS = {
    "kafka": ("kafka-4.1", "kip966", "hw", "kip101", "kip279", "search-128"),
    "tla": (*(f"tla-{variant}" for variant in TLA_VARIANTS), "async-isr"),
}
"""The cases each child process runs (``_cases``' names, and ``search-128``: a search with
128-bit keys on two threads, spilled and streamed at every level), one child per group."""

STATES = int(os.environ.get("HWCHECK_SANITIZE_STATES", "300"))
"""States each case's walks compare (the largest state besides)."""


def _kafka(truncation: str, switches: tuple[str, ...], **bounds: Any) -> tuple[str, dict]:
    given = {"replicas": 7, "max_records": 7, "max_epoch": 15, "max_crashes": 3, **bounds}
    return "kafka", {**given, "truncation": truncation, "with_mechanisms": switches}


def _cases() -> dict[str, tuple[str, dict]]:
    from spec.kafka import variants

    every = tuple(variants.SWITCHES)
    return {
        # kafka: 7 replicas, 7 records, epoch 15 (the compiled core's largest), every switch
        "kafka-4.1": _kafka(
            "kafka-4.1",
            every,
            unclean_election=True,
            min_isr=2,
            max_unclean_shutdowns=2,
            max_lost_responses=2,
        ),
        "kip966": _kafka(
            "kip966",
            ("split-fetch", "async-isr"),
            unclean_election=True,
            min_isr=3,
            max_unclean_shutdowns=1,
            flush="always",
        ),
        "hw": _kafka("hw", (), unclean_election=True),
        "kip101": _kafka("kip101", ("split-fetch",), max_lost_responses=2),
        "kip279": _kafka("kip279", ("async-isr",), max_unclean_shutdowns=2),
        # the TLA+ port: 5 replicas, LogSize 8, epoch 14, each variant; AsyncIsr: 480 messages
        **{
            f"tla-{variant}": (
                "tla",
                {
                    "replicas": 5,
                    "truncation": variant,
                    "log_size": 8,
                    "max_records": 8,
                    "max_epoch": 14,
                },
            )
            for variant in TLA_VARIANTS
        },
        "async-isr": (
            "tla",
            {"replicas": 5, "truncation": "async-isr", "max_offset": 100, "max_version": 14},
        ),
    }


def _largest(spec: Any) -> Any:
    """The spec's largest state: every replica's log full (all tied but one), every request
    with every replica in its ISR, every response and request in flight, every set full."""
    config = spec.config
    n, every = config.replicas, tuple(range(config.replicas))
    if spec.name == "tla" and getattr(config, "truncation", "") == "async-isr":
        messages = tuple((isr, v) for isr in _subsets(n) for v in range(config.max_version + 1))
        head = (every, 0, every, 0, every, 0)
        return (*head, tuple([1] * n), tuple(sorted(messages)), tuple(sorted(messages)))
    if spec.name == "tla":
        epoch, size = config.max_epoch, config.log_size
        log = tuple((i, epoch) for i in range(size))
        decision = (epoch, 0, every)
        states = tuple((size, epoch, 0, every) for _ in every)
        requests = tuple((e, 0, every) for e in range(epoch + 1))
        return (tuple([log] * n), states, size, epoch + 1, requests, decision)
    records, epoch = config.max_records, config.max_epoch
    log = tuple((i, epoch) for i in range(records))
    replicas = tuple(
        (log, records, True, (0, epoch, every), tuple([records] * n) if r == 0 else ())
        for r in every
    )
    committed = tuple((o, i) for o in range(records) for i in range(records))
    variant = spec.variant
    state: tuple[Any, ...] = (
        replicas,
        (epoch, 0, every, (), None) if variant.elr else (epoch, 0, every),
        tuple((e, 0, every) for e in range(epoch + 1)),
        (records, 0, committed),
    )
    if config.durability:
        state += ((() if config.flush == "always" else tuple([records] * n), 0),)
    if variant.async_isr:
        state += (tuple((epoch, every, every) for _ in every),)
    if variant.fetcher_state:
        state += (tuple([None] * n),)
    if variant.split_fetch:
        state += ((tuple(None if f == 0 else (0, epoch, 0, log, records) for f in every), 0),)
    return state


class _Fixed:
    """The identity symmetry (``checker.symmetry``'s ``canonical``)."""

    def canonical(self, state: Any) -> Any:
        return state


def _subsets(n: int) -> list[tuple[int, ...]]:
    return [tuple(r for r in range(n) if bits >> r & 1) for bits in range(2**n)]


def run_case(name: str) -> int:
    """Compare the cores on case ``name``'s largest state and ``STATES`` states of random
    walks; returns how many states were compared. Raises ``AssertionError`` on a difference
    (a sanitizer report ends the process first)."""
    from test_compiled import _compare_state, walk_and_compare

    from checker.composition.compose import build_model, make_config
    from checker.native.core import Core
    from checker.native.layout import compiled_model
    from checker.symmetry import SymmetryError, for_spec

    if name == "search-128":
        return _search_128()
    model, given = _cases()[name]
    spec, props = build_model(model, make_config(model, given))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    core = Core(compiled)
    try:
        sym: Any = for_spec(spec, props)
    except SymmetryError:  # AsyncIsr: the leader is fixed, each state its own representative
        sym = _Fixed()
    largest = _largest(spec)
    assert compiled.decode(compiled.encode(largest)) == largest
    _compare_state(spec, core, sym, props, largest)
    assert len(core.marshal(largest)) <= core.max_marshal
    return walk_and_compare(spec, core, sym, props, random.Random(name), 1, STATES)


def _search_128() -> int:
    """The engine's tables, tier and stream with 128-bit keys (two threads, spilled at every
    level, many flushes a level) give the 64-bit answers; returns the states searched."""
    from test_checkpoint import signature

    from checker.composition.compose import build_model
    from checker.native.layout import compiled_model
    from checker.search.compiled import search as compiled
    from checker.search.tier import flush, stream
    from checker.search.tier.spill import MIN_BUDGET
    from spec.kafka import Config

    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    model, _ = compiled_model(spec)
    stream.CHUNK, flush.MERGE_CHUNK, flush.MERGE_FLOOR = 128, 100, 16
    narrow = compiled.explore(model, spec, props, symmetry=True, key_bits=64)
    wide = compiled.explore(
        model, spec, props, symmetry=True, threads=2, memory=MIN_BUDGET, key_bits=128
    )
    assert signature(wide) == signature(narrow)
    return wide.stats.distinct


def _sanitizer_env(tmp: Path) -> dict[str, str]:
    from checker.native.build import cache_dir, compiler

    runtime = subprocess.run(
        [*compiler(), "-print-file-name=libasan.so"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if not os.path.isabs(runtime) or not os.path.exists(runtime):
        pytest.skip("the C compiler has no AddressSanitizer runtime")
    cache = os.environ.get("HWCHECK_CACHE") or str(cache_dir())
    return {
        **os.environ,
        "HWCHECK_SANITIZE": "1",
        "HWCHECK_CACHE": cache,
        "LD_PRELOAD": runtime,
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
        "UBSAN_OPTIONS": "print_stacktrace=1",
        "PYTHONPATH": os.pathsep.join([str(HERE.parent), str(HERE)]),
        "TMPDIR": str(tmp),
    }


def test_the_sanitized_cores_agree_at_their_largest_bounds(tmp_path):
    """No sanitizer report and no difference, in every case (the children's output names
    the first report when there is one)."""
    env = _sanitizer_env(tmp_path)
    start = time.perf_counter()
    children = {
        group: subprocess.Popen(
            [sys.executable, __file__, *cases],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for group, cases in GROUPS.items()
    }
    for group, child in children.items():
        out, err = child.communicate(timeout=600)
        report = [line for line in err.splitlines() if "ERROR:" in line or "runtime error" in line]
        assert child.returncode == 0, (group, report[:3] or err[-3000:])
        done = dict(line.split() for line in out.splitlines())
        assert sorted(done) == sorted(GROUPS[group]), out
        assert all(int(count) >= STATES for count in done.values()), out
    assert time.perf_counter() - start < 600


if __name__ == "__main__":
    for case in sys.argv[1:]:
        print(case, run_case(case), flush=True)
