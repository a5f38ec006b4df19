"""Tests for parquet_core.thrift.codec: compact-protocol parse/serialize."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest

from parquet_core.errors import ParquetFormatError
from parquet_core.thrift import HAVE_ACCELERATED, check_required, parse, pt, serialize
from parquet_core.thrift import codec

REPO = Path(__file__).resolve().parents[3]
DATA_DIR = Path(os.environ.get("PARQUET_TEST_DATA", "/work/shared/parquet-testing/data"))

PATHS = [
    pytest.param(True, id="accelerated", marks=pytest.mark.skipif(
        not HAVE_ACCELERATED, reason="thrift fastbinary extension not installed")),
    pytest.param(False, id="pure"),
]


@pytest.fixture(params=PATHS)
def accelerated(request: pytest.FixtureRequest) -> bool:
    """Run a test once with the C decoder and once with the pure one."""
    return request.param


# -- hand-written compact protocol pieces -------------------------------------

# Compact wire type codes.
BOOL_TRUE, BYTE, I32, I64, BINARY, LIST, MAP, STRUCT = 1, 3, 5, 6, 8, 9, 11, 12


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(n: int) -> bytes:
    return varint((n << 1) ^ (n >> 63))


def field(delta: int, ctype: int) -> bytes:
    """Short-form field header (id delta 1..15)."""
    return bytes([(delta << 4) | ctype])


def long_field(fid: int, ctype: int) -> bytes:
    """Long-form field header: type nibble, then the id as a zigzag varint."""
    return bytes([ctype]) + zigzag(fid)


def string(s: bytes) -> bytes:
    return varint(len(s)) + s


STOP = b"\x00"


# -- sample metadata --------------------------------------------------------------


def sample_file_metadata() -> pt.FileMetaData:
    micros = pt.TimeUnit(MICROS=pt.MicroSeconds())
    schema = [
        pt.SchemaElement(name="schema", num_children=4),
        pt.SchemaElement(
            name="ts", type=pt.Type.INT64, repetition_type=pt.FieldRepetitionType.OPTIONAL,
            logicalType=pt.LogicalType(
                TIMESTAMP=pt.TimestampType(isAdjustedToUTC=True, unit=micros)),
        ),
        pt.SchemaElement(
            name="s", type=pt.Type.BYTE_ARRAY, repetition_type=pt.FieldRepetitionType.REQUIRED,
            converted_type=pt.ConvertedType.UTF8,
            logicalType=pt.LogicalType(STRING=pt.StringType()),
        ),
        pt.SchemaElement(
            name="g", type=pt.Type.BYTE_ARRAY, repetition_type=pt.FieldRepetitionType.OPTIONAL,
            logicalType=pt.LogicalType(GEOGRAPHY=pt.GeographyType(
                crs="OGC:CRS84", algorithm=pt.EdgeInterpolationAlgorithm.KARNEY)),
        ),
        pt.SchemaElement(
            name="d", type=pt.Type.FIXED_LEN_BYTE_ARRAY, type_length=16, scale=2, precision=38,
            repetition_type=pt.FieldRepetitionType.OPTIONAL, field_id=7,
            logicalType=pt.LogicalType(DECIMAL=pt.DecimalType(scale=2, precision=38)),
        ),
    ]
    meta = pt.ColumnMetaData(
        type=pt.Type.INT64,
        encodings=[pt.Encoding.PLAIN, pt.Encoding.RLE, pt.Encoding.BYTE_STREAM_SPLIT],
        path_in_schema=["ts"],
        codec=pt.CompressionCodec.LZ4_RAW,
        num_values=3,
        total_uncompressed_size=100,
        total_compressed_size=90,
        data_page_offset=4,
        statistics=pt.Statistics(
            null_count=1, min_value=struct.pack("<q", -5), max_value=struct.pack("<q", 9),
            is_min_value_exact=True, is_max_value_exact=False,
        ),
        encoding_stats=[pt.PageEncodingStats(page_type=pt.PageType.DATA_PAGE,
                                             encoding=pt.Encoding.PLAIN, count=1)],
        bloom_filter_offset=200,
        bloom_filter_length=48,
        size_statistics=pt.SizeStatistics(definition_level_histogram=[1, 2]),
        geospatial_statistics=pt.GeospatialStatistics(
            bbox=pt.BoundingBox(xmin=-1.5, xmax=2.0, ymin=0.0, ymax=3.25), geospatial_types=[1, 3]),
    )
    chunk = pt.ColumnChunk(file_offset=0, meta_data=meta, offset_index_offset=300,
                           offset_index_length=20, column_index_offset=320, column_index_length=30)
    return pt.FileMetaData(
        version=1,
        schema=schema,
        num_rows=3,
        row_groups=[pt.RowGroup(columns=[chunk], total_byte_size=100, num_rows=3,
                                sorting_columns=[pt.SortingColumn(column_idx=0, descending=True,
                                                                  nulls_first=False)],
                                file_offset=4, total_compressed_size=90, ordinal=0)],
        key_value_metadata=[pt.KeyValue(key="k", value="v\u00e9"), pt.KeyValue(key="only-key")],
        created_by="parquet-core test",
        column_orders=[pt.ColumnOrder(TYPE_ORDER=pt.TypeDefinedOrder()),
                       pt.ColumnOrder(IEEE_754_TOTAL_ORDER=pt.IEEE754TotalOrder())],
        encryption_algorithm=pt.EncryptionAlgorithm(
            AES_GCM_V1=pt.AesGcmV1(aad_file_unique=b"\x00\x01\xff", supply_aad_prefix=False)),
    )


def sample_page_header() -> pt.PageHeader:
    return pt.PageHeader(
        type=pt.PageType.DATA_PAGE_V2,
        uncompressed_page_size=1000,
        compressed_page_size=5,
        crc=-123456789,
        data_page_header_v2=pt.DataPageHeaderV2(
            num_values=10, num_nulls=2, num_rows=10, encoding=pt.Encoding.RLE_DICTIONARY,
            definition_levels_byte_length=3, repetition_levels_byte_length=0, is_compressed=False,
            statistics=pt.Statistics(null_count=2, nan_count=0),
        ),
    )


# -- round trips and consumed size ------------------------------------------------


def test_file_metadata_round_trip(accelerated: bool) -> None:
    fmd = sample_file_metadata()
    data = serialize(fmd, accelerated=accelerated)
    back, consumed = parse(data, pt.FileMetaData, accelerated=accelerated)
    assert back == fmd
    assert consumed == len(data)
    check_required(back)


def test_page_header_round_trip(accelerated: bool) -> None:
    header = sample_page_header()
    data = serialize(header, accelerated=accelerated)
    back, consumed = parse(data, pt.PageHeader, accelerated=accelerated)
    assert back == header
    assert consumed == len(data)


@pytest.mark.skipif(not HAVE_ACCELERATED, reason="needs both encoders")
def test_both_encoders_write_identical_bytes() -> None:
    for obj in (sample_file_metadata(), sample_page_header()):
        assert serialize(obj, accelerated=True) == serialize(obj, accelerated=False)


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview], ids=lambda w: w.__name__)
def test_consumed_size_with_trailing_bytes(accelerated: bool, wrap: type) -> None:
    header = serialize(sample_page_header())
    body = b"\x01\x02\x03\x04\x05"
    prefix = b"junk-before"
    buf = wrap(prefix + header + body + b"more pages follow")
    back, consumed = parse(buf, pt.PageHeader, offset=len(prefix), accelerated=accelerated)
    assert back == sample_page_header()
    assert consumed == len(header)
    start = len(prefix) + consumed
    assert bytes(buf[start:start + back.compressed_page_size]) == body


def test_non_byte_memoryview_offsets_count_bytes(accelerated: bool) -> None:
    header = serialize(sample_page_header())
    buf = b"\x00\x00" + header + b"\x00" * (len(header) % 2)
    view = memoryview(buf).cast("H")
    back, consumed = parse(view, pt.PageHeader, offset=2, accelerated=accelerated)
    assert back == sample_page_header() and consumed == len(header)
    assert view.tobytes() == buf  # the caller's view is left usable


def test_bytearray_is_not_left_exported() -> None:
    buf = bytearray(serialize(sample_page_header()))
    parse(buf, pt.PageHeader)
    buf.extend(b"resizable again")


def test_consecutive_structs(accelerated: bool) -> None:
    headers = [sample_page_header(), pt.PageHeader(
        type=pt.PageType.DICTIONARY_PAGE, uncompressed_page_size=8, compressed_page_size=8,
        dictionary_page_header=pt.DictionaryPageHeader(num_values=2, encoding=pt.Encoding.PLAIN))]
    buf = b"".join(serialize(h) for h in headers)
    pos = 0
    for expected in headers:
        got, used = parse(buf, pt.PageHeader, offset=pos, accelerated=accelerated)
        assert got == expected
        pos += used
    assert pos == len(buf)


def test_large_bytearray_beyond_first_window(accelerated: bool) -> None:
    # A string longer than the first speculative window forces the retry
    # with the whole remaining buffer.
    big = "x" * (codec._FIRST_WINDOW + 1000)
    fmd = pt.FileMetaData(version=1, schema=[pt.SchemaElement(name="r")], num_rows=0,
                          row_groups=[], created_by=big)
    data = serialize(fmd)
    buf = bytearray(b"\xee" * 10 + data + b"\xee" * 10)
    back, consumed = parse(buf, pt.FileMetaData, offset=10, accelerated=accelerated)
    assert back == fmd
    assert consumed == len(data)


def test_limit(accelerated: bool) -> None:
    data = serialize(sample_page_header())
    buf = data + b"\x00" * 16
    _, consumed = parse(buf, pt.PageHeader, limit=len(data), accelerated=accelerated)
    assert consumed == len(data)
    with pytest.raises(ParquetFormatError):
        parse(buf, pt.PageHeader, limit=len(data) - 1, accelerated=accelerated)
    with pytest.raises(ParquetFormatError):
        parse(bytearray(buf), pt.PageHeader, limit=len(data) - 1, accelerated=accelerated)
    # A limit past the end of the buffer is clamped.
    assert parse(data, pt.PageHeader, limit=10**9, accelerated=accelerated)[1] == len(data)


def test_absent_field_with_default(accelerated: bool) -> None:
    v2 = pt.DataPageHeaderV2(num_values=1, num_nulls=0, num_rows=1, encoding=0,
                             definition_levels_byte_length=0, repetition_levels_byte_length=0)
    v2.is_compressed = None  # not written at all
    back, _ = parse(serialize(v2), pt.DataPageHeaderV2, accelerated=accelerated)
    assert back.is_compressed is True


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        parse(b"\x00", pt.PageHeader, offset=-1)
    with pytest.raises(ValueError):
        parse(b"\x00", pt.PageHeader, offset=2)
    with pytest.raises(ValueError):
        parse(b"\x00", pt.PageHeader, limit=-1)


# -- forward compatibility ----------------------------------------------------------


def test_unknown_fields_and_union_members_are_skipped(accelerated: bool) -> None:
    data = (
        field(4, BINARY) + string(b"col")                  # 4: name
        + field(6, STRUCT)                                 # 10: logicalType
        + long_field(99, STRUCT) + STOP                    #     99: unknown member
        + STOP
        + long_field(99, I32) + zigzag(-7)                 # 99: unknown i32
        + field(1, BINARY) + string(b"\xff\xfe opaque")     # 100: unknown binary, not UTF-8
        + field(1, STRUCT)                                 # 101: unknown struct ...
        + field(1, LIST) + bytes([0x36]) + zigzag(1) + zigzag(2) + zigzag(3)  # list<i64>
        + field(2, STRUCT) + STOP                          # ... holding a struct
        + STOP
        + STOP
    )
    back, consumed = parse(data + b"\xff\xff", pt.SchemaElement, accelerated=accelerated)
    assert consumed == len(data)
    assert back.name == "col"
    assert isinstance(back.logicalType, pt.LogicalType)
    assert all(value is None for value in vars(back.logicalType).values())


def test_unknown_member_next_to_known_one(accelerated: bool) -> None:
    data = (
        field(1, STRUCT) + STOP                            # 1: STRING
        + long_field(99, BINARY) + string(b"future")       # 99: unknown member
        + STOP
    )
    back, consumed = parse(data, pt.LogicalType, accelerated=accelerated)
    assert consumed == len(data)
    assert back == pt.LogicalType(STRING=pt.StringType())


def test_known_field_with_wrong_wire_type_is_skipped(accelerated: bool) -> None:
    data = field(1, I32) + zigzag(1) + field(2, BINARY) + string(b"not a list") + STOP
    back, consumed = parse(data, pt.FileMetaData, accelerated=accelerated)
    assert consumed == len(data)
    assert back.version == 1 and back.schema is None


def test_invalid_utf8_is_replaced_on_both_paths(accelerated: bool) -> None:
    data = field(1, BINARY) + string(b"k\xffy") + STOP
    back, _ = parse(data, pt.KeyValue, accelerated=accelerated)
    assert back.key == "k\ufffdy"


# -- malformed and hostile input -------------------------------------------------------


def test_every_truncation_is_a_format_error(accelerated: bool) -> None:
    data = serialize(sample_file_metadata())
    for cut in range(len(data)):
        with pytest.raises(ParquetFormatError):
            parse(data[:cut], pt.FileMetaData, accelerated=accelerated)


def test_error_names_struct_and_offset(accelerated: bool) -> None:
    data = b"\xaa" * 5 + serialize(sample_page_header())[:-3]
    with pytest.raises(ParquetFormatError, match=r"PageHeader at offset 5") as info:
        parse(data, pt.PageHeader, offset=5, accelerated=accelerated)
    assert info.value.__cause__ is not None


def test_empty_input(accelerated: bool) -> None:
    with pytest.raises(ParquetFormatError):
        parse(b"", pt.FileMetaData, accelerated=accelerated)


@pytest.mark.parametrize("code", [0x0D, 0x0E, 0x0F])
def test_undefined_wire_type(accelerated: bool, code: int) -> None:
    with pytest.raises(ParquetFormatError):
        parse(bytes([0x10 | code]) + b"\x00" * 8, pt.FileMetaData, accelerated=accelerated)


def _assert_cheap_failure(data: bytes, cls: type, accelerated: bool) -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ParquetFormatError):
            parse(data, cls, accelerated=accelerated)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("claim", [41, 2**20, 2**31 - 1, 2**31, 2**32 - 1, 2**62])
def test_hostile_string_length(accelerated: bool, claim: int) -> None:
    data = field(6, BINARY) + varint(claim) + b"a" * 40 + STOP   # 6: created_by
    _assert_cheap_failure(data, pt.FileMetaData, accelerated)


def test_wide_varint_length(accelerated: bool) -> None:
    # 2**32 + 5 needs a 5-byte varint whose top bits do not fit 32 bits.
    # The pure path rejects it; fastbinary keeps the low 32 bits (5) and
    # goes on decoding garbage.  Either way nothing large is allocated.
    data = field(6, BINARY) + varint(2**32 + 5) + b"a" * 40 + STOP
    tracemalloc.start()
    try:
        try:
            fmd, consumed = parse(data, pt.FileMetaData, accelerated=accelerated)
        except ParquetFormatError:
            pass
        else:
            assert accelerated, "the pure path must reject a wide varint"
            assert fmd.created_by == "aaaaa" and consumed <= len(data)
        assert tracemalloc.get_traced_memory()[1] < 4 * 2**20
    finally:
        tracemalloc.stop()


def test_integer_wider_than_field(accelerated: bool) -> None:
    data = field(1, I32) + zigzag(2**31 + 3) + STOP               # 1: version (i32)
    if accelerated:
        fmd, _ = parse(data, pt.FileMetaData, accelerated=True)
        assert -(2**31) <= fmd.version < 2**31                    # wrapped by fastbinary
    else:
        with pytest.raises(ParquetFormatError, match="i32"):
            parse(data, pt.FileMetaData, accelerated=False)


@pytest.mark.parametrize("claim", [64, 2**20, 2**31 - 1, 2**31])
def test_hostile_list_length(accelerated: bool, claim: int) -> None:
    # 2: schema, list<struct> with an escaped (varint) element count
    schema_claim = field(2, LIST) + bytes([0xF0 | STRUCT]) + varint(claim) + STOP * 40
    _assert_cheap_failure(schema_claim, pt.FileMetaData, accelerated)
    # 5: null_counts, list<i64>
    counts_claim = field(5, LIST) + bytes([0xF0 | I64]) + varint(claim) + b"\x02" * 40
    _assert_cheap_failure(counts_claim, pt.ColumnIndex, accelerated)


def test_hostile_length_inside_unknown_field(accelerated: bool) -> None:
    unknown_list = long_field(50, LIST) + bytes([0xF0 | BINARY]) + varint(2**30) + b"\x00" * 16
    _assert_cheap_failure(unknown_list, pt.PageHeader, accelerated)
    unknown_map = long_field(50, MAP) + varint(2**30) + bytes([0x88]) + b"\x00" * 16
    _assert_cheap_failure(unknown_map, pt.PageHeader, accelerated)


def test_length_just_over_remaining(accelerated: bool) -> None:
    payload = b"z" * 30
    ok = field(6, BINARY) + string(payload) + STOP
    assert parse(ok, pt.FileMetaData, accelerated=accelerated)[0].created_by == "z" * 30
    bad = field(6, BINARY) + varint(len(ok)) + payload + STOP
    with pytest.raises(ParquetFormatError):
        parse(bad, pt.FileMetaData, accelerated=accelerated)


@pytest.mark.parametrize("opener", [
    long_field(60, STRUCT),                     # unknown field holding a struct ...
    long_field(60, LIST) + bytes([0x10 | LIST]),  # ... or a list of lists
], ids=["structs", "lists"])
def test_deep_nesting(accelerated: bool, opener: bytes) -> None:
    if opener[0] == STRUCT:
        data = opener + field(1, STRUCT) * 100_000
    else:
        data = opener + bytes([0x10 | LIST]) * 100_000
    _assert_cheap_failure(data, pt.FileMetaData, accelerated)


def test_overlong_varint(accelerated: bool) -> None:
    with pytest.raises(ParquetFormatError):
        parse(field(1, I32) + b"\xff" * 20, pt.FileMetaData, accelerated=accelerated)


# -- serialize and check_required --------------------------------------------------------


def test_serialize_rejects_out_of_range(accelerated: bool) -> None:
    header = pt.PageHeader(type=0, uncompressed_page_size=2**31, compressed_page_size=1)
    with pytest.raises(ValueError):
        serialize(header, accelerated=accelerated)


def test_serialize_rejects_none_in_struct_list(accelerated: bool) -> None:
    fmd = pt.FileMetaData(version=1, schema=[None], num_rows=0, row_groups=[])
    with pytest.raises(TypeError):
        serialize(fmd, accelerated=accelerated)



@pytest.mark.skipif(not HAVE_ACCELERATED, reason="thrift's C extension is not installed")
def test_accelerated_serialize_makes_no_buffer_or_protocol(monkeypatch) -> None:
    """h33wr (issue 32): the accelerated encoder is called on the struct directly (a page
    header is serialized per page), the same bytes as the pure encoder's, the same errors."""
    from parquet_core.thrift import codec

    def made(*a, **k):
        raise AssertionError("a buffer or protocol was made")
    want = [serialize(sample_page_header(), accelerated=False), serialize(sample_file_metadata(), accelerated=False)]
    monkeypatch.setattr(codec, "TMemoryBuffer", made)
    assert [serialize(sample_page_header()), serialize(sample_file_metadata())] == want
    with pytest.raises(ValueError, match="PageHeader"):
        serialize(pt.PageHeader(type=0, uncompressed_page_size=2**31, compressed_page_size=1))
    with pytest.raises(TypeError, match="FileMetaData"):
        serialize(pt.FileMetaData(version=1, schema=[None], num_rows=0, row_groups=[]))


def test_check_required_reports_nested_path() -> None:
    fmd = sample_file_metadata()
    fmd.row_groups[0].columns[0].meta_data.codec = None
    with pytest.raises(ParquetFormatError, match=r"row_groups\[0\]\.columns\[0\]\.meta_data"):
        check_required(fmd)


def test_pt_exposes_current_spec_members() -> None:
    assert pt.Encoding.BYTE_STREAM_SPLIT == 9
    assert pt.CompressionCodec.LZ4_RAW == 7
    ids = {spec[2]: spec[0] for spec in pt.LogicalType.thrift_spec if spec}
    assert ids["STRING"] == 1 and ids["INTEGER"] == 10 and ids["UNKNOWN"] == 11
    assert ids["UUID"] == 14 and ids["FLOAT16"] == 15 and ids["VARIANT"] == 16
    assert ids["GEOMETRY"] == 17 and ids["GEOGRAPHY"] == 18
    stats = {spec[2]: spec[0] for spec in pt.Statistics.thrift_spec if spec}
    assert stats["is_max_value_exact"] == 7 and stats["is_min_value_exact"] == 8


# -- real files ---------------------------------------------------------------------------


def _footer(path: Path) -> tuple[bytes, int, int]:
    """Return (file bytes, footer start, footer length) of a PAR1 file."""
    data = path.read_bytes()
    assert data[-4:] == b"PAR1"
    (length,) = struct.unpack("<I", data[-8:-4])
    return data, len(data) - 8 - length, length


def _corpus_file(name: str) -> Path:
    path = DATA_DIR / name
    if not path.exists():
        pytest.skip(f"{path} not found (set PARQUET_TEST_DATA)")
    return path


@pytest.mark.parametrize("name", [
    "alltypes_plain.parquet",
    "unknown-logical-type.parquet",
    "datapage_v2.snappy.parquet",
    "nested_structs.rust.parquet",
])
def test_corpus_footer(accelerated: bool, name: str) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = _corpus_file(name)
    data, start, length = _footer(path)
    fmd, consumed = parse(data, pt.FileMetaData, offset=start, limit=length,
                          accelerated=accelerated)
    assert consumed == length
    assert fmd.num_rows == pq.read_metadata(path).num_rows
    assert sum(rg.num_rows for rg in fmd.row_groups) == fmd.num_rows
    check_required(fmd)
    assert parse(serialize(fmd), pt.FileMetaData)[0] == fmd

    # The first page header of the first column chunk.
    meta = fmd.row_groups[0].columns[0].meta_data
    first = meta.dictionary_page_offset or meta.data_page_offset
    header, used = parse(data, pt.PageHeader, offset=first, accelerated=accelerated)
    assert header.type in pt.PageType._VALUES_TO_NAMES
    assert used + header.compressed_page_size <= meta.total_compressed_size


def test_corpus_unknown_logical_type_is_skipped(accelerated: bool) -> None:
    data, start, length = _footer(_corpus_file("unknown-logical-type.parquet"))
    fmd, _ = parse(data, pt.FileMetaData, offset=start, limit=length, accelerated=accelerated)
    logical = [el.logicalType for el in fmd.schema if el.logicalType is not None]
    assert any(all(v is None for v in vars(lt).values()) for lt in logical)


def test_corpus_plaintext_footer_signature(accelerated: bool) -> None:
    # A signed plaintext footer is followed by a 28-byte nonce + GCM tag
    # inside the footer length, so the consumed size must stop short of it.
    path = _corpus_file("encrypt_columns_plaintext_footer.parquet.encrypted")
    data, start, length = _footer(path)
    fmd, consumed = parse(data, pt.FileMetaData, offset=start, limit=length,
                          accelerated=accelerated)
    assert consumed == length - 28
    assert fmd.encryption_algorithm is not None


# -- generated code ----------------------------------------------------------------------


def test_generated_code_matches_idl(tmp_path: Path) -> None:
    compiler = shutil.which("thrift")
    if compiler is None:
        pytest.skip("thrift compiler not installed")
    generated = REPO / "parquet_core" / "thrift" / "generated"
    header = (generated / "ttypes.py").read_text()
    wanted = re.search(r"Thrift Compiler \(([\d.]+)\)", header)
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout
    if wanted is None or wanted.group(1) not in version:
        pytest.skip(f"committed code comes from another compiler version ({version.strip()})")
    subprocess.run([compiler, "--gen", "py", "-out", str(tmp_path),
                    str(REPO / "thrift_defs" / "parquet.thrift")], check=True)
    for name in ("ttypes.py", "constants.py", "__init__.py"):
        fresh = tmp_path / "parquet_core" / "thrift" / "generated" / name
        assert fresh.read_text() == (generated / name).read_text(), f"regenerate {name}"
