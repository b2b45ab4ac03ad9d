"""Helpers for the compiled cores' row codecs (``spec/*/native``): replica sets as bit masks,
and the label layout the codecs are handed."""

from __future__ import annotations

from typing import Any

from checker.model import LabelLayout

__all__ = ["LabelLayout", "mask", "members"]


def mask(members: Any) -> int:
    """The bit mask of a set of replica ids (bit r for replica r)."""
    bits = 0
    for member in members:
        bits |= 1 << member
    return bits


def members(bits: int) -> tuple[Any, ...]:
    """The sorted tuple of the replica ids in an 8-bit mask (a row byte, signed or not)."""
    bits &= 0xFF
    return tuple(m for m in range(8) if bits >> m & 1)
