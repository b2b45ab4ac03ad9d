"""PySpark's worker daemon (``pyspark.daemon``) with the modules every task needs imported
once, before it forks any worker: ``spark.python.daemon.module`` on masters whose workers
run this installation (``checker.spark.session``).

PySpark's own daemon imports ``pyspark.worker`` in every forked worker, after the fork (in
case an import starts threads). On a pip-installed PySpark that module comes from
``pyspark/python/lib/pyspark.zip``, which the JVM puts first on the workers' path, and
Python caches no bytecode for a zip: each new worker compiled it again, about 0.7 s of CPU
(measured on the 2-core machine, PySpark 4.3), and a search forks about ten; each then
imported numpy and hwcheck's level functions when it unpickled its first task (the model's
own modules it still imports: the engine does not know the models). Here they
are imported before the forks, and no thread is started: ``pyspark.worker`` imports no
pandas, pyarrow or numpy, and numpy's OpenBLAS is held to one thread (the workers do no
linear algebra), so the forks inherit one thread and the modules.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _without_pyspark_zip(path: list[str]) -> list[str]:
    """``path`` (``sys.path``) without the ``pyspark.zip`` the JVM put first when it is
    the pip-installed PySpark's own copy (``<site>/pyspark/python/lib/pyspark.zip`` beside
    ``<site>/pyspark/__init__.py``): PySpark is then imported from the package folder, with
    its bytecode cached, and no task re-reads the zip's directory (every task calls
    ``importlib.invalidate_caches``, about 4 % of the workers' time with the zip)."""
    own = [
        p
        for p in path
        if p.endswith("pyspark.zip") and (Path(p).parents[2] / "__init__.py").is_file()
    ]
    return [p for p in path if p not in own]


sys.path[:] = _without_pyspark_zip(sys.path)
os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy: OpenBLAS would start its threads

import pyspark.worker  # noqa: F401 -- imported before the forks: this module's point
from pyspark import daemon

import checker.search.partitioned.compiled_level
import checker.spark.rdds  # noqa: F401

if __name__ == "__main__":
    daemon.manager()
