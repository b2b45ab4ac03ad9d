"""Differential tests: the Spark engine gives exactly the local engine's answers.

Every model, every distinct kafka variant (release presets equal to another preset are one
model), replica counts 1 to 3 and partition counts 1, 2 and 7 run through the Spark engine's
level functions in the driver (fast), and a spread of them as real Spark jobs
(``min_frontier=0``: every level is a Spark job) on one ``local[2]`` context shared by the
whole test session. Compared: status, reason, distinct and generated counts, depth, per-action
coverage, verdicts and every counterexample step (label, fingerprint, state).
"""

from __future__ import annotations

import functools
import sys

import pytest
from conftest import CLASSIC
from pyspark import cloudpickle

from checker.composition.compose import Recipe
from checker.search.partitioned.compiled_level import COMPILED
from checker.search.partitioned.level import REFERENCE
from checker.search.reference.bfs import Limits
from checker.search.reference.bfs import explore as local_explore
from checker.spark import engine, session
from checker.spark.session import SparkOptions
from spec.kafka import Config, KafkaSpec
from spec.kafka.config import TRUNCATION_VARIANTS
from spec.kafka.variants import PRESETS
from spec.tla import TlaConfig
from spec.tla.config import TLA_VARIANTS

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests/

LEVELS = {"reference": REFERENCE, "compiled": COMPILED}
"""The level functions of each core, by its ``--core`` name."""

IN_DRIVER = 10**12  # min_frontier: every level runs in the driver
ON_SPARK = 0  # min_frontier: every level is a Spark job


@pytest.fixture(scope="session")
def spark():
    """The one SparkContext of the test session (local[2], as on the 2-core CI machine)."""
    sc = session.context(SparkOptions(master="local[2]"))
    yield sc
    session.stop()


def signature(result):
    """Everything both engines must agree on (not timings, memory or the engine's name)."""
    stats = result.stats
    return (
        result.status,
        result.reason,
        stats.distinct,
        stats.generated,
        stats.depth,
        stats.frontier,
        stats.actions,
        result.exhausted,
        result.unreached,
        [
            (v.prop.name, [(str(s.label), s.fingerprint, s.state) for s in v.trace])
            for v in result.violations
        ],
    )


NO_LIMITS = Limits()


def kconfig(**fields) -> Config:
    """A kafka Config at the unit tests' bounds (``conftest.CLASSIC``) with ``fields`` over them."""
    return Config(**{**CLASSIC, **fields})


def local(recipe: Recipe, limits: Limits = NO_LIMITS, symmetry: bool = False):
    spec, props = recipe.build()
    return local_explore(spec, props, limits, symmetry=symmetry)


@functools.cache
def expected(recipe: Recipe, limits: Limits = NO_LIMITS, symmetry: bool = False):
    """``signature`` of the reference engine's run, once a process: a recipe's level-function
    cases (up to six partition counts and cores) all compare with the same run."""
    return signature(local(recipe, limits, symmetry))


def spark_run(
    recipe: Recipe,
    partitions: int,
    min_frontier: int,
    limits: Limits = NO_LIMITS,
    symmetry: bool = False,
    core: str = "reference",
    **options,
):
    return engine.explore(
        recipe,
        limits,
        None,
        SparkOptions(partitions=partitions, min_frontier=min_frontier, **options),
        symmetry,
        LEVELS[core],
    )


def _distinct_presets() -> list[str]:
    """The first built-in preset of each distinct model: a release preset that equals a KIP's
    (kafka-0.10 is hw, kafka-2.1 kip320, ...) or another release's (kafka-4.0 is kafka-3.7)
    has the same rule and switches, the same model."""
    first: dict[object, str] = {}
    for name in TRUNCATION_VARIANTS:
        first.setdefault((PRESETS[name].rule.name, PRESETS[name].switches), name)
    return list(first.values())


KAFKA = [
    *(Recipe("kafka", kconfig(replicas=2, truncation=v)) for v in _distinct_presets()),
    *(Recipe("kafka", kconfig(replicas=1, truncation=v)) for v in ("hw", "kip320", "kafka-4.1")),
]
"""Every distinct preset at 2 replicas, and three at 1 (no follower: nothing to truncate)."""
TLA = [Recipe("tla", TlaConfig(replicas=2, truncation=v)) for v in TLA_VARIANTS]
THREE = Recipe(
    "tla", TlaConfig(replicas=3, log_size=1, max_records=1, max_epoch=1, truncation="hw")
)


@pytest.mark.parametrize("partitions", [1, 2, 7])
@pytest.mark.parametrize(
    "recipe",
    [*KAFKA, *TLA, THREE],
    ids=lambda r: f"{r.model}-{r.config.truncation}-r{r.config.replicas}",
)
def test_level_functions_match_local_engine(recipe, partitions):
    assert signature(spark_run(recipe, partitions, IN_DRIVER)) == expected(recipe)


@pytest.mark.parametrize(
    ("partitions", "symmetry"), [(1, False), (7, False), (2, True)], ids=["P1", "P7", "P2-symmetry"]
)
@pytest.mark.parametrize(
    "recipe",
    [*KAFKA, *TLA, THREE],
    ids=lambda r: f"{r.model}-{r.config.truncation}-r{r.config.replicas}",
)
def test_compiled_level_functions_match_local_engine(recipe, partitions, symmetry):
    """The level functions on the compiled core (rows in the frontier files, arrays in the
    buckets) give the reference engine's answers, counterexamples included."""
    result = spark_run(recipe, partitions, IN_DRIVER, symmetry=symmetry, core="compiled")
    assert signature(result) == expected(recipe, symmetry=symmetry)


SPARK_CASES = [
    (Recipe("kafka", kconfig(replicas=2, truncation="kip101")), 1),
    (Recipe("tla", TlaConfig(replicas=2, truncation="kip320")), 3),
    (THREE, 2),
]
"""Real Spark jobs for 1 partition, as many as local[2] has cores, and more (3, here and in the
compiled and symmetric cases below), over both models, a fenced and an unfenced variant (and a
chosen property: ``test_spark_levels_write_no_level_files``; an option, unclean election, is the
compiled cases' first). What a level job computes is
the level functions' (``checker.search.partitioned.level``), which run above for every recipe at 1,
2 and 7 partitions without Spark; the jobs add Spark's shuffle, pickling and task placement, which
do not depend on the variant."""


@pytest.mark.parametrize(
    ("recipe", "partitions"),
    SPARK_CASES,
    ids=[
        f"{r.model}-{r.config.truncation}-r{r.config.replicas}-P{p}"
        + ("-unclean" if getattr(r.config, "unclean_election", 0) else "")
        + ("-" + "+".join(r.names) if r.names else "")
        for r, p in SPARK_CASES
    ],
)
def test_spark_jobs_match_local_engine(spark, recipe, partitions):
    result = spark_run(recipe, partitions, ON_SPARK)
    assert signature(result) == expected(recipe)
    assert result.stats.engine == f"spark ({partitions} partitions)"
    assert [lv["where"] for lv in result.stats.levels] == ["spark"] * len(result.stats.levels)
    # one job per level expanded; when the search exhausts, the last level's job finds nothing
    assert len(result.stats.levels) == result.stats.depth - (not result.exhausted)


@pytest.mark.parametrize("core", ["reference", "compiled"])
def test_mixed_driver_and_spark_levels_match(spark, core):
    """Small levels in the driver until one reaches 300 states, then every level on Spark,
    whose executors keep the states from there on (2 replicas, hw: 4,276 states, the loss
    and ISR counterexamples found in both), on both cores."""
    recipe = Recipe("kafka", kconfig(replicas=2, truncation="hw"))
    result = spark_run(recipe, 2, 300, core=core)
    where = [lv["where"] for lv in result.stats.levels]
    first = where.index("spark")
    assert first > 0 and where[first:] == ["spark"] * (len(where) - first)
    assert (
        result.stats.levels[first - 1]["frontier"] < 300 <= result.stats.levels[first]["frontier"]
    )
    assert signature(result) == expected(recipe)
    assert result.stats.distinct == 4_276


COMPILED_CASES = [
    (Recipe("kafka", kconfig(replicas=2, truncation="kip320", unclean_election=True)), 3, False),
    (
        Recipe("kafka", kconfig(replicas=3, max_records=1, max_crashes=0, truncation="kip101")),
        2,
        True,
    ),
    (THREE, 3, False),
]


@pytest.mark.parametrize(
    ("recipe", "partitions", "symmetry"),
    COMPILED_CASES,
    ids=[
        f"{r.model}-{r.config.truncation}-r{r.config.replicas}-P{p}" + ("-sym" if s else "")
        for r, p, s in COMPILED_CASES
    ],
)
def test_compiled_spark_jobs_match_local_engine(spark, recipe, partitions, symmetry):
    """Every level a Spark job whose tasks run the compiled core: the reference engine's
    answers."""
    result = spark_run(recipe, partitions, ON_SPARK, symmetry=symmetry, core="compiled")
    assert signature(result) == expected(recipe, symmetry=symmetry)
    assert {lv["where"] for lv in result.stats.levels} == {"spark"}


SYMMETRIC_CASES = [
    (Recipe("kafka", kconfig(replicas=3, max_records=1, max_crashes=0, truncation="hw")), 2),
    (Recipe("tla", TlaConfig(replicas=2, truncation="kip320")), 3),
]


@pytest.mark.parametrize(
    ("recipe", "partitions"),
    SYMMETRIC_CASES,
    ids=[f"{r.model}-{r.config.truncation}-r{r.config.replicas}-P{p}" for r, p in SYMMETRIC_CASES],
)
def test_symmetric_spark_jobs_match_local_engine(spark, recipe, partitions):
    """With symmetry every worker canonicalises as the driver does: the same orbit counts,
    verdicts and concrete counterexamples as the local engine with symmetry. The TLA+ port's
    count is TLC's: TLC 2.18 with SYMMETRY Permutations(Replicas), 2 replicas, LogSize =
    MaxRecords = MaxLeaderEpoch = 2, kip320: 2,987 distinct states, depth 18."""
    result = spark_run(recipe, partitions, ON_SPARK, symmetry=True)
    assert result.stats.symmetry
    assert signature(result) == expected(recipe, symmetry=True)
    if recipe.model == "tla":
        assert (result.stats.distinct, result.stats.depth) == (2987, 18)


def test_depth_bound_matches(spark):
    recipe = Recipe("kafka", kconfig(replicas=2, truncation="kip320"))
    limits = Limits(max_depth=12)  # of its 16 levels
    result = spark_run(recipe, 2, ON_SPARK, limits)
    assert not result.exhausted and result.stats.depth == 12
    assert signature(result) == expected(recipe, limits)


class ExplodingSpec:
    """A Kafka spec whose Crash action raises: both engines must report the same ERROR."""

    def __init__(self, config):
        self.inner = KafkaSpec(config)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def successors(self, state):
        for label, succ in self.inner.successors(state):
            if label.action == "Crash":
                raise RuntimeError(f"boom in {label}")
            yield label, succ


class ExplodingRecipe(Recipe):
    def build(self):
        _, props = super().build()
        return ExplodingSpec(self.config), props


@pytest.mark.parametrize("min_frontier", [IN_DRIVER, ON_SPARK])
def test_spec_exception_gives_the_same_error(spark, min_frontier):
    recipe = ExplodingRecipe("kafka", kconfig(replicas=2))
    result = spark_run(recipe, 2, min_frontier)
    assert result.status.value == "ERROR"
    assert result.reason.startswith("the spec raised RuntimeError: boom in Crash(")
    assert signature(result) == expected(recipe)


def test_spark_levels_write_no_level_files(spark, tmp_path):
    """Once on Spark, a level's states stay in the executors' RDDs: the work folder keeps
    only the level files the RDDs were loaded from (level 1's frontier and seen set, per
    partition), none per later level, and no seen set is rewritten. (Also the Spark jobs'
    case of an unfenced variant with one chosen property, on as many partitions as local[2]
    has cores: the local engine's answers.)"""
    recipe = Recipe("kafka", kconfig(replicas=2, truncation="hw"), ("NoDivergence",))
    work = tmp_path / "work"
    result = spark_run(recipe, 2, ON_SPARK, work_dir=str(work))
    assert signature(result) == expected(recipe)
    assert result.stats.depth == 14  # where the one property asked is violated: the search ends
    files = sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file())
    assert files == [
        "L0001/frontier-0.bin",
        "L0001/frontier-1.bin",
        "L0001/seen-0.npy",
        "L0001/seen-1.npy",
    ]


def test_local_cores_from_master_url():
    assert engine.local_cores("local") == 1
    assert engine.local_cores("local[3]") == 3
    assert engine.local_cores("local[4,2]") == 4
    assert engine.local_cores("local-cluster[2,1,1024]") == 2
    assert engine.local_cores("spark://host:7077") is None
    assert engine.local_cores(None) is None


@pytest.mark.parametrize("core", ["reference", "compiled"])
def test_simulation_on_spark_matches_local_workers(spark, core):
    """hwcheck simulate --engine spark: the same walks, statistics and shrunk traces with 1
    and 3 partitions, on either core, as on 1 local worker on the reference core."""
    from test_simulate import BIG, comparable, recipe

    from checker.simulate.simulation import simulate
    from checker.simulate.walks import WalkPlan
    from checker.spark import walks as spark_walks

    run, plan = recipe(replicas=3, truncation="kip101", **BIG), WalkPlan(seed=5, depth=40)
    local = comparable(simulate(run, plan, walks=130, workers=1))
    for partitions in (1, 3):
        on_spark = simulate(
            run,
            plan,
            walks=130,
            core=core,
            spark=spark_walks.on(SparkOptions(master="local[2]", partitions=partitions)),
        )
        assert on_spark.engine == f"spark ({partitions} partitions)"
        assert on_spark.core == (core if core == "compiled" else "reference (--core reference)")
        assert comparable(on_spark) == local


def test_ctrl_c_on_spark_prints_one_line_and_leaves_nothing_behind(tmp_path):
    """A terminal's Ctrl-C reaches hwcheck, the JVM and its Python workers at once. Expected:
    one line on stderr (no py4j ``ERROR:root:`` tracebacks), the partial summary, exit 3, no
    JVM or worker alive afterwards and no ``hwcheck-spark-*`` folder left (TMPDIR). On the
    reference core: on the compiled one the run is over (17 s) before the Ctrl-C."""
    from test_interrupts import Ready, assert_ends_as_interrupted, interrupt_after

    code, out, err, left = interrupt_after(
        [
            "explore",
            "--replicas",
            "3",
            "--engine",
            "spark",
            "--spark-min-frontier",
            "0",
            "--core",
            "reference",
            "--no-progress",
            "--out",
            "x",
        ],
        Ready("x/checkpoint/levels/L0004.npy", workers=2),
        tmp_path,
        wait=90,
    )
    assert code == 3, err
    assert len(err.strip().splitlines()) == 3, err
    assert_ends_as_interrupted(err)
    assert "INCOMPLETE" in out
    assert not left, "a JVM or Python worker outlived the command"
    assert not list(tmp_path.glob("hwcheck-spark-*"))


def test_the_task_watcher_reports_tasks_done_of_the_running_job():
    """``lifecycle.watching`` polls Spark's status tracker (here a stand-in with one job of
    two stages, 3 of 4 and 0 of 4 tasks done) and reports ``(done, total)`` until the block
    ends."""
    import threading
    from types import SimpleNamespace

    from checker.spark import lifecycle

    stages = {
        7: SimpleNamespace(numCompletedTasks=3, numTasks=4),
        8: SimpleNamespace(numCompletedTasks=0, numTasks=4),
    }
    tracker = SimpleNamespace(
        getActiveJobsIds=lambda: [1],
        getJobInfo=lambda job: SimpleNamespace(stageIds=[7, 8]),
        getStageInfo=stages.get,
    )
    seen, called = [], threading.Event()

    def on_tasks(done, total):
        seen.append((done, total))
        called.set()

    with lifecycle.watching(SimpleNamespace(statusTracker=lambda: tracker), on_tasks):
        assert called.wait(5)
    count = len(seen)
    threading.Event().wait(1.2)
    assert seen[0] == (3, 8) and len(seen) == count  # nothing after the block ended
