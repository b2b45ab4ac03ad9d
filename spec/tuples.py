"""Small helpers for the immutable tuple states both models use."""

from __future__ import annotations


def put(values: tuple, index: int, value: object) -> tuple:
    """``values`` with ``values[index]`` replaced by ``value``."""
    return values[:index] + (value,) + values[index + 1 :]


def with_member(isr: tuple, replica: int) -> tuple:
    """The sorted ISR with ``replica`` added."""
    return tuple(sorted(isr + (replica,)))


def without_member(isr: tuple, replica: int) -> tuple:
    """The ISR with ``replica`` removed."""
    return tuple(m for m in isr if m != replica)
