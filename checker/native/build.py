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
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).parent
ENGINE_SOURCES = (
    HERE / "engine.c",
    HERE / "workers.c",
    HERE / "access.c",
    HERE / "tier.c",
    HERE / "seen.c",
    HERE / "walk.c",
    HERE / "xxh3.c",
    HERE / "lgraph.c",
    HERE / "latoms.c",
    HERE / "ograph.c",
    HERE / "oexpand.c",
    HERE / "oseal.c",
    HERE / "scc.c",
    HERE / "lwalk.c",
    HERE / "lfiles.c",
    HERE / "lscratch.c",
)
HEADERS = (
    HERE / "model.h",
    HERE / "glue.h",
    HERE / "engine.h",
    HERE / "tables.h",
    HERE / "seen.h",
    HERE / "rows.h",
    HERE / "xxh3.h",
    HERE / "lgraph.h",
    HERE / "oexpand.h",
    HERE / "labels.h",
)
FLAGS = ("-O2", "-std=gnu11", "-shared", "-fPIC", "-pthread", "-fno-strict-aliasing")
SANITIZE = (
    "-O1",
    "-g",
    "-fno-omit-frame-pointer",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
)
"""Flags added when ``$HWCHECK_SANITIZE`` is set (``tests/test_native_sanitize.py``): every
warning an error, AddressSanitizer and UndefinedBehaviorSanitizer stopping at the first
report. Such a library loads only in a process started with the sanitizer runtime preloaded
(``LD_PRELOAD`` of the compiler's ``libasan.so``)."""


class NativeUnavailable(RuntimeError):
    """The compiled core cannot be built or loaded here (no C compiler, a failed build, a
    broken cache); the message says why in one line. Callers fall back to the reference."""


def sanitized() -> bool:
    """Whether this process builds and loads the sanitized cores (``$HWCHECK_SANITIZE``)."""
    return bool(os.environ.get("HWCHECK_SANITIZE"))


def flags() -> tuple[str, ...]:
    """The compiler flags: ``FLAGS``, then ``SANITIZE`` when ``sanitized()``."""
    return FLAGS + SANITIZE if sanitized() else FLAGS


def cache_dir() -> Path:
    """Where built cores live: ``$HWCHECK_CACHE``, else ``$XDG_CACHE_HOME/hwcheck``, else
    ``~/.cache/hwcheck``; its folder ``sanitized`` when ``sanitized()``."""
    if os.environ.get("HWCHECK_CACHE"):
        folder = Path(os.environ["HWCHECK_CACHE"])
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = Path(base) / "hwcheck"
    return folder / "sanitized" if sanitized() else folder


def compiler() -> list[str]:
    """The C compiler command: ``$CC`` as given, else the one Python was built with if this
    machine has it, else ``cc``."""
    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"])
    words = shlex.split(sysconfig.get_config_var("CC") or "cc")
    return words if shutil.which(words[0]) else ["cc"]


_LOADED: dict[str, ctypes.CDLL] = {}


KEY_BITS = (64, 128)
"""The widths of the key the seen set dedups on that a library can be built for
(``HW_KEY_BITS`` in ``tables.h``): one library per width, 64 unless asked."""


def load(
    name: str,
    sources: Sequence[Path],
    headers: Sequence[Path] = (),
    on_compile: Callable[[float], None] | None = None,
    key_bits: int = 64,
) -> ctypes.CDLL:
    """The shared library built from ``engine.c`` and ``sources`` (with ``headers``' folders
    on the include path) with ``key_bits``-bit seen-set keys (``KEY_BITS``), building it
    first if the cache has none. ``on_compile(seconds)`` is called after a build. Raises
    ``NativeUnavailable`` with a one-line reason when there is no compiler, the build fails
    or the library does not load, ``ValueError`` for a width not in ``KEY_BITS``."""
    if key_bits not in KEY_BITS:
        raise ValueError(f"keys of {key_bits} bits: the compiled core has {KEY_BITS}")
    everything = [*ENGINE_SOURCES, *sources, *HEADERS, *headers]
    cc = [*compiler(), *(["-DHW_KEY_BITS=128"] if key_bits == 128 else [])]
    digest = hashlib.sha256()
    for part in (*cc, *flags(), platform.machine(), platform.python_implementation()):
        digest.update(part.encode() + b"\0")
    try:
        texts = {Path(path).name: read_source(Path(path)) for path in everything}
    except (OSError, KeyError) as exc:
        raise NativeUnavailable(f"a source of the compiled core is missing: {exc}") from None
    if len(texts) != len(everything):
        raise NativeUnavailable("two sources of the compiled core share a file name")
    for path in everything:
        digest.update(texts[Path(path).name])
    key = f"{name}{'-k128' if key_bits == 128 else ''}-{digest.hexdigest()[:16]}"
    if key in _LOADED:
        return _LOADED[key]
    folder = cache_dir()
    target = folder / f"{key}.so"
    cached = target.exists()
    if not cached:
        compiled = [Path(p).name for p in (*ENGINE_SOURCES, *sources)]
        seconds = _compile(cc, texts, compiled, folder, target)
        if on_compile is not None:
            on_compile(seconds)
    try:
        lib = ctypes.CDLL(str(target))
    except OSError as exc:
        if not cached:
            raise NativeUnavailable(f"the compiled core at {target} does not load: {exc}") from None
        target.unlink(missing_ok=True)  # a broken cache entry: build it again, once
        return load(name, sources, headers, on_compile, key_bits)
    try:
        _declare(lib)
    except AttributeError as exc:
        raise NativeUnavailable(
            f"the compiled core at {target} is not this hwcheck's ({exc}); "
            f"delete {folder} to rebuild it"
        ) from None
    _LOADED[key] = lib
    return lib


def read_source(path: Path) -> bytes:
    """A source file's bytes, also when hwcheck runs from a zip (a Spark cluster's executors
    import it from the bundle the driver ships): then the path runs through the zip file.
    Raises ``OSError`` or ``KeyError`` when it is in neither."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        for parent in path.parents:
            if parent.is_file() and zipfile.is_zipfile(parent):
                with zipfile.ZipFile(parent) as bundle:
                    return bundle.read(path.relative_to(parent).as_posix())
        raise


def _compile(
    cc: list[str], texts: dict[str, bytes], sources: list[str], folder: Path, target: Path
) -> float:
    """Write ``texts`` (file name -> bytes) to a build folder in the cache and compile
    ``sources`` (names among them) into ``target``; returns the seconds it took."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=target.stem, suffix=".tmp", dir=folder)
        os.close(fd)
        build = tempfile.mkdtemp(prefix=f".{target.stem}-", dir=folder)
        for name, data in texts.items():
            Path(build, name).write_bytes(data)
    except OSError as exc:
        raise NativeUnavailable(
            f"cannot write the compiled core's cache {folder}: {exc.strerror}"
        ) from None
    paths = [os.path.join(build, n) for n in sources]
    command = [*cc, *flags(), f"-I{build}", *paths, "-o", partial]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except FileNotFoundError:
        os.unlink(partial)
        raise NativeUnavailable(f"no C compiler ({cc[0]} not found)") from None
    except subprocess.TimeoutExpired:
        os.unlink(partial)
        raise NativeUnavailable("the C compiler took over 300 s") from None
    finally:
        shutil.rmtree(build, ignore_errors=True)
    if done.returncode != 0:
        os.unlink(partial)
        first = next(
            (line for line in done.stderr.splitlines() if "error" in line),
            done.stderr.strip()[:200],
        )
        raise NativeUnavailable(f"the compiled core did not build: {first}")
    os.replace(partial, target)
    return time.perf_counter() - start


def _declare(lib: ctypes.CDLL) -> None:
    """Argument and result types of engine.c's functions."""
    p, i32, i64, u32 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32
    signatures = {
        "eng_new": (p, [p, p, u32, u32, u32, i32, i32, p, ctypes.c_size_t]),
        "eng_param_names": (ctypes.c_char_p, []),
        "eng_free": (None, [p]),
        "eng_width": (i32, [p]),
        "eng_max_marshal": (i32, [p]),
        "eng_seed": (i32, [p, p, p, i64]),
        "eng_set_masks": (None, [p, u32, u32, u32]),
        "eng_set_level_limit": (None, [p, i64]),
        "eng_key_bytes": (i32, []),
        "eng_expand": (i32, [p, i64, i64]),
        "eng_probe": (i32, [p, i64, i64]),
        "eng_finish": (i64, [p]),
        "eng_advance": (i32, [p, p]),
        "eng_next_size": (i64, [p]),
        "eng_next_parents": (p, [p]),
        "eng_next_labels": (p, [p]),
        "eng_next_bad": (p, [p]),
        "eng_generated": (p, [p]),
        "eng_label_layout": (None, [p]),
        "eng_action_table": (None, [p]),
        "eng_guard_mask": (u32, [p]),
        "eng_broken": (i32, [p, i32, p, p, p]),
        "eng_successors": (i32, [p, p, i32, p, p, p]),
        "eng_canonical": (i32, [p, p, p]),
        "eng_max_successors": (i32, [p]),
        "eng_invariants": (u32, [p, p, u32]),
        "eng_row_marshal": (i32, [p, p, p]),
        "eng_next_fps": (p, [p]),
        "eng_next_rows": (p, [p]),
        "eng_front_fps": (p, [p]),
        "eng_check_rows": (None, [p, p, i64, u32, p]),
        "eng_front_rows": (p, [p]),
        "eng_seen_count": (i64, [p]),
        "eng_seen_bytes": (i64, [p]),
        "eng_seen_has": (None, [p, p, i64, p]),
        "eng_seen_copy": (None, [p, p]),
        "eng_seen_load": (i32, [p, p, i64]),
        "eng_seen_clear": (i32, [p]),
        "eng_next_hashes": (None, [p, p]),
        "eng_next_drop": (i32, [p, p]),
        "eng_window": (None, [p, p, i64]),
        "eng_front_hashes": (None, [p, p]),
        "eng_next_entries": (None, [p, p, p, p, p]),
        "eng_rows_finish": (i32, [p, p, i64, p, p]),
        "eng_regen": (i32, [p, p, p, p, i64, p]),
        "eng_front_fps_set": (i32, [p, p, i64]),
        "eng_level_release": (i32, [p]),
        "eng_level_reset": (None, [p]),
        "hwcheck_xxh3": (ctypes.c_uint64, [p, ctypes.c_size_t]),
        "hwcheck_mt_draws": (None, [p, p, i32, p]),
        "eng_walk": (i32, [p, p, i32, p, p, u32, u32, u32, p, p, p, p, p, p, p]),
        "lg_new": (p, [p, p, ctypes.c_size_t]),
        "lg_free": (None, [p]),
        "lg_set_dir": (i32, [p, ctypes.c_char_p]),
        "lg_disk_error": (i32, [p]),
        "lf_use_dir": (i32, [ctypes.c_char_p, i64]),
        "lf_counts": (None, [p]),
        "lf_numpy_handler": (p, []),
        "lf_capsule_name": (p, []),
        "lg_build": (i64, [p, p, i64, i64]),
        "lg_build_orbits": (i64, [p, p, i64, i64, i32, i32]),
        "lg_find": (i64, [p, p]),
        "lg_row": (i64, [p, i64, p]),
        "lg_acode": (p, [p, i32]),
        "lg_atab": (p, [p, i32]),
        "lg_nperms": (i32, [p]),
        "lg_width": (i32, [p]),
        "lg_count": (i64, [p]),
        "lg_edges": (i64, [p]),
        "lg_error_depth": (i64, [p]),
        "lg_atoms": (i64, [p, i32, p, p]),
        "lg_key": (i64, [p, p, p, ctypes.c_uint64, p, p]),
        "lg_conditions": (None, [p, p]),
        "lg_first_codes": (None, [p, p]),
        "lg_enabled": (None, [p, p, p, i64, i64, p]),
        "lg_reach": (i64, [p, p, p, i32]),
        "lg_sub_count": (i64, [p, p, i64, p]),
        "lg_sub_fill": (None, [p, p, i64, p, p, p, p]),
        "lg_bfs": (i64, [p, i64, p, p, p, p, i64]),
        "lg_scc": (i64, [i64, p, p, p]),
        "lg_transpose_count": (None, [i64, p, p]),
        "lg_transpose_place": (None, [i64, p, p, p, p]),
    }
    for name in ("lg_rows", "lg_off", "lg_dst", "lg_lab", "lg_parent", "lg_plabel", "lg_depth"):
        signatures[name] = (p, [p])
    for name in ("lg_ren", "lg_stab", "lg_pren", "lg_entry", "lg_cond"):
        signatures[name] = (p, [p])
    for name, (result, args) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, args
