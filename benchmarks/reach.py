"""Reach of the local engine: 1 and N workers, with and without symmetry, on one configuration.

Usage::

    python benchmarks/reach.py                          # kafka kip320, 3 replicas, default bounds
    python benchmarks/reach.py --max-epoch 1            # the old default bounds
    python benchmarks/reach.py --baseline ../old-tree   # also run another checkout's engine

Each run is a separate ``hwcheck explore --json`` process, so its memory is its own; runs are
interleaved (A B A B ...) over ``--repeat`` rounds and medians are printed, because the
machine is shared. Columns: distinct states (orbits with symmetry), the orbits of the space
(the symmetric run's count), seconds, distinct states/s, bytes per distinct state (peak RSS
of the driver plus the largest worker, over distinct states) and the speed-up against the
first row.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(tree: Path, args: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        proc = subprocess.run([sys.executable, "-m", "checker.cli", "explore", "--json",
                               "--no-progress", "--out", out, *args],
                              capture_output=True, text=True, env=env, cwd=tree, check=True)
        summary = json.loads(proc.stdout)
    return summary["stats"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    known, bounds = parser.parse_known_args()
    bounds = bounds or ["--replicas", "3"]
    rows = [("1 worker, no symmetry", ROOT, ["--workers", "1", "--no-symmetry"]),
            ("1 worker, symmetry", ROOT, ["--workers", "1", "--symmetry"]),
            (f"{known.workers} workers, no symmetry", ROOT,
             ["--workers", str(known.workers), "--no-symmetry"]),
            (f"{known.workers} workers, symmetry", ROOT,
             ["--workers", str(known.workers), "--symmetry"])]
    if known.baseline:
        rows.insert(0, ("baseline (1 process)", known.baseline, []))
    times: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    stats: dict[str, dict] = {}
    for _ in range(known.repeat):
        for name, tree, extra in rows:
            stats[name] = run(tree, [*bounds, *extra])
            times[name].append(stats[name]["seconds"])
    orbits = stats[rows[-1][0]]["distinct"]
    print("bounds:", " ".join(bounds))
    print("| run | distinct | orbits | seconds (median) | distinct/s | bytes/state | vs first |")
    print("|---|---|---|---|---|---|---|")
    first = statistics.median(times[rows[0][0]])
    for name, _, _ in rows:
        s, seconds = stats[name], statistics.median(times[name])
        memory = (s["peak_rss_mb"] + s.get("workers_peak_rss_mb", 0.0)) * 2**20
        print(f"| {name} | {s['distinct']:,} | {orbits:,} | {seconds:.1f} | "
              f"{s['distinct'] / seconds:,.0f} | {memory / s['distinct']:,.0f} | "
              f"{first / seconds:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
