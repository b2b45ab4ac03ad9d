"""Which compiler for the compiled core: the measured prototype behind the choice.

One kernel of the kafka model's hot path (the Produce and Fetch successors of a state, with
``leader_hw``, over the compiled core's rows: ``benchmarks/prototype/``) written three ways,
C (``kernel.c``, built with the machine's cc as the compiled core is), numba
(``kernel_numba.py``) and Cython (``kernel_cython.pyx``), run over the same states (every
state of kip320 at 3 replicas, 2 records, epoch 1, no crash, no symmetry), with the reference model's
``actions.produce`` and ``actions.fetch`` as the baseline. Prints, per compiler: the cold
compile time (empty cache), the warm load time, the median seconds of ``--repeat`` passes,
states per second and the speed-up over the reference. All four must agree on the number of
successors (and the compiled three on a checksum), or it stops.

Usage: ``python benchmarks/compilers.py [--repeat 5]`` (numba and Cython are skipped when not
installed: ``pip install numba cython``).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).parent / "prototype"
sys.path.insert(0, str(ROOT))


def states() -> tuple[np.ndarray, list, object]:
    """Every state of the benchmark configuration, as rows and as reference states."""
    from checker.native.layout import LAYOUT
    from checker.search.reference.bfs import explore  # noqa: F401  (the engine's imports, as a run has them)
    from spec.kafka import Config, KafkaSpec
    from spec.kafka.native import codec

    spec = KafkaSpec(Config(replicas=3, max_epoch=1, max_crashes=0))
    seen, frontier = {}, list(spec.init_states())
    for state in frontier:
        seen[state] = None
    while frontier:
        nxt = []
        for state in frontier:
            for _, succ in spec.successors(state):
                if succ not in seen:
                    seen[succ] = None
                    nxt.append(succ)
        frontier = nxt
    model = codec(spec, LAYOUT)
    rows = np.frombuffer(b"".join(model.encode(s) for s in seen), dtype=np.int8)
    return rows.reshape(len(seen), model.width).copy(), list(seen), spec


def timed(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def build_c(folder: Path):
    start = time.perf_counter()
    target = folder / "kernel.so"
    subprocess.run(
        ["cc", "-O2", "-shared", "-fPIC", str(HERE / "kernel.c"), "-o", str(target)], check=True
    )
    cold = time.perf_counter() - start
    start = time.perf_counter()
    lib = ctypes.CDLL(str(target))
    lib.kernel.restype = ctypes.c_int64
    warm = time.perf_counter() - start
    return cold, warm, lib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    rows, reference_states, spec = states()
    count, width = rows.shape
    n, r = spec.config.replicas, spec.config.max_records
    next_id_at = n * (7 + 2 * r + n) + 3 + 1 + 2 * (spec.config.max_epoch + 1)
    print(f"{count:,} states, {width} bytes a row, {repeat} passes (medians)")
    results = {}

    from spec.kafka import actions

    def reference():
        out = []
        for state in reference_states:
            actions.produce(spec, state, out)
            actions.fetch(spec, state, out)
        return len(out), None

    seconds, (made, _) = timed(reference, max(1, repeat // 2))
    results["reference (Python)"] = ("-", "-", seconds, made, None)

    with tempfile.TemporaryDirectory() as folder:
        cold, warm, lib = build_c(Path(folder))
        out = np.zeros(width, dtype=np.int8)
        checksum = ctypes.c_uint64()

        def c_kernel():
            made = lib.kernel(
                rows.ctypes.data_as(ctypes.c_void_p),
                ctypes.c_int64(count),
                width,
                n,
                r,
                next_id_at,
                out.ctypes.data_as(ctypes.c_void_p),
                ctypes.byref(checksum),
            )
            return made, checksum.value

        seconds, (made, total) = timed(c_kernel, repeat)
        results["C (cc -O2, ctypes)"] = (f"{cold:.2f}", f"{warm:.3f}", seconds, made, total)

    try:
        import numba  # noqa: F401

        cache = tempfile.mkdtemp()
        os.environ["NUMBA_CACHE_DIR"] = cache
        sys.path.insert(0, str(HERE))
        start = time.perf_counter()
        module = importlib.import_module("kernel_numba")
        module.kernel(rows[:1], n, r, next_id_at, np.zeros(width, dtype=np.int8))
        cold = time.perf_counter() - start
        probe = (
            f"import sys, time; sys.path.insert(0, {str(HERE)!r}); import numpy as np; "
            "t = time.perf_counter(); import kernel_numba as k; "
            f"k.kernel(np.zeros((1, {width}), np.int8), {n}, {r}, {next_id_at}, "
            f"np.zeros({width}, np.int8)); "
            "print(time.perf_counter() - t)"
        )
        warm = float(
            subprocess.run(
                [sys.executable, "-c", probe], capture_output=True, text=True, check=True
            ).stdout
        )
        out = np.zeros(width, dtype=np.int8)
        seconds, (made, total) = timed(lambda: module.kernel(rows, n, r, next_id_at, out), repeat)
        results["numba (njit, cache=True)"] = (
            f"{cold:.2f}",
            f"{warm:.3f}",
            seconds,
            made,
            int(total),
        )
        shutil.rmtree(cache, ignore_errors=True)
    except ImportError:
        print("numba is not installed: skipped")

    try:
        import Cython  # noqa: F401
        import pyximport

        build = tempfile.mkdtemp()
        start = time.perf_counter()
        pyximport.install(
            build_dir=build, language_level=3, setup_args={"include_dirs": np.get_include()}
        )
        sys.path.insert(0, str(HERE))
        module = importlib.import_module("kernel_cython")
        cold = time.perf_counter() - start
        out = np.zeros(width, dtype=np.int8)
        seconds, (made, total) = timed(lambda: module.kernel(rows, n, r, next_id_at, out), repeat)
        results["Cython (pyximport, -O2)"] = (f"{cold:.2f}", "-", seconds, made, int(total))
        shutil.rmtree(build, ignore_errors=True)
    except ImportError:
        print("Cython is not installed: skipped")

    made = {result[3] for result in results.values()}
    totals = {result[4] for result in results.values() if result[4] is not None}
    if len(made) != 1 or len(totals) > 1:
        sys.exit(f"the kernels disagree: successors {made}, checksums {totals}")
    base = results["reference (Python)"][2]
    print("| compiler | cold compile s | warm load s | seconds | states/s | vs reference |")
    print("|---|---|---|---|---|---|")
    for name, (cold, warm, seconds, _, _) in results.items():
        print(
            f"| {name} | {cold} | {warm} | {seconds:.4f} | {count / seconds:,.0f} | "
            f"{base / seconds:.1f}x |"
        )


if __name__ == "__main__":
    main()
