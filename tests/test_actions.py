"""Guards and effects of each action of the Kafka model, on hand-built states.

Replica 0 leads epoch 0 with ISR {0, 1} unless a test says otherwise. Records are
``(id, epoch)``; offsets 0-based; LEO and HW exclusive.
"""

from conftest import kafka

NO_VIEW = (None, -1, ())


def rep(log=(), hw=0, alive=True, view=NO_VIEW, remote=()):
    return (tuple(log), hw, alive, view, remote)


def state(replicas, controller=(0, 0, (0, 1)), requests=None, ghost=(0, 0, ())):
    if requests is None:
        requests = ((0, 0, (0, 1)),)
    return (tuple(replicas), controller, requests, ghost)


LEADER = (0, 0, (0, 1))
FOLLOWER = (0, 0, (0, 1))  # follower of 0 in epoch 0 (same triple: leader 0, epoch 0, isr)


def moves(spec, s, action):
    return {str(label): nxt for label, nxt in spec.successors(s) if label.action == action}


def test_produce_appends_with_leader_epoch_and_respects_min_isr():
    spec = kafka(replicas=2, max_records=2, min_isr=2)
    s = state([rep(view=LEADER, remote=(-1, -1)), rep(view=FOLLOWER)])
    ((label, nxt),) = moves(spec, s, "Produce").items()
    assert label == "Produce(leader=0)"
    assert nxt[0][0][0] == ((0, 0),)
    assert nxt[0][0][1] == 0  # follower has not fetched: HW stays
    assert nxt[3][0] == 1  # next record id
    shrunk = state([rep(view=(0, 0, (0,)), remote=(-1, -1)), rep(view=FOLLOWER)])
    assert moves(spec, shrunk, "Produce") == {}  # ISR {0} < min.insync.replicas 2


def test_produce_with_sole_isr_member_commits_at_once():
    spec = kafka(replicas=2)
    s = state([rep(view=(0, 0, (0,)), remote=(-1, -1)), rep()])
    nxt = moves(spec, s, "Produce")["Produce(leader=0)"]
    assert nxt[0][0][1] == 1
    assert nxt[3][2] == ((0, 0),)  # ghost: offset 0, record 0 committed


def test_produce_stops_at_max_records():
    spec = kafka(replicas=2, max_records=1)
    s = state([rep(view=LEADER, remote=(-1, -1)), rep(view=FOLLOWER)], ghost=(1, 0, ()))
    assert moves(spec, s, "Produce") == {}


def test_fetch_copies_records_and_lags_the_hw_by_one_round():
    spec = kafka(replicas=2, truncation="hw")
    s = state(
        [
            rep(log=[(0, 0), (1, 0)], hw=0, view=LEADER, remote=(-1, 0)),
            rep(log=[(0, 0)], view=FOLLOWER),
        ]
    )
    nxt = moves(spec, s, "Fetch")["Fetch(follower=1, leader=0)"]
    leader, follower = nxt[0]
    assert follower[0] == ((0, 0), (1, 0))
    assert follower[1] == 0  # the response carried the HW read before the update
    assert leader[4] == (-1, 1)  # remote LEO = fetch offset
    assert leader[1] == 1  # leader HW = min(LEO 2, remote 1)
    assert nxt[3][2] == ((0, 0),)
    again = moves(spec, nxt, "Fetch")["Fetch(follower=1, leader=0)"]
    assert again[0][0][1] == 2 and again[0][1][1] == 1


def test_fetch_offset_out_of_range_truncates_follower():
    spec = kafka(replicas=2, truncation="hw")
    s = state(
        [
            rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, -1)),
            rep(log=[(0, 0), (1, 0)], hw=2, view=FOLLOWER),
        ]
    )
    nxt = moves(spec, s, "Fetch")["Fetch(follower=1, leader=0)"]
    assert nxt[0][1][0] == ((0, 0),) and nxt[0][1][1] == 1
    assert nxt[0][0] == s[0][0]  # the leader records nothing for a rejected fetch


def test_fetch_is_fenced_by_epoch_only_in_kip320():
    s = state(
        [rep(view=(0, 1, (0, 1)), remote=(-1, -1)), rep(view=FOLLOWER)],
        controller=(1, 0, (0, 1)),
        requests=((0, 0, (0, 1)), (1, 0, (0, 1))),
    )
    assert moves(kafka(replicas=2, truncation="kip320"), s, "Fetch") == {}
    assert "Fetch(follower=1, leader=0)" in moves(
        kafka(replicas=2, truncation="kip279"), s, "Fetch"
    )


def test_fetch_needs_live_leader_that_presumes_leadership():
    spec = kafka(replicas=2)
    down = state([rep(alive=False), rep(view=FOLLOWER)])
    assert moves(spec, down, "Fetch") == {}
    not_leader = state([rep(view=(1, 0, (0, 1))), rep(view=FOLLOWER)])
    assert moves(spec, not_leader, "Fetch") == {}


def test_shrink_isr_only_by_true_leader_and_only_lagging_followers():
    spec = kafka(replicas=2)
    lagging = state([rep(log=[(0, 0)], view=LEADER, remote=(-1, 0)), rep(view=FOLLOWER)])
    nxt = moves(spec, lagging, "ShrinkIsr")["ShrinkIsr(leader=0, follower=1)"]
    assert nxt[0][0][3] == (0, 0, (0,)) and nxt[1] == (0, 0, (0,))
    assert nxt[0][0][1] == 1  # sole member: HW catches up
    assert nxt[2] == ((0, 0, (0,)),)  # latest LeaderAndIsr carries new ISR
    caught_up = state([rep(log=[(0, 0)], view=LEADER, remote=(-1, 1)), rep(view=FOLLOWER)])
    assert moves(spec, caught_up, "ShrinkIsr") == {}
    stale = state(
        [rep(log=[(0, 0)], view=LEADER, remote=(-1, 0)), rep(view=FOLLOWER)],
        controller=(1, 1, (0, 1)),
    )
    assert moves(spec, stale, "ShrinkIsr") == {}  # deposed: not the true leader


def test_expand_isr_waits_for_epoch_start_in_kip320():
    # Leader 0 in epoch 1 holds an epoch-0 record at its HW: KIP-320 forbids expanding.
    s = state(
        [rep(log=[(0, 0)], hw=0, view=(0, 1, (0,)), remote=(-1, 0)), rep(view=(0, 1, ()))],
        controller=(1, 0, (0,)),
        requests=((0, 0, (0, 1)), (1, 0, (0,))),
    )
    assert moves(kafka(replicas=2, truncation="kip320"), s, "ExpandIsr") == {}
    nxt = moves(kafka(replicas=2, truncation="kip279"), s, "ExpandIsr")
    assert nxt["ExpandIsr(leader=0, follower=1)"][1] == (1, 0, (0, 1))


def test_expand_isr_needs_a_fetch_in_this_leadership():
    s = state(
        [rep(view=(0, 0, (0,)), remote=(-1, -1)), rep(view=FOLLOWER)], controller=(0, 0, (0,))
    )
    assert moves(kafka(replicas=2), s, "ExpandIsr") == {}


def test_elections():
    spec = kafka(replicas=3, max_epoch=2)
    s = state(
        [rep(alive=False), rep(), rep()], controller=(0, 0, (0, 1)), requests=((0, 0, (0, 1)),)
    )
    elect = moves(spec, s, "Elect")
    assert list(elect) == ["Elect(leader=1)"]  # live ISR member, not the leader
    assert elect["Elect(leader=1)"][1] == (1, 1, (1,))  # new ISR: live ISR members
    assert elect["Elect(leader=1)"][2][-1] == (1, 1, (1,))
    assert moves(spec, s, "UncleanElect") == {}
    dead_isr = state([rep(alive=False), rep(alive=False), rep()], controller=(0, 0, (0, 1)))
    assert moves(spec, dead_isr, "Elect") == {}
    assert moves(spec, dead_isr, "UncleanElect") == {}
    unclean = moves(kafka(replicas=3, unclean_election=True), dead_isr, "UncleanElect")
    assert unclean["UncleanElect(leader=2)"][1] == (1, 2, (2,))
    assert moves(kafka(replicas=3, max_epoch=0), s, "Elect") == {}


def test_controller_shrinks_isr_of_crashed_follower_with_new_epoch():
    spec = kafka(replicas=2)
    s = state([rep(view=LEADER, remote=(-1, -1)), rep(alive=False)])
    nxt = moves(spec, s, "ControllerShrinkIsr")["ControllerShrinkIsr(replica=1)"]
    assert nxt[1] == (1, 0, (0,)) and nxt[2][-1] == (1, 0, (0,))
    assert moves(spec, state([rep(alive=False), rep()]), "ControllerShrinkIsr") == {}


def test_crash_keeps_durable_state_and_restart_waits_for_current_request():
    spec = kafka(replicas=2, max_crashes=1)
    s = state(
        [rep(log=[(0, 0)], hw=1, view=(0, 1, (0, 1)), remote=(-1, 1)), rep(log=[(0, 0)])],
        controller=(1, 0, (0, 1)),
        requests=((0, 1, (0, 1)), (1, 0, (0, 1))),
    )
    down = moves(spec, s, "Crash")["Crash(replica=1)"]
    assert down[0][1] == (((0, 0),), 0, False, NO_VIEW, ())
    assert down[3][1] == 1
    assert moves(spec, down, "Crash") == {}  # max_crashes used up
    up = moves(spec, down, "Restart")["Restart(replica=1)"]
    assert up[0][1] == (((0, 0),), 0, True, (None, 0, ()), ())
    # only the request of the controller's current epoch (1) can be applied now
    assert list(moves(spec, up, "BecomeFollower")) == ["BecomeFollower(replica=1, epoch=1)"]


def test_a_crashed_leader_restarts_only_once_the_controller_took_its_leadership():
    """Kafka fences the broker of a dead leader before it comes back, and its partitions get
    a new leader epoch (issue 62): here another live ISR member is elected; with none, the
    controller leaves the partition leaderless in a new epoch."""
    spec = kafka(replicas=2, max_crashes=1, max_epoch=2)
    s = state(
        [rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, 1)), rep(log=[(0, 0)], view=FOLLOWER)],
        controller=(0, 0, (0, 1)),
        requests=((0, 0, (0, 1)),),
    )
    down = moves(spec, s, "Crash")["Crash(replica=0)"]
    assert "Restart(replica=0)" not in moves(spec, down, "Restart")
    assert moves(spec, down, "ControllerShrinkIsr") == {}  # replica 1 can take over
    elected = moves(spec, down, "Elect")["Elect(leader=1)"]
    assert elected[1] == (1, 1, (1,))
    assert list(moves(spec, elected, "Restart")) == ["Restart(replica=0)"]
    alone = state(  # the leader was the last ISR member: nobody can replace it
        [rep(log=[(0, 0)], hw=1, alive=False), rep()],
        controller=(0, 0, (0,)),
        requests=((0, 0, (0,)),),
    )
    fenced = moves(spec, alone, "ControllerShrinkIsr")["ControllerShrinkIsr(replica=0)"]
    assert fenced[1] == (1, None, (0,)) and fenced[2][-1] == (1, None, (0,))
    back = moves(spec, fenced, "Restart")["Restart(replica=0)"]
    assert list(moves(spec, back, "Elect")) == ["Elect(leader=0)"]


def test_become_leader_keeps_log_and_hw_and_resets_remote_leos():
    spec = kafka(replicas=2)
    s = state(
        [rep(log=[(0, 0)], hw=0, view=(1, 0, (0, 1))), rep()],
        controller=(1, 0, (0, 1)),
        requests=((0, 1, (0, 1)), (1, 0, (0, 1))),
    )
    nxt = moves(spec, s, "BecomeLeader")["BecomeLeader(replica=0, epoch=1)"]
    assert nxt[0][0] == (((0, 0),), 0, True, (0, 1, (0, 1)), (-1, -1))
