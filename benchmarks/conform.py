"""What a conformance campaign costs: ``hwcheck conform`` against real brokers.

Usage::

    python benchmarks/conform.py                      # 10 schedules against Kafka 4.1.0
    python benchmarks/conform.py --checkout ../old    # the same with another checkout's code
    python benchmarks/conform.py -- --schedules 100 --seed 1000 --kafka 3.9.1

Runs one ``hwcheck conform`` process and samples, every half second, the resident memory of
it and of every JVM it started (``/proc``). Prints schedules and cuts per minute, the broker
start times (the first start and the restarts), the verdict counts, the peak RSS of hwcheck
(MiB) and the peak of the JVMs' sum. One campaign, not a side-by-side comparison: a change to
the harness is measured by running this before and after it, on the same seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path


def rss_mib(pid: int) -> float:
    """A process's resident memory (MiB), 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    """Every descendant of ``pid``."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("flags", nargs="*", help="hwcheck conform flags (after --)")
    parser.add_argument("--checkout", help="run this checkout's code (PYTHONPATH) instead")
    parser.add_argument("--keep", help="write the report folder here (default: a temporary one)")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.checkout:
        env["PYTHONPATH"] = str(Path(args.checkout).resolve())
    flags = args.flags or ["--schedules", "10", "--seed", "1000"]
    with tempfile.TemporaryDirectory() as scratch:
        out = args.keep or scratch
        start = time.monotonic()
        proc = subprocess.Popen(
            ["hwcheck", "conform", "--out", out, *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        peak_py = peak_jvm = 0.0
        while proc.poll() is None:
            peak_py = max(peak_py, rss_mib(proc.pid))
            peak_jvm = max(peak_jvm, sum(rss_mib(c) for c in children(proc.pid)))
            time.sleep(0.5)
        seconds = time.monotonic() - start
        doc = json.loads((Path(out) / "conform.json").read_text())
    schedules = doc["schedules"]
    cuts = [c for s in schedules for c in s["cuts"]]
    checks = Counter(c["check"] for c in cuts)
    starts = doc.get("broker_start_seconds", [])
    print(
        f"hwcheck conform {' '.join(flags)} ({args.checkout or 'this checkout'}; Kafka "
        f"{doc['kafka']}, preset {doc['preset']}), "
        f"exit {proc.returncode}, {os.cpu_count()} cores"
    )
    print(
        f"  {len(schedules)} schedules, {len(cuts)} cuts in {seconds:.0f} s: "
        f"{60 * len(schedules) / seconds:.1f} schedules/min, {60 * len(cuts) / seconds:.1f} cuts/min"
    )
    if starts:
        print(
            f"  broker start: first {max(starts[:4]):.1f} s (cluster), restarts median "
            f"{statistics.median(starts[4:]) if starts[4:] else 0:.1f} s over {len(starts) - 4}"
        )
    took = [s["seconds"] for s in schedules]
    if len(took) >= 2:
        half = len(took) // 2
        print(
            f"  seconds a schedule: median {statistics.median(took):.1f}, mean of the first "
            f"half {statistics.mean(took[:half]):.1f}, of the second {statistics.mean(took[half:]):.1f}"
        )
    print("  cuts: " + ", ".join(f"{k} {v}" for k, v in sorted(checks.items())))
    failing = [s["seed"] for s in schedules if not s["conforms"]]
    unsafe = [s["seed"] for s in schedules if not s["safe"]]
    print(
        f"  schedules that conform: {len(schedules) - len(failing)} of {len(schedules)}"
        + (f" (not: seeds {', '.join(map(str, failing))})" if failing else "")
        + (f"; unsafe on the cluster: seeds {', '.join(map(str, unsafe))}" if unsafe else "")
    )
    print(f"  peak RSS: hwcheck {peak_py:.0f} MiB, JVMs together {peak_jvm:.0f} MiB")


if __name__ == "__main__":
    main()
