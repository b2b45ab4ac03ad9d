"""PySpark's worker daemon (``pyspark.daemon``) with the worker module imported once, before
it forks any worker: ``spark.python.daemon.module`` on masters whose workers run this
installation (``checker.spark.session``).

PySpark's own daemon imports ``pyspark.worker`` in every forked worker, after the fork (in
case an import starts threads). On a pip-installed PySpark that module comes from
``pyspark/python/lib/pyspark.zip``, which the JVM puts first on the workers' path, and
Python caches no bytecode for a zip: each new worker compiled it again, about 0.7 s of CPU
(measured on the 2-core machine, PySpark 4.3), and a search forks about ten. Importing it
here starts no thread (checked: no pandas, pyarrow or numpy among its imports), so the forks
inherit it and import nothing again.
"""

from __future__ import annotations

import pyspark.worker  # noqa: F401 -- imported before the forks: the point of this module
from pyspark import daemon

if __name__ == "__main__":
    daemon.manager()
