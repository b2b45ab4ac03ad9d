"""Small helpers for the immutable tuple states both models use."""

from __future__ import annotations

from collections.abc import Callable
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


class LastTwo:
    """Remembers ``compute(key)`` for the last two keys, compared by identity (a key stays
    referenced while remembered, so its identity cannot be reused)."""

    __slots__ = ("compute", "k1", "k2", "v1", "v2")

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute = compute
        self.k1 = self.v1 = self.k2 = self.v2 = None

    def get(self, key: Any) -> Any:
        if key is self.k1:
            return self.v1
        if key is self.k2:  # make it the most recent
            self.k1, self.v1, self.k2, self.v2 = self.k2, self.v2, self.k1, self.v1
            return self.v1
        self.k2, self.v2 = self.k1, self.v1
        self.k1, self.v1 = key, self.compute(key)
        return self.v1
