"""The compiled core against the reference on random states of truncation on the fetch
response (issue 39): every branch of the epoch-cache lookups, a partial truncation to a lower
epoch, a fetch epoch the leader cannot place, responses of every kind in flight. The walks
of ``test_compiled.py`` reach these only rarely; this file is one of the certificate's
differential tests (``checker.commands.certify``)."""

from __future__ import annotations

import random

import pytest
from test_compiled import STATES, _compare_state

from checker.composition.compose import build_model
from checker.native.core import Core
from checker.native.layout import compiled_model
from checker.symmetry import for_spec
from spec.kafka import Config

FETCH_CONFIGS = {
    "kafka-2.8": {"truncation": "kafka-2.8"},
    "kafka-3.6": {"truncation": "kafka-3.6"},
    "kafka-2.8 unfenced fetch, empty-clears-epoch": {
        "truncation": "kafka-2.8",
        "with_mechanisms": ("empty-clears-epoch",),
        "without_mechanisms": ("fenced-fetch",),
    },
    "split fetch, kafka-2.8 with empty-clears-epoch": {
        "truncation": "kafka-2.8",
        "with_mechanisms": ("split-fetch", "empty-clears-epoch"),
        "max_lost_responses": 1,
    },
    "split fetch, kafka-3.5 with diverging-fetch-state, unclean shutdowns": {
        "truncation": "kafka-3.5",
        "with_mechanisms": ("split-fetch", "diverging-fetch-state"),
        "max_unclean_shutdowns": 1,
    },
    "split fetch, kafka-3.6 unfenced fetch, unclean shutdowns": {
        "truncation": "kafka-3.6",
        "with_mechanisms": ("split-fetch",),
        "without_mechanisms": ("fenced-fetch",),
        "max_unclean_shutdowns": 1,
    },
}
"""Truncation on the fetch response, for random states: its switches, fenced and not, one
step and split."""


def _random_log(rng: random.Random, records: int, epochs: int, ids: int) -> tuple:
    """A log of up to ``records`` records with ids below ``ids`` (distinct) and epochs up to
    ``epochs``, in order (now and then out of order, as the hw rule can leave a log)."""
    length = rng.randrange(min(records, ids) + 1)
    epoch_of = sorted(rng.randrange(epochs + 1) for _ in range(length))
    if rng.random() < 0.1:
        rng.shuffle(epoch_of)
    return tuple(zip(rng.sample(range(ids), length), epoch_of, strict=True))


def _random_state(rng: random.Random, spec) -> tuple:
    """A well-formed state of ``spec`` with random logs, HWs, views, fetcher values and
    responses in flight (records, OFFSET_OUT_OF_RANGE or a DivergingEpoch), most of them
    unreachable: every branch of the epoch-cache lookups comes up (a partial truncation to
    a lower epoch, a fetch epoch the leader has no end offset for, ...), which the walks
    reach only rarely."""
    config, variant = spec.config, spec.variant
    n, records, epochs = config.replicas, config.max_records, config.max_epoch
    next_id = rng.randrange(records + 1)
    cepoch, leader = rng.randrange(epochs + 1), rng.randrange(n)
    requests = []
    for e in range(cepoch + 1):
        named = leader if e == cepoch else rng.randrange(n)
        isr = set(rng.sample(range(n), rng.randrange(1, n + 1))) | {named}
        requests.append((e, named, tuple(sorted(isr))))
    replicas = []
    for r in range(n):
        log = _random_log(rng, records, epochs, next_id)
        hw = rng.randrange(len(log) + 1)
        if rng.random() < 0.1:
            replicas.append((log, hw, False, (None, -1, ()), ()))
            continue
        e = rng.randrange(cepoch + 1)
        view = (leader if rng.random() < 0.5 else requests[e][1], e, requests[e][2])
        remote = tuple(rng.randrange(-1, records + 1) for _ in range(n)) if view[0] == r else ()
        replicas.append((log, hw, True, view, remote))
    ctrl: tuple = (cepoch, leader, requests[cepoch][2]) + (((), None) if variant.elr else ())
    committed = {(o, i) for o in range(records) for i in range(records) if rng.random() < 0.1}
    ghost = (next_id, rng.randrange(config.max_crashes + 1), tuple(sorted(committed)))
    state: tuple = (tuple(replicas), ctrl, tuple(requests), ghost)
    if config.durability:
        state += ((tuple(rng.randrange(len(rep[0]) + 1) for rep in replicas), 0),)
    if variant.fetcher_state:
        choices = [None, None, -1, -2]
        state += (tuple(rng.choice([*choices, rng.randrange(len(x[0]) + 1)]) for x in replicas),)
    if variant.split_fetch:
        responses = []
        for f, rep in enumerate(replicas):
            to = rep[3][0]
            if to is None or to == f or rng.random() < 0.4:
                responses.append(None)
                continue
            offset, epoch, hw = (
                rng.randrange(records + 1),
                rng.randrange(epochs + 1),
                rng.randrange(records + 1),
            )
            kind = rng.randrange(3)
            if kind == 0:
                sent = _random_log(rng, records - offset, epochs, next_id)
                responses.append((to, epoch, offset, sent, hw))
            elif kind == 1:
                responses.append((to, epoch, offset, None, hw))
            else:
                diverging = (rng.randrange(epochs + 1), rng.randrange(records + 1))
                responses.append((to, epoch, offset, None, hw, diverging))
        state += ((tuple(responses), 0),)
    return state


@pytest.mark.parametrize("replicas", [2, 3])
@pytest.mark.parametrize("name", sorted(FETCH_CONFIGS))
def test_random_states_of_truncation_on_fetch_agree(name, replicas):
    """Random states (``_random_state``) and their successors agree on both cores, as the
    walks' states do: ``HWCHECK_DIFF_STATES`` / 25 of them a configuration (80 in the
    suite)."""
    config = Config(
        replicas=replicas, max_records=4, max_epoch=4, max_crashes=2, **FETCH_CONFIGS[name]
    )
    spec, props = build_model("kafka", config)
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    core, sym = Core(compiled), for_spec(spec, props)
    rng = random.Random(f"{name} {replicas}")
    for _ in range(STATES // 25):
        for _, succ in _compare_state(spec, core, sym, props, _random_state(rng, spec)):
            _compare_state(spec, core, sym, props, succ)
