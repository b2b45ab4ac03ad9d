"""``hwcheck list``: one set of tables per model (variants, actions, properties, bounds)."""

from __future__ import annotations

import inspect
from typing import Any

from rich.table import Table
from rich.text import Text

from spec.kafka.variants import BUILTIN_PRESETS, BUILTIN_RULES, PRESETS, RULES, SWITCHES
from spec.tla.config import TLA_VARIANTS
from spec.tla.model import NEXT


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    return table


def first_paragraph(func: Any) -> str:
    """The docstring's first paragraph, whole and joined into one line, without the ``\\`\\``
    marks ('' when there is no docstring). ``hwcheck list`` and ``hwcheck serve`` show it."""
    paragraph = inspect.cleandoc(func.__doc__ or "").split("\n\n")[0]
    return " ".join(paragraph.replace("``", "").split())


def _first_line(func: Any) -> Text:
    """``first_paragraph`` as plain rich text (a ``[...]`` in it is text, not markup)."""
    return Text(first_paragraph(func))


def tables(spec: Any, props: list) -> list[Table]:
    """The tables describing ``spec`` (a Kafka or TLA model at its default bounds)."""
    model = spec.name
    variants = _table(f"{model} model: truncation variants (--model {model} --truncation)",
                      "variant", "source", "rule")
    actions = _table(f"{model} model: actions", "action", "what it does")
    extra = []
    if model == "kafka":
        for variant in PRESETS.values():
            source = (f"Kafka {variant.kafka}" if variant.name in BUILTIN_PRESETS
                      else f"yours {variant.kafka}".strip())
            variants.add_row(variant.name, source, Text(variant.description))
        from spec.kafka.model import ACTIONS, DURABILITY_ACTIONS, ELR_ACTIONS
        for name, func in ACTIONS:
            actions.add_row(name, _first_line(func))
        for name, func in ELR_ACTIONS:
            actions.add_row(name + " (elr, --unclean)", _first_line(func))
        for name, func in DURABILITY_ACTIONS:
            actions.add_row(name + " (--max-unclean-shutdowns)", _first_line(func))
        extra.append(_mechanisms())
    else:
        for name in TLA_VARIANTS:
            ops = ", ".join(op for op, _ in NEXT[name][3:])
            variants.add_row(name, "Next of " + _module(name), Text(ops))
        for name, func in NEXT[spec.config.truncation]:
            actions.add_row(name, _first_line(func))
    properties = _table(f"{model} model: properties (--invariant)", "property", "kind",
                        "description")
    for prop in props:
        properties.add_row(prop.name, prop.kind, Text(prop.description))
    bounds = _table(f"{model} model: default bounds", "option", "default")
    for key, value in spec.config_dict().items():
        bounds.add_row(*_default_row(key, value))
    return [variants, *extra, actions, properties, bounds]


def _mechanisms() -> Table:
    """The kafka model's mechanisms: every truncation rule (one per variant) and switch."""
    table = _table("kafka model: mechanisms (--with / --without)", "mechanism", "kind",
                   "what it does")
    for name, rule in RULES.items():
        kind = "truncation rule" + ("" if name in BUILTIN_RULES else " (yours)")
        table.add_row(name, kind, Text(rule.description))
    for name, description in SWITCHES.items():
        table.add_row(name, "switch", Text(description))
    return table


def _module(variant: str) -> str:
    return {"hw": "KafkaTruncateToHighWatermark", "kip101": "Kip101", "kip279": "Kip279",
            "kip320-first-try": "Kip320FirstTry", "kip320": "Kip320",
            "kip320-kip279": "Kip320 with BecomeFollowerTruncateKip279"}[variant]


OPTION_NAMES = {"with_mechanisms": "--with", "without_mechanisms": "--without",
                "unclean_election": "--unclean/--clean"}
"""Config fields whose command-line option is not the field's name in kebab case."""


def _default_row(key: str, value: Any) -> tuple[str, str]:
    """``(option, default)``: a config field as the option that sets it and its default as
    text (``--with`` / ``[]`` reads "none"; ``--unclean/--clean`` reads "clean")."""
    option = OPTION_NAMES.get(key, "--" + key.replace("_", "-"))
    if key == "unclean_election":
        return option, "unclean" if value else "clean"
    if isinstance(value, list):
        return option, ", ".join(map(str, value)) or "none (the preset's)"
    return option, str(value)
