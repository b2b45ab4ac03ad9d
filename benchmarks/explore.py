"""Throughput and memory of the local engine: both cores, 1 and N workers, with and without
symmetry.

Usage::

    python benchmarks/explore.py                         # kafka kip320, 3 replicas, defaults
    python benchmarks/explore.py --max-epoch 1           # any explore bounds after the flags
    python benchmarks/explore.py --baseline ../old-tree  # also time another checkout
    python benchmarks/explore.py --variants              # every variant of a model, 1 worker
    python benchmarks/explore.py --profile kip320 --replicas 3   # where the time goes

Rows come in pairs, the reference core (``--core reference``: the Python model, N worker
processes) beside the compiled core (``--core compiled``: C, N threads). Every run is its own
``hwcheck explore --json`` process (so its memory is its own), and the
runs are interleaved (A B C D A B C D ...) over ``--repeat`` rounds with medians printed,
because the machine is shared and noisy: quote the ratios. Columns: distinct states (orbits
with symmetry); the orbits of the space (the symmetric runs' count); median seconds; distinct
states per second; states per second counted in the plain space (the orbits' states: how much
of the unreduced space each second covers); bytes per distinct state (peak RSS of the driver
plus the largest worker, over distinct states; the whole process, interpreter included); the
speed-up against the first row.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {
    "kafka": ("hw", "kip101", "kip279", "kip320"),
    "tla": ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279"),
}


def run(tree: Path, args: list[str]) -> dict:
    """``hwcheck explore --json ARGS`` from the checkout ``tree``; its ``stats``."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "checker.cli",
                "explore",
                "--json",
                "--no-progress",
                "--out",
                out,
                *args,
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tree,
            check=False,
        )
        if proc.returncode not in (0, 12):
            sys.exit(
                f"{tree}: hwcheck explore {' '.join(args)} exited {proc.returncode}:\n"
                f"{proc.stderr or proc.stdout}"
            )
    return json.loads(proc.stdout)["stats"]


def reach(known, bounds: list[str]) -> None:
    """The workers x symmetry table (and the baseline row) for one configuration."""
    n = known.workers
    rows = []
    for workers, symmetry in (
        (1, "no symmetry"),
        (1, "symmetry"),
        (n, "no symmetry"),
        (n, "symmetry"),
    ):
        if known.skip_plain and symmetry == "no symmetry":
            continue
        flags = ["--workers", str(workers), "--" + symmetry.replace(" ", "-")]
        for core in known.cores:
            rows.append(
                (
                    f"{core}, {workers} worker{'s' if workers > 1 else ''}, {symmetry}",
                    ROOT,
                    [*flags, "--core", core],
                )
            )
    if known.baseline:
        rows.insert(0, ("baseline (1 process)", known.baseline, []))
    times: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    stats: dict[str, dict] = {}
    for _ in range(known.repeat):
        for name, tree, extra in rows:
            stats[name] = run(tree, [*bounds, *extra])
            times[name].append(stats[name]["seconds"])
    orbits = stats[rows[-1][0]]["distinct"]
    plain = next((stats[name]["distinct"] for name, _, _ in rows if "no symmetry" in name), None)
    print("bounds:", " ".join(bounds), f"({known.repeat} rounds, medians)")
    print(
        "| run | distinct | orbits | seconds | distinct/s | plain states/s | bytes/state "
        "| vs first |"
    )
    print("|---|---|---|---|---|---|---|---|")
    first = statistics.median(times[rows[0][0]])
    for name, _, _ in rows:
        s, seconds = stats[name], statistics.median(times[name])
        covered = plain if plain is not None else s["distinct"]
        memory = (s["peak_rss_mb"] + s.get("workers_peak_rss_mb", 0.0)) * 2**20
        print(
            f"| {name} | {s['distinct']:,} | {orbits:,} | {seconds:.1f} | "
            f"{s['distinct'] / seconds:,.0f} | {covered / seconds:,.0f} | "
            f"{memory / s['distinct']:,.0f} | {first / seconds:.2f}x |",
            flush=True,
        )


def variants(model: str, replicas: list[int], names: list[str] | None) -> None:
    """One row per variant and replica count (1 worker, the model's default symmetry)."""
    header = (
        "variant",
        "replicas",
        "distinct",
        "generated",
        "depth",
        "seconds",
        "distinct/s",
        "peak_rss_mb",
    )
    print(f"model: {model}" + (" (TLC's bounds, HwLeLeo only)" if model == "tla" else ""))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in replicas:
        for variant in names or VARIANTS[model]:
            extra = ["--invariant", "HwLeLeo"] if model == "tla" else []
            s = run(
                ROOT,
                [
                    "--model",
                    model,
                    "--truncation",
                    variant,
                    "--replicas",
                    str(r),
                    "--workers",
                    "1",
                    *extra,
                ],
            )
            print(
                f"| {variant} | {r} | {s['distinct']:,} | {s['generated']:,} | {s['depth']} "
                f"| {s['seconds']:.1f} | {s['distinct'] / s['seconds']:,.0f} "
                f"| {s['peak_rss_mb']:.0f} |",
                flush=True,
            )


def profile(variant: str, replicas: int) -> None:
    """The 25 functions with the most own time in one 1-worker run, without symmetry."""
    sys.path.insert(0, str(ROOT))
    from checker.composition.compose import build_model
    from checker.search.reference.bfs import explore
    from spec.kafka import Config

    spec, props = build_model("kafka", Config(replicas=replicas, truncation=variant))
    profiler = cProfile.Profile()
    profiler.enable()
    result = explore(spec, props)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    print(result.stats.distinct, "states", f"{result.stats.seconds:.1f} s (profiled)")
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="rounds (medians over them)")
    parser.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--cores",
        type=lambda text: text.split(","),
        default=["reference", "compiled"],
        help="which cores, comma-separated [reference,compiled]",
    )
    parser.add_argument(
        "--skip-plain",
        action="store_true",
        help="only the symmetric rows (the plain space may be too large)",
    )
    parser.add_argument("--variants", action="store_true", help="one row per variant")
    parser.add_argument("--model", choices=sorted(VARIANTS), default="kafka")
    parser.add_argument("--variant", action="append")
    parser.add_argument("--profile", metavar="VARIANT")
    known, bounds = parser.parse_known_args()
    if known.profile:
        profile(known.profile, 3)
    elif known.variants:
        variants(known.model, [2, 3], known.variant)
    else:
        reach(known, bounds or ["--replicas", "3"])


if __name__ == "__main__":
    main()
