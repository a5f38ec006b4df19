"""``check``: a validator for Parquet files (``pqc check``).

Read leniently, report strictly: :func:`check` walks a file at one of
three levels and reports every problem it finds, never stopping at the
first one:

* ``footer``: the tail, the thrift footer, the schema, row groups and
  column chunk metadata, key/value metadata (only the footer is read);
* ``pages``: also every page header (sizes, CRCs, encodings vs the
  chunk's metadata), page indexes and Bloom filter headers;
* ``data``: also every value, decoded and compared with everything the
  metadata claims (statistics, page index bounds and counts, size
  statistics, Bloom filters, sorting columns).

Each rule is declared once, in the module of its area (``footer``,
``schema``, ``pages``, ``decode``, ``values``, ``sorting``, ``page_index``,
``bloom``, ``encryption``, ``writers``), see :mod:`parquet_core.validation.rules`.

The package is named ``validation`` (not ``check``) so that the function
``pc.check`` never hides it as an attribute of ``parquet_core``.
This package sits above ``file/`` in the layers: it reuses the engine's
footer parsing, page walking, decoders and index readers.
"""

from __future__ import annotations

import os
from typing import Any

from parquet_core.errors import ParquetFormatError, add_note, path_of
from parquet_core.file.filesystem import is_url, resolve_filesystem
from parquet_core.file.source import open_source
from parquet_core.options.reader import reader_options
from parquet_core.validation import (  # noqa: F401 - importing declares the rules
    bloom,
    compat,
    encryption,
    footer,
    geospatial,
    page_index,
    pages,
    schema,
    sorting,
    total_order,
    values,
    variant,
    writers,
)
from parquet_core.validation.context import LEVELS, Checker
from parquet_core.validation.report import CheckReport, Finding
from parquet_core.validation.rules import RULES, Rule, rules_table

__all__ = ["check", "strict_validate", "CheckReport", "Finding", "Rule", "RULES", "LEVELS", "rules_table"]


def check(source: Any, *, level: str = "data", decryption: Any = None, filesystem: Any = None,
          storage_options: dict[str, Any] | None = None, targets: Any = None,
          max_page_bytes: int | None = None, max_decoded_bytes: int | None = None) -> CheckReport:
    """Check a Parquet file against the spec and its own metadata.

    Parameters
    ----------
    source:
        A path, bytes, or a binary file object.
    level:
        ``"footer"``, ``"pages"`` or ``"data"`` (see the module docstring).
    decryption:
        :class:`~parquet_core.FileDecryptionProperties` for an encrypted file;
        without it only what is plaintext is checked.
    filesystem, storage_options:
        As for :class:`~parquet_core.ParquetFile`: a URL (``s3://``...) or a path
        in an fsspec file system is read with ranged reads; a pyarrow file
        system (an object with ``open_input_file``) is also accepted.
    targets:
        Readers the file is meant for, ``"spark-3.5"``, ``"pyarrow-15"``, ``"duckdb"``
        (a list or a comma-separated str): a ``compat.<reader>`` warning for each
        feature the file uses that the shipped compatibility table says the reader
        does not read (docs/compat.md).
    max_page_bytes, max_decoded_bytes:
        The memory limits the ``"data"`` level decodes pages under, with the
        meaning and defaults of the same options of ``read_table`` /
        :class:`~parquet_core.ReaderOptions` (None: the default).  A page or chunk
        past them is not checked and is reported as ``check.memory-limit`` (a
        warning): raise them to check a file whose pages are that large.

    Returns
    -------
    CheckReport
        ``report.ok`` is False when a finding is an error or the file could
        not be read at all.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    if isinstance(targets, str):
        targets = [t for t in targets.split(",") if t.strip()]
    for t in targets or ():
        compat.parse_target(t)      # an unknown reader is a ValueError before any work
    limits = reader_options(None, max_page_bytes=max_page_bytes, max_decoded_bytes=max_decoded_bytes)
    name = path_of(source) if isinstance(source, (str, os.PathLike)) or filesystem is None else str(source)
    try:
        if filesystem is not None and hasattr(filesystem, "open_input_file"):   # pyarrow's
            src, owned = open_source(filesystem.open_input_file(source))
        elif hasattr(source, "read_at") and hasattr(source, "size"):   # an engine source (strict=True)
            src, owned = source, False
        elif filesystem is not None or storage_options or is_url(source):
            fs, (path,) = resolve_filesystem([source], filesystem, storage_options)
            src, owned = fs.open_source(path), True
        else:
            src, owned = open_source(source)
    except OSError as exc:
        report = CheckReport(name, level, readable=False)
        report.findings.append(Finding("error", "file.unreadable", f"{type(exc).__name__}: {exc}", "-"))
        return report
    try:
        ck = Checker(src, level, decryption, limits)
        _run(ck)
        if targets:
            _check_targets(ck, targets)
    finally:
        if owned:
            src.close()
    return CheckReport(name, level, ck.findings, ck.readable)


def _run(ck: Checker) -> None:
    with ck.guard(footer.THRIFT):
        if not footer.check_footer(ck):
            if ck.raw is None:
                ck.readable = False
            return
        footer.check_row_groups(ck)
        encryption.check_footer_verified(ck)
        encryption.check_key_metadata(ck)
        writers.check_writer(ck)
        sorting.check_sorting_metadata(ck)
        geospatial.check_geospatial_metadata(ck)
    if ck.raw is None or ck.schema is None:
        return
    if ck.deeper("pages"):
        pages.check_pages(ck)
        page_index.check_index_headers(ck)
        bloom.check_bloom_headers(ck)
    if ck.deeper("data"):
        values.check_values(ck)   # also the page index and Bloom filter value rules, chunk by chunk
        with ck.guard(variant.CONFLICT):
            variant.check_variant_values(ck)


def _check_targets(ck: Checker, targets: Any) -> None:
    """The ``compat.<reader>`` warnings: features the file uses that a target does not read."""
    used = compat.features_used(ck.raw, encrypted_footer=compat.footer_crypto(ck.source, ck.size))
    for r, _fid, message in compat.target_findings(used, targets):
        ck.report(r, message)


def strict_validate(source: Any, level: str, decryption: Any) -> None:
    """The validator behind ``ParquetFile(..., strict=True)``: raise on any error finding."""
    report = check(source, level=level, decryption=decryption)
    errors = report.errors
    if errors:
        exc = ParquetFormatError(f"strict reading: the file breaks {len(errors)} rule(s) of the spec; "
                                 f"first: {errors[0].rule}: {errors[0].message}")
        for f in errors[:20]:
            add_note(exc, str(f))
        raise exc

