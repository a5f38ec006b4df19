"""Progress of multi-file reads, writes and scans: ``progress=True`` (tqdm) or a callable.

Nothing is shown by default.  ``progress=True`` draws a tqdm bar when tqdm
is installed and shows nothing otherwise (tqdm is optional); a callable is
called as ``progress(done, total)`` after each file, from the thread that
finished it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["Progress"]


class Progress:
    """Counts finished files and reports them."""

    def __init__(self, total: int, report: Callable[[int, int], None] | None, bar: Any = None) -> None:
        self.total = total
        self.done = 0
        self._report = report
        self._bar = bar
        self._lock = threading.Lock()

    @staticmethod
    def make(progress: Any, total: int, what: str) -> "Progress | None":
        if progress is None or progress is False:
            return None
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return None
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
