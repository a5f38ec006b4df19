"""The reverse direction of ``pqc compat --writers``: other libraries write the features.

A writer module defines ``version()`` and ``write(table, path, feature)``:
write the pyarrow *table* (the feature's values, as parquet_core reads them
from its own feature file) to *path* with the writer's options for
*feature*, or raise :class:`~parquet_core.compat.readers.NotApplicable`
when the writer has no way to produce it.  Each runs in a child process
(:mod:`parquet_core.compat.child` ``--writer``); the runner then checks,
from the footer, that the file really uses the feature (when the footer
shows it), and hands the files to every reader.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["WRITERS", "load_writer", "CODECS"]

WRITERS: dict[str, str] = {
    "pyarrow": ".pyarrow",
    "duckdb": ".duckdb",
    "polars": ".polars",
    "fastparquet": ".fastparquet",
    "spark": ".spark",
}

#: codec feature -> the name most libraries give it
CODECS = {"codec.SNAPPY": "snappy", "codec.GZIP": "gzip", "codec.BROTLI": "brotli", "codec.ZSTD": "zstd",
          "codec.LZ4_RAW": "lz4_raw", "codec.LZ4_HADOOP": "lz4", "codec.LZO": "lzo"}

#: feature groups a writer produces from the values alone (no option needed)
TYPE_GROUPS = ("physical", "logical", "nested")


def load_writer(name: str) -> ModuleType:
    target = WRITERS[name] if name in WRITERS or "." not in name else name
    return importlib.import_module(target, __name__) if target.startswith(".") else importlib.import_module(target)
