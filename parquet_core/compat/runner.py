"""Run ``pqc compat``: write the feature files, read them with every reader, give verdicts.

Each reader runs in one child process (:mod:`parquet_core.compat.child`) that
is handed the files one by one, with a per-file timeout and an address-space
limit (``RLIMIT_AS``); a child that dies, hangs or exceeds the limit gives
that file the verdict ``crash`` and is restarted for the next file.

Verdicts: ``ok`` (values equal), ``different`` (reads, values differ: how),
``refused`` (a clean error: its first line), ``crash`` (the process died,
hung or ran out of memory), ``n/a`` (the reader cannot be given what the
feature needs, or our writer could not write it).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from parquet_core.compat.canonical import compare
from parquet_core.compat.features import Feature, Written, write_all
from parquet_core.compat.readers import READERS, load
from parquet_core.compat.writers import WRITERS, load_writer

__all__ = ["Cell", "Row", "Run", "run", "ReaderProcess", "DEFAULT_MEMORY"]

DEFAULT_MEMORY = 4 << 30
VERDICTS = ("ok", "different", "refused", "crash", "n/a")


@dataclass
class Cell:
    verdict: str
    detail: str = ""
    seconds: float = 0.0

    def as_json(self) -> dict:
        return {"verdict": self.verdict, "detail": self.detail, "seconds": round(self.seconds, 4)}


@dataclass
class Row:
    feature: str
    group: str
    description: str
    file: str
    writer: str = "pc"
    results: dict[str, Cell] = field(default_factory=dict)


@dataclass
class Run:
    generated: str
    readers: dict[str, str]
    writers: dict[str, str]
    rows: list[Row]
    seconds: float = 0.0

    def as_json(self) -> dict:
        return {"generated": self.generated, "readers": self.readers, "writers": self.writers,
                "features": [{"feature": r.feature, "group": r.group, "description": r.description,
                              "file": r.file, "writer": r.writer,
                              "results": {k: c.as_json() for k, c in r.results.items()}} for r in self.rows]}


def _limit(memory: int | None) -> Callable[[], None] | None:
    if not memory:
        return None

    def apply() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        os.setsid()
    return apply


class ReaderProcess:
    """One reader's child process, restarted after a crash or a timeout."""

    def __init__(self, name: str, timeout: float, memory: int | None = DEFAULT_MEMORY, writer: bool = False,
                 python: str | None = None) -> None:
        self.name = name
        # the interpreter of the child: another environment measures another version of the reader
        self.python = python or sys.executable
        self.timeout = timeout
        self.writer = writer
        try:
            # the module only (its library is imported in the child)
            mod: Any = load_writer(name) if writer else load(name)
        except ImportError:
            mod = None              # the child reports it unavailable
        self.memory = getattr(mod, "MEMORY_LIMIT", memory) if memory else None
        self.startup = max(timeout, float(getattr(mod, "STARTUP_SECONDS", 60)))
        # a JVM's first reads compile their code: a reader may ask for a longer per-file timeout
        self.timeout = max(timeout, float(getattr(mod, "MIN_TIMEOUT", 0)))
        self.loose = bool(getattr(mod, "LOOSE", False))
        self.proc: subprocess.Popen | None = None
        self.version: str | None = None
        self.unavailable: str | None = None
        self._buf = b""
        self.timed_out = False   # whether the last _line gave up waiting (else the child closed its output)
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 - the child's stderr, reused across restarts; freed with the object

    def _start(self) -> None:
        env = dict(os.environ, TZ="UTC", PYTHONUNBUFFERED="1")
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "") if env.get("PYTHONPATH") else root
        self._buf = b""
        args = ["--writer", self.name] if self.writer else [self.name]
        self.proc = subprocess.Popen([self.python, "-m", "parquet_core.compat.child", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                                     env=env, preexec_fn=_limit(self.memory) or os.setsid)
        first = self._line(self.startup)
        if first is None:
            self.unavailable = f"did not start within {self.startup:.0f} s"
            self.stop()
            return
        msg = json.loads(first)
        if "unavailable" in msg:
            self.unavailable = msg["unavailable"]
            self.stop()
        else:
            self.version = msg["version"]

    def _line(self, timeout: float) -> str | None:
        """The child's next line, or None when it died or *timeout* passed (``self.timed_out``
        says which: a child that closed its output may not have been reaped yet, so whether
        it still runs cannot tell the two apart)."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + timeout
        self.timed_out = False
        while b"\n" not in self._buf:
            left = end - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                self.timed_out = True
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode()

    def start(self) -> ReaderProcess:
        self._start()
        return self

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:     # (always: started with stdin=PIPE)
                    self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except Exception:  # noqa: BLE001 - killed below
                pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
            self.proc.wait()
        self.proc = None

    def _death(self) -> str:
        assert self.proc is not None
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "no answer"
        rc = self.proc.returncode
        if rc is not None and rc < 0:
            return f"killed by signal {signal.Signals(-rc).name}"
        self._err.seek(0)
        tail = [ln for ln in self._err.read().decode(errors="replace").splitlines() if ln.strip()]
        return f"exit code {rc}" + (f": {tail[-1][:200]}" if tail else "")

    def read(self, path: str, written: Written, request: dict | None = None) -> Cell:
        """Hand *path* to the child; *request* adds fields (a writer's feature and source)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        if self.unavailable:
            return Cell("n/a", f"{'writer' if self.writer else 'reader'} unavailable: {self.unavailable}")
        assert self.proc is not None and self.proc.stdin is not None
        start = time.monotonic()
        self._err.seek(0)
        self._err.truncate()
        try:
            msg = {"path": path, "keys": written.keys, **(request or {})}
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return self._crashed("pipe closed", start)
        line = self._line(self.timeout)
        if line is None:
            return self._crashed(None, start)
        reply = json.loads(line)
        seconds = float(reply.get("seconds", time.monotonic() - start))
        if "values" in reply and self.writer:
            return Cell("ok", "written", seconds)
        if "values" in reply:
            verdict, detail = compare(written.expected, reply["values"], self.loose, written.unordered)
            return Cell(verdict, detail, seconds)
        if "na" in reply:
            return Cell("n/a", reply["na"], seconds)
        if "memory" in reply:
            return Cell("crash", f"memory limit: {reply['memory']}", seconds)
        if "crash" in reply:
            return Cell("crash", reply["crash"], seconds)
        return Cell("refused", reply["error"], seconds)

    def _crashed(self, why: str | None, start: float) -> Cell:
        if why is None:
            why = f"timed out after {self.timeout:g} s" if self.timed_out else self._death()
        self.stop()
        return Cell("crash", why, time.monotonic() - start)


def _progress(total: int, label: str) -> Any:
    try:
        from tqdm import tqdm  # optional
        return tqdm(total=total, desc=label, unit="file", leave=False, file=sys.stderr)
    except ImportError:
        return _PlainProgress(total, label)


class _PlainProgress:
    def __init__(self, total: int, label: str) -> None:
        self.total, self.n, self.label = total, 0, label

    def set_description(self, label: str) -> None:
        self.label = label

    def update(self, k: int = 1) -> None:
        self.n += k
        if sys.stderr.isatty() or self.n == self.total:
            end = "\n" if self.n == self.total else ""
            sys.stderr.write(f"\r{self.label}: {self.n}/{self.total}{end}")
            sys.stderr.flush()

    def close(self) -> None:
        pass


def available_readers() -> list[str]:
    return list(READERS)


def run(features: list[Feature], readers: Iterable[str] | None = None, *, timeout: float = 30.0,
        memory: int | None = DEFAULT_MEMORY, keep: str | os.PathLike | None = None,
        progress: bool = True, files: dict[str, tuple[str, Written | Exception]] | None = None,
        writers: dict[str, str] | None = None, pythons: dict[str, str] | None = None) -> Run:
    """Write *features* (or take *files*: row key -> (writer, Written)), read each with every reader.

    *pythons* maps a reader to the interpreter its child runs under (default: this one), so that
    another environment's version of the reader is measured; its version is recorded as usual.
    """
    started = time.monotonic()
    names = list(readers) if readers is not None else available_readers()
    for n in names:
        if n not in READERS and "." not in n:
            raise ValueError(f"unknown reader {n!r}; known: {', '.join(READERS)} (or a module's dotted name)")
    pythons = dict(pythons or {})
    check_pythons(pythons, names)
    tmp = None
    if keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="pqc-compat-")
        folder = Path(tmp.name)
    else:
        folder = Path(keep)
        folder.mkdir(parents=True, exist_ok=True)
    try:
        if files is None:
            written = write_all(features, folder)
            rows_in = [(f, "pc", written[f.id]) for f in features]
        else:
            by_id = {f.id: f for f in features}
            rows_in = [(by_id[key.split("@", 1)[0]], w, wr) for key, (w, wr) in files.items()]
        rows = [Row(f.id, f.group, f.description,
                    wr.name if isinstance(wr, Written) else "", writer) for f, writer, wr in rows_in]
        versions: dict[str, str] = {}
        bar = _progress(len(rows) * len(names), "compat") if progress else None
        for name in names:
            proc = ReaderProcess(name, timeout, memory, python=pythons.get(name))
            if bar is not None:
                bar.set_description(f"compat {name}")
            try:
                for row, (_f, _, wr) in zip(rows, rows_in):
                    if isinstance(wr, Exception):
                        row.results[name] = Cell("n/a", f"not written: {type(wr).__name__}: "
                                                        f"{str(wr).splitlines()[0][:200] if str(wr) else ''}")
                    else:
                        cell = proc.read(str(folder / wr.name), wr)
                        # error texts name the file: keep its name, not the (temporary) folder
                        cell.detail = cell.detail.replace(str(folder) + os.sep, "")
                        row.results[name] = cell
                    if bar is not None:
                        bar.update(1)
                    if proc.unavailable and not proc.version:
                        # the reader cannot start: every remaining file is n/a without retrying
                        for r2 in rows[rows.index(row) + 1:]:
                            r2.results[name] = Cell("n/a", f"reader unavailable: {proc.unavailable}")
                            if bar is not None:
                                bar.update(1)
                        break
            finally:
                proc.stop()
            versions[name] = proc.version or "unavailable"
        if bar is not None:
            bar.close()
        if keep is not None:
            for row in rows:
                row.file = str(folder / row.file) if row.file else ""
        return Run(dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), versions,
                   writers or {"pc": load("pc").version()}, rows, time.monotonic() - started)
    finally:
        if tmp is not None:
            tmp.cleanup()


def check_pythons(pythons: dict[str, str], readers: list[str]) -> None:
    """Refuse an interpreter given for a reader that is not run, or one that is not an executable file."""
    for name, path in pythons.items():
        if name not in readers:
            raise ValueError(f"--python {name}={path}: {name!r} is not among the readers run "
                             f"({', '.join(readers)})")
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise ValueError(f"--python {name}={path}: no executable file there")


def _footer_features(path: Path) -> set[str] | None:
    """The features a written file's footer shows (a folder: its first data file)."""
    from parquet_core import read_metadata
    from parquet_core.metadata.features import features_used
    if path.is_dir():
        parts = sorted(p for p in path.rglob("*.parquet") if not p.name.startswith(("_", ".")))
        if not parts:
            return None
        path = parts[0]
    try:
        return set(features_used(read_metadata(str(path)).raw))
    except Exception:  # noqa: BLE001 - an unreadable footer: the readers will say so
        return None


def run_writers(features: list[Feature], writers: list[str], readers: Iterable[str] | None = None, *,
                timeout: float = 30.0, memory: int | None = DEFAULT_MEMORY,
                keep: str | os.PathLike | None = None, progress: bool = True) -> Run:
    """``pqc compat --writers``: each writer writes what it can of *features* (from the values
    parquet_core reads back from its own file), then every reader reads those files."""
    for w in writers:
        if w not in WRITERS:
            raise ValueError(f"unknown writer {w!r}; known: {', '.join(WRITERS)}")
    tmp = None
    if keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="pqc-compat-w-")
        folder = Path(tmp.name)
    else:
        folder = Path(keep)
        folder.mkdir(parents=True, exist_ok=True)
    try:
        ours = write_all(features, folder)
        files: dict[str, tuple[str, Written | Exception]] = {}
        versions: dict[str, str] = {}
        bar = _progress(len(features) * len(writers), "compat writers") if progress else None
        for w in writers:
            proc = ReaderProcess(w, timeout, memory, writer=True)
            try:
                for f in features:
                    src = ours[f.id]
                    key = f"{f.id}@{w}"
                    if isinstance(src, Exception) or src.keys:
                        files[key] = (w, NotImplementedError("encrypted features are written by pc only")
                                      if not isinstance(src, Exception) else src)
                    else:
                        name = f"{w}__{src.name}"
                        cell = proc.read(str(folder / name), src, {"feature": f.id, "source": str(folder / src.name)})
                        if cell.verdict != "ok":
                            files[key] = (w, NotImplementedError(cell.detail or cell.verdict))
                        else:
                            shown = _footer_features(folder / src.name)
                            have = _footer_features(folder / name)
                            if shown and f.id in shown and have is not None and f.id not in have:
                                files[key] = (w, NotImplementedError(f"{w} wrote the values without {f.id}"))
                            else:
                                files[key] = (w, Written(name, src.expected, None, True if (folder / name).is_dir()
                                                         else src.unordered))
                    if bar is not None:
                        bar.update(1)
            finally:
                proc.stop()
            versions[w] = proc.version or "unavailable"
        if bar is not None:
            bar.close()
        result = run(features, readers, timeout=timeout, memory=memory, keep=folder, progress=progress,
                     files=files, writers=versions)
        if keep is None:      # the files are gone with the temporary folder: name them only
            for row in result.rows:
                row.file = Path(row.file).name if row.file else ""
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()
