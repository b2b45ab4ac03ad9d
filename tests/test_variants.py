"""The truncation rules applied by BecomeFollower, one variant at a time."""

import pytest
from conftest import kafka
from test_actions import rep, state

# Replica 1 follows; it holds [m0@0, m1@0] with HW 1; the leader 0 in epoch 1 holds
# [m0@0, m2@1]. The request of epoch 1 names 0 leader.
FOLLOWER_LOG = [(0, 0), (1, 0)]
LEADER_LOG = [(0, 0), (2, 1)]
REQUESTS = ((0, 0, (0, 1)), (1, 0, (0, 1)))


def become_follower(
    truncation,
    leader_view=(0, 1, (0, 1)),
    leader_alive=True,
    leader_log=LEADER_LOG,
    follower_log=FOLLOWER_LOG,
    hw=1,
):
    spec = kafka(replicas=2, truncation=truncation)
    s = state(
        [
            rep(
                log=leader_log,
                hw=1,
                alive=leader_alive,
                view=leader_view if leader_alive else (None, -1, ()),
                remote=(-1, -1) if leader_alive else (),
            ),
            rep(log=follower_log, hw=hw, view=(0, 0, (0, 1))),
        ],
        controller=(1, 0, (0, 1)),
        requests=REQUESTS,
    )
    found = {
        str(label): nxt for label, nxt in spec.successors(s) if label.action == "BecomeFollower"
    }
    nxt = found.get("BecomeFollower(replica=1, epoch=1)")
    return None if nxt is None else (nxt[0][1][0], nxt[0][1][1], nxt[0][1][3])


def test_hw_truncates_to_own_hw_without_asking():
    assert become_follower("hw") == (((0, 0),), 1, (0, 1, (0, 1)))
    assert become_follower("hw", leader_alive=False) == (((0, 0),), 1, (0, 1, (0, 1)))


def test_kip101_asks_for_end_offset_of_latest_epoch():
    # follower's latest epoch 0 ends at offset 1 on the leader (epoch 1 starts there)
    assert become_follower("kip101")[0] == ((0, 0),)
    # leader also ends with epoch 0: its LEO (2) is the answer, nothing is removed
    log, hw, _ = become_follower("kip101", leader_log=[(0, 0), (1, 0)])
    assert log == ((0, 0), (1, 0)) and hw == 1
    # leader has no epoch > 0 and last epoch != 0 ... empty leader: fall back to the HW
    assert become_follower("kip101", leader_log=[])[0] == ((0, 0),)
    # leader down: the request waits
    assert become_follower("kip101", leader_alive=False) is None


def test_kip279_truncates_after_last_common_record_in_any_leader_epoch():
    assert become_follower("kip279", leader_view=(0, 0, (0, 1)))[0] == ((0, 0),)
    same = become_follower("kip279", leader_log=FOLLOWER_LOG, leader_view=(0, 0, (0, 1)))
    assert same[0] == ((0, 0), (1, 0))
    assert become_follower("kip279", leader_log=[(5, 0)])[0] == ()


def test_kip320_needs_the_leader_in_the_request_epoch():
    assert become_follower("kip320", leader_view=(0, 0, (0, 1))) is None
    assert become_follower("kip320")[0] == ((0, 0),)


@pytest.mark.parametrize("truncation", ["hw", "kip101", "kip279", "kip320"])
def test_empty_follower_needs_no_leader(truncation):
    assert become_follower(truncation, follower_log=[], hw=0, leader_alive=False)[0] == ()


def test_epoch_is_an_alias_of_kip320():
    assert kafka(truncation="epoch").config.truncation == "kip320"
