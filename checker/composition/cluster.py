"""A Kafka cluster's settings mapped to the Kafka model's options (``--cluster``): which
preset the version runs, and what each setting becomes.

Kafka's rules followed: a topic config overrides the broker's default of the same meaning
(``LogConfig``'s synonyms: ``flush.messages`` over ``log.flush.interval.messages``; the same
name for ``min.insync.replicas`` and ``unclean.leader.election.enable``); typed values are
trimmed and parsed as ``ConfigDef`` does; unset keys take Kafka's defaults (``KafkaConfig``).
KIP-966 in Kafka 4.1 (``EligibleLeaderReplicasVersion``: level 1 from metadata version
4.1-IV0, the default of a cluster formatted at 4.1; an upgraded cluster keeps level 0 until
``kafka-features.sh upgrade`` raises it): ELR runs only at level 1, so an upgraded 4.1
cluster runs ``kafka-4.0``'s rules. The feature level is not a broker config: the file may
give it as ``eligible.leader.replicas.version``, as ``kafka-features.sh describe`` shows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from checker.composition.cluster_keys import COVERED, NOT_MODELLED, UNUSED, ignored_reason
from spec.kafka import versions
from spec.kafka.config import Config

MAX_CLUSTER_REPLICAS = Config().replicas
"""The most replicas a cluster file's replication factor is explored at (every interleaving
of 3 replicas takes about a minute on the compiled core); ``--replicas`` goes further."""

ELR_FEATURE = "eligible.leader.replicas.version"
ZK_PRESETS = ("kafka-3.5", "kafka-3.5.1", "kafka-3.6", "kafka-3.7")
"""The KRaft-era presets that have rules a ZooKeeper cluster lacks (KIP-903's broker epoch,
KAFKA-15021's shrink in the same epoch)."""
DIVERGING = ("kafka-2.8", "kafka-3.0", "kafka-3.3", "kafka-3.4.1", *ZK_PRESETS)
"""The presets that truncate on the fetch response (KAFKA-10554): inter-broker protocol
2.7-IV1 and later; a lower one truncates before fetching, as ``kafka-2.1``."""
MAPPED = (
    "acks",
    "min.insync.replicas",
    "unclean.leader.election.enable",
    "default.replication.factor",
    "replication.factor",
    "log.flush.interval.messages",
    "flush.messages",
    ELR_FEATURE,
    "inter.broker.protocol.version",
)


class ClusterError(ValueError):
    """A setting or version the model cannot take; ``where`` is the setting's ``file:line``,
    or "" for a value of the command line (or gate key), ``option``: which one
    (``kafka_version``, ``min_isr``, ``replicas``)."""

    def __init__(self, message: str, where: str = "", option: str = "kafka_version") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where, self.option = where, option


@dataclass(frozen=True)
class Row:
    """One line of the mapping: the ``setting`` (a Kafka key), its ``value``, where it came
    from (``source``: ``file:line``, ``Kafka's default``, ``command line``), the model option
    it became (``option``, "" for none) and a ``note``."""

    setting: str
    value: str
    source: str
    option: str
    note: str = ""


@dataclass
class Mapping:
    """The result: the Kafka ``version``, the ``preset`` it runs, the model ``options``
    (``compose.make_config`` keys), the ``rows`` mapped, the settings ``not_modelled`` (they
    matter; the model cannot say them), ``covered`` and ``ignored`` ones (reason per row)."""

    version: str
    preset: str
    options: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    not_modelled: list[Row] = field(default_factory=list)
    covered: list[Row] = field(default_factory=list)
    ignored: list[Row] = field(default_factory=list)

    @property
    def said(self) -> str:
        """``Kafka 3.6.1 → preset kafka-3.6; acks=all, min.insync.replicas=2, unclean election
        off`` (the first half of the answer)."""
        o = self.options
        off = o.get("without_mechanisms", ())
        preset = self.preset + (f" without {', '.join(off)}" if off else "")
        unclean = "on" if o["unclean_election"] else "off"
        return (
            f"Kafka {self.version} → preset {preset}; acks={o['acks']}, "
            f"min.insync.replicas={o['min_isr']}, unclean election {unclean}"
        )


def _int(setting: Any, least: int) -> int:
    text = setting.value
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ClusterError(f"{setting.key}={text!r}: not an integer", setting.where)
    value = int(text)
    if value < least:
        raise ClusterError(f"{setting.key}={text}: at least {least}", setting.where)
    return value


def _bool(setting: Any) -> bool:
    text: str = setting.value.lower()
    if text not in ("true", "false"):
        raise ClusterError(f"{setting.key}={setting.value!r}: true or false", setting.where)
    return text == "true"


def _source(setting: Any) -> str:
    where: str = setting.where
    return where + (f" (over {setting.overrides})" if setting.overrides else "")


def preset_of(version: str, settings: dict[str, Any]) -> tuple[str, list[Row], tuple[str, ...]]:
    """``(preset, rows, mechanisms turned off)`` for Kafka ``version`` on a cluster with
    ``settings``: the release preset (``spec.kafka.versions``), moved by the ELR feature level
    (4.0 and later), a ZooKeeper cluster (3.5 to 3.9: no KIP-903 broker epoch, no KAFKA-15021)
    or an ``inter.broker.protocol.version`` below 2.7-IV1 (2.8 to 3.9, ZooKeeper: truncation
    before the fetch, ``kafka-2.1``). Raises ``ClusterError``."""
    text = version.strip().lower()
    try:
        preset = versions.preset_for(text) if text[:1].isdigit() or "-" in text else None
    except versions.UnknownVersion as error:
        raise ClusterError(f"Kafka version {version!r}: {error}") from None
    if preset is None:
        raise ClusterError(f"{version!r} is not a Kafka version (e.g. 3.6.1 or kafka-3.6.1)")
    off: tuple[str, ...] = ()
    rows = [
        Row(
            "Kafka version",
            version,
            "given",
            f"--truncation {preset}",
            f"the preset of {versions.covers(preset)}",
        )
    ]
    kraft = "process.roles" in settings or "zookeeper.connect" not in settings
    elr: Any = settings.get(ELR_FEATURE)
    if preset == "kafka-4.1" or elr is not None and preset == "kafka-4.0":
        level = 1 if elr is None else _int(elr, 0)
        if level not in (0, 1):
            raise ClusterError(f"{ELR_FEATURE}={level}: 0 or 1", elr.where)
        if preset == "kafka-4.0" and level:
            raise ClusterError(
                f"{ELR_FEATURE}=1 on Kafka 4.0 (ELR's preview): not modelled; kafka-4.1's ELR "
                "rules were read in 4.1's code",
                elr.where,
            )
        if not level:
            preset = "kafka-4.0"
        source = _source(elr) if elr else "Kafka's default (a cluster formatted at 4.1)"
        note = (
            "ELR on (KIP-966): a new 4.1 cluster"
            + (
                ""
                if elr
                else f"; an upgraded one runs kafka-4.0: {ELR_FEATURE}=0 in the file says so"
            )
            if level
            else "ELR off: an upgraded cluster runs 4.0's rules until kafka-features.sh "
            f"upgrade --release-version 4.1-IV0 (or --feature {ELR_FEATURE}=1)"
        )
        rows.append(Row(ELR_FEATURE, str(level), source, f"--truncation {preset}", note))
    elif elr is not None:
        raise ClusterError(
            f"{ELR_FEATURE}: Kafka {version} has no such feature (4.0 on)", elr.where
        )
    ibp: Any = settings.get("inter.broker.protocol.version")
    if ibp is not None and not kraft and preset not in ("kafka-4.0", "kafka-4.1"):
        found = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?(?:-IV(\d+))?", ibp.value)
        if found is None:
            raise ClusterError(
                f"inter.broker.protocol.version={ibp.value!r}: e.g. 2.7-IV1", ibp.where
            )
        major, minor, iv = int(found[1]), int(found[2]), found[3]
        old = (major, minor) < (2, 7) or (
            (major, minor) == (2, 7) and iv is not None and int(iv) < 1
        )
        if old and preset in DIVERGING:
            preset = "kafka-2.1"
            rows.append(
                Row(
                    ibp.key,
                    ibp.value,
                    _source(ibp),
                    "--truncation kafka-2.1",
                    "below 2.7-IV1: followers truncate before fetching, as 2.7 did",
                )
            )
    if not kraft and preset in ZK_PRESETS:
        off = ("broker-epoch", "shrink-in-epoch")
        rows.append(
            Row(
                "zookeeper.connect",
                settings["zookeeper.connect"].value,
                _source(settings["zookeeper.connect"]),
                "--without broker-epoch --without shrink-in-epoch",
                "ZooKeeper mode: no KIP-903 broker epochs; the controller takes a new "
                "leader epoch to shrink an ISR",
            )
        )
    return preset, rows, off


def _pick(settings: dict[str, Any], topic: str, broker: str) -> Any:
    """The topic's setting where given, else the broker's default (``LogConfig`` synonyms)."""
    return settings.get(topic) or settings.get(broker)


def map_cluster(version: str, settings: dict[str, Any], given: dict[str, Any]) -> Mapping:
    """The model options of Kafka ``version`` with ``settings`` (``checker.formats.cluster``'s
    ``{key: Setting}``); ``given`` holds the options set on the command line (``replicas``,
    ``min_isr``, ``unclean_election``, ``flush``, ``acks``; None: not given), which win over
    the file and are said so. Raises ``ClusterError`` for a value the model cannot take."""
    preset, rows, off = preset_of(version, settings)
    options: dict[str, Any] = {"truncation": preset}
    if off:
        options["without_mechanisms"] = off

    def use(key: str, setting: Any, value: Any, shown: str, option: str, note: str) -> None:
        if given.get(key) is not None:
            said = f"command line (the file: {shown})" if setting is not None else "command line"
            value, shown, source = given[key], str(given[key]), said
        else:
            source = _source(setting) if setting is not None else "Kafka's default"
        options[key] = value
        flag = {"unclean_election": "--unclean" if value else "--clean"}.get(key)
        rows.append(
            Row(
                setting.key if setting else option,
                shown,
                source,
                flag or f"--{key.replace('_', '-')} {value}",
                note,
            )
        )

    acks: Any = settings.get("acks")
    text = acks.value.lower() if acks else "all"
    if text not in ("all", "-1", "1"):
        raise ClusterError(
            f"acks={acks.value!r}: the model's producer waits for 1 or all (-1); acks=0 "
            "(no acknowledgement) is not modelled",
            acks.where if acks else "",
        )
    use(
        "acks",
        acks,
        "1" if text == "1" else "all",
        text,
        "acks",
        "the producer's setting" + ("" if acks else ": all is its default from 3.0 (KIP-679)"),
    )
    isr = settings.get("min.insync.replicas")
    value = _int(isr, 1) if isr else 1
    note = "acks=all writes need this many in the ISR" + (
        "; with ELR Kafka keeps it at cluster level (the active controller's value)"
        if preset == "kafka-4.1"
        else ""
    )
    use("min_isr", isr, value, str(value), "min.insync.replicas", note)
    unclean = settings.get("unclean.leader.election.enable")
    flag = _bool(unclean) if unclean else False
    use(
        "unclean_election",
        unclean,
        flag,
        str(flag).lower(),
        "unclean.leader.election.enable",
        "unclean recovery with ELR (KIP-966)" if preset == "kafka-4.1" else "",
    )
    flush = _pick(settings, "flush.messages", "log.flush.interval.messages")
    every = _int(flush, 1) if flush else None
    use(
        "flush",
        flush,
        "always" if every == 1 else "background",
        str(every) if every else "Long.MAX",
        "log.flush.interval.messages",
        ("an fsync per record" if every == 1 else "the OS flushes")
        + "; counts only with --max-unclean-shutdowns (power loss)",
    )
    rf = _pick(settings, "replication.factor", "default.replication.factor")
    factor = _int(rf, 1) if rf else None
    replicas = min(factor or MAX_CLUSTER_REPLICAS, MAX_CLUSTER_REPLICAS)
    note = (
        f"capped: the model explores {replicas} of your {factor} replicas (--replicas to go on)"
        if factor and factor > replicas
        else "not set: the model's 3 (Kafka's default.replication.factor 1 is for "
        "auto-created topics; give the topic's replication.factor)"
        if factor is None
        else ""
    )
    use("replicas", rf, replicas, str(factor or 1), "default.replication.factor", note)
    if options["min_isr"] > options["replicas"]:
        raise ClusterError(
            f"min.insync.replicas={options['min_isr']} needs at least that many replicas and "
            f"the model explores {options['replicas']}: pass --replicas {options['min_isr']}",
            isr.where if isr and given.get("min_isr") is None else "",
            "min_isr" if given.get("min_isr") is not None else "replicas",
        )
    mapping = Mapping(version.strip(), preset, options, rows)
    used = {row.setting for row in rows}
    for key, setting in sorted(settings.items()):
        if key in used:
            continue
        if key in NOT_MODELLED:
            kind, why = mapping.not_modelled, NOT_MODELLED[key]
        elif key in COVERED:
            kind, why = mapping.covered, COVERED[key]
        else:
            kind, why = mapping.ignored, UNUSED.get(key) or ignored_reason(key)
        kind.append(Row(key, setting.value, _source(setting), "", why))
    return mapping
