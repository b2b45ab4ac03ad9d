"""Compose a model and its properties from plain options: the one place, besides the CLI and
the viewers, that knows both the generic checker and the Kafka models.

The Spark engine needs this too: a ``Recipe`` is a small picklable value that every executor
turns back into the same spec and properties, so workers never receive a pickled spec or a
closure over one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import invariants
from checker.model import Spec
from checker.properties import SOMETIMES, Property
from spec.kafka import Config, KafkaSpec
from spec.tla import TlaConfig, TlaSpec, async_model
from spec.tla.async_model import AsyncIsrSpec
from spec.tla.config import ASYNC_ISR
from spec.tla.typeok import type_ok_property

MODEL_OPTIONS = {
    "kafka": (
        "replicas",
        "truncation",
        "max_records",
        "max_epoch",
        "max_crashes",
        "min_isr",
        "unclean_election",
        "with_mechanisms",
        "without_mechanisms",
        "max_unclean_shutdowns",
        "flush",
        "acks",
        "max_lost_responses",
        "variant_file",
    ),
    "tla": (
        "replicas",
        "truncation",
        "log_size",
        "max_records",
        "max_epoch",
        "max_offset",
        "max_version",
    ),
}
"""Per model, the bound options it takes (``spec.kafka.Config`` / ``spec.tla.TlaConfig`` fields)."""


SPELLING = {
    "unclean_election": "--unclean",
    "with_mechanisms": "--with",
    "without_mechanisms": "--without",
}
"""Config fields whose CLI option is not ``--`` + the field name with dashes."""


class OptionError(ValueError):
    """An option that the chosen model does not have; ``option`` is its CLI spelling."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


def build_model(model: str, config: Any) -> tuple[Any, list[Property]]:
    """The spec and every property it offers: ``kafka`` (``spec.kafka.Config``) or ``tla``
    (``spec.tla.TlaConfig``).

    Raises ``ConfigError`` for impossible bounds and ``ValueError`` for an unknown model.
    """
    if model == "kafka":
        kafka = KafkaSpec(config)
        return kafka, invariants.catalog(kafka)
    if model == "tla" and config.validate().truncation == ASYNC_ISR:
        module = AsyncIsrSpec(config)
        return module, async_model.properties()
    if model == "tla":
        tla = TlaSpec(config)
        props = invariants.tla_catalog(tla)
        return tla, [*props[:1], type_ok_property(tla.config), *props[1:]]
    raise ValueError(f"unknown model {model!r}")


def make_config(model: str, given: dict[str, Any]) -> Any:
    """The model's config from the options given (``None`` = the model's default).

    Raises ``OptionError`` for an option the model does not have, ``ConfigError`` for
    impossible bounds.
    """
    allowed = MODEL_OPTIONS[model]
    for key, value in given.items():
        if value is not None and key not in allowed:
            option = SPELLING.get(key, "--" + key.replace("_", "-"))
            raise OptionError(f"{option} does not apply to --model {model}", option)
    values = {k: v for k, v in given.items() if v is not None}
    if "truncation" in values:
        values["truncation"] = values["truncation"].lower()
    if model == "tla":
        _check_module_options(values)
    for key in ("with_mechanisms", "without_mechanisms"):
        if key in values:
            values[key] = tuple(values[key])
    return Config(**values) if model == "kafka" else TlaConfig(**values)


ASYNC_ISR_ONLY = ("max_offset", "max_version")
"""The tla options only AsyncIsr has (``--truncation async-isr``)."""
REPLICATION_ONLY = ("log_size", "max_records", "max_epoch")
"""The tla options only the KafkaReplication modules have."""


def applies(model: str, key: str, truncation: Any = None) -> bool:
    """Whether the option ``key`` (a config field) belongs to ``model`` with ``truncation``
    (None: the model's default): the tla model's AsyncIsr has offsets and versions
    (``ASYNC_ISR_ONLY``), its KafkaReplication modules logs, records and epochs."""
    if key not in MODEL_OPTIONS[model]:
        return False
    if model != "tla":
        return True
    is_async = str(truncation or "").lower() == ASYNC_ISR
    return key not in (REPLICATION_ONLY if is_async else ASYNC_ISR_ONLY)


def _check_module_options(values: dict[str, Any]) -> None:
    """Raise ``OptionError`` for a tla option the chosen module does not have (``applies``)."""
    truncation = values.get("truncation")
    for key in values:
        if not applies("tla", key, truncation):
            option = "--" + key.replace("_", "-")
            where = (
                "--truncation async-isr"
                if truncation == ASYNC_ISR
                else "--model tla without --truncation async-isr"
            )
            raise OptionError(f"{option} does not apply to {where}", option)


def choose(props: list[Property], names: tuple[str, ...] | list[str]) -> list[Property]:
    """The safety properties named (if none: all but those checked only when named,
    ``Property.named_only``) plus every "sometimes" guard.

    Raises ``KeyError`` with the first unknown name.
    """
    safety = [p for p in props if p.kind != SOMETIMES and (names or not p.named_only)]
    chosen = invariants.select(safety, list(names))
    return chosen + [p for p in props if p.kind == SOMETIMES]


@dataclass(frozen=True)
class Recipe:
    """How to build a run's model: ``model`` name, its (frozen, picklable) ``config`` and the
    safety property ``names`` to check (empty = all). Hashable, so workers can cache what it
    builds."""

    model: str
    config: Any
    names: tuple[str, ...] = ()

    def build(self) -> tuple[Any, list[Property]]:
        """``(spec, properties to check)``; raises as ``build_model`` and ``choose`` do."""
        spec, props = build_model(self.model, self.config)
        return spec, choose(props, self.names)


def variant_of(spec: Spec) -> str:
    """The spec's protocol variant as shown to people: a preset (``kip320``) or a preset with
    changed mechanisms (``kip320 -fenced-fetch``); the TLA+ port's variant name."""
    return str(getattr(spec, "variant_name", None) or spec.config_dict().get("truncation"))
