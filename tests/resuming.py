"""What the checkpoint tests share (``tests/test_checkpoint*.py``): ``SMALL``, the model they
cut and resume, and ``cli_run``, ``hwcheck`` run in-process with a folder as the working
directory."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from checker.cli import cli

# 30,797 orbits, depth 26, six properties violated on the way: traces must survive a resume
SMALL = ["--replicas", "2", "--truncation", "hw", "--max-records", "2", "--max-crashes", "2"]


def cli_run(*args: str, cwd: Path):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
