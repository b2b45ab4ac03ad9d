"""The judge's own arrays in files past the memory budget (``checker.liveness.scratch``,
``checker/native/lscratch.c``).

numpy's arrays made under ``held_in`` from the threshold up are files (unlinked, mapped) that
read and resize as heap arrays do, outlive the block, and are let go with the array; smaller
ones, and those made after the block or in a thread without the caller's context, are heap
arrays; a folder that takes no file leaves every array on the heap. The judge with every
array of 64 KiB or more in files gives the verdicts and lassos it gives in memory, on the
orbit graph and on the plain graph, and leaves no file behind.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import threading

import numpy as np
import pytest

from checker.composition.compose import build_model
from checker.liveness import orbit_run, scratch
from checker.liveness import run as live
from checker.liveness.corbits import CompiledOrbitGraph
from checker.native.core import MAP_FROM
from checker.native.layout import compiled_model
from spec.kafka import Config


def scratch_maps() -> int:
    with open("/proc/self/maps") as maps:
        return sum("hwcheck-scratch-" in line for line in maps)


@pytest.fixture(scope="module")
def lib():
    spec, _ = build_model("kafka", Config(replicas=2))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    graph = CompiledOrbitGraph(compiled, [compiled.encode(s) for s in spec.init_states()], 10**6)
    yield graph.lib
    graph.close()


def test_the_threshold_is_a_quarter_byte_a_node_and_never_under_4_mib():
    assert scratch.threshold(0) == scratch.threshold(10**6) == MAP_FROM == 4 << 20
    assert scratch.threshold(40_263_439) == 10_065_859


def test_numpy_arrays_past_the_threshold_are_files_that_outlive_the_block(lib, tmp_path):
    made, refused = scratch.counts(lib)
    big = MAP_FROM // 8  # float64 items: 4 MiB
    with scratch.held_in(lib, str(tmp_path), 0):
        zeros = np.zeros(big)
        counted = np.arange(big, dtype=np.int64)
        small = np.ones(1000)
        assert scratch_maps() == 2 and list(tmp_path.iterdir()) == []
        assert zeros.sum() == 0 and counted.sum() == big * (big - 1) // 2 and small.sum() == 1000
        counted.resize(2 * big, refcheck=False)  # numpy's realloc: a new file, the items kept
        assert scratch_maps() == 2 and (counted[:big] == np.arange(big)).all()
        small.resize(big, refcheck=False)  # a heap array grown past the threshold: a file
        assert scratch_maps() == 3 and (small[:1000] == 1).all()
        del small
        inherited: list[int] = []
        bare: list[int] = []

        def make(into: list[int]) -> None:
            array = np.ones(big)
            into.append(scratch_maps())
            del array

        context = contextvars.copy_context()
        for target in (lambda: context.run(make, inherited), lambda: make(bare)):
            thread = threading.Thread(target=target)
            thread.start()
            thread.join()
        assert inherited == [3] and bare == [2]
    after = np.zeros(big)
    assert scratch_maps() == 2 and after.sum() == 0
    del zeros
    assert scratch_maps() == 1
    del counted
    assert scratch_maps() == 0 and list(tmp_path.iterdir()) == []
    # the two arrays, the two resized ones' new files, the arange compared with and the thread's
    assert scratch.counts(lib) == (made + 6, refused)


def test_a_folder_that_takes_no_file_leaves_the_arrays_on_the_heap(lib, tmp_path):
    made, refused = scratch.counts(lib)
    with scratch.held_in(lib, str(tmp_path / "gone"), 0):
        array = np.arange(MAP_FROM // 8)
    assert scratch_maps() == 0 and array.sum() == (MAP_FROM // 8) * (MAP_FROM // 8 - 1) // 2
    assert scratch.counts(lib) == (made, refused + 1)
    with pytest.raises(OSError, match="too long"), scratch.held_in(lib, "x" * 5000, 0):
        pass


def test_the_judge_with_its_arrays_in_files_gives_the_same_answers(tmp_path, monkeypatch):
    """Kafka at 3 replicas, 1 record, epoch 1 (56,421 orbits; 337,534 states plain), every
    array of 64 KiB or more a file: the same verdicts and lassos as in memory."""
    spec, _ = build_model("kafka", Config(replicas=3, max_records=1, max_epoch=1))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    props, fairness = live.liveness_of(spec), live.fairness_of(spec)
    memory = orbit_run.check_orbits(spec, props, fairness, 10**6, "compiled", compiled)
    monkeypatch.setattr(scratch, "threshold", lambda nodes: 1 << 16)
    real, made = scratch.held_in, []

    @contextlib.contextmanager
    def counted(lib, folder, nodes):
        before = scratch.counts(lib)
        with real(lib, folder, nodes):
            yield
        if folder is not None:
            made.append(scratch.counts(lib)[0] - before[0])
        assert scratch.counts(lib)[1] == before[1]

    monkeypatch.setattr(scratch, "held_in", counted)
    files = orbit_run.check_orbits(
        spec, props, fairness, 10**6, "compiled", compiled, str(tmp_path)
    )
    assert files == memory and memory[2] == 56_421
    assert [v.verdict for v in memory[0]] == ["holds", "holds", "unknown", "holds", "unknown"]
    plain = live.check(spec, props, fairness, core="compiled", model=compiled)
    filed = live.check(spec, props, fairness, core="compiled", model=compiled, folder=str(tmp_path))
    assert filed.states == plain.states == 337_534
    assert filed.verdicts == plain.verdicts and filed.lassos == plain.lassos
    assert len(made) == 2 and min(made) > 100, made
    gc.collect()  # a cycle among the orbit judge's objects holds an array until collected
    assert scratch_maps() == 0 and list(tmp_path.iterdir()) == []
