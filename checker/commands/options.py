"""The model flags every command shares (``--model``, ``--replicas``, ``--truncation``, the
bounds, the mechanisms and ``--invariant``) and building a model from them: usage mistakes
become click errors (exit 2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from checker.commands import spelling, versions
from checker.commands.trusted import variant_file_option
from checker.commands.values import Integer
from checker.composition import compose
from checker.renderers import shown
from spec.kafka import Config, ConfigError
from spec.kafka.config import ACKS, FLUSH_MODES, MAX_REPLICAS, TRUNCATION_VARIANTS
from spec.kafka.variants import MECHANISMS
from spec.tla import TlaConfig
from spec.tla.config import TLA_MAX_REPLICAS, TLA_MODULES

DEFAULTS = Config()
TLA = TlaConfig()
F = TypeVar("F", bound=Callable[..., Any])


PROTOCOL_FLAGS = (
    variant_file_option(
        "A Python file of your own truncation rules and variants (kafka): its "
        "variants join --truncation, its rules --with. See examples/."
    ),
    click.option(
        "--with",
        "with_mechanisms",
        multiple=True,
        metavar="MECHANISM",
        help="Turn a mechanism on, on top of --truncation (kafka; repeatable): "
        + ", ".join(MECHANISMS)
        + ". See 'hwcheck list mechanisms'.",
    ),
    click.option(
        "--without",
        "without_mechanisms",
        multiple=True,
        metavar="MECHANISM",
        help="Turn a mechanism of the --truncation preset off (kafka; repeatable).",
    ),
    click.option(
        "--max-unclean-shutdowns",
        type=Integer(min=0),
        default=None,
        help="Unclean shutdowns (power loss: the unflushed tail is lost) over the "
        f"whole run (kafka) [{DEFAULTS.max_unclean_shutdowns}: logs durable].",
    ),
    click.option(
        "--flush",
        type=click.Choice(FLUSH_MODES),
        default=None,
        help="background: the OS flushes when it likes (Kafka's default); always: "
        f"fsync per append (kafka) [{DEFAULTS.flush}].",
    ),
    click.option(
        "--max-lost-responses",
        type=Integer(min=0),
        default=None,
        help="Fetch responses the network may drop over the whole run (kafka, with "
        f"--with split-fetch) [{DEFAULTS.max_lost_responses}].",
    ),
    click.option(
        "--acks",
        type=click.Choice(ACKS),
        default=None,
        help="Producer acks: all (acknowledged once committed) or 1 (on the "
        f"leader's append) (kafka) [{DEFAULTS.acks}].",
    ),
)
"""The kafka model's mechanism, durability and acks flags (also on ``compare``)."""

MODEL_FLAG: dict[str, Callable[[Any], Any]] = {
    "model": click.option(
        "--model",
        type=click.Choice(sorted(compose.MODEL_OPTIONS)),
        default="kafka",
        show_default=True,
        help="kafka: hwcheck's model; tla: the public TLA+ spec.",
    ),
    "replicas": click.option(
        "--replicas",
        type=Integer(1, MAX_REPLICAS),
        default=None,
        help=f"Replication factor N [kafka: {DEFAULTS.replicas}, tla: {TLA.replicas}; tla at most {TLA_MAX_REPLICAS}].",
    ),
    "truncation": click.option(
        "--truncation",
        default=None,
        metavar="VARIANT",
        help="Protocol variant. kafka: "
        + ", ".join(TRUNCATION_VARIANTS)
        + " ('epoch' is kip320; any Kafka version, e.g. kafka-3.6.1 or 3.6.1, names the "
        "release preset that models it), or one of your own (--variant-file, entry points); "
        "tla: " + ", ".join(TLA_MODULES) + f" [kafka: {DEFAULTS.truncation}, tla: kip320]; "
        "see 'hwcheck list presets'.",
    ),
    "max_records": click.option(
        "--max-records",
        type=Integer(min=0),
        default=None,
        help=f"Records produced over the whole run [{DEFAULTS.max_records}].",
    ),
    "max_epoch": click.option(
        "--max-epoch",
        type=Integer(min=0),
        default=None,
        help=f"Largest leader epoch [kafka: {DEFAULTS.max_epoch}, tla: {TLA.max_epoch}].",
    ),
    "max_crashes": click.option(
        "--max-crashes",
        type=Integer(min=0),
        default=None,
        help=f"Broker crashes over the whole run (kafka) [{DEFAULTS.max_crashes}].",
    ),
    "min_isr": click.option(
        "--min-isr",
        type=Integer(min=1),
        default=None,
        help=f"min.insync.replicas, acks=all (kafka) [{DEFAULTS.min_isr}].",
    ),
    "unclean": click.option(
        "--unclean/--clean", default=None, help="unclean.leader.election.enable (kafka) [clean]."
    ),
    "log_size": click.option(
        "--log-size",
        type=Integer(min=0),
        default=None,
        help=f"LogSize: slots per log (tla) [{TLA.log_size}].",
    ),
    "max_offset": click.option(
        "--max-offset",
        type=Integer(min=1),
        default=None,
        help=f"MaxOffset: the largest offset (tla, async-isr) [{TLA.max_offset}].",
    ),
    "max_version": click.option(
        "--max-version",
        type=Integer(min=0),
        default=None,
        help=f"The controller's largest ISR version (tla, async-isr) [{TLA.max_version}].",
    ),
    "invariant": click.option(
        "--invariant",
        "names",
        multiple=True,
        metavar="NAME",
        help="Check only this property (repeatable; default all but those checked only when "
        "named). See 'hwcheck list properties'.",
    ),
}
"""Each model and property flag by name (``--max-records``: ``max_records``), as the commands
that take one share it: ``explore`` and ``graph`` take them all (``MODEL_FLAGS``), ``compare``
the bounds it does not vary."""

_BOUNDS = ("model", "replicas", "truncation", "max_records", "max_epoch", "max_crashes")
_TLA = ("log_size", "max_offset", "max_version", "invariant")
MODEL_FLAGS = (
    *(MODEL_FLAG[name] for name in (*_BOUNDS, "min_isr", "unclean")),
    *PROTOCOL_FLAGS,
    *(MODEL_FLAG[name] for name in _TLA),
)
"""The model and property flags that ``explore`` and ``graph`` share."""


PROTOCOL_KEYS = (
    "with_mechanisms",
    "without_mechanisms",
    "max_unclean_shutdowns",
    "flush",
    "acks",
    "max_lost_responses",
    "variant_file",
    "max_offset",
    "max_version",
)
"""The model flags a command receives as keyword arguments (``protocol_from``)."""


def protocol_from(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop the ``PROTOCOL_KEYS`` flags out of a command's ``kwargs``; an empty ``--with`` /
    ``--without`` list becomes None (the model's default)."""
    flags = {key: kwargs.pop(key, None) for key in PROTOCOL_KEYS}
    if flags["variant_file"] is not None:  # reports and traces record where it was
        flags["variant_file"] = str(Path(flags["variant_file"]).resolve())
    return {
        key: (value or None) if isinstance(value, tuple) else value for key, value in flags.items()
    }


def bounds(
    replicas: Any = None,
    truncation: Any = None,
    max_records: Any = None,
    max_epoch: Any = None,
    max_crashes: Any = None,
    min_isr: Any = None,
    unclean: Any = None,
    log_size: Any = None,
    **protocol: Any,
) -> dict[Any, Any]:
    """The model options as ``compose.make_config`` takes them (None: the model's default);
    ``protocol`` holds ``PROTOCOL_KEYS`` values (see ``protocol_from``)."""
    return {
        "replicas": replicas,
        "truncation": truncation,
        "max_records": max_records,
        "max_epoch": max_epoch,
        "max_crashes": max_crashes,
        "min_isr": min_isr,
        "unclean_election": unclean,
        "log_size": log_size,
        **{key: protocol.get(key) for key in PROTOCOL_KEYS},
    }


def with_options(options: Sequence[Callable[[F], F]]) -> Callable[[F], F]:
    """A decorator adding the click ``options`` (in order) to a command."""

    def decorate(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


model_options = with_options(MODEL_FLAGS)
"""Decorate a click command with ``MODEL_FLAGS``."""


def config(model: str, given: dict[str, Any]) -> Any:
    """``compose.make_config``, with errors as click usage errors."""
    try:
        return compose.make_config(model, given)
    except compose.OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None


def choose(props: list[Any], names: tuple[str, ...]) -> list[Any]:
    """``compose.choose``, with an unknown name as a click usage error."""
    try:
        return compose.choose(props, names)
    except KeyError as exc:
        said = spelling.unknown_property(exc.args[0], props)
        raise click.BadParameter(said, param_hint="'--invariant'") from None


def build(model: str, given: dict[str, Any]) -> tuple[Any, Any, list[Any]]:
    """``(config, spec, every property)`` of the model built from the options ``given``.

    Raises ``click.BadParameter`` for options or bounds the model rejects.
    """
    cfg = config(model, given)
    try:
        spec, props = compose.build_model(model, cfg)
    except ConfigError as exc:
        said = str(exc) + spelling.misspelt(model, exc.option, given)
        raise click.BadParameter(said, param_hint=f"'{exc.option}'") from None
    versions.say_preset(model, given.get("truncation"), spec.config.truncation)
    return cfg, spec, props


SHOW_OPTION = click.option(
    "--show",
    type=click.Choice(shown.SHOW),
    default="first",
    show_default=True,
    help="Counterexamples drawn in the terminal: first (the most important in full, the "
    "others as one line each), all (every distinct trace) or none. Every trace file is "
    "written either way.",
)
