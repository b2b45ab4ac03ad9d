"""Local engine against the Spark engine on the same configurations.

Usage::

    python benchmarks/engines.py                    # sizes 1e5 and 1e6
    python benchmarks/engines.py --sizes 1e5,1e6,1e7
    python benchmarks/engines.py --master 'local[2]' --partitions 2 --min-frontier 20000
    python benchmarks/engines.py --sizes 1e7 --modes local,hybrid

Modes: ``local`` (the reference engine), ``hybrid`` (the Spark engine as ``hwcheck explore
--engine spark`` runs it: levels below --min-frontier in the driver) and ``spark`` (every level
a Spark job, --min-frontier 0).

Each run is its own process. A sampler reads /proc every 0.2 s and records the peak resident
memory of the driver (the hwcheck process) and of everything it started (the JVM and its Python
workers). Printed per run: distinct states, depth, wall seconds of the search, distinct
states/s, and for Spark: levels run as Spark jobs, the fixed cost per level (least squares of
level wall time = a + b * new states over the Spark levels), the median wall time of the Spark
levels with fewer than 1,000 new states, and where the time of the Spark levels went (task time
in expand and dedup, summed over tasks, against wall time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = {  # name -> kafka Config fields (kip320; all properties, as hwcheck explore runs)
    "1e5": {"replicas": 2, "max_records": 3, "max_epoch": 2, "max_crashes": 2},
    "1e6": {"replicas": 3},
    "4e6": {"replicas": 3, "max_crashes": 2},
    "1e7": {"replicas": 3, "max_records": 3},
}


def one(mode: str, size: str, master: str, partitions: int, min_frontier: int) -> dict:
    """Run one configuration in this process; return its numbers."""
    engine = "local" if mode == "local" else "spark"
    min_frontier = 0 if mode == "spark" else min_frontier
    from checker.composition.compose import Recipe
    from checker.search.reference.bfs import explore
    from spec.kafka import Config

    recipe = Recipe("kafka", Config(**SIZES[size]))
    if engine == "local":
        spec, props = recipe.build()
        result = explore(spec, props)
    else:
        from checker.spark import engine as spark_engine
        from checker.spark.session import SparkOptions, context

        options = SparkOptions(master=master, partitions=partitions, min_frontier=min_frontier)
        started = time.perf_counter()
        context(options)  # the session start is reported apart from the search
        startup = time.perf_counter() - started
        result = spark_engine.explore(recipe, None, None, options)
    stats = result.stats
    out = {
        "engine": mode,
        "size": size,
        "status": result.status.value,
        "distinct": stats.distinct,
        "depth": stats.depth,
        "seconds": stats.seconds,
        "levels": stats.levels,
    }
    if engine != "local":
        out["startup"] = startup
    return out


def _tree_rss(root: int) -> tuple[int, int]:
    """(RSS of ``root``, RSS of all its descendants), in KiB."""
    parents, rss = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid = int(stat.parent.name)
            parents[pid] = int(fields[1])
            rss[pid] = int(fields[21]) * 4  # pages of 4 KiB
        except (OSError, IndexError, ValueError):
            continue
    children, frontier = set(), [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in children:
                children.add(child)
                frontier.append(child)
    return rss.get(root, 0), sum(rss.get(pid, 0) for pid in children)


def measure(args: list[str]) -> dict:
    """Run ``engines.py --one ...`` in a child process, sampling its memory tree."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--one", *args], stdout=subprocess.PIPE, text=True
    )
    peak_driver = peak_rest = 0
    while child.poll() is None:
        driver, rest = _tree_rss(child.pid)
        peak_driver, peak_rest = max(peak_driver, driver), max(peak_rest, rest)
        time.sleep(0.2)
    out = json.loads(child.stdout.read())
    out["driver_mib"], out["workers_mib"] = peak_driver / 1024, peak_rest / 1024
    return out


def fixed_cost(levels: list[dict]) -> tuple[float, float]:
    """Least squares of level seconds = a + b * new states over the Spark levels: (a, b)."""
    points = [(lv["new"], lv["seconds"]) for lv in levels if lv["where"] == "spark"]
    if len(points) < 2:
        return float("nan"), float("nan")
    xs, ys = zip(*points)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0
    return my - b * mx, b


def row(r: dict, local_seconds: float | None) -> str:
    rate = r["distinct"] / r["seconds"] if r["seconds"] else 0.0
    text = (
        f"| {r['size']} | {r['engine']} | {r['distinct']:,} | {r['depth']} | "
        f"{r['seconds']:.1f} | {rate:,.0f} | "
    )
    spark = [lv for lv in r["levels"] if lv["where"] == "spark"]
    if r["engine"] == "local":
        return text + f"- | - | - | - | {r['driver_mib']:,.0f} | - |"
    a, b = fixed_cost(r["levels"])
    tails = [lv["seconds"] for lv in spark if lv["new"] < 1000]
    tail = f"{statistics.median(tails):.2f}" if tails else "-"
    ratio = f"{r['seconds'] / local_seconds:.2f}x" if local_seconds else "-"
    return text + (
        f"{len(spark)}/{len(r['levels'])} | {a:.2f} s + {b * 1e6:.0f} µs/state | "
        f"{tail} | {ratio} | {r['driver_mib']:,.0f} | {r['workers_mib']:,.0f} |"
    )


def split(r: dict) -> str:
    spark = [lv for lv in r["levels"] if lv["where"] == "spark"]
    wall = sum(lv["seconds"] for lv in spark)
    expand = sum(lv["expand_seconds"] for lv in spark)
    dedup = sum(lv["dedup_seconds"] for lv in spark)
    driver = sum(lv["seconds"] for lv in r["levels"] if lv["where"] == "driver")
    return (
        f"{r['size']}: session start {r.get('startup', 0):.1f} s (not in the search time); "
        f"{len(spark)} Spark levels took {wall:.1f} s of wall time, their tasks "
        f"{expand:.1f} s in expand and {dedup:.1f} s in dedup (summed over tasks); "
        f"driver levels {driver:.1f} s; the rest of the search {r['seconds'] - wall - driver:.1f}"
        " s (traces, initial level)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--min-frontier", type=int, default=20_000)
    parser.add_argument("--modes", default="local,hybrid,spark")
    parser.add_argument("--one", nargs=2, metavar=("MODE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one, args.master, args.partitions, args.min_frontier)))
        return
    print(
        f"master {args.master}, {args.partitions} partitions, levels below "
        f"{args.min_frontier:,} frontier states in the driver"
    )
    print(
        "| size | engine | distinct | depth | search s | distinct/s | Spark levels | "
        "per-level cost (fit) | small-level median s | vs local | driver MiB | "
        "JVM + workers MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for size in args.sizes.split(","):
        common = [
            "--master",
            args.master,
            "--partitions",
            str(args.partitions),
            "--min-frontier",
            str(args.min_frontier),
        ]
        local = None
        for mode in args.modes.split(","):
            run = measure([mode, size, *common])
            if mode == "local":
                local = run
            print(row(run, local["seconds"] if local else None), flush=True)
            if local:
                assert (run["distinct"], run["depth"]) == (local["distinct"], local["depth"])
            if mode != "local":
                notes.append(f"{mode} " + split(run))
    print()
    for note in notes:
        print("-", note)


if __name__ == "__main__":
    main()
