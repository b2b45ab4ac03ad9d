"""A folder on any file system Hadoop reaches (``file://``, ``hdfs://``, ``s3a://`` with its
connector on the classpath, ...), used through the Spark JVM's own ``FileSystem``
(``org.apache.hadoop.fs.FileSystem`` of the context's Hadoop configuration): the small files
the driver writes (a checkpoint's manifest) and the folders Spark's save actions write
(``RDD.saveAsPickleFile``). No per-state data passes through here.
"""

from __future__ import annotations

from typing import Any


class Place:
    """The folder ``url`` seen through ``sc``'s JVM (a ``pyspark.SparkContext``). Every
    method raises ``OSError`` when the file system refuses (the JVM's message in it)."""

    def __init__(self, sc: Any, url: str) -> None:
        self.sc, self.url = sc, url.rstrip("/")
        jvm = sc._jvm
        self._path = jvm.org.apache.hadoop.fs.Path
        try:
            self.fs = self._path(self.url).getFileSystem(sc._jsc.hadoopConfiguration())
        except Exception as exc:  # noqa: BLE001 -- py4j: no file system for the scheme
            raise OSError(said(exc)) from None

    def join(self, name: str) -> str:
        """The URL of ``name`` in this folder."""
        return f"{self.url}/{name}"

    def _call(self, work: Any) -> Any:
        try:
            return work()
        except Exception as exc:  # noqa: BLE001 -- py4j wraps Java's IOException
            raise OSError(said(exc)) from None

    def names(self) -> list[str]:
        """The names in the folder (none when it does not exist)."""

        def listing() -> list[str]:
            path = self._path(self.url)
            if not self.fs.exists(path):
                return []
            return [status.getPath().getName() for status in self.fs.listStatus(path)]

        names: list[str] = self._call(listing)
        return names

    def exists(self, name: str) -> bool:
        """Whether ``name`` (a file or folder) is there."""
        return bool(self._call(lambda: self.fs.exists(self._path(self.join(name)))))

    def read(self, name: str) -> bytes:
        """The bytes of file ``name``."""

        def reading() -> bytes:
            stream = self.fs.open(self._path(self.join(name)))
            try:
                data = self.sc._jvm.org.apache.commons.io.IOUtils.toByteArray(stream)
            finally:
                stream.close()
            return bytes(data)

        data: bytes = self._call(reading)
        return data

    def write(self, name: str, data: bytes) -> None:
        """Write file ``name`` whole: under a hidden temporary name (``_`` first: Hadoop's
        readers skip it), then renamed to ``name``, which must not exist yet (a rename that
        overwrites is not atomic on every file system)."""

        def writing() -> None:
            tmp = self._path(self.join(f"_{name}.tmp"))
            out = self.fs.create(tmp, True)
            try:
                out.write(bytearray(data))
                out.hsync()
            finally:
                out.close()
            if not self.fs.rename(tmp, self._path(self.join(name))):
                self.fs.delete(tmp, False)
                raise OSError(f"cannot rename a file to {self.join(name)}")

        self._call(writing)

    def delete(self, name: str) -> None:
        """Delete ``name`` (a folder with everything in it); nothing when it is not there."""
        self._call(lambda: self.fs.delete(self._path(self.join(name)), True))


def said(exc: Exception) -> str:
    """The Java exception's own message from a py4j error (its first line), else ``exc``'s."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        return str(java.toString())
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
