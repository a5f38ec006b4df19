"""Bloom filters other writers wrote: parquet-java, parquet-rs, parquet-cpp (via pyarrow).

Outside truth, strongest first:

* golden bitsets: the filter we build from the column's values (read by
  pyarrow), at the file's size, is byte-for-byte the filter the other writer
  stored, header included;
* membership: every value pyarrow reads from a column chunk is found;
* false positives: values not in the chunk are mostly rejected, at about
  the rate the spec's model gives for the filter's size.
"""

from __future__ import annotations

import decimal
import io
import random
import string
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parquet_core as pc
from parquet_core.bloom_filter import SplitBlockBloomFilter, model_fpp, parse_filter
from parquet_core.constants import PhysicalType as PT
from parquet_core.errors import ParquetFormatError
from tests.interop.footer_edit import edit_footer

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

CORPUS_FILES = ["data_index_bloom_encoding_stats.parquet",       # parquet-mr 1.13, no length
                "data_index_bloom_encoding_with_length.parquet"]  # parquet-rs 49, with length
BARE = "bloom_filter.xxhash.bin"
BARE_WORDS = ["hello", "parquet", "bloom", "filter"]


def random_words(n: int, seed: int, exclude: set[str]) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        w = "".join(rng.choice(string.ascii_letters + " ") for _ in range(rng.randint(1, 12)))
        if w not in exclude:
            out.append(w)
    return out


def raw_filter_bytes(data: bytes, chunk: Any, num_bytes: int) -> bytes:
    """The stored header + bitset, located with pyarrow's metadata, not ours."""
    info = chunk.to_dict()
    off, length = info["bloom_filter_offset"], info["bloom_filter_length"]
    if length is None:
        # the four-field header: i32 field byte + varint(zigzag(numBytes)), three
        # unions of 4 bytes each (field byte, member field byte, two stops), the stop byte
        length = 1 + (((num_bytes << 1).bit_length() + 6) // 7) + 12 + 1 + num_bytes
    return data[off:off + length]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_file_filters(corpus: Path, name: str) -> None:
    path = corpus / name
    data = path.read_bytes()
    values = [v for v in pq.read_table(path).column("String").to_pylist() if v is not None]
    assert len(values) == 14
    with pc.ParquetFile(path) as pf:
        bf = pf.bloom_filter(0, "String")
        assert bf is not None
        assert bf.check(values).all()
        assert all(bf.might_contain(v) for v in values)
        assert not bf.might_contain(None)
        others = random_words(5000, 7, set(values))
        false_pos = int(bf.check(others).sum())
        expected = model_fpp(bf.num_bytes, len(set(values))) * len(others)
        assert false_pos <= max(3, 5 * expected), false_pos
        # golden: the same values at the same size give the same bytes
        mine = SplitBlockBloomFilter(bf.num_bytes)
        mine.insert(values)
        chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
        assert mine.to_bytes() == raw_filter_bytes(data, chunk, bf.num_bytes)
        assert bf.filter == mine


def test_bare_filter_file(corpus: Path) -> None:
    raw = (corpus / BARE).read_bytes()
    bf = SplitBlockBloomFilter.from_bytes(raw)
    assert bf.check(BARE_WORDS).all()
    others = random_words(20_000, 11, set(BARE_WORDS))
    assert int(bf.check(others).sum()) <= 3
    mine = SplitBlockBloomFilter(bf.num_bytes)
    mine.insert(BARE_WORDS)
    assert mine.to_bytes() == raw


def test_legacy_headerless_filter_is_refused(corpus: Path) -> None:
    # bloom_filter.bin predates the thrift header: it must not parse as one.
    with pytest.raises(ParquetFormatError):
        SplitBlockBloomFilter.from_bytes((corpus / "bloom_filter.bin").read_bytes())


def test_files_without_filters(corpus: Path) -> None:
    with pc.ParquetFile(corpus / "alltypes_plain.parquet") as pf:
        assert all(pf.bloom_filter(0, i) is None for i in range(len(pf.schema_descriptor)))
        with pytest.raises(ValueError):
            pf.bloom_filter(0, "no_such_column")
        with pytest.raises(IndexError):
            pf.bloom_filter(5, 0)


# -- parquet-cpp, through pyarrow's bloom_filter_options ------------------------

ROWS = 3000
GROUP = 1000


def _arrow_table() -> "pa.Table":
    rng = np.random.default_rng(2026)

    def nulls(arr: "pa.Array") -> "pa.Array":
        mask = rng.random(len(arr)) < 0.1
        return pa.array(arr.to_pylist(), type=arr.type, mask=mask)

    n = ROWS
    return pa.table({
        "i8": pa.array(rng.integers(-128, 128, n), pa.int8()),
        "i32": nulls(pa.array(rng.integers(-2**31, 2**31, n), pa.int32())),
        "u32": pa.array(rng.integers(0, 2**32, n, dtype=np.uint64), pa.uint32()),
        "i64": pa.array(rng.integers(-2**63, 2**63 - 1, n), pa.int64()),
        "u64": pa.array(rng.integers(0, 2**64 - 1, n, dtype=np.uint64), pa.uint64()),
        "f32": pa.array(np.r_[rng.normal(size=n - 2), [0.0, -1.5]].astype(np.float32)),
        "f64": nulls(pa.array(np.r_[rng.normal(size=n - 2), [-0.0, 1e300]])),
        "s": nulls(pa.array(["k%d" % i * (i % 23) for i in range(n)])),
        "b": pa.array([rng.integers(0, 256, i % 90, dtype=np.uint8).tobytes() for i in range(n)],
                      pa.binary()),
        "fsb": pa.array([rng.integers(0, 256, 7, dtype=np.uint8).tobytes() for _ in range(n)],
                        pa.binary(7)),
        "dec": pa.array([decimal.Decimal(int(x)).scaleb(-2) for x in rng.integers(-10**9, 10**9, n)],
                        pa.decimal128(12, 2)),
        "date": pa.array(rng.integers(-5000, 30000, n).astype(np.int32)).cast(pa.date32()),
        "ts": pa.array(rng.integers(0, 2**52, n), pa.timestamp("us", tz="UTC")),
    })


@pytest.fixture(scope="module")
def cpp_file() -> bytes:
    t = _arrow_table()
    buf = io.BytesIO()
    opts = {c: {"ndv": GROUP, "fpp": 0.05} for c in t.column_names}
    pq.write_table(t, buf, bloom_filter_options=opts, row_group_size=GROUP)
    return buf.getvalue()


def _physical(col: "pa.Array", ptype: int, width: int | None) -> Any:
    """Physical values of a pyarrow column, built here without parquet_core's conversions."""
    col = col.drop_null()
    t = col.type
    if pa.types.is_decimal(t):
        return np.frombuffer(b"".join(int(v.scaleb(t.scale)).to_bytes(width, "big", signed=True)
                                      for v in col.to_pylist()), np.uint8).reshape(-1, width)
    if pa.types.is_fixed_size_binary(t):
        return np.frombuffer(b"".join(col.to_pylist()), np.uint8).reshape(-1, width)
    if pa.types.is_string(t):
        return [v.encode() for v in col.to_pylist()]
    if pa.types.is_binary(t):
        return col.to_pylist()
    if pa.types.is_date32(t) or pa.types.is_timestamp(t):
        col = col.view(pa.int32() if pa.types.is_date32(t) else pa.int64())
    np_dtype = {PT.INT32: np.int32, PT.INT64: np.int64, PT.FLOAT: np.float32, PT.DOUBLE: np.float64}[ptype]
    arr = col.to_numpy(zero_copy_only=False)
    if arr.dtype.kind == "u":  # unsigned: same bits in the signed physical type
        return arr.astype(arr.dtype.str.replace("u", "i")).astype(np_dtype)
    return arr.astype(np_dtype)


def test_cpp_filters_golden_and_membership(cpp_file: bytes) -> None:
    meta = pq.ParquetFile(io.BytesIO(cpp_file)).metadata
    table = pq.read_table(io.BytesIO(cpp_file))
    checked = 0
    with pc.ParquetFile(cpp_file) as pf:
        for rg in range(meta.num_row_groups):
            for ci, name in enumerate(table.column_names):
                chunk = meta.row_group(rg).column(ci)
                bf = pf.bloom_filter(rg, name)
                assert bf is not None, name
                part = table.column(name).slice(rg * GROUP, GROUP).combine_chunks()
                logical = part.to_pylist()
                # every value (as a Python object) is found; nulls never are
                hits = bf.check(logical)
                assert hits[[v is not None for v in logical]].all(), name
                assert not hits[[v is None for v in logical]].any(), name
                # golden bitset from physical values computed without parquet_core
                ptype = PT[chunk.physical_type]
                width = pf.schema_descriptor.column(ci).type_length
                mine = SplitBlockBloomFilter(bf.num_bytes)
                mine.insert(_physical(part, ptype, width), ptype, width)
                assert mine.to_bytes() == raw_filter_bytes(cpp_file, chunk, bf.num_bytes), name
                checked += 1
    assert checked == 3 * 13


def test_cpp_filters_reject_absent_values(cpp_file: bytes) -> None:
    table = pq.read_table(io.BytesIO(cpp_file))
    with pc.ParquetFile(cpp_file) as pf:
        probes = {
            "i64": list(range(-5000, 5000)),
            "s": random_words(10_000, 3, set(table.column("s").to_pylist())),
            "f64": [float(x) + 0.5 for x in range(10_000)],
            "dec": [decimal.Decimal(x) + decimal.Decimal("0.01") for x in range(10**10, 10**10 + 10_000)],
        }
        for name, values in probes.items():
            present = set(table.column(name).to_pylist())
            absent = [v for v in values if v not in present]
            bf = pf.bloom_filter(0, name)
            rate = float(bf.check(absent).mean())
            expected = model_fpp(bf.num_bytes, len(present))
            assert rate <= 2 * expected + 0.01, (name, rate, expected)


def test_lookup_conversions(cpp_file: bytes) -> None:
    table = pq.read_table(io.BytesIO(cpp_file))
    first = {name: next(v for v in table.column(name).to_pylist()[:GROUP] if v is not None)
             for name in table.column_names}
    with pc.ParquetFile(cpp_file) as pf:
        i8 = pf.bloom_filter(0, "i8")
        assert i8.might_contain(first["i8"]) and i8.might_contain(float(first["i8"]))
        assert not i8.might_contain(300)      # cannot be stored in int8: absent
        assert not i8.might_contain(2.5)
        assert not i8.might_contain("text")
        f32 = pf.bloom_filter(pf.num_row_groups - 1, "f32")
        # the last row group holds 0.0; -0.0 equals it and is found too
        assert f32.might_contain(0.0) and f32.might_contain(-0.0)
        f64 = pf.bloom_filter(pf.num_row_groups - 1, "f64")
        assert f64.might_contain(0.0) and f64.might_contain(-0.0)
        dec = pf.bloom_filter(0, "dec")
        assert dec.might_contain(first["dec"])
        ts = pf.bloom_filter(0, "ts")
        assert ts.might_contain(first["ts"])
        s = pf.bloom_filter(0, "s")
        assert s.check(np.array([first["s"]], dtype=object)).all()


# -- hostile locations ------------------------------------------------------------

def _with_chunk_edit(data: bytes, **fields: Any) -> bytes:
    def edit(meta: Any) -> None:
        md = meta.row_groups[0].columns[0].meta_data
        for k, v in fields.items():
            setattr(md, k, v)
    return edit_footer(data, edit)


@pytest.mark.parametrize("fields", [
    {"bloom_filter_offset": 10**12},
    {"bloom_filter_offset": -5},
    {"bloom_filter_length": 10**9},
    {"bloom_filter_length": 0},
    {"bloom_filter_offset": 4},           # points at a data page
    {"bloom_filter_offset": 4, "bloom_filter_length": 100},
])
def test_bad_locations_raise_with_context(corpus: Path, fields: dict[str, int]) -> None:
    name = "data_index_bloom_encoding_with_length.parquet"
    data = _with_chunk_edit((corpus / name).read_bytes(), **fields)
    with pc.ParquetFile(data) as pf:
        with pytest.raises(pc.ParquetError) as info:
            pf.bloom_filter(0, "String")
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "in column String, row group 0 (file offset " in notes


def test_truncated_file_without_length(corpus: Path) -> None:
    data = (corpus / "data_index_bloom_encoding_stats.parquet").read_bytes()
    offset = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).to_dict()["bloom_filter_offset"]
    # claim the filter starts 20 bytes before the end of the file: its bitset cannot fit
    edited = _with_chunk_edit(data, bloom_filter_offset=len(data) - 20)
    with pc.ParquetFile(edited) as pf:
        with pytest.raises(ParquetFormatError):
            pf.bloom_filter(0, "String")
    assert parse_filter(data, offset)[0].num_bytes == 1024


def test_cpp_int96_and_nested_leaf() -> None:
    import datetime as dt

    stamps = [dt.datetime(2020, 1, 1, 12, 0, 0, 123456), dt.datetime(1999, 5, 5), dt.datetime(1970, 1, 1)]
    t = pa.table({"ts": pa.array(stamps, pa.timestamp("us")),
                  "l": pa.array([[1, 2], [3], []], pa.list_(pa.int64()))})
    buf = io.BytesIO()
    pq.write_table(t, buf, use_deprecated_int96_timestamps=True,
                   bloom_filter_options={"ts": True, "l.list.element": True})
    data = buf.getvalue()
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    with pc.ParquetFile(data) as pf:
        ts = pf.bloom_filter(0, "ts")
        assert ts.check(stamps).all()
        assert not ts.check([dt.datetime(1999, 5, 6), dt.datetime(2020, 1, 1, 12, 0, 0, 123457)]).any()
        # INT96 bytes built here: nanoseconds of the day (LE int64), Julian day (LE int32)
        rows = []
        for s in stamps:
            day = (s.date() - dt.date(1970, 1, 1)).days + 2_440_588
            nanos = ((s.hour * 60 + s.minute) * 60 + s.second) * 10**9 + s.microsecond * 1000
            rows.append(nanos.to_bytes(8, "little") + day.to_bytes(4, "little"))
        mine = SplitBlockBloomFilter(ts.num_bytes)
        mine.insert(np.frombuffer(b"".join(rows), np.uint8).reshape(-1, 12), PT.INT96)
        assert mine.to_bytes() == raw_filter_bytes(data, meta.row_group(0).column(0), ts.num_bytes)
        nested = pf.bloom_filter(0, "l.list.element")
        assert nested.check([1, 2, 3]).all() and not nested.check([4, 5, 6]).any()


def test_array_lookups_skip_nulls(cpp_file: bytes) -> None:
    from parquet_core.file.bloom_filter_reader import ColumnBloomFilter

    with pc.ParquetFile(cpp_file) as pf:
        desc = pf.schema_descriptor.column(pf.schema_descriptor.index_of(("i64",)))
    # a filter holding 0 and 5: 0 is also what a null slot holds in storage
    inner = SplitBlockBloomFilter(1024)
    inner.insert(np.array([0, 5], dtype=np.int64))
    bf = ColumnBloomFilter(inner, desc)
    assert bf.check(np.array([0, 5, 6], dtype=np.int64)).tolist() == [True, True, False]
    assert bf.check(np.array([5, None], dtype=object)).tolist() == [True, False]
    assert bf.check(np.ma.array([5, 0], mask=[False, True])).tolist() == [True, False]
    assert bf.check([None, 0]).tolist() == [False, True]
    assert bf.check([]).tolist() == [] and not bf.might_contain(None)


def test_random_corruption_of_filter_bytes_raises_parquet_errors(corpus: Path) -> None:
    """Overwrite bytes of the header and bitset region: a ParquetError or a filter, nothing else."""
    rng = random.Random(20261123)
    for name in CORPUS_FILES:
        data = (corpus / name).read_bytes()
        offset = pq.ParquetFile(corpus / name).metadata.row_group(0).column(0).to_dict()["bloom_filter_offset"]
        for _ in range(300):
            blob = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                blob[offset + rng.randrange(24)] = rng.randrange(256)  # header and first words
            try:
                with pc.ParquetFile(bytes(blob)) as pf:
                    bf = pf.bloom_filter(0, "String")
                    assert bf is not None and bf.num_bytes % 32 == 0
                    bf.check(["Hello", "x"])
            except pc.ParquetError:
                pass


@settings(derandomize=True, max_examples=12, deadline=None)
@given(st.sampled_from(["int32", "int64", "float64", "string", "binary"]), st.integers(1, 400),
       st.integers(0, 2**32 - 1), st.sampled_from([0.01, 0.1]))
def test_random_cpp_columns(kind: str, n: int, seed: int, fpp: float) -> None:
    """Random columns written by parquet-cpp: every value found, bitset identical to ours."""
    rng = np.random.default_rng(seed)
    if kind in ("int32", "int64"):
        bound = 2**31 if kind == "int32" else 2**63
        arr = pa.array(rng.integers(-bound, bound - 1, n), getattr(pa, kind)())
        ptype = PT.INT32 if kind == "int32" else PT.INT64
    elif kind == "float64":
        arr, ptype = pa.array(rng.normal(size=n)), PT.DOUBLE
    else:
        raw = [rng.integers(0, 256, int(k), dtype=np.uint8).tobytes() for k in rng.integers(0, 60, n)]
        arr = pa.array([r.hex() for r in raw]) if kind == "string" else pa.array(raw, pa.binary())
        ptype = PT.BYTE_ARRAY
    buf = io.BytesIO()
    pq.write_table(pa.table({"c": arr}), buf, bloom_filter_options={"c": {"ndv": n, "fpp": fpp}})
    data = buf.getvalue()
    chunk = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    with pc.ParquetFile(data) as pf:
        bf = pf.bloom_filter(0, "c")
    assert bf.check(arr.to_pylist()).all()
    mine = SplitBlockBloomFilter(bf.num_bytes)
    mine.insert(_physical(arr, ptype, None), ptype)
    assert mine.to_bytes() == raw_filter_bytes(data, chunk, bf.num_bytes)
