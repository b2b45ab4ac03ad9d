"""Why an action label is not enabled in a state of the Kafka model
(``KafkaSpec.why_disabled``), for ``hwcheck scenario`` and ``replay`` to say after "is not
enabled".

``why_disabled(ctx, state, label)`` first reads the label: an action of this model (its
variant and options decide which), its arguments as ``hwcheck list`` names them, replica ids
and epochs within the bounds. Then it walks the action's guards (``spec.kafka.guards``: the
predicates its generator calls, in the order it calls them) and says the first that is
false: a bound reached (``Refusal.bound`` names it), a replica down, not the leader, not a
follower of that leader, the epoch budget, a fence, nothing to fetch.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label, Refusal
from spec.kafka import guards_broker, guards_controller, guards_data, guards_isr
from spec.kafka.context import ModelContext
from spec.kafka.guards import Guard, first_false

FAMILIES: dict[str, tuple[tuple[str, ...], tuple[Guard, ...]]] = {
    "Produce": (("leader",), guards_data.PRODUCE),
    "Fetch": (("follower", "leader"), guards_data.FETCH),
    "FetchRequest": (("follower", "leader"), guards_data.FETCH_REQUEST),
    "FetchResponse": (("follower",), guards_data.FETCH_RESPONSE),
    "LoseResponse": (("follower",), guards_data.LOSE_RESPONSE),
    "TruncateOnFetchResponse": (("follower",), guards_data.TRUNCATE_ON_FETCH_RESPONSE),
    "ShrinkIsr": (("leader", "follower"), guards_isr.SHRINK_ISR),
    "ExpandIsr": (("leader", "follower"), guards_isr.EXPAND_ISR),
    "AlterPartition": (("leader",), guards_isr.ALTER_PARTITION),
    "ControllerShrinkIsr": (("replica",), guards_controller.CONTROLLER_SHRINK_ISR),
    "Elect": (("leader",), guards_controller.ELECT),
    "UncleanElect": (("leader",), guards_controller.UNCLEAN_ELECT),
    "UncleanRecovery": (("leader",), guards_controller.UNCLEAN_RECOVERY),
    "Crash": (("replica",), guards_broker.CRASH),
    "Restart": (("replica",), guards_broker.RESTART),
    "BecomeLeader": (("replica", "epoch"), guards_broker.BECOME_LEADER),
    "BecomeFollower": (("replica", "epoch"), guards_broker.BECOME_FOLLOWER),
    "Flush": (("replica",), guards_broker.FLUSH),
    "UncleanShutdown": (("replica",), guards_broker.UNCLEAN_SHUTDOWN),
}
"""Per action name: its arguments, in label order, and its guards, in the order its
generator tests them."""


def why_disabled(ctx: ModelContext, state: tuple[Any, ...], label: Label) -> Refusal | None:
    """The false guard that keeps ``label`` from being enabled in ``state``, or None when
    every guard holds (the label is enabled) or the action is not one this module knows (a
    user variant's). A label this model cannot take at all says why: an action the model
    does not have (the variant or the options leave it out), other arguments, a replica id
    past ``replicas`` or an epoch past ``max_epoch``."""
    family = FAMILIES.get(label.action)
    if label.action not in ctx.action_names():
        return Refusal(f"this model ({ctx.variant_name}, these options) has no {label.action}")
    if family is None:
        return None
    names, guards = family
    if tuple(name for name, _ in label.args) != names:
        written = ", ".join(f"{name}=..." for name in names)
        return Refusal(f"{label.action} is written {label.action}({written})")
    for name, value in label.args:
        refusal = _in_range(ctx, name, value)
        if refusal is not None:
            return refusal
    return first_false(guards, ctx, state, [value for _, value in label.args])


def _in_range(ctx: ModelContext, name: str, value: Any) -> Refusal | None:
    """A replica id below ``replicas``, an epoch at most ``max_epoch``."""
    n, max_epoch = ctx.config.replicas, ctx.config.max_epoch
    if type(value) is not int or value < 0:
        return Refusal(
            f"{name}={value!r} is not a {'leader epoch' if name == 'epoch' else 'replica id'}"
        )
    if name == "epoch" and value > max_epoch:
        return Refusal(f"epoch {value} is past the last one (max_epoch={max_epoch})", "max_epoch")
    if name != "epoch" and value >= n:
        return Refusal(f"there is no replica {value} (replicas={n}: 0 to {n - 1})", "replicas")
    return None
