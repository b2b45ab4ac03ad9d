"""The async-isr mechanism (issue 26): ISR changes as AlterPartition requests in flight, the
rules on hand-built states, then the property it shares with the public spec's AsyncIsr.

Records are ``(id, epoch)``; offsets 0-based; LEO and HW exclusive. Replica 0 leads epoch 0
with ISR {0, 1} unless a test says otherwise. A request in flight is ``(leader epoch,
committed ISR it was based on, ISR asked for)``, per replica, in the state's ``alter``
component (index 4 without unclean shutdowns).
"""

from __future__ import annotations

import pytest
from conftest import kafka
from test_actions import FOLLOWER, LEADER, moves, rep, state

from checker.composition.compose import build_model
from checker.search.reference.bfs import explore
from spec.kafka import Config
from spec.tla import TlaConfig

ASYNC = ("async-isr",)


def spec_of(**bounds):
    return kafka(replicas=bounds.pop("replicas", 2), with_mechanisms=ASYNC, **bounds)


def asking(s, requests):
    """``s`` with the ``alter`` component: ``requests`` per replica."""
    return s + (tuple(requests),)


LAGGING = state([rep(log=[(0, 0)], view=LEADER, remote=(-1, 0)), rep(view=FOLLOWER)])
"""Leader 0 holds m0 at HW 0; follower 1 has fetched from offset 0 and holds nothing."""


def test_a_shrink_is_a_request_and_changes_nothing_else_yet():
    spec = spec_of()
    s = asking(LAGGING, [None, None])
    nxt = moves(spec, s, "ShrinkIsr")["ShrinkIsr(leader=0, follower=1)"]
    assert nxt[:4] == s[:4]  # no ISR, HW or controller change: only the request
    assert nxt[4] == ((0, (0, 1), (0,)), None)
    assert moves(spec, nxt, "ShrinkIsr") == {}  # one request in flight per leader
    assert "AlterPartition(leader=0)" in moves(spec, nxt, "AlterPartition")


def test_an_accepted_shrink_moves_the_controller_and_then_the_leaders_hw():
    """KIP-497 and KAFKA-13091: the ISR changes on the controller's answer, and only then can
    the leader's HW pass what the dropped follower lacks."""
    spec = spec_of()
    s = asking(LAGGING, [(0, (0, 1), (0,)), None])
    done = moves(spec, s, "AlterPartition")["AlterPartition(leader=0)"]
    assert done[1] == (0, 0, (0,)) and done[2] == ((0, 0, (0,)),)
    assert done[0][0][3] == (0, 0, (0,)) and done[0][0][1] == 1  # sole member: HW 1
    assert done[3][2] == ((0, 0),)  # m0 committed
    assert done[4] == (None, None)


@pytest.mark.parametrize(
    "controller, why",
    [((1, 1, (0, 1)), "another leader epoch"), ((0, 0, (0,)), "another ISR (partition epoch)")],
)
def test_a_stale_request_is_rejected_and_the_leader_keeps_its_isr(controller, why):
    spec = spec_of()
    s = asking(state(LAGGING[0], controller=controller), [(0, (0, 1), (0,)), None])
    done = moves(spec, s, "AlterPartition")["AlterPartition(leader=0)"]
    assert done[:4] == s[:4], why
    assert done[4] == (None, None)


def test_a_pending_expand_counts_the_follower_for_the_hw():
    """The maximal ISR: leader 0 (ISR {0}) asked to add 1, which fetched from offset 0. Its
    write must wait for 1 (HW 0), where the committed ISR alone would commit m0 at once."""
    spec = spec_of()
    alone = state(
        [rep(view=(0, 0, (0,)), remote=(-1, 0)), rep(view=FOLLOWER)], controller=(0, 0, (0,))
    )
    asked = moves(spec, asking(alone, [None, None]), "ExpandIsr")["ExpandIsr(leader=0, follower=1)"]
    assert asked[4] == ((0, (0,), (0, 1)), None) and asked[0][0][3] == (0, 0, (0,))
    wrote = moves(spec, asked, "Produce")["Produce(leader=0)"]
    assert wrote[0][0][1] == 0  # HW stays: 1 counts
    without = moves(spec, asking(alone, [None, None]), "Produce")["Produce(leader=0)"]
    assert without[0][0][1] == 1


def test_a_restart_drops_the_request_a_crash_does_not():
    spec = spec_of(max_crashes=1)
    s = asking(LAGGING, [(0, (0, 1), (0,)), None])
    crashed = moves(spec, s, "Crash")["Crash(replica=0)"]
    assert crashed[4] == s[4]  # the controller may still handle it
    accepted = moves(spec, crashed, "AlterPartition")["AlterPartition(leader=0)"]
    assert accepted[1] == (0, 0, (0,)) and accepted[0][0] == crashed[0][0]  # the leader is down
    assert "Restart(replica=0)" not in moves(spec, crashed, "Restart")  # a leader is fenced first
    elected = moves(spec, crashed, "Elect")["Elect(leader=1)"]
    assert elected[4] == s[4]
    restarted = moves(spec, elected, "Restart")["Restart(replica=0)"]
    assert restarted[4] == (None, None)  # a new broker epoch: the old request is rejected


def test_a_stale_leader_may_ask_and_is_refused():
    spec = spec_of()
    deposed = asking(state(LAGGING[0], controller=(1, 1, (0, 1))), [None, None])
    asked = moves(spec, deposed, "ShrinkIsr")["ShrinkIsr(leader=0, follower=1)"]
    refused = moves(spec, asked, "AlterPartition")["AlterPartition(leader=0)"]
    assert refused[:4] == deposed[:4] and refused[4] == (None, None)


def test_presets_are_unchanged_and_the_switch_adds_alter_partition():
    assert "AlterPartition" not in kafka(replicas=2).action_names()
    assert spec_of().action_names()[2:5] == ["ShrinkIsr", "ExpandIsr", "AlterPartition"]


# -- the property AsyncIsr and the kafka model share ----------------------------------------------
def test_the_maximal_isr_keeps_the_hw_valid_in_both_models(monkeypatch):
    """AsyncIsr's ValidHighWatermark (every member of the controller's ISR has an offset at
    least the leader's HW) is, in the kafka model, StrongIsr restricted to offsets: every
    member of the controller's ISR holds the leader's log below its HW. Both hold with the
    maximal ISR, and both fail without it, in the same story: the leader adds a replica that
    is behind, writes and commits as if alone, and the controller accepts the addition."""
    spec, props = build_model(
        "kafka", Config(replicas=2, max_epoch=1, truncation="kip320", with_mechanisms=ASYNC)
    )
    assert explore(spec, props).status.value == "OK"
    tla, tla_props = build_model("tla", TlaConfig(replicas=2, truncation="async-isr"))
    assert explore(tla, tla_props).status.value == "OK"

    import spec.kafka.actions as kafka_actions
    import spec.tla.async_isr as module

    monkeypatch.setattr(kafka_actions, "maximal_isr", lambda view, request: view[2])
    found = explore(spec, props).violations
    strong = next(v for v in found if v.prop.name == "StrongIsr")
    assert strong.length == 10
    assert [str(step.label) for step in strong.trace[-4:]] == [
        "AlterPartition(leader=0)",  # the shrink to {0} accepted
        "ExpandIsr(leader=0, follower=1)",  # 1 asks back in, behind the leader
        "Produce(leader=0)",  # m0 committed on {0} alone
        "AlterPartition(leader=0)",  # the controller's ISR {0, 1}: 1 lacks m0
    ]
    monkeypatch.setattr(
        module, "high_watermark", lambda s: min(s[module.OFFSETS][r] for r in s[module.ISR])
    )
    (valid,) = explore(tla, tla_props).violations
    assert [str(step.label) for step in valid.trace[1:]] == [
        "ControllerShrinkIsr(replica=1)",
        "LeaderHandleUpdate(isr=(0,), version=1)",
        "LeaderRequestExpandIsr(replica=1)",
        "ControllerHandleRequest(isr=(0, 1), version=1)",
        "LeaderWrite()",
    ]
