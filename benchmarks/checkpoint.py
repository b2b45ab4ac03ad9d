"""What checkpoints cost: the main job with its default checkpoint interval against
``--checkpoint-every 0``, side by side, and the size of a checkpoint per state.

Usage::

    python benchmarks/checkpoint.py                    # the main job, 3 rounds
    python benchmarks/checkpoint.py --rounds 5 -- --replicas 3 --max-records 3

Runs ``hwcheck explore`` (the main job's bounds, or the explore flags after ``--``) as child
processes in turn, A B A B …, so a drift of the machine's speed hits both alike:

- **default**: checkpoints every 300 s (the default): every level's file is written as the
  level commits (16 bytes a state), and a checkpoint when 300 s have passed;
- **off**: ``--checkpoint-every 0``;
- **every 1 s**: ``--checkpoint DIR --checkpoint-every 1``: a checkpoint (frontier, and the
  compiled core's seen set) at least every second, and the final one kept, whose size is
  reported per state.

Prints per mode the median wall seconds of the whole process and of the search (the
summary's ``seconds``), the median ratio to **off** (pair by pair) and the peak resident
memory (MiB, the child's ``ru_maxrss``); then the kept checkpoint's bytes per state, by file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = {
    "default": [],
    "off": ["--checkpoint-every", "0"],
    "every 1 s": ["--checkpoint", "{tmp}/ck", "--checkpoint-every", "1"],
}


def run(flags: list[str], tmp: str) -> tuple[float, float, float, dict]:
    """One child: ``(wall seconds, search seconds, peak MiB, summary)``."""
    out = Path(tmp) / "out"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(Path(tmp) / "ck", ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "checker.cli",
        "explore",
        "--no-progress",
        "--json",
        "--out",
        str(out),
        *[f.format(tmp=tmp) for f in flags],
    ]
    began = time.perf_counter()
    with open(Path(tmp) / "stdout", "w") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    summary = json.loads((out / "summary.json").read_text())
    if os.waitstatus_to_exitcode(status) not in (0, 12):
        raise SystemExit(f"{command} exited {status}")
    return wall, summary["stats"]["seconds"], usage.ru_maxrss / 1024, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("flags", nargs="*", help="explore flags [--replicas 3]")
    args = parser.parse_args()
    flags = args.flags or ["--replicas", "3"]
    tmp = tempfile.mkdtemp(prefix="hwcheck-bench-")
    rows: dict[str, list[tuple[float, float, float]]] = {mode: [] for mode in MODES}
    summary: dict = {}
    try:
        for _ in range(args.rounds):
            for mode, extra in MODES.items():
                wall, search, peak, summary = run([*flags, *extra], tmp)
                rows[mode].append((wall, search, peak))
        by_kind: dict[str, int] = {}
        for path in (Path(tmp) / "ck").rglob("*"):
            if path.is_file():
                kind = path.relative_to(Path(tmp) / "ck").parts[0].split("-")[0].split(".")[0]
                by_kind[kind] = by_kind.get(kind, 0) + path.stat().st_size
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    states = summary["stats"]["distinct"]
    print(
        f"hwcheck explore {' '.join(flags)}: {states:,} states, {args.rounds} rounds, "
        f"{os.cpu_count()} cores"
    )
    print(f"{'mode':<10} {'wall s':>8} {'search s':>9} {'ratio to off':>13} {'peak MiB':>9}")
    off = rows["off"]
    for mode, runs in rows.items():
        ratio = statistics.median(a[0] / b[0] for a, b in zip(runs, off))
        print(
            f"{mode:<10} {statistics.median(r[0] for r in runs):>8.2f} "
            f"{statistics.median(r[1] for r in runs):>9.2f} {ratio:>13.3f} "
            f"{statistics.median(r[2] for r in runs):>9.0f}"
        )
    total = sum(by_kind.values())
    parts = ", ".join(f"{kind} {size / states:.1f}" for kind, size in sorted(by_kind.items()))
    print(f"kept checkpoint: {total / 2**20:.1f} MiB, {total / states:.1f} bytes a state ({parts})")


if __name__ == "__main__":
    main()
