"""Progress of multi-file reads, writes and scans: ``progress=True`` (a bar) or a callable.

Nothing is shown by default.  ``progress=True`` draws a tqdm bar when tqdm
is installed (the ``progress`` extra) and otherwise a plain line on stderr
(``reading: 3/10 files``, rewritten in place), so it never shows nothing; a
callable is called as ``progress(done, total)`` after each file, from the
thread that finished it.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable, TextIO

__all__ = ["LineBar", "Progress"]


class LineBar:
    """The bar drawn without tqdm: ``<what>: <done>/<total> files`` on one line of stderr,
    rewritten in place (``\\r``), ended by :meth:`close`."""

    def __init__(self, total: int, desc: str, file: TextIO | None = None) -> None:
        self.total, self.desc, self.n = total, desc, 0
        self._file = file
        self._draw()

    def _draw(self) -> None:
        out = self._file or sys.stderr
        print(f"\r{self.desc}: {self.n}/{self.total} files", end="", file=out, flush=True)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._draw()

    def close(self) -> None:
        print(file=self._file or sys.stderr, flush=True)


class Progress:
    """Counts finished files and reports them."""

    def __init__(self, total: int, report: Callable[[int, int], None] | None, bar: Any = None) -> None:
        self.total = total
        self.done = 0
        self._report = report
        self._bar = bar
        self._lock = threading.Lock()

    @staticmethod
    def make(progress: Any, total: int, what: str) -> Progress | None:
        if progress is None or progress is False:
            return None
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:   # tqdm is optional: a plain line instead (never nothing)
                return Progress(total, None, LineBar(total, what))
            return Progress(total, None, tqdm(total=total, desc=what, unit="file"))
        if callable(progress):
            return Progress(total, progress)
        raise TypeError(f"progress must be True, False, None or a callable (done, total), not {progress!r}")

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            done = self.done
            if self._bar is not None:
                self._bar.update(n)
        if self._report is not None:
            self._report(done, self.total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
