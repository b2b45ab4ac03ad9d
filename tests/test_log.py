"""The pure log helpers (spec/log.py)."""

from spec.log import (
    end_offset_for_epoch,
    last_epoch,
    last_match_end,
)

LOG = ((0, 0), (1, 0), (2, 2), (3, 2))


def test_last_epoch():
    assert last_epoch(LOG) == 2
    assert last_epoch(()) == -1


def test_end_offset_for_epoch_follows_kip101():
    assert end_offset_for_epoch(LOG, 2) == 4  # latest epoch: the LEO
    assert end_offset_for_epoch(LOG, 0) == 2  # start of the next epoch the log has
    assert end_offset_for_epoch(LOG, 1) == 2  # epoch 1 absent: start of epoch 2
    assert end_offset_for_epoch(LOG, 3) is None  # newer than anything: no answer
    assert end_offset_for_epoch((), 0) is None  # empty log never answers


def test_last_match_end_is_largest_match_not_prefix():
    assert last_match_end(LOG, LOG) == 4
    assert last_match_end(LOG, ((0, 0), (9, 1))) == 1
    assert last_match_end(((5, 0), (1, 0)), ((0, 0), (1, 0))) == 2  # match after a mismatch
    assert last_match_end(LOG, ()) == 0
    assert last_match_end(((7, 0),), ((8, 0),)) == 0
