"""What the fuzzer does with one mutant, in the worker process.

Every entry point runs on its own, so a ``ParquetError`` from one (say the
Bloom filter) does not hide a bug in another (say the filtered read):

=====================  ====================================================
``read_metadata``      ``pc.read_metadata(path)``
``metadata``           ``ParquetFile(bytes)``, then every property of the
                       file, row groups and column chunks, ``statistics``,
                       ``to_dict()``, the schema and ``repr``
``subsets``            ``read_schema``, ``read_row_group``, ``read(columns=)``,
                       ``iter_batches(columns=, row_groups=)``
``page_headers``       ``ParquetFile.page_headers`` of every chunk
``page_index``         ``column_index`` / ``offset_index`` of every chunk, and
                       their decoded bounds, histograms and row ranges
``bloom``              ``bloom_filter`` of every chunk, probed with a value
``read_table``         ``read_table(path)`` with CRC checks on, then
                       ``to_pylist`` and ``to_pydict``
``read_nocrc``         ``read_table(BytesIO)`` with CRC checks off
``iter_batches``       ``ParquetFile.iter_batches`` with a small batch size
``filters``            ``read_table(filters=...)`` (DNF list),
                       ``iter_batches(filters=Expression)``, ``is_null``, an
                       ``or`` with ``isin`` and ``explain``, on a column whose
                       type still matches the seed's
``pqc_check``          ``pc.check`` at every level and ``pqc check --json``
=====================  ====================================================

Outcomes: ``ok`` (everything completed), ``parquet_error`` (at least one
entry point raised a ``pc.ParquetError`` and the rest completed), and the
findings: ``exception`` (any other exception type), ``memory``
(``MemoryError``), ``inconsistent`` (a read that completed but whose row
counts disagree with themselves), ``timeout`` when ``pqc_check`` alone took
more CPU than its bound (:func:`slow_check`).  Other timeouts and crashes are
seen by the parent (:mod:`tests.fuzz.harness`).
"""

from __future__ import annotations

import io
import math
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import parquet_core as pc

__all__ = ["Probe", "probe_of", "exercise", "pqc_check", "OPERATIONS"]

#: caps so a footer declaring huge counts cannot make the harness itself slow
MAX_CHUNKS = 256
MAX_ROW_GROUPS = 64

#: ``pqc_check`` (``check`` at three levels and ``pqc check --json``: four runs) may take this
#: many CPU seconds plus CHECK_READ_RATIO times what the whole-file reads of the same mutant
#: took; more is a ``timeout`` finding (check was quadratic in pages and in a group's children,
#: issue 29).  Generous: the slice's mutants take a fraction of a second.
CHECK_CPU_FLOOR = 5.0
CHECK_READ_RATIO = 10.0
#: the operations whose CPU time the check bound scales with
READ_OPS = ("read_metadata", "read_table", "read_nocrc")


@dataclass(frozen=True)
class Probe:
    """A flat column of the seed and one of its values, to build filters and Bloom probes from."""

    column: str
    type_str: str
    value: Any


class Inconsistent(Exception):
    """A read completed but disagrees with itself (raised by the harness, never by parquet_core)."""


def probe_of(data: bytes) -> Probe | None:
    """Pick a probe from the unmutated seed; None when no flat column filters cleanly there."""
    try:
        pf = pc.ParquetFile(data)
        table = pf.read()
    except Exception:
        return None
    for f in pf.schema_arrow:
        if f.type.is_nested:
            continue
        try:
            values = table.column(f.name).to_pylist()
        except Exception:
            continue
        present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        if not present:
            continue
        probe = Probe(f.name, str(f.type), present[len(present) // 2])
        try:  # the probe must work on the seed itself, or mutants could only ever fail on it
            pc.read_table(data, filters=[(probe.column, ">=", probe.value)])
            list(pf.iter_batches(batch_size=7, filters=pc.col(probe.column) == probe.value))
        except Exception:
            continue
        return probe
    return None


def _chunks(pf: pc.ParquetFile) -> list[tuple[int, int]]:
    md = pf.metadata
    out = []
    for rg in range(min(md.num_row_groups, MAX_ROW_GROUPS)):
        for c in range(md.row_group(rg).num_columns):
            out.append((rg, c))
            if len(out) >= MAX_CHUNKS:
                return out
    return out


def _op_metadata(data: bytes, path: str, probe: Probe | None) -> None:
    pf = pc.ParquetFile(data)
    md = pf.metadata
    _ = (md.num_rows, md.num_row_groups, md.num_columns, md.created_by, md.format_version,
         md.encryption_algorithm, md.footer_mode, md.metadata, repr(md), repr(pf), pf.schema_arrow, repr(pf.schema_arrow),
         repr(pf.schema), pf.schema.names, pf.schema == pf.metadata.schema)
    for i in range(len(pf.schema_descriptor)):
        md.column_order_defined(i)
    seen = set()
    for rg, c in _chunks(pf):
        rgm = md.row_group(rg)
        if rg not in seen:
            seen.add(rg)
            _ = (rgm.num_rows, rgm.num_columns, rgm.total_byte_size)
        col = rgm.column(c)
        _ = (col.is_encrypted, col.path_in_schema, col.physical_type, col.compression, col.codec_id,
             col.encodings, col.num_values, col.total_compressed_size, col.total_uncompressed_size,
             col.data_page_offset, col.dictionary_page_offset, col.bloom_filter_offset,
             col.bloom_filter_length, col.file_path, col.byte_range(len(data)))
        st = col.statistics
        if st is not None:
            repr(st)
        col.to_dict()


def _op_subsets(data: bytes, path: str, probe: Probe | None) -> None:
    pc.read_schema(path)
    pf = pc.ParquetFile(data)
    names = pf.schema_arrow.names
    last = min(pf.metadata.num_row_groups, MAX_ROW_GROUPS) - 1
    if last >= 0:
        _check_table(pf.read_row_group(last), "read_row_group")
    if names:
        pick = names[::2]
        _check_table(pf.read(columns=pick), "read(columns)")
        for b in pf.iter_batches(batch_size=5, columns=names[-1:], row_groups=range(0, last + 1, 2)):
            _check_table(b, "iter_batches(columns, row_groups)")


def _op_page_headers(data: bytes, path: str, probe: Probe | None) -> None:
    pf = pc.ParquetFile(data)
    for rg, c in _chunks(pf):
        for info in pf.page_headers(rg, c):
            repr(info)


def _op_page_index(data: bytes, path: str, probe: Probe | None) -> None:
    pf = pc.ParquetFile(data)
    for rg, c in _chunks(pf):
        ci = pf.column_index(rg, c)
        if ci is not None:
            _ = (ci.num_pages, ci.null_pages, ci.null_counts, ci.boundary_order, ci.min_values, ci.max_values,
                 ci.definition_level_histograms, ci.repetition_level_histograms, repr(ci))
        oi = pf.offset_index(rg, c)
        if oi is not None:
            _ = (oi.num_pages, oi.page_locations, oi.unencoded_byte_array_data_bytes, repr(oi))
            oi.row_ranges(pf.metadata.row_group(rg).num_rows)


def _op_bloom(data: bytes, path: str, probe: Probe | None) -> None:
    pf = pc.ParquetFile(data)
    for rg, c in _chunks(pf):
        bf = pf.bloom_filter(rg, c)
        if bf is None:
            continue
        _ = bf.num_bytes
        if probe is not None and _probe_fits(pf, probe):
            if bf.descriptor.path == (probe.column,):
                bf.might_contain(probe.value)
                bf.check([probe.value, None])


def _check_table(table: pc.Table, what: str) -> int:
    n = table.num_rows
    for name in table.column_names:
        if len(table.column(name)) != n:
            raise Inconsistent(f"{what}: column {name!r} has {len(table.column(name))} values, table {n} rows")
    rows = table.to_pylist()
    if len(rows) != n:
        raise Inconsistent(f"{what}: to_pylist gave {len(rows)} rows for a {n}-row table")
    for name, values in table.to_pydict().items():
        if len(values) != n:
            raise Inconsistent(f"{what}: to_pydict[{name!r}] has {len(values)} values, table {n} rows")
    return n


def _op_read_table(data: bytes, path: str, probe: Probe | None) -> int:
    return _check_table(pc.read_table(path), "read_table")


def _op_read_nocrc(data: bytes, path: str, probe: Probe | None) -> int:
    return _check_table(pc.read_table(io.BytesIO(data), page_checksum_verification=False), "read_table(no crc)")


def _op_iter_batches(data: bytes, path: str, probe: Probe | None) -> int:
    pf = pc.ParquetFile(path)
    try:
        return sum(_check_table(b, "iter_batches") for b in pf.iter_batches(batch_size=17))
    finally:
        pf.close()


def _probe_fits(pf: pc.ParquetFile, probe: Probe) -> bool:
    """Whether the mutant still has the probe's column with the seed's type (else a filter is misuse)."""
    try:
        f = pf.schema_arrow.field(probe.column)
    except (KeyError, IndexError, ValueError):
        return False
    return not f.type.is_nested and str(f.type) == probe.type_str


def _op_filters(data: bytes, path: str, probe: Probe | None) -> None:
    if probe is None:
        return
    pf = pc.ParquetFile(data)
    if not _probe_fits(pf, probe):
        return
    _check_table(pc.read_table(path, filters=[(probe.column, ">=", probe.value)]), "filters")
    for b in pf.iter_batches(batch_size=9, filters=pc.col(probe.column) == probe.value):
        _check_table(b, "iter_batches(filters)")
    _check_table(pf.read(filters=pc.col(probe.column).is_null()), "filters(is_null)")
    expr = (pc.col(probe.column) < probe.value) | pc.col(probe.column).isin([probe.value])
    _check_table(pf.read(columns=[probe.column], filters=expr), "filters(or, isin)")
    repr(pf.explain(expr))


def pqc_check(path: str) -> bool:
    """Run the validator on the mutant: ``pc.check`` at every level, and ``pqc check --json``.

    A damaged file must come back as a report (or exit status 1 or 2), never
    as an exception: the validator reports what it finds instead of raising.
    Returns True when both ran.
    """
    import contextlib
    import json

    from parquet_core import cli

    for level in ("footer", "pages", "data"):
        report = pc.check(path, level=level)
        if not isinstance(report.ok, bool):
            raise AssertionError(f"check at level {level} gave ok={report.ok!r}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["check", "--json", path])
    if status not in (0, 1, 2):
        raise AssertionError(f"pqc check exited with {status}")
    json.loads(out.getvalue().splitlines()[0])
    return True


def _op_pqc_check(data: bytes, path: str, probe: Probe | None) -> None:
    pqc_check(path)


OPERATIONS: dict[str, Callable[[bytes, str, Probe | None], Any]] = {
    "read_metadata": lambda data, path, probe: pc.read_metadata(path),
    "metadata": _op_metadata,
    "subsets": _op_subsets,
    "page_headers": _op_page_headers,
    "page_index": _op_page_index,
    "bloom": _op_bloom,
    "read_table": _op_read_table,
    "read_nocrc": _op_read_nocrc,
    "iter_batches": _op_iter_batches,
    "filters": _op_filters,
    "pqc_check": _op_pqc_check,
}


def _tail(exc: BaseException, frames: int = 6) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-frames:])


def _where(exc: BaseException) -> str:
    """The innermost frame inside parquet_core (the bug's location), else the innermost frame."""
    tb = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in tb if "/parquet_core/" in f.filename]
    f = (inside or tb or [None])[-1]
    if f is None:
        return "?"
    return f"{f.filename.split('/parquet_core/')[-1]}:{f.lineno}:{f.name}"


def slow_check(cpu: dict[str, float]) -> tuple[str, dict[str, Any]] | None:
    """A ``timeout`` finding when ``pqc_check`` took more CPU than its bound (see CHECK_CPU_FLOOR)."""
    reads = sum(cpu.get(op, 0.0) for op in READ_OPS)
    took, bound = cpu.get("pqc_check", 0.0), CHECK_CPU_FLOOR + CHECK_READ_RATIO * reads
    if took <= bound:
        return None
    return "timeout", {"op": "pqc_check", "exc_type": "SlowCheck", "where": "validation",
                       "message": f"check took {took:.1f} s CPU, over its bound of {bound:.1f} s "
                                  f"({CHECK_CPU_FLOOR:.0f} s + {CHECK_READ_RATIO:.0f} x the reads' {reads:.2f} s)",
                       "traceback": ""}


def exercise(data: bytes, path: str, probe: Probe | None) -> tuple[str, dict[str, Any]]:
    """Run every operation on the mutant (already written at ``path``); the outcome and details.

    Details: ``ops`` maps each operation to its outcome; a finding adds
    ``op``, ``exc_type``, ``message``, ``where`` and ``traceback``.
    """
    ops: dict[str, str] = {}
    finding: tuple[str, dict[str, Any]] | None = None
    counts: dict[str, int] = {}
    cpu: dict[str, float] = {}
    for name, fn in OPERATIONS.items():
        start = time.process_time()
        try:
            got = fn(data, path, probe)
            if isinstance(got, int):
                counts[name] = got
            ops[name] = "ok"
        except pc.ParquetError as exc:
            ops[name] = f"ParquetError: {type(exc).__name__}"
        except Exception as exc:  # noqa: BLE001 - classifying every other exception is the point
            kind = "memory" if isinstance(exc, MemoryError) else (
                "inconsistent" if isinstance(exc, Inconsistent) else "exception")
            ops[name] = f"{kind}: {type(exc).__name__}"
            if finding is None:
                finding = (kind, {"op": name, "exc_type": f"{type(exc).__module__}.{type(exc).__name__}",
                                  "message": str(exc)[:500], "where": _where(exc), "traceback": _tail(exc)})
        finally:
            cpu[name] = time.process_time() - start
    if finding is None:
        finding = slow_check(cpu)
    # the whole-file reads must agree on the row count when they all complete
    full = {k: v for k, v in counts.items() if k in ("read_table", "read_nocrc", "iter_batches")}
    if finding is None and len(set(full.values())) > 1:
        finding = ("inconsistent", {"op": "row counts", "exc_type": "Inconsistent", "message": str(full),
                                    "where": "-", "traceback": ""})
    if finding is not None:
        finding[1]["ops"] = ops
        return finding
    outcome = "ok" if all(v == "ok" for v in ops.values()) else "parquet_error"
    return outcome, {"ops": ops}
