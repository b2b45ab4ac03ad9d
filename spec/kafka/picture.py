"""The JSON-friendly picture of a Kafka model state (``KafkaSpec.view``): what traces,
pages and the explorer show."""

from __future__ import annotations

from typing import Any

from spec.kafka import fetching, flight
from spec.kafka.context import ModelContext
from spec.kafka.state import (
    ALIVE,
    C_ELR,
    C_LKL,
    CONTROLLER,
    D_FLUSHED,
    D_UNCLEAN,
    DURABLE,
    F_LOST,
    F_RESPONSES,
    G_COMMITTED,
    G_CRASHES,
    G_NEXT_ID,
    GHOST,
    HW,
    LOG,
    REMOTE,
    REPLICAS,
    REQUESTS,
    VIEW,
)


def picture(spec: ModelContext, state: tuple[Any, ...]) -> dict[str, Any]:
    """A JSON-friendly picture of a state: per replica its log (``[id, epoch]`` per offset),
    HW, LEO, role, epoch, leader and ISR as it believes them; the controller; ghosts."""
    replicas = []
    for r, rep in enumerate(state[REPLICAS]):
        leader, epoch, isr = rep[VIEW]
        role = (
            "down"
            if not rep[ALIVE]
            else "leader"
            if leader == r
            else "follower"
            if leader is not None
            else "no leader"
        )
        replicas.append(
            {
                "replica": r,
                "alive": rep[ALIVE],
                "role": role,
                "leader": leader,
                "epoch": epoch,
                "isr": list(isr),
                "log": [list(rec) for rec in rep[LOG]],
                "hw": rep[HW],
                "leo": len(rep[LOG]),
                "remote_leo": list(rep[REMOTE]),
            }
        )
    durable = spec.config.durability
    if durable:
        flushed = state[DURABLE][D_FLUSHED]
        for r, replica in enumerate(replicas):
            replica["flushed"] = flushed[r] if flushed else replica["leo"]
    if spec.variant.split_fetch:
        for replica, response in zip(replicas, state[-1][F_RESPONSES], strict=True):
            replica["in_flight"] = flight.describe(response)
    if spec.fetcher_at is not None:
        for replica, value in zip(replicas, state[spec.fetcher_at], strict=True):
            replica["fetcher"] = fetching.describe(value)
    if spec.alter_at is not None:
        for replica, request in zip(replicas, state[spec.alter_at], strict=True):
            if request is not None:
                epoch, base, isr = request
                replica["alter_partition"] = {
                    "epoch": epoch,
                    "from": list(base),
                    "isr": list(isr),
                }
    epoch, leader, isr = state[CONTROLLER][:3]
    controller = {"epoch": epoch, "leader": leader, "isr": list(isr)}
    if len(state[CONTROLLER]) > C_ELR:
        controller["elr"] = list(state[CONTROLLER][C_ELR])
        controller["last_known_leader"] = state[CONTROLLER][C_LKL]
    ghost = state[GHOST]
    extra = {"unclean_shutdowns": state[DURABLE][D_UNCLEAN]} if durable else {}
    if spec.variant.split_fetch and spec.config.max_lost_responses:
        extra["lost_responses"] = state[-1][F_LOST]
    return {
        "replicas": replicas,
        "controller": controller,
        "requests": [
            {"epoch": e, "leader": lead, "isr": list(i)} for e, lead, i in state[REQUESTS]
        ],
        "records_produced": ghost[G_NEXT_ID],
        "crashes": ghost[G_CRASHES],
        "committed": [list(pair) for pair in ghost[G_COMMITTED]],
        **extra,
        "acks": spec.config.acks,
        "acked": list(spec.acked(state)),
    }
