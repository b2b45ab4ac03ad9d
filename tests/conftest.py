"""Shared helpers: build the Kafka model, replay label sequences, hand-build states."""

from __future__ import annotations

import os
import sys

import pytest

import invariants
from checker.fingerprint import fingerprint
from checker.model import Label
from checker.search.bfs import Limits, explore
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

SLOW_MODULES = (
    "test_spark.py",
    "test_spark_env.py",
    "test_checkpoint_spark.py",
    "test_checkpoint_url.py",
    "test_interrupts.py",
    "test_terminal_progress.py",
    "test_browser.py",
    "test_serve_browser.py",
    "test_lasso_browser.py",
)
"""Modules whose every test starts Spark, a subprocess waiting for a signal, or a browser:
``slow`` without marking each (``pytest -m "not slow"`` is the edit loop)."""


SLOW_TESTS = {
    "test_symmetry.py": (
        "test_distinct_count_is_the_number_of_orbits",
        "test_three_replicas_with_a_crash",
        "test_partitioned_level_functions_give_the_same_answers_with_symmetry",
    ),
    "test_compiled.py": (
        "test_runs_give_the_reference_answers",
        "test_every_state_of_the_walks_agrees",
        "test_a_broken_cache_is_rebuilt_and_the_first_build_says_so",
    ),
    "test_compiled_walks.py": ("test_",),
    "test_kip966.py": ("test_kip966_counts_match_an_independent_count_and_are_symmetric",),
    "test_simulate.py": ("test_ctrl_c_ends_once_with_the_walks_so_far",),
    "test_mechanisms.py": ("test_unclean_shutdown_counts_are_symmetric",),
    "test_story.py": ("test_story_agrees_with_its_trace",),
    "test_checkpoint.py": ("test_a_killed_search_resumes_to_the_same_answers",),
    "test_checkpoint_commands.py": ("test_compare_resumes_each_cell", "test_sigkill"),
    "test_learner.py": ("test_simulate_stories_keep_the_crux",),
    "test_gate_pins.py": (
        "test_update_round_trip_over_a_model_edit",
        "test_one_lock_file_passes_on_every_engine_and_core",
    ),
}
"""Tests of a second or more elsewhere (measured with ``--durations``): whole differential
runs, kill matrices, brute-force counts. Each name is a prefix of the test's name."""


def pytest_collection_modifyitems(config, items):
    slow_modules = set()
    for item in items:
        slow = SLOW_TESTS.get(item.path.name, ())
        if item.path.name in SLOW_MODULES or item.name.startswith(slow):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("slow"):
            slow_modules.add(item.path)
    # modules with slow tests first, each kept whole (its module fixtures are made once):
    # pytest-xdist's worksteal hands each worker a contiguous share and the idle one takes
    # from the end of the other's, so the long tests start early and the run ends on short ones
    items.sort(key=lambda item: item.path not in slow_modules)


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
    from checker.search import level

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


@pytest.fixture(scope="module")
def browser():
    """Headless chromium (Playwright), for the modules that call ``chromium.require()``."""
    from chromium import CHROMIUM, FLAGS, require

    with require().sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


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
