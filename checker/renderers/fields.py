"""A replica's fields beyond its log, in a few words: its fetcher, the ISR change it waits
for and the fetch response in flight to it (the terminal panels, the trace page and
``hwcheck serve`` all write them so).
"""

from __future__ import annotations

from typing import Any


def fetcher_text(fetcher: dict[str, Any] | None) -> str:
    """A follower's fetch state beyond its log (truncation on fetch with a historical
    ordering): ``truncate to 1 next`` (a DivergingEpoch applied, the truncation still to
    come: KAFKA-14704), ``no last fetched epoch`` (KAFKA-15510), ``new (lag unknown)`` (no
    response processed since it became follower), or ``-``."""
    if fetcher is None:
        return "-"
    if "truncate_to" in fetcher:
        return f"truncate to {fetcher['truncate_to']} next"
    if fetcher.get("fresh"):
        return "new (lag unknown)"
    return "no last fetched epoch"


def pending_text(replica: dict[str, Any]) -> str:
    """What a leader has asked the controller for and not heard back about, after its ISR:
    `` asks {0,1}`` (the kafka model's AlterPartition request, ``async-isr``), `` +pending
    {0}`` (the TLA+ AsyncIsr's pending ISR), or ``""``."""
    request = replica.get("alter_partition")
    if request:
        return " asks {" + ",".join(map(str, request["isr"])) + "}"
    if replica.get("pending_isr"):
        return " +pending {" + ",".join(map(str, replica["pending_isr"])) + "}"
    return ""


def in_flight_text(response: dict[str, Any] | None) -> str:
    """The fetch response in flight to a replica (split-fetch), in a few words: ``m0/0, HW 0,
    from 2 (epoch 1)`` (the records, the HW it carries, the leader that sent it and its
    epoch), ``out of range: to LEO 1, from 2 (epoch 1)``, ``diverging: epoch 0 ends at 1, HW
    2, from 2 (epoch 1)`` (a DivergingEpoch), or ``-`` for none."""
    if response is None:
        return "-"
    sender = f"from {response['leader']} (epoch {response['epoch']})"
    if response.get("out_of_range"):
        return f"out of range: to LEO {response['leader_leo']}, {sender}"
    if "diverging_epoch" in response:
        epoch, end = response["diverging_epoch"]
        return f"diverging: epoch {epoch} ends at {end}, HW {response['hw']}, {sender}"
    records = " ".join(f"m{rid}/{epoch}" for rid, epoch in response["records"]) or "no records"
    return f"{records}, HW {response['hw']}, {sender}"
