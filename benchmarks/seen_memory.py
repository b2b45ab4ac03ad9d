"""Memory per state on the compiled local engine: this checkout beside a baseline checkout
(``--baseline DIR``, e.g. a ``git worktree`` of an older commit), interleaved (A B A B ...)
over ``--repeat`` rounds, medians printed, because the machine is shared and noisy.

Usage::

    python benchmarks/seen_memory.py --baseline /tmp/old            # 3 replicas, defaults
    python benchmarks/seen_memory.py --baseline /tmp/old --repeat 1 \\
        --replicas 4 --max-records 1 --max-epoch 2 --max-crashes 1 --fingerprint-bits 64

Every run is its own ``hwcheck explore --json`` process (``benchmarks/explore.py``'s
``run``). Columns: the tree, distinct states, median seconds of search, median peak RSS (MiB,
the whole process), and from the summary the seen set's and the parent tables' bytes a state
in memory when the search ended (``seen_bytes``, ``parent_bytes`` over ``seen_held``: a
baseline without them prints ``-``), and the parent tables in files (MiB).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from explore import ROOT, run


def per_state(stats: dict, field: str) -> str:
    held = stats.get("seen_held", 0)
    return f"{stats[field] / held:.2f}" if held and field in stats else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout to compare")
    parser.add_argument("--repeat", type=int, default=3)
    known, bounds = parser.parse_known_args()
    bounds = bounds or ["--replicas", "3"]
    trees = {"this": ROOT} | ({"baseline": known.baseline} if known.baseline else {})
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    rss: dict[str, list[float]] = {name: [] for name in trees}
    stats: dict[str, dict] = {}
    for _ in range(known.repeat):
        for name, tree in trees.items():
            stats[name] = run(tree, bounds)
            seconds[name].append(stats[name]["seconds"])
            rss[name].append(stats[name]["peak_rss_mb"])
    print("bounds:", " ".join(bounds), f"({known.repeat} rounds, medians)")
    print("| tree | distinct | seconds | peak RSS MiB | seen B/state | parents B/state | "
          "parents in files MiB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name in trees:
        s = stats[name]
        if s["distinct"] != stats["this"]["distinct"]:
            sys.exit(f"{name} found {s['distinct']:,} states, not {stats['this']['distinct']:,}")
        print(
            f"| {name} | {s['distinct']:,} | {statistics.median(seconds[name]):.1f} | "
            f"{statistics.median(rss[name]):,.0f} | {per_state(s, 'seen_bytes')} | "
            f"{per_state(s, 'parent_bytes')} | "
            f"{s.get('parent_file_bytes', 0) / (1 << 20):,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
