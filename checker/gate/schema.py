"""The gate's configuration schema: the keys a ``[[tool.hwcheck.gate]]`` check may give and
their JSON Schema (``checker.gate.config`` validates every check against it)."""

from __future__ import annotations

from typing import Any

BOUND_KEYS = (
    "replicas",
    "max_records",
    "max_epoch",
    "max_crashes",
    "min_isr",
    "unclean",
    "log_size",
    "max_offset",
    "max_version",
    "max_unclean_shutdowns",
    "with",
    "without",
    "flush",
    "acks",
    "max_lost_responses",
    "variant_file",
    "cluster",
    "kafka_version",
)
"""The model options a check may give (as ``hwcheck explore``'s flags, ``_`` for ``-``).
``cluster`` (a settings file, or a list: broker then topic, relative to the gate file) and
``kafka_version`` set the preset and the bounds they map to (``hwcheck explore --cluster``)."""
NAME_PATTERN = "^[^\\x00-\\x1f\\x7f]*$"
"""A check's name: no control characters (it names JUnit test cases and terminal rows)."""
_OPTION_TYPES = {
    "unclean": {"type": "boolean"},
    "with": {"type": "array", "items": {"type": "string"}},
    "without": {"type": "array", "items": {"type": "string"}},
    "flush": {"enum": ["background", "always"]},
    "acks": {"enum": ["all", "1"]},
    "variant_file": {"type": "string"},
    "cluster": {
        "oneOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        ]
    },
    "kafka_version": {"type": "string", "maxLength": 40},
}
CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "oneOf": [{"required": ["expect"]}, {"required": ["violates"]}],
    "properties": {
        "name": {"type": "string", "maxLength": 200, "pattern": NAME_PATTERN},
        "model": {"enum": ["kafka", "tla"]},
        "truncation": {"type": "string"},
        "engine": {"enum": ["local"]},
        "time_limit": {"type": "number", "exclusiveMinimum": 0},
        "expect": {"const": "holds"},
        "violates": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "invariants": {"type": "array", "items": {"type": "string"}},
        **{key: _OPTION_TYPES.get(key, {"type": "integer", "minimum": 0}) for key in BOUND_KEYS},
        "symmetry": {"type": "boolean"},
        "liveness": {"type": "boolean"},
        "fairness": {"type": "string"},
        "mode": {"enum": ["explore", "simulate", "conform"]},
        "kafka": {"type": "string", "maxLength": 60},
        "kafka_libs": {"type": "string"},
        "schedules": {"type": "integer", "minimum": 1, "maximum": 1000},
        "steps": {"type": "integer", "minimum": 1, "maximum": 40},
        "seed": {"type": "integer"},
        "walks": {"type": "integer", "minimum": 1},
        "depth": {"type": "integer", "minimum": 1},
    },
}
GATE_WALKS = 1000
"""Walks of a ``mode = "simulate"`` check that does not say ``walks``."""
SIMULATE_KEYS = ("seed", "walks", "depth")
"""Keys of a ``mode = "simulate"`` check (``seed`` and ``depth`` of a ``conform`` one too)."""
CONFORM_KEYS = ("kafka", "kafka_libs", "schedules", "steps", "seed", "depth")
"""Keys of a ``mode = "conform"`` check: real Kafka brokers through seeded schedules
(``hwcheck conform``'s options; ``kafka_libs`` relative to the gate file's folder)."""
