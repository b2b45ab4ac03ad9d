"""The import rule of design.md: spec and invariants see only checker.model/properties;
checker never imports spec, invariants or UI libraries outside checker/cli.py and view/;
view/compose.py, which Spark workers import to rebuild a model, imports no UI library."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_import_direction():
    problems = []
    for path in ROOT.glob("checker/**/*.py"):
        composes = path.name == "cli.py" or "view" in path.parts
        forbidden = ("spec", "invariants", "rich", "click")
        if path.name == "compose.py":
            composes, forbidden = False, ("rich", "click")
        for name in imports(path):
            top = name.split(".")[0]
            if not composes and top in forbidden:
                problems.append(f"{path.relative_to(ROOT)} imports {name}")
    for folder in ("spec", "invariants"):
        for path in ROOT.glob(f"{folder}/**/*.py"):
            for name in imports(path):
                if name.startswith("checker") and name not in ("checker.model",
                                                               "checker.properties"):
                    problems.append(f"{path.relative_to(ROOT)} imports {name}")
                if folder == "spec" and name.startswith("invariants"):
                    problems.append(f"{path.relative_to(ROOT)} imports {name}")
    assert problems == []


def test_modules_stay_small():
    big = [str(p.relative_to(ROOT)) for folder in ("checker", "spec", "invariants")
           for p in ROOT.glob(f"{folder}/**/*.py") if len(p.read_text().splitlines()) > 300]
    assert big == []
