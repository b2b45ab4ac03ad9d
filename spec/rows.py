"""Helpers for the compiled cores' row codecs (``spec/*/native``): replica sets as bit masks,
and the label layout the codecs are handed."""

from __future__ import annotations

from typing import Any, Protocol


class LabelLayout(Protocol):
    """How a label code holds an action and its arguments (``checker.native.layout.Layout``,
    read from ``checker/native/labels.h``): a codec builds its label table with it."""

    @property
    def arg_bits(self) -> int:
        """Bits per argument."""
        ...

    def code(self, action: int, *args: int) -> int:
        """The code of ``action`` with up to three arguments."""
        ...


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
