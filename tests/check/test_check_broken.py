"""Broken files, each made by editing one fact of a valid pyarrow file: ``pc.check`` reports
each as an error (or the rule's own severity) at the right row group, column and page."""

from __future__ import annotations

import base64
import struct

import pytest

import parquet_core as pc
from parquet_core.constants import ConvertedType, Encoding, PageType, PhysicalType
from parquet_core.thrift import pt
from parquet_core.thrift.codec import serialize
from tests._support.check_files import base, bloomed, crc, expect, find, indexed, plain, v2
from tests.check.broken import edit_footer, edit_page, footer_of, pages_of, pyarrow_bytes

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

def test_base_files_are_clean():
    for make in (plain, crc, indexed, v2, bloomed):
        report = pc.check(make())
        assert report.ok and not report.errors, [str(f) for f in report.findings]


def _chunk(meta, rg, col):
    return meta.row_groups[rg].columns[col].meta_data


# -- footer -----------------------------------------------------------------------------

def test_magic():
    report = expect(plain()[:-4] + b"PAR2", "footer.magic")
    assert not report.readable
    expect(b"XXXX" + plain()[4:], "footer.magic")


def test_length_and_truncation():
    data = plain()
    assert not expect(data[:-8] + struct.pack("<I", len(data)) + b"PAR1", "footer.length").readable
    assert not expect(b"PAR1", "footer.too-small").readable
    for cut in (len(data) // 2, len(data) - 3, 9):
        report = pc.check(data[:cut])
        assert not report.ok and report.findings


def test_thrift_garbage():
    meta, start = footer_of(plain())
    data = plain()
    garbage = data[:start] + b"\xff" * (len(data) - 8 - start) + data[-8:]
    assert not expect(garbage, "footer.thrift").readable


def test_num_rows():
    expect(edit_footer(plain(), lambda m: setattr(m, "num_rows", m.num_rows + 1)), "footer.num-rows")


def test_negative_row_count():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[1], "num_rows", -1)), "footer.negative-count",
           row_group=1)


def test_row_group_columns():
    expect(edit_footer(plain(), lambda m: m.row_groups[1].columns.pop()), "footer.row-group-columns", row_group=1)


def test_row_group_ordinal():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[1], "ordinal", 7)), "footer.row-group-ordinal",
           row_group=1)


def test_required_field():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 0, 1), "codec", None)), "footer.required-field",
           row_group=0, column="b")


def test_chunk_type():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 1, 0), "type", PhysicalType.INT32)),
           "footer.chunk-type", row_group=1, column="a")


def test_chunk_path():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 0, 2), "path_in_schema", ["g"])), "footer.chunk-path",
           row_group=0, column="f")


def test_chunk_num_values():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 1, 1), "num_values", 499)), "footer.chunk-num-values",
           row_group=1, column="b")


def test_chunk_range():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 1, 2), "total_compressed_size", 10**6)),
           "footer.chunk-range", row_group=1, column="f")


def test_chunk_overlap():
    def edit(m):
        _chunk(m, 0, 1).total_compressed_size += 40   # now runs into column f
    expect(edit_footer(plain(), edit), "footer.chunk-overlap", row_group=0, column="f")


def test_dictionary_after_data():
    def edit(m):
        c = _chunk(m, 0, 1)
        c.dictionary_page_offset = c.data_page_offset + 1
    expect(edit_footer(plain(), edit), "footer.dictionary-after-data", row_group=0, column="b")


def test_dictionary_offset_zero_is_a_warning():
    def edit(m):
        c = _chunk(m, 0, 1)
        c.data_page_offset, c.dictionary_page_offset = c.dictionary_page_offset, 0
    expect(edit_footer(plain(), edit), "footer.dictionary-offset-zero", 0, "b", severity="warning")


def test_codec_unknown():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 0, 0), "codec", 42)), "footer.codec-unknown", 0, "a")


def test_codec_lz4_is_a_warning():
    data = base(compression="lz4")   # pyarrow writes LZ4_RAW: relabel it, the frames stay readable by nobody
    expect(edit_footer(data, lambda m: setattr(_chunk(m, 0, 0), "codec", 5)), "footer.codec-lz4-deprecated", 0, "a",
           level="footer", severity="warning")


def test_encoding_unknown():
    expect(edit_footer(plain(), lambda m: _chunk(m, 0, 0).encodings.append(77)), "footer.encoding-unknown", 0, "a",
           level="footer")


def test_column_orders():
    expect(edit_footer(plain(), lambda m: m.column_orders.pop()), "footer.column-orders")


def test_column_orders_missing_is_a_warning():
    expect(edit_footer(plain(), lambda m: setattr(m, "column_orders", None)), "footer.column-orders-missing",
           severity="warning", level="footer")


def test_row_group_sizes_are_warnings():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0], "total_byte_size", 1)),
           "footer.row-group-total-byte-size", 0, severity="warning", level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0], "total_compressed_size", 1)),
           "footer.row-group-total-compressed-size", 0, severity="warning", level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[1], "file_offset", 4)),
           "footer.row-group-file-offset", 1, severity="warning", level="footer")


def test_version_created_by_and_duplicate_keys():
    expect(edit_footer(plain(), lambda m: setattr(m, "version", 9)), "footer.version", severity="warning",
           level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m, "created_by", None)), "footer.created-by-missing",
           severity="info", level="footer")
    expect(edit_footer(plain(), lambda m: m.key_value_metadata.append(m.key_value_metadata[0])),
           "footer.key-value-duplicate", severity="warning", level="footer")


def _set_kv(m, key, value):
    for kv in m.key_value_metadata:
        if kv.key in (key, key.decode()):
            kv.value = value


def test_arrow_schema():
    other = pa.schema([("a", pa.int64()), ("c", pa.string()), ("f", pa.float64())])
    wrong = base64.b64encode(other.serialize().to_pybytes())
    expect(edit_footer(plain(), lambda m: _set_kv(m, b"ARROW:schema", wrong)), "footer.arrow-schema-mismatch",
           level="footer")
    expect(edit_footer(plain(), lambda m: _set_kv(m, b"ARROW:schema", b"bm90IGFycm93")), "footer.arrow-schema-decode",
           level="footer", severity="warning")


def test_external_chunk_is_info():
    expect(edit_footer(plain(), lambda m: setattr(m.row_groups[0].columns[0], "file_path", "x.parquet")),
           "footer.external-chunk", 0, "a", severity="info")


# -- schema --------------------------------------------------------------------------------

def test_schema_tree():
    expect(edit_footer(plain(), lambda m: setattr(m.schema[0], "num_children", 4)), "schema.tree", level="footer")


def test_schema_repetition_missing():
    expect(edit_footer(plain(), lambda m: setattr(m.schema[1], "repetition_type", None)),
           "schema.repetition-missing", column="a", level="footer")


def test_schema_root_repeated():
    expect(edit_footer(plain(), lambda m: setattr(m.schema[0], "repetition_type", 2)), "schema.root-repetition",
           level="footer", severity="warning")


def test_schema_duplicate_and_empty_names():
    expect(edit_footer(plain(), lambda m: setattr(m.schema[3], "name", "a")), "schema.duplicate-name", level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m.schema[3], "name", "")), "schema.empty-name", level="footer",
           severity="warning")


def test_schema_empty_group():
    def edit(m):
        m.schema[0].num_children += 1
        m.schema.append(pt.SchemaElement(name="g", num_children=0, repetition_type=1))
    expect(edit_footer(plain(), edit), "schema.empty-group", column="g", level="footer", severity="warning")


def test_schema_logical_physical():
    def edit(m):
        m.schema[2].logicalType = pt.LogicalType(DATE=pt.DateType())
        m.schema[2].converted_type = None
    expect(edit_footer(plain(), edit), "schema.logical-physical", column="b", level="footer")
    expect(edit_footer(plain(), lambda m: setattr(m.schema[1], "converted_type", ConvertedType.UTF8)),
           "schema.logical-physical", column="a", level="footer")


def test_schema_flba_length():
    t = pa.table({"x": pa.array([b"abcd", b"efgh"], pa.binary(4))})
    expect(edit_footer(pyarrow_bytes(t), lambda m: setattr(m.schema[1], "type_length", 0)), "schema.flba-length",
           column="x", level="footer")


def test_schema_string_on_flba_is_a_warning():
    t = pa.table({"x": pa.array([b"abcd", b"efgh"], pa.binary(4))})

    def edit(m):
        m.schema[1].logicalType = pt.LogicalType(STRING=pt.StringType())
        m.schema[1].converted_type = ConvertedType.UTF8
    report = expect(edit_footer(pyarrow_bytes(t, store_schema=False), edit), "schema.string-on-flba", column="x",
                    severity="warning")
    assert report.ok


def _decimal_file():
    from decimal import Decimal
    return pyarrow_bytes(pa.table({"d": pa.array([Decimal("1.50"), Decimal("-2.25")], pa.decimal128(10, 2))}),
                         store_schema=False)


def test_schema_decimal_params():
    def edit(m):
        m.schema[1].logicalType.DECIMAL.precision = 40   # FLBA(5) holds 11 digits
        m.schema[1].precision = 40
    expect(edit_footer(_decimal_file(), edit), "schema.decimal-params", column="d", level="footer")


def test_schema_logical_converted_mismatch():
    expect(edit_footer(_decimal_file(), lambda m: setattr(m.schema[1], "precision", 9)),
           "schema.logical-converted-mismatch", column="d", level="footer")


def test_schema_time_unit_and_integer_width():
    t = pa.table({"t": pa.array([1, 2], pa.time64("us")), "i": pa.array([1, 2], pa.int16())})

    def edit(m):
        m.schema[1].logicalType.TIME.unit = pt.TimeUnit(MILLIS=pt.MilliSeconds())
        m.schema[1].converted_type = ConvertedType.TIME_MILLIS
        m.schema[2].logicalType.INTEGER.bitWidth = 64
        m.schema[2].converted_type = ConvertedType.INT_64
    report = expect(edit_footer(pyarrow_bytes(t, store_schema=False), edit), "schema.time-unit", column="t",
                    level="footer")
    find(report, "schema.integer-width", column="i")


def test_schema_nested_layout():
    t = pa.table({"l": [[1, 2], [3]]})

    def edit(m):   # a LIST group whose repeated child is REQUIRED: no list layout
        m.schema[2].repetition_type = 0
    expect(edit_footer(pyarrow_bytes(t, store_schema=False), edit), "schema.nested-layout", column="l",
           level="footer")


# -- pages ---------------------------------------------------------------------------------

def _flip(stored: bytes) -> bytes:
    b = bytearray(stored)
    b[-1] ^= 0x01
    return bytes(b)


def test_page_crc():
    data = edit_page(crc(), 1, 0, 2, lambda h, s: _flip(s), keep_crc=True)
    report = expect(data, "pages.crc", 1, "a", 2, level="pages")
    assert [f.rule for f in report.errors] == ["pages.crc"]


def test_page_header_garbage():
    data = bytearray(plain())
    pos, h, n = pages_of(bytes(data), 0, 2)[1]
    data[pos:pos + n] = b"\x99" * n
    expect(bytes(data), "pages.header", 0, "f", 1, level="pages")


def test_page_num_values():
    def edit(h, s):
        h.data_page_header.num_values -= 1
    expect(edit_page(plain(), 0, 0, 1, edit), "pages.num-values", 0, "a", level="pages")


def test_total_compressed_size():
    meta, fstart = footer_of(plain())
    data = plain()[:fstart] + b"\x00\x00\x00"   # three stray bytes after the last chunk (f of row group 1)
    data = edit_footer(data + plain()[fstart:], lambda m: setattr(_chunk(m, 1, 2), "total_compressed_size",
                                                                 _chunk(m, 1, 2).total_compressed_size + 3))
    expect(data, "pages.total-compressed-size", 1, "f", level="pages")


def test_total_uncompressed_size():
    expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 1, 0), "total_uncompressed_size",
                                                  _chunk(m, 1, 0).total_uncompressed_size + 3)),
           "pages.total-uncompressed-size", 1, "a", level="pages")


def test_data_page_offset():
    def edit(m):
        c = _chunk(m, 0, 1)
        c.data_page_offset += 1
    expect(edit_footer(plain(), edit), "pages.data-page-offset", 0, "b", 1, level="pages")


def test_dictionary_page_offset_unset_is_a_warning():
    def edit(m):
        c = _chunk(m, 0, 1)
        c.data_page_offset, c.dictionary_page_offset = c.dictionary_page_offset, None
    expect(edit_footer(plain(), edit), "pages.dictionary-page-offset-unset", 0, "b", 0, level="pages",
           severity="warning")


def test_dictionary_page_offset_without_dictionary():
    def edit(m):
        c = _chunk(m, 0, 0)   # a: int64, dictionary encoded; make column f (plain floats) claim one
        f = _chunk(m, 0, 2)
        f.dictionary_page_offset = f.data_page_offset
    data = base(use_dictionary=["b"])
    expect(edit_footer(data, edit), "pages.dictionary-page-offset", 0, "f", level="pages")


def test_dictionary_position():
    def edit(h, s):   # turn data page 1 into a second dictionary page
        h.type = PageType.DICTIONARY_PAGE
        h.dictionary_page_header = pt.DictionaryPageHeader(num_values=1, encoding=Encoding.PLAIN)
        h.data_page_header.num_values = 0
    expect(edit_page(base(use_dictionary=False), 0, 0, 1, edit), "pages.dictionary-position", 0, "a", 1,
           level="pages")


def test_encodings_listed_and_stats():
    report = expect(edit_footer(plain(), lambda m: setattr(_chunk(m, 0, 2), "encodings", [Encoding.RLE])),
                    "pages.encoding-not-listed", 0, "f", level="pages", severity="warning")
    assert report.ok

    def stats(m):
        _chunk(m, 1, 1).encoding_stats[0].count += 1
    expect(edit_footer(plain(), stats), "pages.encoding-stats", 1, "b", level="pages", severity="warning")


def test_dictionary_only_claim():
    data = base(dictionary_pagesize_limit=64)   # the dictionary fills up: later pages are PLAIN

    def edit(m):
        c = _chunk(m, 0, 1)
        c.encoding_stats = [s for s in c.encoding_stats if not (s.page_type == 0 and s.encoding == Encoding.PLAIN)]
    pages = [h for _, h, _ in pages_of(data, 0, 1)]
    first_plain = next(i for i, h in enumerate(pages) if h.data_page_header and
                       h.data_page_header.encoding == Encoding.PLAIN)
    expect(edit_footer(data, edit), "pages.dictionary-only-claim", 0, "b", first_plain, level="pages")

    def listed(m):
        c = _chunk(m, 0, 1)
        c.encoding_stats = None
        c.encodings = [Encoding.RLE_DICTIONARY, Encoding.RLE]
    expect(edit_footer(data, listed), "pages.dictionary-only-claim", 0, "b", first_plain, level="pages")


def test_encoding_type():
    def edit(h, s):
        h.data_page_header.encoding = Encoding.DELTA_LENGTH_BYTE_ARRAY
    expect(edit_page(base(use_dictionary=False), 1, 0, 0, edit), "pages.encoding-type", 1, "a", 0, level="pages")


def test_dictionary_page_encoding_and_missing():
    def edit(h, s):
        h.dictionary_page_header.encoding = Encoding.RLE
    expect(edit_page(plain(), 0, 1, 0, edit), "pages.dictionary-encoding", 0, "b", 0, level="pages")

    def no_dict(m):
        c = _chunk(m, 0, 1)
        c.total_compressed_size -= c.data_page_offset - c.dictionary_page_offset
        c.dictionary_page_offset = None
    expect(edit_footer(plain(), no_dict), "pages.dictionary-missing", 0, "b", 0, level="pages")


def test_level_encodings():
    def edit(h, s):
        h.data_page_header.definition_level_encoding = Encoding.DELTA_BINARY_PACKED
    expect(edit_page(plain(), 0, 1, 1, edit), "pages.level-encoding", 0, "b", 1, level="pages")

    def bitpacked(h, s):
        h.data_page_header.definition_level_encoding = Encoding.BIT_PACKED
    expect(edit_page(plain(), 0, 1, 1, bitpacked), "pages.bit-packed-levels", 0, "b", 1, level="pages",
           severity="warning")


def test_v2_counts():
    def edit(h, s):
        h.data_page_header_v2.num_nulls = h.data_page_header_v2.num_values + 1
    expect(edit_page(v2(), 0, 1, 1, edit), "pages.v2-counts", 0, "b", 1, level="pages")


def test_unknown_page_type_is_a_warning():
    def edit(h, s):
        h.type = PageType.INDEX_PAGE
    report = expect(edit_page(base(use_dictionary=False), 0, 0, 1, edit), "pages.unknown-type", 0, "a", 1,
                    level="pages", severity="warning")
    find(report, "pages.num-values", 0, "a")
