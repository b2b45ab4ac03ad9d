"""The compiled kafka core's label codes: action index (``model_action_of``: the code's action,
and 16 for TruncateOnFetchResponse) to name, and every code to its ``checker.model.Label``
(``kafka.h``: ``LABEL``; the layout is ``checker/native/labels.h``'s)."""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.rows import LabelLayout

ACTION_NAMES = (
    "Produce",
    "Fetch",
    "ShrinkIsr",
    "ExpandIsr",
    "ControllerShrinkIsr",
    "Elect",
    "UncleanElect",
    "Crash",
    "Restart",
    "BecomeLeader",
    "BecomeFollower",
    "AlterPartition",
    "Flush",
    "UncleanShutdown",
    "FetchResponse",
    "LoseResponse",
    "TruncateOnFetchResponse",
)
"""Action index (``model_action_of`` in ``state.c``: the label code's action, but 16 for
TruncateOnFetchResponse, whose code is FetchResponse's with a second argument of 1) to action
name (``kafka.h``), as ``action_names`` changes it per model (FetchRequest, UncleanRecovery)."""


def action_names(split_fetch: bool, async_isr: bool, elr: bool) -> tuple[str, ...]:
    """Action index to name for one model: with ``split-fetch`` index 1 is FetchRequest; with
    ``elr`` index 6 is UncleanRecovery (UncleanElect is not in that model); index 11 is
    AlterPartition (``async-isr``)."""
    names = list(ACTION_NAMES)
    if split_fetch:
        names[1] = "FetchRequest"
    if elr:
        names[6] = "UncleanRecovery"
    names[11] = "AlterPartition"
    return tuple(names)


def label_table(spec: Any, layout: LabelLayout) -> dict[int, Label]:
    """Every label code of ``spec`` (a ``KafkaSpec``) and its label: ``layout.code(action, a,
    b)``, the arguments in the order the label names them; TruncateOnFetchResponse(f) is
    ``layout.code(14, f, 1)`` (FetchResponse(f) has ``b`` 0: ``kafka.h``)."""
    config, variant, labels = spec.config, spec.variant, spec.labels
    n, e = config.replicas, config.max_epoch
    table: dict[int, Label] = {}

    def put(action: int, a: int, b: int, label: Label) -> None:
        table[layout.code(action, a, b)] = label

    for r in range(n):
        for index, one in (
            (0, labels.produce),
            (4, labels.controller_shrink),
            (5, labels.elect),
            (6, labels.unclean_recovery if variant.elr else labels.unclean_elect),
            (7, labels.crash),
            (8, labels.restart),
            (11, labels.alter_partition),
            (12, labels.flush),
            (13, labels.unclean_shutdown),
            (14, labels.fetch_response),
            (15, labels.lose_response),
        ):
            put(index, r, 0, one[r])
        put(14, r, 1, labels.truncate_on_fetch_response[r])
        for other in range(n):
            fetch = labels.fetch_request if variant.split_fetch else labels.fetch
            put(1, r, other, fetch[r][other])
            put(2, r, other, labels.shrink[r][other])
            put(3, r, other, labels.expand[r][other])
        for epoch in range(e + 1):
            put(9, r, epoch, labels.become_leader[r][epoch])
            put(10, r, epoch, labels.become_follower[r][epoch])
    return table
