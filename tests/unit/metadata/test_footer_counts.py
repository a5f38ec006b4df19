"""Footers whose counts and sizes cannot all be true are refused before use.

Each case takes a file pyarrow wrote, changes one footer field to an
impossible value, and runs every read path on it: metadata properties, plain
and filtered reads, batches, the page index and Bloom filters.  Each must
raise a ``ParquetError`` naming the field, row group and column, and none may
allocate memory from the bad count (``tracemalloc`` sees numpy's buffers).
The decimal cases follow LogicalTypes.md (``precision >= 1``,
``0 <= scale <= precision``); pyarrow refuses the same files.
"""

from __future__ import annotations

import io
import tracemalloc
from decimal import Decimal
from typing import Any, Callable

import pytest

import parquet_core as pc
from tests.interop.footer_edit import edit_footer

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# Far below what any bad count would make the reader allocate (2 GiB and up).
_ALLOC_LIMIT = 64 << 20


def _pyarrow_file(table: Any, **kw: Any) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


@pytest.fixture(scope="module")
def flat_file() -> bytes:
    t = pa.table({"x": pa.array(range(1000), pa.int64()), "s": [f"v{i % 7}" for i in range(1000)]})
    return _pyarrow_file(t, write_page_index=True, data_page_size=512, row_group_size=500,
                         bloom_filter_options={"x": {"ndv": 1000}} if _has_bloom() else None)


@pytest.fixture(scope="module")
def nested_file() -> bytes:
    t = pa.table({"l": [[1, 2], [], None, [3]] * 50})
    return _pyarrow_file(t, write_page_index=True)


def _has_bloom() -> bool:
    import inspect
    return "bloom_filter_options" in inspect.signature(pq.write_table).parameters


def _paths(filter_col: str) -> dict[str, Callable[[bytes], Any]]:
    def meta(b: bytes) -> Any:
        md = pc.read_metadata(io.BytesIO(b))
        return [md.row_group(i).column(j).to_dict()
                for i in range(md.num_row_groups) for j in range(md.num_columns)]

    def page_index(b: bytes) -> Any:
        pf = pc.ParquetFile(io.BytesIO(b))
        return [(pf.column_index(i, 0), pf.offset_index(i, 0)) for i in range(pf.num_row_groups)]

    def bloom(b: bytes) -> Any:
        pf = pc.ParquetFile(io.BytesIO(b))
        return [pf.bloom_filter(i, 0) for i in range(pf.num_row_groups)]

    return {
        "metadata": meta,
        "read": lambda b: pc.read_table(io.BytesIO(b)).to_pylist(),
        "filtered": lambda b: pc.read_table(io.BytesIO(b), filters=[(filter_col, "<", 5)]).to_pylist(),
        "filtered_not": lambda b: pc.read_table(io.BytesIO(b), filters=[(filter_col, ">", 5)]).num_rows,
        "batches": lambda b: [t.num_rows for t in pc.ParquetFile(io.BytesIO(b)).iter_batches(100)],
        "row_group": lambda b: pc.ParquetFile(io.BytesIO(b)).read_row_group(0).to_pydict(),
        "page_index": page_index,
        "bloom": bloom,
    }


def _assert_refused(data: bytes, paths: dict[str, Callable[[bytes], Any]], *needles: str) -> None:
    for name, run in paths.items():
        tracemalloc.start()
        try:
            with pytest.raises(pc.ParquetFormatError) as info:
                run(data)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        text = "\n".join([str(info.value), *getattr(info.value, "__notes__", [])])
        for needle in needles:
            assert needle in text, f"{name}: {needle!r} not in {text!r}"
        assert peak < _ALLOC_LIMIT, f"{name}: allocated {peak} bytes before refusing"


def _rg0(edit: Callable[[Any], None]) -> Callable[[Any], None]:
    return lambda m: edit(m.row_groups[0])


@pytest.mark.parametrize("rows", [-2, -1, 2**31, 2**63 - 1, 501, 499], ids=str)
def test_row_group_num_rows(flat_file, rows):
    bad = edit_footer(flat_file, _rg0(lambda rg: setattr(rg, "num_rows", rows)))
    needles = ["row group 0", f"{rows}"] + (["negative"] if rows < 0 else ["column chunk x", "num_values"])
    _assert_refused(bad, _paths("x"), *needles)


@pytest.mark.parametrize("rows", [-2, 2**62, 10_000], ids=str)
def test_row_group_num_rows_of_a_repeated_leaf(nested_file, rows):
    """A list column holds at least one level slot per row, and more rows than slots is impossible."""
    bad = edit_footer(nested_file, _rg0(lambda rg: setattr(rg, "num_rows", rows)))
    paths = _paths("x")
    del paths["filtered"], paths["filtered_not"], paths["bloom"]
    _assert_refused(bad, paths, "row group 0", str(rows))


def test_rows_between_slots_and_real_rows_fail_when_read(nested_file):
    """201 rows in 250 slots passes the footer checks; the levels then disagree."""
    bad = edit_footer(nested_file, _rg0(lambda rg: setattr(rg, "num_rows", 201)))
    with pytest.raises(pc.ParquetFormatError):
        pc.read_table(io.BytesIO(bad))


def test_fewer_rows_than_slots_is_fine_for_a_repeated_leaf(nested_file):
    """The legitimate case beside the previous one: 200 rows in more than 200 slots."""
    md = pc.read_metadata(io.BytesIO(nested_file))
    assert md.row_group(0).column(0).num_values > md.row_group(0).num_rows == 200
    assert pc.read_table(io.BytesIO(nested_file)).column("l").to_pylist() == [[1, 2], [], None, [3]] * 50


@pytest.mark.parametrize("field,value,needle", [
    ("num_values", -1, "num_values is -1"),
    ("num_values", 2**62, "num_values is"),
    ("total_compressed_size", -5, "total_compressed_size is -5"),
    ("total_uncompressed_size", -5, "total_uncompressed_size is -5"),
    ("total_compressed_size", 2**40, "do not lie inside the file"),
    ("data_page_offset", 2**40, "is not an offset inside the file"),
    ("data_page_offset", -1, "is not an offset inside the file"),
    ("dictionary_page_offset", 2**40, "is not an offset inside the file"),
])
def test_column_chunk_counts_and_sizes(flat_file, field, value, needle):
    bad = edit_footer(flat_file, _rg0(lambda rg: setattr(rg.columns[0].meta_data, field, value)))
    _assert_refused(bad, _paths("x"), "column chunk x of row group 0", needle)


def test_value_count_beyond_what_the_bytes_hold(nested_file):
    """2**62 level slots cannot fit in a few hundred bytes of pages (2**31 - 1 per page)."""
    bad = edit_footer(nested_file, _rg0(lambda rg: setattr(rg.columns[0].meta_data, "num_values", 2**62)))
    _assert_refused(bad, {"read": lambda b: pc.read_table(io.BytesIO(b))}, "more than", "bytes of pages")


def test_pyarrow_files_pass_the_checks(flat_file, nested_file):
    for data in (flat_file, nested_file):
        assert pc.read_table(io.BytesIO(data)).to_pylist() == pq.read_table(pa.BufferReader(data)).to_pylist()


# ---------------------------------------------------------------------------
# decimal precision and scale
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def decimal_file() -> bytes:
    t = pa.table({"d": pa.array([Decimal("1.23"), None, Decimal("-4.56")], pa.decimal128(4, 2))})
    return _pyarrow_file(t)


def _set_decimal(precision: int, scale: int, *, logical: bool = True) -> Callable[[Any], None]:
    def edit(m: Any) -> None:
        el = m.schema[1]
        el.precision, el.scale = precision, scale
        if logical:
            el.logicalType.DECIMAL.precision, el.logicalType.DECIMAL.scale = precision, scale
        else:
            el.logicalType = None   # the legacy ConvertedType DECIMAL alone
    return edit


@pytest.mark.parametrize("logical", [True, False], ids=["logical", "converted"])
@pytest.mark.parametrize("precision,scale,needle", [
    (4, 2147483647, "scale is 2147483647"),
    (4, 5, "scale is 5"),
    (4, -1, "scale is -1"),
    (0, 0, "precision is 0"),
    (-3, 0, "precision is -3"),
])
def test_impossible_decimal_is_refused(decimal_file, logical, precision, scale, needle):
    bad = edit_footer(decimal_file, _set_decimal(precision, scale, logical=logical))
    with pytest.raises(Exception):   # the oracle refuses the file too
        pq.read_table(pa.BufferReader(bad))
    for run in (lambda: pc.read_metadata(io.BytesIO(bad)).row_group(0).column(0).statistics,
                lambda: pc.read_metadata(io.BytesIO(bad)).row_group(0).column(0).to_dict(),
                lambda: pc.read_table(io.BytesIO(bad)).to_pylist(),
                lambda: pc.read_table(io.BytesIO(bad)).to_pydict(),
                lambda: pc.read_schema(io.BytesIO(bad))):
        with pytest.raises(pc.ParquetSchemaError, match=needle):
            run()


def test_precision_above_the_width_reads_exactly(decimal_file):
    """FIXED_LEN_BYTE_ARRAY(2) holds 4 digits; a declared precision of 100 does not change the
    stored integers, which read back exactly (pyarrow drops the annotation instead)."""
    bad = edit_footer(decimal_file, _set_decimal(100, 2))
    assert pq.read_table(pa.BufferReader(bad)).column(0).to_pylist()[0] == b"\x00{"
    assert pc.read_table(io.BytesIO(bad)).column("d").to_pylist() == [Decimal("1.23"), None, Decimal("-4.56")]


def test_wide_binary_decimal_is_exact():
    """A BYTE_ARRAY decimal of 300 digits converts without rounding."""
    digits = "9" * 298 + "12"
    t = pa.table({"d": pa.array([digits.encode()], pa.binary())})
    data = _pyarrow_file(t)

    def annotate(m: Any) -> None:
        from parquet_core.thrift import pt
        el = m.schema[1]
        el.logicalType = pt.LogicalType(DECIMAL=pt.DecimalType(scale=2, precision=300))
        el.converted_type, el.precision, el.scale = 5, 300, 2   # ConvertedType.DECIMAL

    value = int(digits)
    raw = value.to_bytes((value.bit_length() + 8) // 8, "big", signed=True)
    bad = edit_footer(_pyarrow_file(pa.table({"d": pa.array([raw], pa.binary())})), annotate)
    assert data
    (got,) = pc.read_table(io.BytesIO(bad)).column("d").to_pylist()
    assert got == Decimal(digits[:-2] + "." + digits[-2:])
    assert str(got) == digits[:-2] + "." + digits[-2:]
