"""Why an action label is not enabled in a state of the Kafka model
(``KafkaSpec.why_disabled``), for ``hwcheck scenario`` and ``replay`` to say after "is not
enabled".

``why_disabled(ctx, state, label)`` first reads the label: an action of this model (its
variant and options decide which), its arguments as ``hwcheck list`` names them, replica ids
and epochs within the bounds. Then it asks the action's own function in
``spec.kafka.refusals`` (the data path) or ``spec.kafka.refusals_control`` (the controller and
the broker lifecycle), which tests the action's guards in the order the action does and
names the first that is false: a bound reached (``Refusal.bound`` names it), a replica down,
not the leader, not a follower of that leader, the epoch budget, a fence, nothing to fetch.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from checker.model import Label, Refusal
from spec.kafka import refusals, refusals_control
from spec.kafka.context import ModelContext

FAMILIES: dict[str, tuple[tuple[str, ...], Callable[..., Refusal | None]]] = {
    "Produce": (("leader",), refusals.produce),
    "Fetch": (("follower", "leader"), refusals.fetch),
    "FetchRequest": (("follower", "leader"), refusals.fetch_request),
    "FetchResponse": (("follower",), refusals.fetch_response),
    "LoseResponse": (("follower",), refusals.lose_response),
    "TruncateOnFetchResponse": (("follower",), refusals.truncate_on_fetch_response),
    "ShrinkIsr": (("leader", "follower"), refusals.shrink_isr),
    "ExpandIsr": (("leader", "follower"), refusals.expand_isr),
    "AlterPartition": (("leader",), refusals.alter_partition),
    "ControllerShrinkIsr": (("replica",), refusals_control.controller_shrink_isr),
    "Elect": (("leader",), refusals_control.elect),
    "UncleanElect": (("leader",), refusals_control.unclean_elect),
    "UncleanRecovery": (("leader",), refusals_control.unclean_recovery),
    "Crash": (("replica",), refusals_control.crash),
    "Restart": (("replica",), refusals_control.restart),
    "BecomeLeader": (("replica", "epoch"), partial(refusals_control.become, leads=True)),
    "BecomeFollower": (("replica", "epoch"), partial(refusals_control.become, leads=False)),
    "Flush": (("replica",), refusals_control.flush),
    "UncleanShutdown": (("replica",), refusals_control.unclean_shutdown),
}
"""Per action name: its arguments, in label order, and the function that names its false
guard (called with the ``KafkaSpec``, the state and the arguments' values)."""


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
    names, explain = family
    if tuple(name for name, _ in label.args) != names:
        written = ", ".join(f"{name}=..." for name in names)
        return Refusal(f"{label.action} is written {label.action}({written})")
    values = [value for _, value in label.args]
    for name, value in label.args:
        refusal = _in_range(ctx, name, value)
        if refusal is not None:
            return refusal
    return explain(ctx, state, *values)


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
