"""KIP-966 on the controller: electing from the ELR, unclean recovery, and fencing a broker
back from an unclean shutdown (only with the ``elr`` mechanism).

With ``elr`` the controller's state has two more fields, the eligible leader replicas and the
last known leader (``state.controller_after`` keeps them). Kafka 4.x elects, in this order: a
live ISR member; else a live (unfenced) ELR member; else, while ISR and ELR are both empty,
the last known leader if it is unfenced. All three are ``membership.elect``; the second is
``guards_controller.elr_choices``, the third ``guards_controller.last_known_choice``. The
last known leader is the leader the partition had when its ISR became empty
(``state.last_known``); it is elected even when a restart took it out of the ELR, and even if
it lost its unflushed tail, without ``unclean.leader.election.enable`` (Kafka counts it as an
unclean election). A broker back from a crash or an unclean shutdown is taken out of ISR and
ELR (``fence_unclean``) and comes back only through ``ExpandIsr`` once it has caught up, or as
the last known leader. With ``--unclean`` the last resort is unclean recovery
(``unclean_recovery``) instead of ``UncleanElect``: the live replica with the longest log.

Sources: KIP-966 (Eligible Leader Replicas, "unclean recovery"); Kafka's operations guide,
"Eligible Leader Replicas" (the election order); ``ReplicationControlManager``
(``handleBrokerShutdown``) and ``PartitionChangeBuilder`` (``electAnyLeader``,
``canElectLastKnownLeader``), read in Kafka 4.1.0.
Same conventions as ``spec.kafka.actions``; the guards are in ``spec.kafka.guards_controller``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.context import ModelContext
from spec.kafka.guards import epochs_left, up
from spec.kafka.guards_controller import longest_log, no_last_known, none_up_with_elr, unclean
from spec.kafka.guards_isr import true_leader
from spec.kafka.state import (
    C_ELR,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    DURABLE,
    GHOST,
    REPLICAS,
    REQUESTS,
    VIEW,
    controller_after,
    last_known,
    put,
)


def decide(
    ctx: ModelContext, s: tuple[Any, ...], leader: int | None, isr: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``(controller, requests)`` after the controller takes the next epoch and decides
    ``(leader, isr)``; the triple is sent to every replica as a LeaderAndIsr, and the ELR (if
    any) follows the ISR (``state.controller_after``)."""
    ctrl = s[CONTROLLER]
    epoch = ctrl[C_EPOCH] + 1
    return (
        controller_after(ctrl, epoch, leader, isr, ctx.config.min_isr),
        s[REQUESTS] + ((epoch, leader, isr),),
    )


def unclean_recovery(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """UncleanRecovery(leader): with no live ISR or ELR member, elect the longest log.

    UncleanRecovery(leader): KIP-966's replacement for unclean election (``--unclean`` with
    the ``elr`` mechanism). The controller asks the live replicas for their log ends and
    elects one with the largest (last leader epoch, LEO); the new ISR is that replica alone.
    May still lose committed data (every copy may be gone), but never picks a shorter log
    over a longer one. Simplified from KIP-966's recovery manager, which may also wait for the
    last known ELR members. Not while the last known leader may be elected (Kafka tries it
    first: ``electAnyLeader``). Only in the model with the ``elr`` mechanism
    (``ELR_ACTIONS``). Bounded by max_epoch."""
    replicas = s[REPLICAS]
    # enabled when (guards_controller.UNCLEAN_RECOVERY): --unclean, an epoch left, no live
    # ISR or ELR member, no last known leader to elect first (electAnyLeader), c up with the
    # longest log
    if not unclean(ctx, s) or not epochs_left(ctx, s):
        return
    if not none_up_with_elr(ctx, s) or not no_last_known(ctx, s):
        return
    for c in range(len(replicas)):
        if up(ctx, s, c) and longest_log(ctx, s, c):
            controller, requests = decide(ctx, s, c, (c,))
            out.append(
                (
                    ctx.labels.unclean_recovery[c],
                    (replicas, controller, requests, s[GHOST]) + s[DURABLE:],
                )
            )


def fence_unclean(
    ctx: ModelContext, s: tuple[Any, ...], replicas: tuple[Any, ...], r: int
) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """``(replicas, controller, requests)`` once replica ``r`` (not the controller's leader)
    registers again after it stopped without a clean shutdown (``replicas``: the state's
    replicas after the restart): ``r`` leaves the ISR (which may become empty: its last
    member is then the last known leader, ``state.last_known``) and the ELR. No new epoch:
    the latest LeaderAndIsr is rewritten, as for an ISR change, so a replica applying it later
    sees the new state; a live leader of that epoch takes the new ISR into its view at once
    (in KRaft it learns the partition change from the metadata log, and an ISR change it
    proposes from the older state is rejected by the partition epoch until it has).
    Unchanged without the ``elr`` mechanism.

    Kafka learns this when the broker registers without the epoch of a clean shutdown, which
    is every restart after a crash or a power loss (the clean-shutdown file is written only
    by an orderly stop): ``ClusterControlManager.registerBroker``, then
    ``ReplicationControlManager.handleBrokerShutdown`` with ``isCleanShutdown`` false, only
    with ELR. ``Restart`` applies it. Sources: KIP-966; KAFKA-15586 and KAFKA-18635 (clean
    shutdown detection), read in Kafka 4.1.0; KIP-841 and ``AlterPartition``'s partition
    epoch. The last known leader keeps ``r`` (``maybeUpdateRecordElr`` keeps
    ``LastKnownElr`` while there is no leader)."""
    ctrl, requests = s[CONTROLLER], s[REQUESTS]
    if not ctx.variant.elr or (r not in ctrl[C_ISR] and r not in ctrl[C_ELR]):
        return replicas, ctrl, requests
    epoch, leader = ctrl[C_EPOCH], ctrl[C_LEADER]
    isr = tuple(m for m in ctrl[C_ISR] if m != r)
    elr = tuple(m for m in ctrl[C_ELR] if m != r)
    if leader is not None and true_leader(ctx, s, leader):
        rep = replicas[leader]
        replicas = put(replicas, leader, rep[:VIEW] + ((leader, epoch, isr),) + rep[VIEW + 1 :])
    if requests:
        requests = requests[:-1] + ((epoch, leader, isr),)
    return replicas, (epoch, leader, isr, elr, last_known(ctrl, leader, isr)), requests
