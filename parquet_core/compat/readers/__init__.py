"""The readers ``pqc compat`` measures: one small module each, found by name.

A reader module defines

* ``version() -> str``: the library's version (an ``ImportError`` when it is
  not installed: the reader is then unavailable);
* ``read(path, keys) -> {column: [canonical value, ...]}``: read the file (or
  folder) and return its values in canonical form
  (:mod:`parquet_core.compat.canonical`); *keys* is ``None`` or the
  decryption keys of an encrypted feature file (hex strings); raise
  :class:`NotApplicable` when the reader cannot be given what the file needs
  (e.g. it has no explicit-key API);

and optionally ``LOOSE = True`` (a pandas-based reader: nulls may come back
as NaN and integers as floats, which is then not a difference),
``MEMORY_LIMIT`` (bytes of address space for its process; ``None`` for no
limit, e.g. for a JVM) and ``STARTUP_SECONDS``.  Each runs in its own
subprocess (:mod:`parquet_core.compat.child`), so a reader module imports its
library freely.  Adding a reader is one module here and one line in
:data:`READERS`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["READERS", "NotApplicable", "load"]

#: reader name -> module (relative to this package, or a full dotted name)
READERS: dict[str, str] = {
    "pc": ".pc",
    "pyarrow": ".pyarrow",
    "duckdb": ".duckdb",
    "polars": ".polars",
    "fastparquet": ".fastparquet",
    "spark": ".spark",
}


class NotApplicable(Exception):
    """The reader cannot be given what this file needs (verdict ``n/a``)."""


def load(name: str) -> ModuleType:
    """The module of reader *name*: a key of :data:`READERS`, or a module's dotted name."""
    target = READERS[name] if name in READERS or "." not in name else name
    return importlib.import_module(target, __name__) if target.startswith(".") else importlib.import_module(target)
