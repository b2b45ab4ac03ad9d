"""Build and load a compiled core: ``engine.c`` plus a model's C sources, compiled once with
the machine's C compiler into a cache folder and loaded with ``ctypes``.

The cache key is a hash of every source and header, the compiler and its flags, so an edited
model recompiles by itself and an unchanged one loads in milliseconds. The library is
written to a temporary name and renamed into place, so processes that build at the same time
(workers, parallel tests) never load a half-written file.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).parent
ENGINE_SOURCES = (HERE / "engine.c", HERE / "walk.c", HERE / "xxh3.c")
HEADERS = (HERE / "model.h", HERE / "rows.h", HERE / "xxh3.h")
FLAGS = ("-O2", "-std=gnu11", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing")


class NativeUnavailable(RuntimeError):
    """The compiled core cannot be built or loaded here (no C compiler, a failed build, a
    broken cache); the message says why in one line. Callers fall back to the reference."""


def cache_dir() -> Path:
    """Where built cores live: ``$HWCHECK_CACHE``, else ``$XDG_CACHE_HOME/hwcheck``, else
    ``~/.cache/hwcheck``."""
    if os.environ.get("HWCHECK_CACHE"):
        return Path(os.environ["HWCHECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hwcheck"


def compiler() -> list[str]:
    """The C compiler command: ``$CC`` as given, else the one Python was built with if this
    machine has it, else ``cc``."""
    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"])
    words = shlex.split(sysconfig.get_config_var("CC") or "cc")
    return words if shutil.which(words[0]) else ["cc"]


_LOADED: dict[str, ctypes.CDLL] = {}


def load(name: str, sources: Sequence[Path], headers: Sequence[Path] = (),
         on_compile: Callable[[float], None] | None = None) -> ctypes.CDLL:
    """The shared library built from ``engine.c`` and ``sources`` (with ``headers``' folders
    on the include path), building it first if the cache has none. ``on_compile(seconds)``
    is called after a build. Raises ``NativeUnavailable`` with a one-line reason when there
    is no compiler, the build fails or the library does not load."""
    everything = [*ENGINE_SOURCES, *sources, *HEADERS, *headers]
    cc = compiler()
    digest = hashlib.sha256()
    for part in (*cc, *FLAGS, platform.machine(), platform.python_implementation()):
        digest.update(part.encode() + b"\0")
    try:
        for path in everything:
            digest.update(Path(path).read_bytes())
    except OSError as exc:
        raise NativeUnavailable(f"a source of the compiled core is missing: {exc}") from None
    key = f"{name}-{digest.hexdigest()[:16]}"
    if key in _LOADED:
        return _LOADED[key]
    folder = cache_dir()
    target = folder / f"{key}.so"
    includes = {p.parent for p in everything}
    cached = target.exists()
    if not cached:
        seconds = _compile(cc, [*ENGINE_SOURCES, *sources], includes, folder, target)
        if on_compile is not None:
            on_compile(seconds)
    try:
        lib = ctypes.CDLL(str(target))
    except OSError as exc:
        if not cached:
            raise NativeUnavailable(f"the compiled core at {target} does not load: "
                                    f"{exc}") from None
        target.unlink(missing_ok=True)  # a broken cache entry: build it again, once
        return load(name, sources, headers, on_compile)
    try:
        _declare(lib)
    except AttributeError as exc:
        raise NativeUnavailable(f"the compiled core at {target} is not this hwcheck's ({exc}); "
                                f"delete {folder} to rebuild it") from None
    _LOADED[key] = lib
    return lib


def _compile(cc: list[str], sources, includes, folder: Path, target: Path) -> float:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=target.stem, suffix=".tmp", dir=folder)
        os.close(fd)
    except OSError as exc:
        raise NativeUnavailable(f"cannot write the compiled core's cache {folder}: "
                                f"{exc.strerror}") from None
    command = [*cc, *FLAGS, *[f"-I{d}" for d in sorted(map(str, includes))],
               *map(str, sources), "-o", partial]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except FileNotFoundError:
        os.unlink(partial)
        raise NativeUnavailable(f"no C compiler ({cc[0]} not found)") from None
    except subprocess.TimeoutExpired:
        os.unlink(partial)
        raise NativeUnavailable("the C compiler took over 300 s") from None
    if done.returncode != 0:
        os.unlink(partial)
        first = next((line for line in done.stderr.splitlines() if "error" in line),
                     done.stderr.strip()[:200])
        raise NativeUnavailable(f"the compiled core did not build: {first}")
    os.replace(partial, target)
    return time.perf_counter() - start


def _declare(lib: ctypes.CDLL) -> None:
    """Argument and result types of engine.c's functions."""
    p, i32, i64, u32 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32
    signatures = {
        "eng_new": (p, [p, i32, p, u32, u32, u32, i32, i32]),
        "eng_free": (None, [p]),
        "eng_width": (i32, [p]),
        "eng_max_marshal": (i32, [p]),
        "eng_seed": (i32, [p, p, p, i64]),
        "eng_set_masks": (None, [p, u32, u32, u32]),
        "eng_expand": (i32, [p, i64, i64]),
        "eng_probe": (i32, [p]),
        "eng_finish": (i64, [p]),
        "eng_advance": (i32, [p, p]),
        "eng_next_size": (i64, [p]),
        "eng_next_parents": (p, [p]),
        "eng_next_labels": (p, [p]),
        "eng_next_bad": (p, [p]),
        "eng_generated": (p, [p]),
        "eng_guard_mask": (u32, [p]),
        "eng_broken": (i32, [p, i32, p, p, p]),
        "eng_successors": (i32, [p, p, p, p, p]),
        "eng_canonical": (None, [p, p, p]),
        "eng_invariants": (u32, [p, p, u32]),
        "eng_row_marshal": (i32, [p, p, p]),
        "eng_next_fps": (p, [p]),
        "eng_next_rows": (p, [p]),
        "eng_front_fps": (p, [p]),
        "eng_check_rows": (None, [p, p, i64, u32, p]),
        "hwcheck_xxh3": (ctypes.c_uint64, [p, ctypes.c_size_t]),
        "hwcheck_mt_draws": (None, [p, p, i32, p]),
        "eng_walk": (i32, [p, p, i32, p, p, u32, u32, u32, p, p, p, p, p, p, p]),
    }
    for name, (result, args) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, args
