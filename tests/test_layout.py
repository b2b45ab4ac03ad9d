"""The layout of CONTRIBUTING.md: which folder may import which, no import cycle, small modules.

Every ``import`` is read from the source (``ast``), including the ones inside functions, so a
lazy import cannot hide a forbidden direction or a cycle.
"""

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("checker", "spec", "invariants")

UI = ("rich", "click", "flask", "waitress", "jinja2")
ENGINE = ("contract", "native", "checkpoint", "search", "simulate", "liveness", "spark", "gate")
"""The engine's rooms: ``contract`` is the modules at checker/'s top (model, properties,
result, limits, fingerprint, symmetry, trace); the others are folders of checker/."""
ROOMS = ENGINE[1:] + ("composition", "renderers", "formats", "web", "conform", "commands")

ALLOWED = {
    # room: the rooms of checker/ it may import (besides its own modules)
    "contract": set(),
    "native": {"contract"},
    "checkpoint": {"contract"},
    "search": {"contract", "native", "checkpoint"},
    "simulate": {"contract", "native", "search"},
    "liveness": {"contract", "native", "simulate"},
    "spark": {"contract", "checkpoint", "search", "simulate"},
    "gate": {"contract"},
    "composition": set(ENGINE),
    "renderers": {*ENGINE, "composition"},
    "formats": {*ENGINE, "composition", "renderers"},
    "web": {*ENGINE, "composition", "renderers", "formats"},
    "conform": {"contract", "composition"},
    "commands": {*ENGINE, "composition", "renderers", "formats", "web", "conform"},
    "cli": {"contract", "commands"},
}
"""CONTRIBUTING.md's directions; they form no cycle (``test_rooms_form_no_cycle``)."""

THIRD_PARTY_UI = {
    **{name: () for name in ENGINE},
    "composition": (),
    "renderers": ("rich",),
    "formats": (),
    "web": ("flask", "waitress", "jinja2"),
    "conform": (),
    "commands": UI,
    "cli": UI,
}
"""The UI libraries each room may use (the engine and the composition none: Spark workers import
them)."""

MODELS = {room: room not in ENGINE for room in ALLOWED}
"""Whether a room may import ``spec`` and ``invariants`` (the engine stays generic)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, typing: bool = True):
    """Every absolute module name ``path`` imports (``from a import b`` gives ``a.b`` when
    ``a.b`` is a module of the project, else ``a``), those under ``if TYPE_CHECKING:`` too
    unless ``typing`` is False: an annotation's import is a dependency, and a cycle through one
    is a cycle."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if not typing and id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                yield candidate if candidate in MODULES else node.module


SOURCES = {module_name(p): p for package in PACKAGES for p in ROOT.glob(f"{package}/**/*.py")}
MODULES = set(SOURCES)


def room(module: str) -> str:
    """``cli``, ``contract`` (a module at checker/'s top) or the folder of checker/ a checker
    module lives in."""
    parts = module.split(".")
    if parts[:2] == ["checker", "cli"]:
        return "cli"
    if len(parts) > 1 and parts[1] in ROOMS:
        return parts[1]
    return "contract"


def test_rooms_form_no_cycle():
    """The allowed directions themselves are a DAG, so no two rooms can lean on each other."""
    graph = nx.DiGraph([(a, b) for a, targets in ALLOWED.items() for b in targets])
    assert list(nx.simple_cycles(graph)) == []


def test_every_folder_imports_only_what_readme_allows():
    assert forbidden() == []


def forbidden() -> list[str]:
    """Every import that breaks a direction, as ``module (room) imports name (room)``."""
    problems = []
    for module, path in SOURCES.items():
        for name in imports(path):
            top = name.split(".")[0]
            if module.startswith(("spec", "invariants")):
                if top == "checker" and name not in ("checker.model", "checker.properties"):
                    problems.append(f"{module} imports {name}")
                if module.startswith("spec") and top == "invariants":
                    problems.append(f"{module} imports {name}")
                continue
            mine = room(module)
            if top in UI and top not in THIRD_PARTY_UI[mine]:
                problems.append(f"{module} ({mine}) imports {name}")
            if top in ("spec", "invariants") and not MODELS[mine]:
                problems.append(f"{module} ({mine}) imports {name}")
            if top == "checker" and room(name) not in ALLOWED[mine] | {mine}:
                problems.append(f"{module} ({mine}) imports {name} ({room(name)})")
    return problems


def test_only_the_engine_choice_imports_spark():
    """Nothing under checker/ imports checker/spark/ but the Spark executor itself,
    ``checker.commands.engines`` (the door to it) and ``checker.commands.url_plan`` (a
    checkpoint at a URL, reached through Spark's JVM), so no other module loads pyspark."""
    doors = {"checker.commands.engines", "checker.commands.url_plan"}
    found = sorted(
        f"{module} imports {name}"
        for module, path in SOURCES.items()
        if not module.startswith("checker.spark") and module not in doors
        for name in imports(path)
        if name.startswith(("checker.spark", "pyspark"))
    )
    assert found == []


def test_no_import_cycle():
    """No cycle among the modules, typing-only imports counted: an action module names the
    model it belongs to by a protocol (``spec.kafka.context``, ``spec.tla.context``), not by
    the class that imports it."""
    graph = nx.DiGraph()
    for module, path in SOURCES.items():
        graph.add_node(module)
        for name in imports(path):
            while name and name not in MODULES:  # checker.native.build.load -> the module
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                graph.add_edge(module, name)
    for package in [m for m in MODULES if SOURCES[m].name == "__init__.py"]:
        # a package's __init__ that imports nothing is no edge; one that does is a real one
        if not list(imports(SOURCES[package])):
            graph.remove_edges_from(list(graph.in_edges(package)))
    cycles = [" -> ".join(c) for c in nx.simple_cycles(graph)]
    assert cycles == []


def test_modules_stay_small():
    """At most 300 lines that are not blank, as ``ruff format`` lays out the Python; the C
    sources and headers of the compiled cores count too."""
    big = [
        str(p.relative_to(ROOT))
        for folder in PACKAGES
        for pattern in ("*.py", "*.c", "*.h")
        for p in ROOT.glob(f"{folder}/**/{pattern}")
        if sum(1 for line in p.read_text().splitlines() if line.strip()) > 300
    ]
    assert big == []
