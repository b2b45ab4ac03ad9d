"""``reports/gallery/`` is what ``python -m checker.commands.gallery`` writes today: a change to the
model, the trace format or the page that changes a canonical counterexample fails this test
until the gallery is regenerated (and the change looked at)."""

from __future__ import annotations

import pytest

from checker.commands import gallery
from checker.formats import tracefile
from spec.kafka import seeds


@pytest.mark.parametrize("entry", gallery.ENTRIES, ids=lambda e: e.folder)
def test_gallery_is_up_to_date(tmp_path, entry):
    fresh = gallery.build(tmp_path, (entry,))
    assert len(fresh) == 2
    stale = [
        str(path.relative_to(tmp_path))
        for path in fresh
        if not (gallery.ROOT / path.relative_to(tmp_path)).is_file()
        or (gallery.ROOT / path.relative_to(tmp_path)).read_bytes() != path.read_bytes()
    ]
    assert stale == [], "regenerate with: python -m checker.commands.gallery"


QUICK_ON_THE_REFERENCE = (
    "hw-truncation-divergence",
    "kip101-hole",
    "unclean-election",
    "acks-1-loss",
    "unclean-shutdown-loss",
    "last-replica-standing",
)
"""The searched entries the reference core finds in under a second (the others take 2 to 18 s;
that the two cores find the same shortest traces is tests/test_compiled.py's subject)."""


def test_the_reference_core_writes_the_same_gallery(tmp_path):
    """The gallery is built on the compiled core, as ``hwcheck explore`` runs; the Python
    model's search writes the very same bytes."""
    entries = tuple(e for e in gallery.ENTRIES if e.folder in QUICK_ON_THE_REFERENCE)
    assert len(entries) == len(QUICK_ON_THE_REFERENCE)
    for path in gallery.build(tmp_path, entries, core="reference"):
        committed = gallery.ROOT / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), committed


def test_gallery_traces_validate_and_replay():
    lengths = {}
    for entry in gallery.ENTRIES:
        path = gallery.ROOT / entry.folder / "trace.json"
        document = tracefile.load(path)
        _, violation = tracefile.replay(path, document)
        assert tracefile.still_violated(violation)
        lengths[entry.folder] = violation.length
    assert lengths == {
        "hw-truncation-loss": 14,
        "hw-follower-never-repaired": 14,
        "tla-commit-progress": 6,
        "hw-truncation-divergence": 14,
        "textbook-divergence": 16,
        "kip101-hole": 13,
        "kip279-hole": 13,
        "kip279-divergence": 15,
        "kip279-hole-tla": 11,
        "zombie-follower": 15,
        "lagging-hw-expansion": 15,  # the length of test_split_fetch.SHORTEST_7128, read by hand
        "unclean-election": 7,
        "acks-1-loss": 5,
        "unclean-shutdown-loss": 6,
        "last-replica-standing": 6,
        "last-known-leader": 13,
        "diverging-fetch-state": 10,  # examples/scenarios/kafka-13141.txt's 10 states, by hand
        "hw-before-truncation": 10,  # tests/test_truncate_on_fetch.py's TICKET, reached
        # the 17 actions docs/explanation/bug-zoo.md tells (KAFKA-18991), read by hand
        "stale-diverging-response": 18,
    }


def _story(folder):
    """The story of a gallery trace, without a zoo entry's last sentence (the fix, checked
    in ``test_zoo_stories_end_with_the_fix``)."""
    import json

    told = json.loads((gallery.ROOT / folder / "trace.json").read_text())["story"]
    return told[:-1] if told and told[-1].startswith("The fix (") else told


def test_zoo_stories_end_with_the_fix():
    import json

    for entry in gallery.ENTRIES:
        told = json.loads((gallery.ROOT / entry.folder / "trace.json").read_text())["story"]
        if entry.ticket:
            assert told[-1] == f"The fix ({entry.ticket}): {entry.fix}"
        else:
            assert not told[-1].startswith("The fix")


def test_loss_story_names_commit_removal_and_election():
    """The flagship is the seed articles' schedule (spec.kafka.seeds.LOSS), cut where the loss
    is decided: B (replica 1) copies m0 and m1 but learns only HW 1, restarts, truncates to
    it, and is elected once A crashes."""
    assert _story("hw-truncation-loss") == [
        (
            "Record m1 (written in leader epoch 0) at offset 1 was committed and is not in the log "
            "of the current leader, replica 1."
        ),
        "State 7 (Produce(leader=0)): replica 0 wrote m1 (epoch 0) at offset 1.",
        (
            "State 9 (Fetch(follower=1, leader=0)): m1 became committed: replica 0's HW moved past "
            "offset 1."
        ),
        (
            "State 12 (BecomeFollower(replica=1, epoch=0)): replica 1 became follower of replica 0 "
            "in epoch 0 (whose log then held 2 records) and truncated its log to its own HW 1 "
            "(pre-KIP-101 rule: the follower's HW, which lags the leader's, decides), removing m1."
        ),
        (
            "State 14 (Elect(leader=1)): the controller chose replica 1, which did not hold m1 at "
            "offset 1, as leader of epoch 1."
        ),
    ]
    document = tracefile.load(gallery.ROOT / "hw-truncation-loss" / "trace.json")
    assert [s["action"] for s in document["steps"][1:]] == list(seeds.COMMON)
    after = document["aftermath"]
    assert [s["action"] for s in after["steps"]] == [
        "Restart(replica=0)",
        "BecomeLeader(replica=1, epoch=1)",
        "BecomeFollower(replica=0, epoch=1)",
        "Fetch(follower=0, leader=1)",
    ]
    assert after["story"][-1] == (
        "After 4 more steps, m1 is in no replica's log: the committed record is lost."
    )
    unclean = _story("unclean-election")
    assert unclean[-1] == (
        "State 7 (UncleanElect(leader=1)): the controller chose replica 1, "
        "which did not hold m0 at offset 0, as leader of epoch 1."
    )


def test_divergence_story_says_how_each_replica_got_its_record():
    assert _story("hw-truncation-divergence") == [
        (
            "At offset 0, below both HWs (1 and 1), replica 0 holds m0 (epoch 0) and replica 1 "
            "holds m1 (epoch 1)."
        ),
        "State 5 (Produce(leader=0)): replica 0 wrote m0 as leader.",
        "State 7 (Fetch(follower=1, leader=0)): replica 0's HW moved past offset 0.",
        (
            "State 11 (BecomeFollower(replica=1, epoch=0)): replica 1 became follower of replica 0 "
            "in epoch 0 (whose log then held 1 record) and truncated its log to its own HW 0 "
            "(pre-KIP-101 rule: the follower's HW, which lags the leader's, decides), removing m0. "
            "That LeaderAndIsr (epoch 0) was stale: the controller was already at epoch 1."
        ),
        (
            "State 13 (ShrinkIsr(leader=1, follower=0)): leader 1's ISR became {1} (was {0,1}); "
            "the controller's ISR became {1} (was {0,1})."
        ),
        "State 14 (Produce(leader=1)): replica 1 wrote m1 as leader.",
        (
            "State 14 (Produce(leader=1)): replica 1's HW moved past offset 0; both records are now "
            "below the HWs, visible to consumers."
        ),
    ]


def test_kip279_divergence_story_shows_the_unfenced_fetch():
    """Replica 2 copies m0 from replica 0, then replica 0 drops m0 (KIP-279 matching against a
    stale, empty leader), writes m1 there as leader of epoch 2, and replica 2's next fetch,
    which checks no epoch (fenced only from KIP-320 on), raises its HW over m0."""
    story = _story("kip279-divergence")
    assert story[0] == (
        "At offset 0, below both HWs (1 and 1), replica 0 holds m1 (epoch 2) and "
        "replica 2 holds m0 (epoch 0)."
    )
    assert story[1] == (
        "State 4 (ShrinkIsr(leader=0, follower=2)): leader 0's ISR became "
        "{0,1} (was {0,1,2}); the controller's ISR became {0,1} (was {0,1,2})."
    )
    assert story[2] == "State 7 (Produce(leader=0)): replica 0 wrote m0 (epoch 0) at offset 0."
    assert story[3] == "State 10 (Fetch(follower=2, leader=0)): replica 2 copied m0 from leader 0."
    assert story[4].startswith(
        "State 11 (BecomeFollower(replica=0, epoch=1)): replica 0 "
        "became follower of replica 1 in epoch 1 (whose log was then "
        "empty) and compared its log with leader 1's (KIP-279): no "
        "offset holds the same record in both logs, so it truncated to 0"
    )
    assert story[5:] == [
        "State 13 (Produce(leader=0)): replica 0 wrote m1 as leader.",
        (
            "State 14 (ShrinkIsr(leader=0, follower=1)): leader 0's ISR became {0} (was {0,1}); "
            "replica 0's HW moved past offset 0."
        ),
        (
            "State 15 (Fetch(follower=2, leader=0)): replica 2's HW moved past offset 0; both "
            "records are now below the HWs, visible to consumers."
        ),
    ]


def test_kip101_story_says_what_offsets_for_leader_epoch_answered():
    """KIP-101's hole (KAFKA-6361): replica 0 wrote m2 in epoch 1 at offset 0 where the leader
    of epoch 2 holds m0 (epoch 0). Asked where epoch 1 ends, that leader, which has no epoch 1,
    answers 1, the start of its epoch 2 (``LeaderEpochFileCache.endOffsetFor``); the follower
    keeps offset 0 and the logs fork. Worked by hand from the trace's logs."""
    story = _story("kip101-hole")
    assert story[3] == (
        "State 11 (BecomeFollower(replica=0, epoch=2)): replica 0 became follower of replica 1 "
        "in epoch 2 (whose log then held 2 records) and asked leader 1 where its latest epoch 1 "
        "ends (OffsetsForLeaderEpoch, KIP-101); the leader answered 1 (the start of its next "
        "epoch 2), so it truncated to min(1, its LEO 1) = 1, keeping m2 (epoch 1) at offset 0, "
        "where leader 1 holds m0 (epoch 0). That answer was wrong for this log: the leader's end "
        "offset for epoch 1 says where that epoch ends in the leader's log, not that the records "
        "before it are the leader's (KIP-101's hole, closed by KIP-279)."
    )


def test_kip279_story_names_the_stale_leader_and_the_counted_fetch():
    """KIP-279 needs 3 replicas and a late LeaderAndIsr: a follower matches its log against a
    replica that still leads an older epoch with an empty log, while the true leader counts
    the follower's earlier fetch towards its HW (protocol.md: kip279 "needs async
    LeaderAndIsr")."""
    assert _story("kip279-hole") == [
        (
            "Record m0 (written in leader epoch 2) at offset 0 was committed and is not in the log "
            "of the current leader, replica 2."
        ),
        "State 7 (Produce(leader=0)): replica 0 wrote m0 (epoch 2) at offset 0.",
        (
            "State 11 (BecomeFollower(replica=2, epoch=1)): replica 2 became follower of replica 1 "
            "in epoch 1 (whose log was then empty) and compared its log with leader 1's (KIP-279): "
            "no offset holds the same record in both logs, so it truncated to 0, removing m0. That "
            "LeaderAndIsr (epoch 1) was stale: the controller was already at epoch 2."
        ),
        (
            "State 12 (ShrinkIsr(leader=0, follower=1)): m0 became committed: replica 0's HW moved "
            "past offset 0, though replica 2 did not hold it: it still counted replica 2 at LEO 1, "
            "reported by the fetch of state 9 (Fetch(follower=2, leader=0))."
        ),
        (
            "State 13 (Elect(leader=2)): the controller chose replica 2, which did not hold m0 at "
            "offset 0, as leader of epoch 3."
        ),
    ]


def test_isr_story_names_leader_member_and_offset():
    """StrongIsr in the public spec's Kip279 module: the leader, its HW, the controller's ISR
    member that lacks the record, and the step that removed it."""
    story = _story("kip279-hole-tla")
    assert story[0] == (
        "Leader 1 (epoch 2) has HW 1, so m0 (epoch 2) at offset 0 is committed, "
        "but replica 0, a member of the controller's ISR, holds nothing there "
        "(its LEO is 0)."
    )
    assert (
        story[1] == "State 6 (LeaderWrite(replica=1)): replica 1 appended m0 (epoch 2) at offset 0."
    )
    assert story[2] == (
        "State 8 (LeaderShrinkIsr(leader=1, replica=2)): leader 1's ISR became {0,1} (was {0,1,2})."
    )
    assert (
        story[3]
        == "State 10 (LeaderIncHighWatermark(leader=1)): leader 1's HW moved past offset 0."
    )
    assert story[4].startswith(
        "State 11 (BecomeFollowerTruncateKip279(leader=2, replica=0, "
        "epoch=1)): replica 0 became follower of replica 2 in epoch 1 "
        "(whose log was then empty) and compared its log with leader 2's "
        "(KIP-279)"
    )
    assert story[4].endswith(
        "removing m0. That LeaderAndIsr (epoch 1) was stale: the controller was already at epoch 2."
    )
