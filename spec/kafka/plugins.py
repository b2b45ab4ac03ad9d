"""A team's own variants: truncation rules and whole variants registered from outside hwcheck.

Two ways in, both giving objects of ``spec.kafka.variants``:

- a Python entry point in the group ``hwcheck.variants`` (``pyproject.toml``:
  ``[project.entry-points."hwcheck.variants"] ours = "our_pkg.rules:VARIANTS"``), naming a
  ``TruncationRule``, a ``Variant`` or a list of them; loaded the first time a variant name is
  looked up (``load_entry_points``);
- ``--variant-file rules.py`` (``Config.variant_file``): every module-level ``TruncationRule``
  and ``Variant`` of that file (``load_file``).

A variant file is Python, and importing it runs it. So ``load_file`` imports only a file the
user named: on the command line (``--variant-file``), in the gate config they own, or through
``trust`` from their own Python. A trace, a schedule's header or a checkpoint manifest may
name a variant file, and such files are shared (CI artifacts, the gallery, bug reports), so
what they name is never run on their word: ``load_file`` raises ``UntrustedFile`` saying
which flag to pass (issue 63).

A ``TruncationRule`` becomes a mechanism (``--with NAME`` replaces the preset's rule); a
``Variant`` becomes a preset (``--truncation NAME``), and its rule is registered with it.
The rule signature is in ``spec.kafka.variants``; ``examples/variant_rules.py`` is a worked
file. Registering is idempotent: the same object (or an equal one, as a file re-imported in a
worker process gives) under the same name is accepted again; a different one raises.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from spec.kafka import variants
from spec.kafka.variants import PRESETS, RULES, SWITCHES, TruncationRule, Variant

GROUP = "hwcheck.variants"
"""The entry point group hwcheck reads variants and rules from."""

TRUST_ENV = "HWCHECK_TRUSTED_VARIANT_FILES"
"""The environment variable holding the variant files the user named, as absolute paths
joined by ``os.pathsep``. ``trust`` sets it, so the processes this one starts (the search's
worker processes, Spark's Python workers on a local master) trust the same files and no
others."""

_files: dict[str, tuple[str, ...]] = {}
_entry_points_loaded = False


class UntrustedFile(ValueError):
    """A variant file that nobody named on the command line: a file (trace, schedule header,
    checkpoint manifest) asked for it, and hwcheck does not run code on a file's word."""


def trust(path: str | os.PathLike[str]) -> str:
    """Let ``load_file`` import the Python file ``path``, in this process and in the processes
    it starts (``TRUST_ENV``). Call it only for a file the user named themselves (a
    command-line flag, their gate config, their own code). Returns the resolved path."""
    resolved = str(Path(path).resolve())
    known = trusted()
    if resolved not in known:
        os.environ[TRUST_ENV] = os.pathsep.join((*known, resolved))
    return resolved


def trusted() -> tuple[str, ...]:
    """The resolved paths ``trust`` has been given here or in a parent process."""
    return tuple(p for p in os.environ.get(TRUST_ENV, "").split(os.pathsep) if p)


def require_trusted(path: str | os.PathLike[str]) -> str:
    """``path`` resolved, when ``trust`` was given it; raises ``UntrustedFile`` otherwise, with
    a message that reads after the name of the file that named ``path``."""
    resolved = str(Path(path).resolve())
    if resolved not in trusted():
        raise UntrustedFile(
            f"names the variant file {path}; hwcheck runs Python only from a file you name "
            f"yourself: to trust it, pass --variant-file {path}"
        )
    return resolved


def _same(old: Any, new: Any) -> bool:
    """Two registrations of one thing: equal, or the same names and function source (a file
    imported again defines new function objects)."""
    if old == new:
        return True
    if isinstance(old, TruncationRule) and isinstance(new, TruncationRule):
        return (old.name, old.asks_leader, old.function.__qualname__) == (
            new.name,
            new.asks_leader,
            new.function.__qualname__,
        )
    if isinstance(old, Variant) and isinstance(new, Variant):
        return (old.name, old.switches) == (new.name, new.switches) and _same(old.rule, new.rule)
    return False


def register(obj: Any, source: str) -> tuple[str, ...]:
    """Register ``obj`` (a ``TruncationRule``, a ``Variant`` or an iterable of them) from
    ``source`` (for messages). Returns the names registered. Raises ``ValueError`` for any
    other type, an unknown switch, or a name already taken by something different (a
    built-in preset, rule or switch, or another registration)."""
    if isinstance(obj, (list, tuple)):
        return tuple(name for item in obj for name in register(item, source))
    if isinstance(obj, TruncationRule):
        table, kind = RULES, "truncation rule"
    elif isinstance(obj, Variant):
        unknown = sorted(obj.switches - set(SWITCHES))
        if unknown:
            raise ValueError(
                f"{source}: variant {obj.name!r} turns on unknown switch "
                f"{unknown[0]!r}; switches are {', '.join(SWITCHES)}"
            )
        register(obj.rule, source)
        table, kind = PRESETS, "variant"
    else:
        raise ValueError(  # noqa: TRY004
            f"{source}: expected a TruncationRule or a Variant "
            f"(spec.kafka.variants), got {type(obj).__name__}"
        )
    name = obj.name
    other = PRESETS if table is RULES else RULES
    if not name or name != name.lower() or " " in name or name in SWITCHES or name in other:
        raise ValueError(
            f"{source}: {kind} name {name!r} is empty, not lowercase, has a space or is taken"
        )
    if name in table and not _same(table[name], obj):
        raise ValueError(f"{source}: {kind} {name!r} is already registered differently")
    table.setdefault(name, obj)
    return (name,)


def load_file(path: str) -> tuple[str, ...]:
    """Import the Python file ``path`` and register its module-level rules and variants;
    returns their names (cached per resolved path, so a second call does nothing).

    Raises ``UntrustedFile`` (nothing imported) when ``path`` was not given to ``trust``, and
    ``ValueError`` with one readable sentence when the file is missing, fails to import (its
    exception is named) or defines nothing to register."""
    resolved = require_trusted(path)
    if resolved in _files:
        return _files[resolved]
    if not Path(resolved).is_file():
        raise ValueError(f"no such file: {path}")
    name = "hwcheck_variant_file_" + hashlib.sha1(resolved.encode()).hexdigest()[:12]
    module_spec = importlib.util.spec_from_file_location(name, resolved)
    if module_spec is None or module_spec.loader is None:
        raise ValueError(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # so its functions pickle by reference in this process
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 (the user's file: report whatever it raised)
        del sys.modules[name]
        raise ValueError(f"{path} failed to import: {type(error).__name__}: {error}") from None
    found = [v for v in vars(module).values() if isinstance(v, (TruncationRule, Variant))]
    if not found:
        raise ValueError(f"{path} defines no TruncationRule or Variant at module level")
    builtin = set(RULES.values())
    names = register([v for v in found if v not in builtin], path)
    _files[resolved] = names
    return names


def load_entry_points() -> tuple[str, ...]:
    """Register everything the installed ``hwcheck.variants`` entry points name (once per
    process). Raises ``ValueError`` naming the entry point that fails to load or register."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return ()
    _entry_points_loaded = True
    names: list[str] = []
    for point in entry_points(group=GROUP):
        source = f"entry point {point.name} ({point.value})"
        try:
            obj = point.load()
        except Exception as error:  # noqa: BLE001 (third-party code: one readable line)
            raise ValueError(f"{source} failed to load: {type(error).__name__}: {error}") from None
        names += register(obj, source)
    return tuple(names)


def registered() -> dict[str, list[str]]:
    """The names registered from outside hwcheck so far: ``{"rules": [...], "variants":
    [...]}``."""
    return {
        "rules": [n for n in RULES if n not in variants.BUILTIN_RULES],
        "variants": [n for n in PRESETS if n not in variants.BUILTIN_PRESETS],
    }
