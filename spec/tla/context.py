"""What the TLA+ port's action modules read of the model that gathers them:
``spec.tla.model.TlaSpec`` is the one class with these fields. ``spec.tla.actions`` and
``spec.tla.fenced`` name this protocol in their annotations instead of the class, so neither
imports the module that imports them."""

from __future__ import annotations

from typing import Protocol

from spec.tla.config import TlaConfig
from spec.tla.labels import Labels


class TlaContext(Protocol):
    """The constants (``config``: the TLA+ module's CONSTANTS) and the variant's labels."""

    config: TlaConfig
    labels: Labels
