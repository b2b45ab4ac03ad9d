"""The local engine on the compiled core: the reference engine's level loop with each level's
work done in C (``search``), what it saves to a checkpoint and resumes from (``saving``), and
the keys its seen set dedups on (``keys``, ``width``)."""
