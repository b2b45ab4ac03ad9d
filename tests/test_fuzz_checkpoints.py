"""Fuzzing of search and simulation checkpoints (issue 63's contract, ``tests/fuzzing.py``):
``explore --resume`` and ``simulate --resume`` read a mutated manifest, mostly sealed again
(as a crafted one can be), with a documented exit code and at most one message."""

from __future__ import annotations

import json
import shutil
from typing import Any

from fuzzing import FAST, MANY, SIM, damaged, folder, holds, invoke, mutate_json, with_deep
from hypothesis import given
from hypothesis import strategies as st

from checker.checkpoint.format import SEAL, sealed


def _checkpoint_case(seeds: dict, data: Any) -> None:
    kind = data.draw(st.sampled_from(["checkpoint", "simulation"]), label="kind")
    source = seeds[kind]
    manifest = json.loads((source / "checkpoint.json").read_text())
    manifest.pop(SEAL)
    edited = mutate_json(data, manifest)
    # a crafted manifest can carry a valid seal (tests/test_untrusted_files.py): mostly re-seal
    reseal = isinstance(edited, dict) and data.draw(st.sampled_from([True, True, True, False]))
    content = damaged(data, with_deep(edited, sealed if reseal else None))
    with folder(seeds["root"]) as here:
        shutil.copytree(source, here / "ck")
        (here / "ck" / "checkpoint.json").write_bytes(content)
        if kind == "checkpoint":
            # a manifest sealed again with larger bounds is a larger search, not an error
            args = ["explore", "--resume", here / "ck", "--show", "none", "--time-limit", "5"]
        else:
            args = ["simulate", *SIM[:-4], "--walks", "80", "--seed", "1", "--resume", here / "ck"]
        result = invoke([*args, "--no-progress", "--out", here / "out"])
        # 2 is for a flag the user typed and 75 for a model that raised: neither is a manifest's
        holds(result, {0, 3, 4, 12, 13}, here, {"ck", "out"})


@FAST
@given(data=st.data())
def test_a_damaged_checkpoint_manifest_is_one_message(seeds, data):
    _checkpoint_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_checkpoint_manifest_is_one_message_many(seeds, data):
    _checkpoint_case(seeds, data)
