"""``hwcheck list``: one set of tables per model (variants, actions, properties, bounds)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from spec.kafka import config as kafka_config
from spec.kafka.variants import BUILTIN_PRESETS, BUILTIN_RULES, PRESETS, RULES, SWITCHES
from spec.tla import async_isr, async_model
from spec.tla import config as tla_config
from spec.tla.config import ASYNC_ISR, TLA_VARIANTS
from spec.tla.model import NEXT


@dataclass(frozen=True)
class Section:
    """One table of ``hwcheck list``: its ``title``, ``columns`` and ``rows`` (plain text; the
    documentation site's reference pages are generated from the same sections)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def first_paragraph(func: Any) -> str:
    """The docstring's first paragraph, whole and joined into one line, without the ``\\`\\``
    marks ('' when there is no docstring). ``hwcheck list`` and ``hwcheck serve`` show it."""
    paragraph = inspect.cleandoc(func.__doc__ or "").split("\n\n")[0]
    return " ".join(paragraph.replace("``", "").split())


def actions(spec: Any) -> list[tuple[str, Any]]:
    """``(name as listed, action function)`` for every action of ``spec``'s model, in the
    model's order; the kafka model's optional actions say which option brings them."""
    if spec.name != "kafka":
        if spec.config.truncation == ASYNC_ISR:
            return list(async_isr.NEXT)
        return list(NEXT[spec.config.truncation])
    from spec.kafka.model import (
        ACTIONS,
        ASYNC_ISR_ACTIONS,
        DURABILITY_ACTIONS,
        ELR_ACTIONS,
        LOSE_RESPONSE_ACTIONS,
        SPLIT_FETCH_ACTIONS,
        TRUNCATE_ACTIONS,
    )

    return [
        *ACTIONS,
        *((name + " (split-fetch, replaces Fetch)", func) for name, func in SPLIT_FETCH_ACTIONS),
        *(
            (name + " (split-fetch, --max-lost-responses)", func)
            for name, func in LOSE_RESPONSE_ACTIONS
        ),
        *((name + " (hw-before-truncation)", func) for name, func in TRUNCATE_ACTIONS),
        *((name + " (async-isr)", func) for name, func in ASYNC_ISR_ACTIONS),
        *((name + " (elr, --unclean)", func) for name, func in ELR_ACTIONS),
        *((name + " (--max-unclean-shutdowns)", func) for name, func in DURABILITY_ACTIONS),
    ]


def sections(spec: Any, props: list[Any]) -> list[Section]:
    """The sections describing ``spec`` (a Kafka or TLA model at its default bounds):
    variants, (kafka) mechanisms, actions, properties and default bounds."""
    return [section for each in topics(spec, props).values() for section in each]


def topics(spec: Any, props: list[Any]) -> dict[str, list[Section]]:
    """``sections``, by the topic ``hwcheck list TOPIC`` names: ``presets``, ``mechanisms``
    (the kafka model's; none for tla), ``actions`` (tla: AsyncIsr's too), ``properties``,
    ``fairness`` and ``bounds``."""
    model = spec.name
    if model == "kafka":
        variant_rows = [
            (
                v.name,
                f"Kafka {v.kafka}" if v.name in BUILTIN_PRESETS else f"yours {v.kafka}".strip(),
                v.description,
            )
            for v in PRESETS.values()
        ]
    else:
        variant_rows = [
            (name, "Next of " + _module(name), ", ".join(op for op, _ in NEXT[name][3:]))
            for name in TLA_VARIANTS
        ]
        variant_rows.append(
            (
                ASYNC_ISR,
                "Next of AsyncIsr",
                (
                    "KIP-497's asynchronous ISR changes with a fixed leader (its own "
                    "variables, --max-offset and --max-version, and ValidHighWatermark; "
                    "not in compare)"
                ),
            )
        )
    variants = Section(
        f"{model} model: truncation variants (--model {model} --truncation)",
        ("variant", "source", "rule"),
        tuple(variant_rows),
    )

    listed = Section(
        f"{model} model: actions",
        ("action", "what it does"),
        tuple((name, first_paragraph(func)) for name, func in actions(spec)),
    )
    alive = list(spec.liveness()) if hasattr(spec, "liveness") else []
    properties = Section(
        f"{model} model: properties (--invariant; liveness ones with --liveness)",
        ("property", "kind", "TLA+", "description"),
        tuple((p.name, p.kind, "", _described(p)) for p in props)
        + tuple((p.name, f"liveness: {p.kind}", p.formula, p.description) for p in alive),
    )
    fair = Section(
        f"{model} model: fairness of the liveness check (--fair, --unfair)",
        ("fairness", "means"),
        tuple((str(f), _fair_meaning(f)) for f in getattr(spec, "fairness", tuple)())
        + tuple(
            (name, "never fair (a perturbation)") for name in getattr(spec, "perturbations", ())
        ),
    )
    limits = LIMITS.get(model, {})
    bounds = Section(
        f"{model} model: default bounds, and the range each one accepts",
        ("option", "default", "range"),
        tuple((*_default_row(k, v), _range(limits, k)) for k, v in spec.config_dict().items()),
    )
    return {
        "presets": [variants],
        "mechanisms": [_mechanisms()] if model == "kafka" else [],
        "actions": [listed] if model == "kafka" else [listed, _async_isr()],
        "properties": [properties],
        "fairness": [fair],
        "bounds": [bounds],
    }


def _described(prop: Any) -> str:
    """A property's description, and why a run checks it only when named, if it does."""
    if not prop.named_only:
        return str(prop.description)
    return (
        f"{prop.description} Checked only when named (--invariant {prop.name}): {prop.named_only}."
    )


def _fair_meaning(f: Any) -> str:
    """A fairness constraint in words."""
    strength = "weak" if f.strength == "weak" else "strong"
    which = "each instance on its own" if f.each else "the action as a whole"
    when = f", only while {f.when}" if f.when else ""
    return f"{strength} fairness on {f.action}: {which}{when}"


def tables(spec: Any, props: list[Any]) -> list[Table]:
    """``sections`` as rich tables (every cell plain text: a ``[...]`` in it is text, not
    markup)."""
    return section_tables(sections(spec, props))


def section_tables(chosen: list[Section]) -> list[Table]:
    """Each of ``chosen`` as a rich table, every cell plain text."""
    out = []
    for section in chosen:
        table = Table(title=section.title, title_justify="left")
        for column in section.columns:
            table.add_column(column)
        for row in section.rows:
            table.add_row(*(Text(cell) for cell in row))
        out.append(table)
    return out


def _mechanisms() -> Section:
    """The kafka model's mechanisms: every truncation rule (one per variant) and switch."""
    rows = [
        (name, "truncation rule" + ("" if name in BUILTIN_RULES else " (yours)"), rule.description)
        for name, rule in RULES.items()
    ]
    rows += [(name, "switch", description) for name, description in SWITCHES.items()]
    return Section(
        "kafka model: mechanisms (--with / --without)",
        ("mechanism", "kind", "what it does"),
        tuple(rows),
    )


def _async_isr() -> Section:
    """The AsyncIsr module's actions and its invariant (``--truncation async-isr``)."""
    rows = [(name, first_paragraph(func)) for name, func in async_isr.NEXT]
    rows += [(p.name, p.description) for p in async_model.properties()]
    return Section(
        "tla model, --truncation async-isr: actions, then its invariant",
        ("action or property", "what it does"),
        tuple(rows),
    )


def _module(variant: str) -> str:
    return {
        "hw": "KafkaTruncateToHighWatermark",
        "kip101": "Kip101",
        "kip279": "Kip279",
        "kip320-first-try": "Kip320FirstTry",
        "kip320": "Kip320",
        "kip320-kip279": "Kip320 with BecomeFollowerTruncateKip279",
    }[variant]


OPTION_NAMES = {
    "with_mechanisms": "--with",
    "without_mechanisms": "--without",
    "unclean_election": "--unclean/--clean",
}
"""Config fields whose command-line option is not the field's name in kebab case."""


LIMITS = {"kafka": kafka_config.LIMITS, "tla": tla_config.TLA_LIMITS}
"""Each model's bound ranges (``Config.validate`` refuses the rest before building a model)."""


def _range(limits: dict[str, tuple[int, int]], key: str) -> str:
    """The range a bound accepts, as ``hwcheck list`` prints it ('' for a switch)."""
    if key == "min_isr":
        return "1 to --replicas"
    return "{} to {}".format(*limits[key]) if key in limits else ""


def _default_row(key: str, value: Any) -> tuple[str, str]:
    """``(option, default)``: a config field as the option that sets it and its default as
    text (``--with`` / ``[]`` reads "none"; ``--unclean/--clean`` reads "clean")."""
    option = OPTION_NAMES.get(key, "--" + key.replace("_", "-"))
    if key == "unclean_election":
        return option, "unclean" if value else "clean"
    if isinstance(value, list):
        return option, ", ".join(map(str, value)) or "none (the preset's)"
    return option, str(value)
