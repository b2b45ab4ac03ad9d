"""The compiled engine's disk tier: one search in memory beside the same search under memory
budgets (``--memory``), interleaved (A B C A B C ...) over ``--repeat`` rounds, medians
printed, because the machine is shared and noisy: quote the ratios.

Usage::

    python benchmarks/disk_tier.py                          # kafka, 3 replicas, defaults
    python benchmarks/disk_tier.py --budget 1M --budget 60M  # the budgets to compare
    python benchmarks/disk_tier.py --replicas 4 --max-records 2 --max-epoch 1 --max-crashes 1

Every run is its own ``hwcheck explore --json`` process (``benchmarks/explore.py``'s ``run``),
so its peak memory is its own. Columns: the budget (``none``: what the machine has free, the
default), distinct states, median seconds, median peak RSS (MiB, the whole process), what the
disk tier held at most (MiB), seconds against the in-memory run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explore import ROOT, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", action="append", default=None, help="a --memory SIZE")
    parser.add_argument("--repeat", type=int, default=3)
    known, bounds = parser.parse_known_args()
    bounds = bounds or ["--replicas", "3"]
    rows = [("none", [])] + [(b, ["--memory", b]) for b in known.budget or ["1M"]]
    seconds: dict[str, list[float]] = {name: [] for name, _ in rows}
    rss: dict[str, list[float]] = {name: [] for name, _ in rows}
    stats: dict[str, dict] = {}
    for _ in range(known.repeat):
        for name, extra in rows:
            stats[name] = run(ROOT, [*bounds, *extra])
            seconds[name].append(stats[name]["seconds"])
            rss[name].append(stats[name]["peak_rss_mb"])
    print("bounds:", " ".join(bounds), f"({known.repeat} rounds, medians)")
    print("| --memory | distinct | seconds | peak RSS MiB | on disk MiB | time vs none |")
    print("|---|---|---|---|---|---|")
    first = statistics.median(seconds["none"])
    for name, _ in rows:
        s, t = stats[name], statistics.median(seconds[name])
        if s["distinct"] != stats["none"]["distinct"]:
            sys.exit(
                f"--memory {name} found {s['distinct']:,} states, not {stats['none']['distinct']:,}"
            )
        print(
            f"| {name} | {s['distinct']:,} | {t:.2f} | {statistics.median(rss[name]):,.0f} | "
            f"{s.get('disk_mb', 0):,.0f} | {t / first:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
