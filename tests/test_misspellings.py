"""Issue 64's messages: a number option given a word says what it takes, and a misspelt
gate key, property, preset or mechanism gets "did you mean ...?" (exit 2 on the command
line, 4 in a gate config, one line each, before any model runs)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.commands.spelling import suggestion
from spec.kafka.config import MAX_REPLICAS


def last_line(*args: str) -> tuple[int, str]:
    run = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in run.output
    return run.exit_code, run.output.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "args,said",
    [
        (
            ("--replicas", "three"),
            f"'--replicas': 'three' is not a number; expected a whole number from 1 to {MAX_REPLICAS}.",
        ),
        (("--max-crashes", "x"), "'x' is not a number; expected a whole number, 0 or more."),
        (
            ("--time-limit", "soon"),
            "'soon' is not a number; expected a number of seconds greater than 0.",
        ),
        (("--invariant", "WeakISR"), "unknown property 'WeakISR' (did you mean 'WeakIsr'?)"),
        (("--truncation", "kip32"), "got 'kip32' (did you mean 'kip320'?)"),
        (("--with", "fenced-fech"), "(did you mean 'fenced-fetch'?)"),
        (("--model", "tla", "--truncation", "kip320-frist-try"), "'kip320-first-try'?"),
    ],
)
def test_a_word_where_a_number_or_a_name_belongs_says_what_is_expected(args, said):
    code, line = last_line("explore", *args)
    assert code == 2 and said in line, line


def test_nothing_close_gets_no_guess():
    assert suggestion("zzzz", ["WeakIsr", "StrongIsr"]) == ""
    assert suggestion("kip999", ["kip966", "kip320"]) == ""  # 4 of 6 letters: a guess
    assert suggestion("strongisr", ["WeakIsr", "StrongIsr"]) == " (did you mean 'StrongIsr'?)"


@pytest.mark.parametrize(
    "body,said",
    [
        ('replica = 3\nexpect = "holds"', "key 'replica': unknown key; did you mean 'replicas'?"),
        ('max_crash = 1\nexpect = "holds"', "did you mean 'max_crashes'?"),
        ('violates = ["WeakISR"]', "no property WeakISR (did you mean 'WeakIsr'?)"),
        ('invariants = ["StrongISR"]\nexpect = "holds"', "(did you mean 'StrongIsr'?)"),
    ],
)
def test_a_misspelt_gate_key_or_name_gets_did_you_mean(tmp_path, body, said):
    config = tmp_path / "gate.toml"
    config.write_text(f'[[tool.hwcheck.gate]]\ntruncation = "kip320"\n{body}\n')
    code, line = last_line("gate", "--config", str(config))
    assert code == 4 and said in line, line
    assert line.startswith(f"Error: {config}:3: gate check 1, key ")
