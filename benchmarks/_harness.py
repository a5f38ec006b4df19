"""What the benchmark scripts share: timing, the run's environment, number formatting, tables.

Each script imports these from here (none imports another script's privates).
Nothing here imports parquet_core: :func:`snapshot_engine` must run before it is imported.
"""

from __future__ import annotations

import gc
import hashlib
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = ["REPO", "best_of", "environment", "err", "fmt_ms", "fmt_ratio", "gmean", "loadavg", "log",
           "render_table", "run_once", "snapshot_engine", "src_sha1"]

#: the repository root (the parent of benchmarks/)
REPO = Path(__file__).resolve().parent.parent


def err(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    first = msg[0] if msg else ""
    if len(first) > 300:
        first = first[:297] + "..."
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def snapshot_engine() -> str | None:
    """Copy ``parquet_core/`` to a temp dir and import it from there, so a run
    times one engine version even while the sources are being edited.

    Returns the snapshot directory (None when parquet_core was already imported
    or the copy failed, in which case the repository's package is used)."""
    if "parquet_core" in sys.modules:
        return None
    try:
        import atexit
        import shutil
        import tempfile

        tmp = tempfile.mkdtemp(prefix="pqc_bench_engine_")
        shutil.copytree(REPO / "parquet_core", Path(tmp) / "parquet_core",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        atexit.register(shutil.rmtree, tmp, True)
        sys.path.insert(0, tmp)
        return tmp
    except Exception as exc:  # noqa: BLE001
        log(f"could not snapshot parquet_core ({err(exc)}); timing the repository's copy")
        return None


def run_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Time one call: gc collected before, disabled during (like ``timeit``). Raises what *fn* raises."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        result = fn()
        return time.perf_counter() - t0, result
    finally:
        if enabled:
            gc.enable()


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt_ms(s: float | None) -> str:
    if s is None:
        return "-"
    ms = s * 1e3
    if ms < 10:
        return f"{ms:.2f}"
    if ms < 100:
        return f"{ms:.1f}"
    return f"{ms:.0f}"


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def render_table(headers: list[str], rows: list[list[str]], right: set[int] | None = None) -> str:
    right = right if right is not None else set(range(1, len(headers)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    sep = "  ".join("-" * w for w in widths)
    return "\n".join(x.rstrip() for x in [line(headers), sep, *(line(r) for r in rows)])


def gmean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def src_sha1(root: Path = REPO) -> str:
    """Fingerprint of every parquet_core/*.py under *root* (relative path + bytes)."""
    h = hashlib.sha1()
    for f in sorted((root / "parquet_core").rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode())
        try:
            h.update(f.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:12]


def environment(snapshot: str | None) -> dict[str, Any]:
    def ver(mod: str) -> str | None:
        try:
            return __import__(mod).__version__
        except Exception:  # noqa: BLE001
            return None
    root = Path(__file__).resolve().parent.parent

    def git(*a: str) -> str | None:
        try:
            return subprocess.run(["git", *a], capture_output=True, text=True, cwd=root,
                                  timeout=10).stdout.strip() or None
        except Exception:  # noqa: BLE001
            return None
    rev = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--", "parquet_core")
    # the engine changes under active development: fingerprint the exact sources timed
    return {"python": platform.python_version(), "platform": platform.platform(),
            "machine": platform.machine(), "cpu_count": os.cpu_count(),
            "numpy": np.__version__, "pyarrow": ver("pyarrow"), "fastparquet": ver("fastparquet"),
            "pandas": ver("pandas"), "parquet_core": ver("parquet_core"), "git_rev": rev,
            "parquet_core_uncommitted": dirty.splitlines() if dirty else [],
            "parquet_core_src_sha1": src_sha1(Path(snapshot) if snapshot else REPO),
            "parquet_core_snapshot": snapshot,
            "loadavg_start": loadavg(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def best_of(fn: Callable[[], Any], repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The least time of *repeats* calls of *fn* by *clock* (wall time; ``time.process_time``
    for CPU time), garbage collection off while timing (as ``timeit``)."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            t = clock()
            fn()
            best = min(best, clock() - t)
        finally:
            gc.enable()
    return best
