"""Small helpers for the immutable tuple states both models use."""

from __future__ import annotations

from typing import Any


def put(values: tuple[Any, ...], index: int, value: object) -> tuple[Any, ...]:
    """``values`` with ``values[index]`` replaced by ``value``."""
    return values[:index] + (value,) + values[index + 1 :]


def with_member(isr: tuple[Any, ...], replica: int) -> tuple[Any, ...]:
    """The sorted ISR with ``replica`` added."""
    return tuple(sorted(isr + (replica,)))


def without_member(isr: tuple[Any, ...], replica: int) -> tuple[Any, ...]:
    """The ISR with ``replica`` removed."""
    return tuple(m for m in isr if m != replica)
