"""Checkpoints on the Spark engine: none, a folder the driver writes, or a URL the tasks write.

Usage::

    python benchmarks/spark_checkpoints.py                       # the main job (3 replicas)
    python benchmarks/spark_checkpoints.py --every 5 --rounds 2  # A B C A B C ...

Runs ``hwcheck explore --replicas 3 --engine spark --master local[2] --partitions 2`` (the
compiled core, Spark from the default ``--spark-min-frontier``) as a fresh process per run,
in turn: without checkpoints (``--checkpoint-every 0``), with a checkpoint folder (the driver
collects every level and the frontier to write them: ``checker.checkpoint.write``) and with
a ``file://`` URL (the tasks write them, the driver only the manifest:
``checker.spark.checkpoints``), both every ``--every`` seconds. Printed per run: orbits,
search seconds, the driver's peak RSS (MiB, the Python process; the JVM's is apart) and the
checkpoint's size on disk; then the median of each way over the rounds. The counts must be
equal; compare times and memory within one invocation only (the machines are shared).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(way: str, every: float, folder: Path, extra: list[str]) -> tuple[int, float, float, int]:
    """One run: ``(orbits, search seconds, driver peak MiB, checkpoint bytes)``."""
    ck = folder / "ck"
    shutil.rmtree(ck, ignore_errors=True)
    flags = {
        "none": ["--checkpoint-every", "0"],
        "folder": ["--checkpoint", str(ck), "--checkpoint-every", str(every)],
        "url": ["--checkpoint", ck.as_uri(), "--checkpoint-every", str(every)],
    }[way]
    command = [sys.executable, "-m", "checker.cli", "explore", "--replicas", "3", "--engine"]
    command += ["spark", "--master", "local[2]", "--partitions", "2", "--json", "--no-progress"]
    command += ["--out", str(folder / "reports"), *flags, *extra]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode not in (0, 12):
        raise SystemExit(f"{way}: exit {done.returncode}\n{done.stderr[-2000:]}")
    stats = json.loads(done.stdout)["stats"]
    size = sum(p.stat().st_size for p in ck.rglob("*") if p.is_file()) if ck.exists() else 0
    return stats["distinct"], stats["seconds"], stats["peak_rss_mb"], size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=5.0, help="seconds between checkpoints")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("extra", nargs="*", help="more explore flags (after --)")
    args = parser.parse_args()
    ways = ("none", "folder", "url")
    results: dict[str, list[tuple[int, float, float, int]]] = {way: [] for way in ways}
    with tempfile.TemporaryDirectory(prefix="hwcheck-bench-") as scratch:
        for _ in range(args.rounds):
            for way in ways:
                got = one(way, args.every, Path(scratch), args.extra)
                results[way].append(got)
                print(
                    f"{way:6} {got[0]:,} orbits, {got[1]:.1f} s, driver peak {got[2]:.0f} MiB, "
                    f"checkpoint {got[3] / 2**20:.1f} MiB",
                    flush=True,
                )
    print("| checkpoints | orbits | search s (median) | driver peak MiB (median) |")
    print("|---|---|---|---|")
    for way in ways:
        runs = results[way]
        print(
            f"| {way} | {runs[0][0]:,} | {statistics.median(r[1] for r in runs):.1f} | "
            f"{statistics.median(r[2] for r in runs):.0f} |"
        )
    if len({runs[0][0] for runs in results.values()}) != 1:
        raise SystemExit("the ways found different counts")


if __name__ == "__main__":
    main()
