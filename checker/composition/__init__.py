"""A model and its properties composed from plain options (``compose``): the one place that
knows both the generic checker and the models in ``spec/`` and ``invariants/``."""
