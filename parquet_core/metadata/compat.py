"""Known writer bugs, keyed by ``FileMetaData.created_by``, fixed up in one place.

Each entry names the bug (Apache JIRA or GitHub id), the writers affected and
what the reader does about it.  Nothing else in the engine looks at
``created_by``.

* PARQUET-816 / IMPALA-694: parquet-mr up to 1.2.8 left the dictionary page
  header out of a column chunk's ``total_compressed_size``, so the recorded
  byte range ends a little early.  Readers extend the range by at most 100
  bytes (a generous bound on a dictionary page header), never past the
  footer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["WriterVersion", "parse_created_by", "chunk_length_padding"]

_CREATED_BY = re.compile(r"^\s*(?P<app>\S+)(?:\s+version\s+(?P<ver>\d+(?:\.\d+)*))?", re.I)

#: Upper bound on a dictionary page header's size (PARQUET-816 padding).
MAX_DICTIONARY_HEADER_SIZE = 100


@dataclass(frozen=True, slots=True)
class WriterVersion:
    """The application and version parsed from ``created_by``."""

    application: str
    version: tuple[int, int, int]

    def older_than(self, application: str, version: tuple[int, int, int]) -> bool:
        """True when written by *application* at a version below *version*."""
        return self.application == application and self.version < version


#: Parsed ``created_by`` strings: a dataset's files mostly share one writer, and a file is
#: opened by its footer alone.  Bounded in entries and in the length of a cached string.
_PARSED: dict[str, WriterVersion] = {}
_PARSED_MAX_ENTRIES = 256
_PARSED_MAX_LEN = 512


def parse_created_by(created_by: str | None) -> WriterVersion:
    """Parse ``"parquet-mr version 1.8.1 (build ...)"``; a missing version reads as 0.0.0."""
    if type(created_by) is str and len(created_by) <= _PARSED_MAX_LEN:
        got = _PARSED.get(created_by)
        if got is None:
            got = _parse_created_by(created_by)
            if len(_PARSED) >= _PARSED_MAX_ENTRIES:
                _PARSED.clear()
            _PARSED[created_by] = got
        return got
    return _parse_created_by(created_by)


def _parse_created_by(created_by: str | None) -> WriterVersion:
    m = _CREATED_BY.match(created_by or "")
    if not m:
        return WriterVersion("", (0, 0, 0))
    # a component of more than 18 digits (a hostile footer can write millions) reads as
    # 10**18: newer than any writer, and no int() of a huge string
    parts = [int(p) if len(p) <= 18 else 10 ** 18 for p in (m.group("ver") or "0").split(".")[:3]]
    parts += [0] * (3 - len(parts))
    return WriterVersion(m.group("app").lower(), (parts[0], parts[1], parts[2]))


def chunk_length_padding(writer: WriterVersion) -> int:
    """Extra bytes to read after a column chunk's recorded end (PARQUET-816)."""
    if writer.older_than("parquet-mr", (1, 2, 9)):
        return MAX_DICTIONARY_HEADER_SIZE
    return 0
