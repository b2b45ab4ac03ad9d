"""``hwcheck list --json``: the models' catalog as one JSON document, and its schema.

The document (format ``hwcheck-catalog``, version 1, ``catalog.schema.json`` beside this
file) holds, per model, its presets (for the kafka model: name, kind ``kip`` / ``release`` /
``yours``, Kafka versions, mechanisms, description, source and what the model leaves out),
the version aliases ``--truncation`` accepts, its mechanisms, actions, properties (name,
kind, description) and default bounds: the same data as the tables of ``hwcheck list``
(``checker.renderers.listing``). A tool that picks a preset for a Kafka release reads it
instead of scraping the tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

import checker
from checker.renderers.listing import actions, first_paragraph
from spec.kafka import config as kafka_config
from spec.kafka import releases, versions
from spec.kafka.variants import BUILTIN_RULES, KIP_PRESETS, PRESETS, RULES, SWITCHES
from spec.tla.config import ASYNC_ISR, TLA_VARIANTS

SCHEMA_PATH = Path(__file__).with_name("catalog.schema.json")


def schema() -> dict[str, Any]:
    """The catalog's JSON Schema (2020-12), read from ``catalog.schema.json``."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def _kafka_presets() -> list[dict[str, Any]]:
    release_names = {release.name for release in releases.RELEASES}
    out = []
    for name, variant in PRESETS.items():
        kind = "kip" if name in KIP_PRESETS else "release" if name in release_names else "yours"
        out.append(
            {
                "name": name,
                "kind": kind,
                "kafka": variant.kafka,
                "mechanisms": list(variant.mechanisms),
                "description": variant.description,
                "source": variant.source,
                "left_out": variant.left_out,
            }
        )
    return out


def _model(spec: Any, props: list[Any]) -> dict[str, Any]:
    """One model's entry (``spec`` at its default bounds, ``props`` its properties)."""
    entry: dict[str, Any] = {"name": spec.name}
    if spec.name == "kafka":
        entry["presets"] = _kafka_presets()
        entry["aliases"] = {**kafka_config.ALIASES, **versions.VERSIONS}
        entry["mechanisms"] = [
            {
                "name": name,
                "kind": "truncation rule" if name in BUILTIN_RULES else "truncation rule (yours)",
                "description": rule.description,
            }
            for name, rule in RULES.items()
        ] + [
            {"name": name, "kind": "switch", "description": text} for name, text in SWITCHES.items()
        ]
    else:
        entry["presets"] = [
            {"name": name, "kind": "tla module", "mechanisms": []}
            for name in (*TLA_VARIANTS, ASYNC_ISR)
        ]
        entry["aliases"] = {}
        entry["mechanisms"] = []
    entry["actions"] = [
        {"name": name, "description": first_paragraph(func)} for name, func in actions(spec)
    ]
    alive = list(spec.liveness()) if hasattr(spec, "liveness") else []
    entry["properties"] = [
        {"name": p.name, "kind": p.kind, "description": p.description} for p in props
    ] + [
        {"name": p.name, "kind": p.kind, "description": p.description, "formula": p.formula}
        for p in alive
    ]
    entry["fairness"] = [str(f) for f in getattr(spec, "fairness", tuple)()]
    entry["default_bounds"] = spec.config_dict()
    return entry


def document(models: list[tuple[Any, list[Any]]]) -> dict[str, Any]:
    """The catalog of ``models`` (``(spec, properties)`` each, at default bounds), checked
    against the schema (raises ``jsonschema.ValidationError`` if the code and the schema
    disagree: a bug, never the user's input)."""
    doc = {
        "format": "hwcheck-catalog",
        "version": 1,
        "hwcheck_version": checker.__version__,
        "models": [_model(spec, props) for spec, props in models],
    }
    jsonschema.validate(doc, schema())
    return doc
