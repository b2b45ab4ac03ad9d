"""The Spark engine level by level, on the compiled core.

Usage::

    python benchmarks/spark_levels.py                          # the main job (3 replicas)
    python benchmarks/spark_levels.py --config '{"max_records": 3}'
    cd /old/tree && PYTHONPATH=. python benchmarks/spark_levels.py  # the same on other code

Runs ``checker.spark.engine.explore`` on ``local[2]`` with 2 partitions and the default
``--spark-min-frontier`` (20,000) for the kafka model at ``Config(replicas=3, **config)``,
symmetric, as ``hwcheck explore --engine spark`` does. The session is started first and its
start is printed apart. Printed: orbits, depth, search seconds and the driver's peak RSS
(MiB), then per Spark level its depth, frontier, new states, wall seconds and the seconds
its tasks spent in expand and dedup (summed over tasks), then the totals. Compare two trees
by running the script once from each tree's folder, with it on ``PYTHONPATH``, in turn, on
a quiet machine: the Python workers start as ``python -m`` in the JVM's folder (the
driver's), so they import ``checker`` from the current folder before ``PYTHONPATH``; run
from another tree's folder, the workers would run that tree's level functions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if "checker" not in sys.modules:
    sys.path.append(str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="{}", help="kafka Config fields, as JSON")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting"
    )
    args = parser.parse_args()

    from checker.composition.compose import Recipe
    from checker.search.partitioned.compiled_level import COMPILED
    from checker.spark import engine
    from checker.spark.session import SparkOptions, context
    from spec.kafka import Config

    recipe = Recipe("kafka", Config(**{"replicas": 3, **json.loads(args.config)}))
    conf = tuple(tuple(item.split("=", 1)) for item in args.conf)
    options = SparkOptions(master=args.master, partitions=args.partitions, conf=conf)
    started = time.perf_counter()
    context(options)
    print(f"session start {time.perf_counter() - started:.1f} s")
    result = engine.explore(recipe, None, None, options, symmetry=True, core=COMPILED)
    stats = result.stats
    print(
        f"{stats.distinct:,} orbits, depth {stats.depth}, {stats.seconds:.1f} s, "
        f"driver peak {stats.peak_rss_mb:.0f} MiB"
    )
    print("| depth | frontier | new | wall s | expand s | dedup s |")
    print("|---|---|---|---|---|---|")
    wall = expand = dedup = 0.0
    for level in stats.levels:
        if level["where"] != "spark":
            continue
        wall += level["seconds"]
        expand += level["expand_seconds"]
        dedup += level["dedup_seconds"]
        print(
            f"| {level['depth']} | {level['frontier']:,} | {level['new']:,} | "
            f"{level['seconds']:.2f} | {level['expand_seconds']:.2f} | "
            f"{level['dedup_seconds']:.2f} |"
        )
    print(
        f"Spark levels: {wall:.1f} s of wall time; tasks {expand:.1f} s expand, {dedup:.1f} s dedup"
    )


if __name__ == "__main__":
    main()
