"""The compiled kafka core's parameters: ``model_new``'s bounds and switches (``state.c``:
``struct ModelParams``), by name, and the truncation rules it has."""

from __future__ import annotations

from typing import Any

RULES = {
    "hw-truncation": 0,
    "leader-epoch-truncation": 1,
    "last-match-truncation": 2,
    "diverging-epoch-truncation": 3,
}
"""The built-in truncation rules the compiled core has; a team's own rule runs on the
reference core only."""


def params(spec: Any) -> dict[str, int]:
    """``model_new``'s parameters for ``spec`` (a ``KafkaSpec`` whose rule is in ``RULES``),
    by the names of ``state.c``'s ``MODEL_PARAMS``."""
    config, variant = spec.config, spec.variant
    named = {
        "replicas": config.replicas,
        "max_records": config.max_records,
        "max_epoch": config.max_epoch,
        "max_crashes": config.max_crashes,
        "min_isr": config.min_isr,
        "unclean_election": config.unclean_election,
        "rule": RULES[variant.rule.name],
        "fenced_lookup": variant.fenced_lookup,
        "fenced_fetch": variant.fenced_fetch,
        "fenced_expand": variant.fenced_expand,
        "live_isr": variant.live_isr,
        "broker_epoch": variant.broker_epoch,
        "strict_min_isr": variant.strict_min_isr,
        "elr": variant.elr,
        "durable": config.durability,
        "flush_always": config.flush == "always",
        "max_unclean_shutdowns": config.max_unclean_shutdowns,
        "acks_all": config.acks == "all",
        "split_fetch": variant.split_fetch,
        "max_lost_responses": config.max_lost_responses,
        "async_isr": variant.async_isr,
        "diverging_fetch_state": variant.diverging_fetch_state,
        "hw_before_truncation": variant.hw_before_truncation,
        "empty_clears_epoch": variant.empty_clears_epoch,
        "fetcher": variant.fetcher_state,
        "fenced_response": variant.fenced_response,
        "fence_live": variant.fence_live,
        "shrink_in_epoch": variant.shrink_in_epoch,
    }
    return {name: int(value) for name, value in named.items()}
