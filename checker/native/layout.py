"""The label layout of the compiled cores, read once from its one definition, ``labels.h``:
how a 16-bit label code holds an action and its arguments. The model codecs build their label
tables with ``LAYOUT.code``; ``checker.native.core.Core`` checks that the library it loads was
built with the same layout (``eng_label_layout``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from checker import model
from checker.model import CompiledModel, Spec
from checker.native.build import NativeUnavailable, read_source

HEADER = Path(__file__).parent / "labels.h"


@dataclass(frozen=True)
class Layout:
    """``labels.h``'s numbers: ``bits`` per code, the action's ``shift``, ``arg_bits`` per
    argument, and ``max_actions``, the action indices a model may use."""

    bits: int
    shift: int
    arg_bits: int
    max_actions: int

    @property
    def codes(self) -> int:
        """How many label codes there are (``LABEL_CODES``)."""
        return 1 << self.bits

    @property
    def actions(self) -> int:
        """How many action codes there are (``LABEL_ACTIONS``)."""
        return 1 << (self.bits - self.shift)

    def code(self, action: int, *args: int) -> int:
        """The code of ``action`` with up to three arguments (``LABEL_OF``). Raises
        ``ValueError`` when one does not fit its bits."""
        if not 0 <= action < self.actions or len(args) > self.shift // self.arg_bits:
            raise ValueError(f"no label code for action {action} with arguments {args}")
        code = action << self.shift
        for i, arg in enumerate(args):
            if not 0 <= arg < 1 << self.arg_bits:
                raise ValueError(f"label argument {arg} past {self.arg_bits} bits")
            code |= arg << (self.shift - self.arg_bits * (i + 1))
        return code

    def numbers(self) -> tuple[int, int, int, int, int]:
        """``eng_label_layout``'s five numbers: bits, shift, argument bits, action codes,
        action indices."""
        return (self.bits, self.shift, self.arg_bits, self.actions, self.max_actions)


def read(text: str) -> Layout:
    """The layout ``text`` (``labels.h``) defines. Raises ``NativeUnavailable`` when a number
    is missing."""
    found = dict(re.findall(r"^#define (\w+) (\d+)$", text, re.MULTILINE))
    names = ("LABEL_BITS", "LABEL_SHIFT", "LABEL_ARG_BITS", "MODEL_MAX_ACTIONS")
    missing = [name for name in names if name not in found]
    if missing:
        raise NativeUnavailable(f"{HEADER.name} does not define {missing[0]}")
    bits, shift, arg_bits, max_actions = (int(found[name]) for name in names)
    return Layout(bits, shift, arg_bits, max_actions)


LAYOUT = read(read_source(HEADER).decode())
"""The layout every compiled core uses."""


def compiled_model(spec: Spec) -> tuple[CompiledModel | None, str]:
    """``spec``'s compiled model with this layout's label codes, or ``(None, why not)``
    (``checker.model.compiled_model``: the engine's way to ask a spec)."""
    return model.compiled_model(spec, LAYOUT)
