"""``hwcheck list`` with no section named: the models, their presets and properties, one line
each, and which section to ask for next (issue 64: the full listing is some 600 lines); and
``hwcheck list presets``' version aliases and what each release preset leaves out, which were
only in ``--json`` (``checker.formats.catalog``)."""

from __future__ import annotations

from typing import Any

from checker.properties import SOMETIMES
from checker.renderers.listing import Section
from spec.kafka import config as kafka_config
from spec.kafka import versions
from spec.kafka.variants import BUILTIN_PRESETS, PRESETS
from spec.tla.config import TLA_MODULES

MODELS = {
    "kafka": "hwcheck's model of Kafka's replication (the default)",
    "tla": "the port of the public TLA+ spec (--model tla)",
}
"""Each model in a few words, as the summary names it."""

TOPICS = ("presets", "mechanisms", "actions", "properties", "fairness", "bounds", "all")
"""The sections ``hwcheck list TOPIC`` prints (``all``: every one, as before issue 64)."""


def summary_lines(models: list[tuple[Any, list[Any]]]) -> list[tuple[str, str]]:
    """``(heading, text)`` lines of the summary for ``models`` (``(spec, properties)`` each,
    at default bounds): the models, each kafka preset with the Kafka versions it models,
    the tla modules, each model's properties by name, then the hint to see more."""
    out: list[tuple[str, str]] = [
        ("models", "; ".join(f"{spec.name}: {MODELS[spec.name]}" for spec, _ in models))
    ]
    for spec, props in models:
        default = spec.config.truncation
        if spec.name == "kafka":
            out.append(("kafka presets", "--truncation NAME, or a Kafka version such as 3.6.1"))
            out += [
                (f"  {name}", _versions(variant) + (" (default)" if name == default else ""))
                for name, variant in PRESETS.items()
            ]
        else:
            modules = [name + (" (default)" if name == default else "") for name in TLA_MODULES]
            out.append(("tla modules", "--model tla --truncation NAME: " + ", ".join(modules)))
    for spec, props in models:
        safety = [
            p.name + (" (only when named)" if p.named_only else "")
            for p in props
            if p.kind != SOMETIMES
        ]
        guards = [p.name for p in props if p.kind == SOMETIMES]
        alive = [p.name for p in getattr(spec, "liveness", list)()]
        text = ", ".join(safety)
        text += "; guards: " + ", ".join(guards) if guards else ""
        text += "; with --liveness: " + ", ".join(alive) if alive else ""
        out.append((f"{spec.name} properties", text))
    out.append(
        (
            "more",
            "hwcheck list " + " | ".join(TOPICS) + " (--model kafka or tla for one model); "
            "hwcheck list --json: the whole catalog, for scripts",
        )
    )
    return out


def _versions(variant: Any) -> str:
    """A preset's Kafka versions as the summary shows them (``Kafka 3.7 - 3.9``; a variant
    of yours: ``yours`` and its own text)."""
    if variant.name not in BUILTIN_PRESETS:
        return f"yours {variant.kafka}".strip()
    return f"Kafka {variant.kafka}"


def aliases() -> Section:
    """The other names ``--truncation`` takes for each kafka preset: its version aliases
    (``spec.kafka.versions.VERSIONS``) and ``epoch`` (``spec.kafka.config.ALIASES``)."""
    named: dict[str, list[str]] = {}
    for alias, preset in {**kafka_config.ALIASES, **versions.VERSIONS}.items():
        if preset is not None and alias != preset:
            named.setdefault(preset, []).append(alias)
    return Section(
        "kafka model: other names --truncation takes (any other version, kafka-X.Y.Z, X.Y.Z "
        "or X.Y, names the preset that models it)",
        ("preset", "also named"),
        tuple((name, ", ".join(named[name])) for name in PRESETS if name in named),
    )


def left_out() -> Section:
    """What of each release the model leaves out (``Variant.left_out``), for the presets
    that say."""
    return Section(
        "kafka model: what each release preset leaves out",
        ("preset", "left out"),
        tuple((name, v.left_out) for name, v in PRESETS.items() if v.left_out),
    )
