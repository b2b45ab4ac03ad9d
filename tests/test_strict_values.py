"""Bounds on every value (issue 63): the model's bounds within what the cores and the labels
can hold, checked before any model is built, from the command line (exit 2) and from files
(exit 4); seconds finite, weights finite, worker counts bounded, digits ASCII."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.commands.values import MAX_WORKERS
from spec.bounds import ConfigError
from spec.kafka import Config
from spec.kafka.config import LIMITS
from spec.tla import TlaConfig

ROOT = Path(__file__).resolve().parent.parent
GALLERY_LOSS = ROOT / "reports" / "gallery" / "hw-truncation-loss" / "trace.json"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explore", "--max-epoch", "1000000000"], "--max-epoch must be between 0 and 15"),
        (["explore", "--max-records", "8"], "--max-records must be between 0 and 7"),
        (["explore", "--max-crashes", "101"], "--max-crashes must be between 0 and 100"),
        (["compare", "--max-epoch", str(2**63)], "--max-epoch must be between 0 and 15"),
        (["explore", "--model", "tla", "--max-epoch", "15"], "between 0 and 14"),
        (["explore", "--time-limit", "nan"], "'nan' is not a finite number"),
        (["explore", "--time-limit", "inf"], "'inf' is not a finite number"),
        (["explore", "--checkpoint-every", "nan"], "'nan' is not a finite number"),
        (["explore", "--replicas", "３"], "not a number written in ASCII digits"),
        (["explore", "--max-epoch", "٣"], "not a number written in ASCII digits"),
        (["explore", "--workers", str(MAX_WORKERS + 1)], f"1<=x<={MAX_WORKERS}"),
        (["simulate", "--weight", "Fetch=inf"], "a finite weight of 0 or more"),
        (["simulate", "--weight", "Fetch=nan"], "a finite weight of 0 or more"),
    ],
)
def test_a_value_out_of_range_is_one_line_and_exit_2(tmp_path, argv, message):
    result = CliRunner().invoke(cli, [*argv, "--no-progress", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_a_bound_from_a_file_is_checked_before_any_model_is_built(tmp_path):
    """A trace or a schedule header with an epoch bound of 10^9 once ran a minute and grew
    past 2 GB building labels; now it is refused at once (exit 4)."""
    document = json.loads(GALLERY_LOSS.read_text())
    document["config"]["max_epoch"] = 10**9
    trace = tmp_path / "big.json"
    trace.write_text(json.dumps(document))
    replayed = CliRunner().invoke(cli, ["replay", str(trace)])
    assert replayed.exit_code == 4 and "--max-epoch must be between 0 and 15" in replayed.output
    header = tmp_path / "big.txt"
    header.write_text("# hwcheck: --max-epoch 1000000\nElect(leader=0)\n")
    played = CliRunner().invoke(cli, ["scenario", str(header), "--out", str(tmp_path / "s")])
    assert played.exit_code == 4 and "line 1: header:" in played.output


def test_a_boolean_is_not_a_bound():
    """``True == 1`` in Python; a file that says ``"max_epoch": true`` is refused."""
    with pytest.raises(ConfigError, match="--max-epoch must be an integer, got True"):
        Config(max_epoch=True).validate()
    with pytest.raises(ConfigError, match="--min-isr must be an integer"):
        Config(min_isr=True).validate()
    with pytest.raises(ConfigError, match="--log-size must be an integer"):
        TlaConfig(log_size=False).validate()


def test_every_limit_is_a_core_s_and_list_states_it():
    """The compiled core refuses past these (``kafka.h``'s MAXR 8 and MAXE 16); the edges
    themselves are accepted."""
    assert LIMITS["max_records"] == (0, 7) and LIMITS["max_epoch"] == (0, 15)
    Config(replicas=2, max_records=7, max_epoch=15).validate()
    listed = CliRunner().invoke(cli, ["list", "bounds"], terminal_width=200)
    assert re.search(r"--max-epoch\s+│\s+2\s+│\s+0 to 15\s+│", listed.output)
    assert "1 to --replicas" in listed.output
