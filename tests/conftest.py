"""Shared helpers: build the Kafka model, replay label sequences, hand-build states."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import invariants
from checker.fingerprint import fingerprint
from checker.model import Label
from checker.search.reference.bfs import Limits, explore
from checker.trace import replay
from spec.kafka import Config, KafkaSpec

# The differential tests must reach the compiled core even while its certificate is stale (a
# change being mirrored in C): checker.native.certificate. Children and Spark workers inherit
# it. tests/test_certificate.py checks the certificate and the fallback on their own.
os.environ["HWCHECK_UNCERTIFIED_CORE"] = "1"

# pytest-xdist's workers get COLUMNS=80 and LINES=24 from the controller's terminal; tests that
# read tables (wrapped at COLUMNS when it is set) must see what a serial run sees.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

DURATIONS = Path(__file__).with_name("durations.json")
"""Each test's measured seconds (setup, call and teardown, on the 2-core machine, under
``-n auto``; only those of half a second or more): the ``slow`` mark is derived from them.
Measure again with ``HWCHECK_RECORD_DURATIONS=1 python -m pytest -q -m "" tests``: at
the end of a run the tests that ran get their new figures, the others keep theirs."""
SLOW_SECONDS = 2.0
"""A test measured at this many seconds or more is ``slow``: out of the default tier
(README's test command, ``-m "not slow"`` in ``addopts``) and in ``-m slow``, the rest of
the suite that ``.ci/run`` also runs."""
SMOKE = (
    "tests/test_spark.py::test_spark_jobs_match_local_engine[tla-kip320-r2-P3]",
    "tests/test_conform.py::test_one_seeded_schedule_conforms",
    "tests/test_docs_claims.py::test_the_docs_say_what_the_runs_say[explore --replicas 3]",
    "tests/test_certificate.py::test_a_wording_edit_keeps_the_compiled_core",
    "tests/test_compiled.py::test_runs_give_the_reference_answers[kip966 min ISR 2, unclean-False]",
)
"""Node id prefixes of slow tests kept in the default tier, one of each family that the
rest of the suite holds many of: a Spark job, real Kafka brokers, a claim of the docs
(README's main job), the certificate, a whole run on both cores (the browser, Ctrl-C and
fuzz families have tests under ``SLOW_SECONDS`` there already)."""


def pytest_collection_modifyitems(config, items):
    measured = json.loads(DURATIONS.read_text(encoding="utf-8"))
    slow_modules = set()
    for item in items:
        seconds = measured.get(item.nodeid, 0.0)
        if seconds >= SLOW_SECONDS and not item.nodeid.startswith(SMOKE):
            item.add_marker(pytest.mark.slow)
            slow_modules.add(item.path)
    # modules with slow tests first, each kept whole (its module fixtures are made once),
    # in file order: pytest-xdist's worksteal hands each worker a contiguous share and the
    # idle one takes from the end of the other's. Longest modules first was tried and was
    # slower (the slow tier 15 min 40 s against 11 min 58 s: the heaviest tests, the release
    # matrix and the Spark cluster, then ran at the same time and slowed each other).
    items.sort(key=lambda item: item.path not in slow_modules)


_RECORDED: dict[str, float] = {}


def pytest_runtest_logreport(report):
    """With ``HWCHECK_RECORD_DURATIONS=1``: add up each test's phases (on the controller,
    which hears every worker's reports)."""
    if os.environ.get("HWCHECK_RECORD_DURATIONS") == "1":
        _RECORDED[report.nodeid] = _RECORDED.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session, exitstatus):
    """With ``HWCHECK_RECORD_DURATIONS=1``: the tests that ran get their new durations in
    ``DURATIONS`` (those under half a second leave it); the others keep theirs."""
    if _RECORDED and "PYTEST_XDIST_WORKER" not in os.environ:
        kept = json.loads(DURATIONS.read_text(encoding="utf-8"))
        kept.update({k: round(v, 1) for k, v in _RECORDED.items()})
        kept = {k: v for k, v in sorted(kept.items()) if v >= 0.5}
        DURATIONS.write_text(json.dumps(kept, indent=0) + "\n", encoding="utf-8")


CLASSIC = {"max_records": 2, "max_epoch": 1, "max_crashes": 1, "truncation": "kip320"}
"""The bounds the unit tests' golden numbers were measured and hand-counted at (hwcheck's
defaults before the default epoch bound went to 2), under kip320 (the default preset before
it went to kafka-4.1)."""


def kafka(**bounds) -> KafkaSpec:
    """The Kafka model with ``bounds`` overriding ``CLASSIC``."""
    return KafkaSpec(Config(**{**CLASSIC, **bounds}))


def props_of(spec, *names):
    """The spec's properties named ``names`` (all when none)."""
    return invariants.select(invariants.catalog(spec), list(names))


def check(spec, *names, **limits):
    """Explore ``spec`` checking ``names`` (all when none)."""
    return explore(spec, props_of(spec, *names), Limits(**limits))


def play(spec, labels):
    """Replay label texts from the initial state; returns the list of states (initial first).

    Fails (NondeterministicSpec) if a label is not enabled where it is played.
    """
    init = spec.init_states()[0]
    steps = replay(spec, fingerprint(init), [Label.parse(text) for text in labels])
    return [step.state for step in steps]


def holds(spec, name, state) -> bool:
    """Whether invariant ``name`` holds in ``state``."""
    return props_of(spec, name)[0].predicate(state)


@pytest.fixture
def fresh_models(monkeypatch):
    """Level functions cache each recipe's model per process; an edited model must not be
    served from the cache of an earlier test."""
    from checker.search.partitioned import level

    monkeypatch.setattr(level, "_MODELS", {})
    monkeypatch.setattr(level, "_CANONS", {})


@pytest.fixture
def variant_registry(monkeypatch):
    """The built-in variants before the test and after it, whatever variant files it loads
    (the registries are changed in place: other modules hold references to them), and no
    variant file trusted (``plugins.TRUST_ENV``) before it or after it."""
    from spec.kafka import plugins, variants

    presets, rules = dict(variants.PRESETS), dict(variants.RULES)
    monkeypatch.setenv(plugins.TRUST_ENV, "")  # restored (unset) after the test
    monkeypatch.setattr(plugins, "_files", {})
    monkeypatch.setattr(plugins, "_entry_points_loaded", False)
    yield
    for table, saved in ((variants.PRESETS, presets), (variants.RULES, rules)):
        table.clear()
        table.update(saved)


@pytest.fixture
def two():
    """Two replicas, default bounds, kip320."""
    return kafka(replicas=2)


@pytest.fixture(scope="session", autouse=True)
def _spark_folder_removed():
    """The in-process Spark tests share one session folder (``hwcheck-spark-*`` in the temp
    directory); remove it when the test session ends, as ``hwcheck`` does for a command."""
    yield
    import sys

    session = sys.modules.get("checker.spark.session")
    if session is not None:
        session._CONTEXT.pop("keep", None)  # a test's failed run, not a log for a user
        session.close()


@pytest.fixture(scope="session")
def browser():
    """Headless chromium (Playwright), for the modules that call ``chromium.require()``: one
    per test process (each xdist worker), shared by every module that asks for it."""
    from chromium import CHROMIUM, FLAGS, require

    with require().sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def seeds(tmp_path_factory):
    """The fuzz tests' seeds (``fuzzing.make_seeds``: traces, checkpoints and a lock file of
    the hw model at 2 replicas): made once per test process (each xdist worker), shared by
    every ``tests/test_fuzz_*.py`` module."""
    from fuzzing import make_seeds

    return make_seeds(tmp_path_factory)


CTRL_C_ON = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
"""Python code that makes SIGINT raise KeyboardInterrupt, as in a command typed at a terminal:
prefixed to the ``-c`` of every child the tests send a Ctrl-C. A suite started in the
background (``cmd &`` without job control ignores SIGINT, and children inherit that) would
otherwise hand the command an ignored Ctrl-C. (Not a ``preexec_fn``: the suite has threads.)"""


def python_m(module: str) -> list[str]:
    """``python -m module`` with SIGINT raising KeyboardInterrupt (``CTRL_C_ON``)."""
    return [
        sys.executable,
        "-c",
        CTRL_C_ON + f"import runpy; runpy.run_module({module!r}, run_name='__main__', "
        "alter_sys=True)",
    ]
