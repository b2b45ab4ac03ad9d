"""Bounds and switches of the Kafka model, and their validation."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.bounds import ConfigError, require_within, resolve_variant
from spec.kafka import plugins, variants, versions

TRUNCATION_VARIANTS = variants.BUILTIN_PRESETS
"""The built-in protocol presets, oldest first (``spec.kafka.variants.PRESETS``; a team's
own come after them, ``spec.kafka.plugins``)."""

ALIASES = {"epoch": "kip320"}
"""``epoch`` names the fenced protocol Kafka runs today (KIP-320)."""

FLUSH_MODES = ("background", "always")
"""``--flush``: the OS writes the log at its own time (Kafka's default), or fsync per append."""

ACKS = ("all", "1")
"""``--acks``: acknowledged once committed, or on the leader's append."""


class UntrustedVariantFile(ConfigError):
    """A config that names a variant file nobody trusted (``plugins.UntrustedFile``): it came
    from a file (trace, schedule header, checkpoint manifest). The message reads after the
    file's name: ``f"{source} {error}"``."""


MAX_REPLICAS = 7
"""The kafka model's largest replication factor (exhaustive search is practical to 3 or 4;
``hwcheck simulate`` reaches 7)."""

LIMITS = {
    "replicas": (1, MAX_REPLICAS),
    "max_records": (0, 7),
    "max_epoch": (0, 15),
    "max_crashes": (0, 100),
    "max_unclean_shutdowns": (0, 100),
    "max_lost_responses": (0, 100),
}
"""Each bound's range, inclusive: what the compiled core's tables hold (``kafka.h``: ``MAXN``
replicas, ``MAXR`` records, ``MAXE`` epochs; ``state.c`` refuses more than 100 faults). The
reference core is held to the same ranges, so every config runs on either core and none can
make a run build labels for a billion epochs. ``hwcheck list`` shows them."""


@dataclass(frozen=True)
class Config:
    """Bounds of one exploration.

    - ``replicas``: replication factor N (replica ids 0..N-1), 1..7.
    - ``max_records``: producer writes over the whole run (record ids 0..max_records-1).
    - ``max_epoch``: the largest leader epoch. Every controller decision (election or ISR
      shrink after a failure) takes the next epoch, starting at 0, so there are at most
      ``max_epoch + 1`` of them.
    - ``max_crashes``: broker crashes over the whole run.
    - ``min_isr``: ``min.insync.replicas``; with ``acks=all`` a leader accepts a write only
      while its ISR has at least this many members (1..replicas).
    - ``unclean_election``: ``unclean.leader.election.enable``.
    - ``truncation``: the protocol preset, one of ``TRUNCATION_VARIANTS`` (``epoch`` is
      accepted as an alias of ``kip320``, and any Kafka version, ``kafka-3.9.1`` or ``3.9.1``,
      names the release preset that models it: ``versions.preset_for``); ``with_mechanisms`` /
      ``without_mechanisms``: the
      mechanisms (``spec.kafka.variants.MECHANISMS``) turned on / off on top of it.
    - ``max_unclean_shutdowns``: unclean shutdowns (power loss) over the whole run; 0 keeps
      every log durable, as before. ``flush``: ``background`` (Kafka's default: the OS writes
      the log when it likes, so an unclean shutdown loses the unflushed tail) or ``always``
      (an fsync on every append, ``log.flush.interval.messages=1``).
    - ``variant_file``: a Python file of the team's own truncation rules and variants
      (``spec.kafka.plugins.load_file``), as an absolute path; None for none. It is imported
      only once the user has named it (``plugins.trust``: the ``--variant-file`` flag, the
      gate config); a config read from a trace, schedule or checkpoint cannot make it run.
    - ``max_lost_responses``: fetch responses the network may drop over the whole run (needs
      the ``split-fetch`` mechanism; 0: none).
    - ``acks``: the producer's ``acks``: ``all`` (acknowledged once committed; the leader
      takes a write only with ``min_isr`` ISR members) or ``1`` (acknowledged on the leader's
      append).

    The defaults are the ones ``hwcheck explore`` uses; README.md says how they were chosen.
    """

    replicas: int = 3
    max_records: int = 2
    max_epoch: int = 2
    max_crashes: int = 1
    min_isr: int = 1
    unclean_election: bool = False
    truncation: str = "kafka-4.1"
    with_mechanisms: tuple[str, ...] = ()
    without_mechanisms: tuple[str, ...] = ()
    max_unclean_shutdowns: int = 0
    flush: str = "background"
    acks: str = "all"
    max_lost_responses: int = 0
    variant_file: str | None = None

    def validate(self) -> Config:
        """Return the config with the truncation alias resolved.

        Raises ``ConfigError`` naming the option and its allowed range when a bound is
        impossible or not an integer (e.g. ``replicas`` 0, ``min_isr`` above ``replicas``, a
        bound outside ``LIMITS``) or the truncation variant is unknown.
        """
        require_within((f"--{k.replace('_', '-')}", getattr(self, k), LIMITS[k]) for k in LIMITS)
        if isinstance(self.min_isr, bool) or not isinstance(self.min_isr, int):
            raise ConfigError("--min-isr", f"--min-isr must be an integer, got {self.min_isr!r}")
        if not 1 <= self.min_isr <= self.replicas:
            raise ConfigError(
                "--min-isr",
                f"--min-isr must be between 1 and --replicas ({self.replicas}), got {self.min_isr}",
            )
        if self.flush not in FLUSH_MODES:
            raise ConfigError(
                "--flush", f"--flush must be one of {', '.join(FLUSH_MODES)}, got {self.flush!r}"
            )
        if str(self.acks) not in ACKS:
            raise ConfigError(
                "--acks", f"--acks must be one of {', '.join(ACKS)}, got {self.acks!r}"
            )
        self.load_variants()
        try:  # a Kafka version names its release preset: kafka-3.9.1 is kafka-3.7
            asked = versions.preset_for(self.truncation) or self.truncation
        except versions.UnknownVersion as error:
            raise ConfigError("--truncation", f"--truncation: {error}") from None
        truncation = resolve_variant(asked, tuple(variants.PRESETS), ALIASES)
        enable = tuple(sorted(set(self.with_mechanisms)))
        disable = tuple(sorted(set(self.without_mechanisms)))
        try:
            variant = variants.resolve(truncation, enable, disable)
        except ValueError as error:
            raise ConfigError("--with", f"--with/--without: {error}") from None
        if self.max_lost_responses and not variant.split_fetch:
            raise ConfigError(
                "--max-lost-responses",
                "--max-lost-responses needs fetch responses in flight: add --with split-fetch",
            )
        return replace(
            self,
            truncation=truncation,
            with_mechanisms=enable,
            without_mechanisms=disable,
            acks=str(self.acks),
        )

    def load_variants(self) -> None:
        """Register the installed entry points' variants and ``variant_file``'s (once per
        process; ``spec.kafka.plugins``). Raises ``ConfigError`` (``--variant-file``) with the
        reason when one fails to load or register, or when ``variant_file`` was never given to
        ``plugins.trust`` (a file named it, not the user: nothing is imported)."""
        try:
            plugins.load_entry_points()
            if self.variant_file:
                plugins.load_file(self.variant_file)
        except plugins.UntrustedFile as error:
            raise UntrustedVariantFile("--variant-file", str(error)) from None
        except ValueError as error:
            raise ConfigError("--variant-file", f"--variant-file: {error}") from None

    @property
    def variant(self) -> variants.Variant:
        """The protocol variant: the preset with the mechanisms switched (call on a validated
        config; raises ``ValueError`` as ``variants.resolve`` does otherwise)."""
        self.load_variants()  # a worker process builds its spec from the config alone
        return variants.resolve(
            ALIASES.get(self.truncation) or versions.preset_for(self.truncation) or self.truncation,
            self.with_mechanisms,
            self.without_mechanisms,
        )

    @property
    def durability(self) -> bool:
        """Unclean shutdowns are possible: states carry the flushed offsets."""
        return self.max_unclean_shutdowns > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form, as written into reports (tuples become lists). Options that
        are off (no variant file, no lost responses) are left out, so reports of runs without
        them stay as they were before the options existed."""
        return {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in asdict(self).items()
            if not (k == "variant_file" and v is None) and not (k == "max_lost_responses" and not v)
        }
