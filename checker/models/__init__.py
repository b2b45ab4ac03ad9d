"""A model and its properties built from plain options (the one place that knows both the
generic checker and the models in ``spec/`` and ``invariants/``), and what is computed on a
built model for a reader (the aftermath of a loss)."""
