"""Violations the docs document as expected, and the one line that says so.

Some counterexamples are not bugs in a truncation rule: a modelling window the docs
explain, or a trade-off Kafka documents (acks=1, unclean leader election, writes
acknowledged before they reach the disk). A user who meets one should learn that at once,
with where it is written down, instead of filing it. Each entry matches on the model, the
run's config (``spec.config_dict()``), the variant and the trace's actions, so a violation
with another cause under the same options gets no hint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

ZOO = "docs/explanation/bug-zoo.md"


@dataclass(frozen=True)
class Expected:
    """A documented violation: ``props`` it applies to, ``applies(model, config, variant,
    actions)``, the one-line ``reason`` and ``where`` it is documented."""

    props: tuple[str, ...]
    applies: Callable[[str, dict[str, Any], str, Sequence[str]], bool]
    reason: str
    where: str = ZOO


def _took(prefix: str | tuple[str, ...], actions: Sequence[str]) -> bool:
    """Some action of the trace starts with ``prefix`` (an action name)."""
    return any(action.startswith(prefix) for action in actions)


ENTRIES = (
    Expected(
        ("WeakIsr", "StrongIsr"),
        lambda model, cfg, variant, actions: (
            model == "kafka"
            and variant.startswith(("kip966", "kafka-4.1"))
            and _took("UncleanShutdown(", actions)
        ),
        "Expected under unclean shutdowns: between a follower's power loss and the leader "
        "learning of it, the leader's cached ISR (and the controller's, until it fences the "
        "broker) still lists a replica that lost committed records; KIP-966 prevents the "
        "loss, not this window",
    ),
    Expected(
        ("NoAckedLoss",),
        lambda model, cfg, variant, actions: cfg.get("acks") == "1",
        "Expected with acks=1: the leader acknowledges a write on its own append, before "
        "any follower holds it (Kafka's ProducerConfig documents this); --acks all "
        "acknowledges only committed writes",
    ),
    Expected(
        ("NoCommittedLoss", "NoAckedLoss", "NoDivergence"),
        lambda model, cfg, variant, actions: (
            bool(cfg.get("unclean_election"))
            and _took(("UncleanElect(", "UncleanRecovery("), actions)
        ),
        "Expected with unclean.leader.election.enable: the controller may elect a "
        "replica outside the ISR, which lacks committed records; --clean forbids it",
    ),
    Expected(
        ("NoCommittedLoss", "NoAckedLoss"),
        lambda model, cfg, variant, actions: (
            cfg.get("flush") == "background" and _took("UncleanShutdown(", actions)
        ),
        "Expected when the last ISR member loses power: Kafka acknowledges writes before "
        "they are flushed to disk; --flush always avoids it, and so does kip966 with "
        "--min-isr 2 while no other broker crashes (to KIP-966 a crash is an unclean "
        "shutdown too, and it tolerates min ISR - 1 of them)",
    ),
)


def hint(
    prop: str, model: str, config: dict[str, Any], variant: str, actions: Sequence[str | None]
) -> str | None:
    """``"<reason> (documented in <where>)"`` for the first entry matching a violation of
    ``prop``, or None: a violation the docs do not document as expected."""
    steps = [action or "" for action in actions]
    for entry in ENTRIES:
        if prop in entry.props and entry.applies(model, config, variant, steps):
            return f"{entry.reason} (documented in {entry.where})."
    return None
