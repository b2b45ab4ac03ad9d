"""Stable 64-bit state fingerprints.

A fingerprint is ``xxh3_64`` of the state's ``marshal`` encoding at format version 2. Format 2
has no back-references (those came with version 3 and depend on reference counts), so the bytes
depend only on the value: the same state gives the same fingerprint in every process, whatever
``PYTHONHASHSEED`` is, which Python's own ``hash()`` does not guarantee (``hash(None)`` and
``hash(str)`` vary between processes). States must be built from tuples, ints, bools, str and
None only; a set or dict would make the encoding depend on iteration order.
"""

from __future__ import annotations

import marshal
from typing import Any

import xxhash

MARSHAL_VERSION = 2
"""The marshal format of the canonical encoding (``marshal.dumps(state, MARSHAL_VERSION)``)."""
_xxh3 = xxhash.xxh3_64_intdigest
_dumps = marshal.dumps

FP_BITS = 64

fingerprint_bytes = _xxh3
"""``fingerprint_bytes(encoded) -> int``: the fingerprint of a state from its encoding (the
bytes ``encode`` returns); for engines that keep or ship the encoding anyway."""


def encode(state: Any) -> bytes:
    """The state's canonical encoding: marshal format 2 (``marshal.loads`` decodes it).

    Raises ``ValueError`` if the state holds a value ``marshal`` cannot encode.
    """
    return _dumps(state, MARSHAL_VERSION)


def fingerprint(state: Any) -> int:
    """Return the state's fingerprint, an int in ``[0, 2**64)``: ``fingerprint_bytes(encode(state))``.

    Raises ``ValueError`` if the state holds a value ``marshal`` cannot encode.
    """
    return _xxh3(_dumps(state, MARSHAL_VERSION))


def collision_probability(distinct: int, generated: int, bits: int = FP_BITS) -> float:
    """TLC's optimistic estimate of a collision of ``bits``-bit keys: ``n·(g−n)/2^bits``.

    ``distinct`` is n, the number of distinct states; ``generated`` is g, the number of states
    generated (successors computed, duplicates included); ``bits`` the width of the key the
    seen set dedups on (64: the fingerprint, or the compiled core's 64-bit row hash; 128:
    its ``--fingerprint-bits 128`` key). Source: TLC's
    ``AbstractChecker.calculateOptimisticProbability``.
    """
    return distinct * max(generated - distinct, 0) / float(2**bits)


def fp_hex(fp: int) -> str:
    """A fingerprint as 16 lowercase hex digits, as written in traces."""
    return f"{fp:016x}"
