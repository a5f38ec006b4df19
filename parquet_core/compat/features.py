"""The feature catalogue of ``pqc compat``: one small file per Parquet format feature.

Every feature has an id ``<group>.<name>``, a group, a one-line description
and a ``make(folder)`` that writes its file with parquet_core's own writer
and returns a :class:`Written`: the file's name and the values any reader
should return, in canonical form (:mod:`parquet_core.compat.canonical`),
computed from the values given to the writer, never from reading the file.

Each feature is written in isolation on a plain base (:data:`BASE`:
uncompressed, PLAIN, no dictionary, no statistics, no page index, no
``ARROW:schema``, page v1), changing only what the feature is about; the
``combo.*`` features combine several, as real writers do.
"""

from __future__ import annotations

import datetime as dt
import decimal
import fnmatch
import os
import uuid as _uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from parquet_core.compat.canonical import from_python

if TYPE_CHECKING:
    from parquet_core.schema.types import DataType

__all__ = ["Feature", "Written", "FEATURES", "BASE", "GROUPS", "QUICK", "select"]

#: the options of the plain base every feature changes as little as it can
BASE: dict[str, Any] = dict(compression="none", use_dictionary=False, write_statistics=False,
                            write_page_index=False, write_size_statistics=False, store_schema=False,
                            data_page_version="1.0")

UTC = dt.timezone.utc
D = decimal.Decimal


@dataclass
class Written:
    """What a feature wrote: its file (or folder) and the values a reader must return."""

    name: str
    expected: dict[str, list]
    #: decryption keys for readers that accept them: footer / column keys (hex) and AAD prefix
    keys: dict[str, Any] | None = None
    #: a folder of files: rows may come in any order
    unordered: bool = False


@dataclass
class Feature:
    id: str
    description: str
    make: Callable[[Path], Written] = field(repr=False)

    @property
    def group(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def file_name(self) -> str:
        return self.id.replace("/", "_") + ".parquet"


FEATURES: dict[str, Feature] = {}


def _add(fid: str, description: str, make: Callable[[Path], Written]) -> None:
    if fid in FEATURES:
        raise ValueError(f"feature {fid} declared twice")
    FEATURES[fid] = Feature(fid, description, make)


def _expect(columns: Mapping[str, Sequence[Any]], int96: tuple[str, ...] = ()) -> dict[str, list]:
    """Canonical values of *columns*; the *int96* ones match a timestamp with either UTC flag
    (INT96 has none: Spark and Impala read an instant, Arrow a local time)."""
    out = {name: [from_python(v) for v in values] for name, values in columns.items()}
    for name in int96:
        out[name] = [None if v is None else "ts?:" + v.split(":", 1)[1] for v in out[name]]
    return out


def _file(fid: str, description: str, columns: Mapping[str, Sequence[Any]], schema: list | None = None,
          expected: dict[str, list] | None = None, **options: Any) -> None:
    """A feature file of these columns (values as given to the writer), base options + *options*."""
    def make(folder: Path) -> Written:
        import parquet_core as pc
        name = FEATURES[fid].file_name
        opts = {**BASE, **options}
        sch = None if schema is None else pc.schema([pc.field(n, t) if not isinstance(t, tuple)
                                                    else pc.field(n, t[0], nullable=t[1])
                                                    for n, t in schema])
        pc.write_table(dict(columns), str(folder / name), schema=sch, **opts)
        return Written(name, expected if expected is not None else _expect(columns))
    _add(fid, description, make)


# -- values ----------------------------------------------------------------------------------------

INTS = [1, -2, None, 2_147_483_647, 0]
LONGS = [1, -2, None, 9_223_372_036_854_775_807, -9_223_372_036_854_775_808]
DOUBLES = [1.5, -0.0, None, float("nan"), float("inf")]
STRINGS = ["a", "", None, "héllo", "zz" * 20]
BYTES_ = [b"\x00\x01", b"", None, b"\xff" * 5, b"abc"]
BOOLS = [True, False, None, True, True]
DATES = [dt.date(2024, 2, 29), dt.date(1970, 1, 1), None, dt.date(1900, 1, 1), dt.date(2200, 12, 31)]


def _ts(utc: bool, ns: bool = False, ms: bool = False) -> list:
    tz = UTC if utc else None
    a = dt.datetime(2024, 5, 1, 9, 30, 15, 0 if ms else 123456 if not ns else 123456, tzinfo=tz)
    if ms:
        a = a.replace(microsecond=123000)
    if ns:
        import parquet_core as pc
        a = pc.NanoDatetime(2024, 5, 1, 9, 30, 15, 123456, tz, nanosecond=789)
    # within the years 1678..2261 that nanoseconds since the epoch (and pandas) hold;
    # logical.TIMESTAMP_far covers the rest of the range
    return [a, dt.datetime(1970, 1, 1, tzinfo=tz), None, dt.datetime(1900, 1, 1, tzinfo=tz),
            dt.datetime(2200, 12, 31, 23, 59, 59, tzinfo=tz)]


def _times(unit: str) -> list:
    import parquet_core as pc
    first = {"ms": dt.time(9, 30, 15, 123000), "us": dt.time(9, 30, 15, 123456),
             "ns": pc.NanoTime(9, 30, 15, 123456, nanosecond=789)}[unit]
    return [first, dt.time(0), None, dt.time(23, 59, 59), dt.time(12)]


def _register() -> None:  # noqa: C901 - the catalogue, one call per feature
    import parquet_core as pc
    T = pc

    # ---- physical types
    _file("physical.BOOLEAN", "BOOLEAN", {"v": BOOLS})
    _file("physical.INT32", "INT32 (no annotation)", {"v": INTS}, [("v", T.int32())])
    _file("physical.INT64", "INT64 (no annotation)", {"v": LONGS}, [("v", T.int64())])
    int96 = {"v": _ts(False)[:4] + [dt.datetime(2000, 1, 1)]}
    _file("physical.INT96", "INT96 timestamps (legacy Impala/Spark)", int96,
          expected=_expect(int96, ("v",)), use_deprecated_int96_timestamps=True)
    _file("physical.FLOAT", "FLOAT", {"v": DOUBLES}, [("v", T.float32())])
    _file("physical.DOUBLE", "DOUBLE", {"v": DOUBLES}, [("v", T.float64())])
    _file("physical.BYTE_ARRAY", "BYTE_ARRAY (no annotation)", {"v": BYTES_}, [("v", T.binary())])
    _file("physical.FIXED_LEN_BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY(3), no annotation",
          {"v": [b"abc", b"\x00\x00\x00", None, b"\xff\xfe\xfd", b"xyz"]}, [("v", T.fixed_size_binary(3))])
    _file("physical.required", "a REQUIRED column (no definition levels)",
          {"v": [1, 2, 3, 4, 5]}, [("v", (T.int64(), False))])

    # ---- logical / converted types
    for bits, vals in ((8, [1, -128, None, 127, 0]), (16, [1, -32768, None, 32767, 0])):
        _file(f"logical.INT{bits}", f"INT(bitWidth={bits}, signed)", {"v": vals}, [("v", getattr(T, f"int{bits}")())])
    for bits, vals in ((8, [1, 255, None, 0, 7]), (16, [1, 65535, None, 0, 7]),
                       (32, [1, 4_294_967_295, None, 0, 2_147_483_648]),
                       (64, [1, 18_446_744_073_709_551_615, None, 0, 9_223_372_036_854_775_808])):
        _file(f"logical.UINT{bits}", f"INT(bitWidth={bits}, unsigned)", {"v": vals},
              [("v", getattr(T, f"uint{bits}")())])
    _file("logical.STRING", "BYTE_ARRAY annotated STRING", {"v": STRINGS}, [("v", T.string())])
    _file("logical.ENUM", "BYTE_ARRAY annotated ENUM", {"v": ["red", "green", None, "red", "blue"]},
          [("v", T.enum())])
    _file("logical.JSON", "BYTE_ARRAY annotated JSON", {"v": ['{"a": 1}', "[]", None, "null", '"x"']},
          [("v", T.json_())])
    _file("logical.BSON", "BYTE_ARRAY annotated BSON",
          {"v": [bytes.fromhex("0500000000"), bytes.fromhex("0c0000001061000100000000"), None,
                 bytes.fromhex("0500000000"), bytes.fromhex("0500000000")]}, [("v", T.bson())])
    uu = [_uuid.UUID("12345678-1234-5678-1234-567812345678"), _uuid.UUID(int=0), None,
          _uuid.UUID(int=2 ** 128 - 1), _uuid.UUID("00112233-4455-6677-8899-aabbccddeeff")]
    _file("logical.UUID", "FIXED_LEN_BYTE_ARRAY(16) annotated UUID", {"v": uu}, [("v", T.uuid())])
    _file("logical.FLOAT16", "FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16", {"v": DOUBLES}, [("v", T.float16())])
    _file("logical.DATE", "INT32 annotated DATE", {"v": DATES}, [("v", T.date())])
    for unit in ("ms", "us", "ns"):
        for utc in (False, True):
            name = {"ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}[unit] + ("_UTC" if utc else "_LOCAL")
            _file(f"logical.TIME_{name}", f"TIME({unit}, isAdjustedToUTC={str(utc).lower()})",
                  {"v": _times(unit)}, [("v", T.time(unit, utc=utc))])
            _file(f"logical.TIMESTAMP_{name}", f"TIMESTAMP({unit}, isAdjustedToUTC={str(utc).lower()})",
                  {"v": _ts(utc, ns=unit == "ns", ms=unit == "ms")}, [("v", T.timestamp(unit, utc=utc))])
    far = [dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, 999999), None, dt.datetime(1600, 2, 29),
           dt.datetime(3000, 1, 1)]
    _file("logical.TIMESTAMP_far", "TIMESTAMP(MICROS) in years 1..9999 (beyond nanosecond range)",
          {"v": far}, [("v", T.timestamp("us"))])
    _file("logical.DATE_far", "DATE in years 1..9999", {"v": [d.date() if d else None for d in far]},
          [("v", T.date())])
    dec = [D("1.23"), D("-99.99"), None, D("0.00"), D("12.30")]
    _file("logical.DECIMAL_INT32", "DECIMAL(4, 2) on INT32", {"v": dec}, [("v", T.decimal(4, 2))])
    dec18 = [D("1.23"), D("-9999999999999999.99"), None, D("0.00"), D("12.30")]
    _file("logical.DECIMAL_INT64", "DECIMAL(18, 2) on INT64", {"v": dec18}, [("v", T.decimal(18, 2))])
    _file("logical.DECIMAL_FLBA", "DECIMAL(4, 2) on FIXED_LEN_BYTE_ARRAY(4)", {"v": dec},
          [("v", T.decimal(4, 2, byte_width=4))])
    dec38 = [D("1.23"), D("-" + "9" * 36 + ".99"), None, D("0.00"), D("12.30")]
    _file("logical.DECIMAL_FLBA_38", "DECIMAL(38, 2) on FIXED_LEN_BYTE_ARRAY(16)", {"v": dec38},
          [("v", T.decimal(38, 2))])
    dec60 = [D("1.23"), D("9" * 58 + ".99"), None, D("0.00"), D("12.30")]
    _file("logical.DECIMAL_FLBA_60", "DECIMAL(60, 2) (beyond 38 digits) on FIXED_LEN_BYTE_ARRAY(26)",
          {"v": dec60}, [("v", T.decimal(60, 2))])
    from parquet_core.schema.types import DataType

    # BYTE_ARRAY: the unscaled value in the fewest big-endian bytes (Hive, Impala and parquet-java's
    # Avro writers; pyarrow reads it but writes FLBA): a decimal type without a byte width
    dec20 = [D("1.23"), D("-123456789012345678.99"), None, D("0.00"), D("12.30")]
    _file("logical.DECIMAL_BYTE_ARRAY", "DECIMAL(20, 2) on BYTE_ARRAY (minimal big-endian bytes)",
          {"v": dec20}, [("v", DataType("decimal", precision=20, scale=2, byte_width=None))])
    _file("logical.INTERVAL", "FIXED_LEN_BYTE_ARRAY(12) converted type INTERVAL",
          {"v": [pc.Interval(1, 2, 3), pc.Interval(0, 0, 0), None, pc.Interval(12, 31, 86_399_999),
                 pc.Interval(0, 1, 0)]}, [("v", T.interval())])
    _file("logical.UNKNOWN", "UNKNOWN (always null) next to an INT64",
          {"n": [None] * 5, "v": [1, 2, 3, 4, 5]}, [("n", T.null()), ("v", T.int64())])
    wkb_pt = bytes.fromhex("0101000000000000000000f03f0000000000000040")          # POINT(1 2)
    wkb_ln = bytes.fromhex("010200000002000000" + "00" * 16 + "000000000000f03f000000000000f03f")
    _file("logical.GEOMETRY", "BYTE_ARRAY annotated GEOMETRY (WKB)",
          {"v": [wkb_pt, wkb_ln, None, wkb_pt, wkb_pt]}, [("v", T.geometry())])
    _file("logical.GEOGRAPHY", "BYTE_ARRAY annotated GEOGRAPHY (WKB, spherical)",
          {"v": [wkb_pt, wkb_ln, None, wkb_pt, wkb_pt]}, [("v", T.geography())])
    var = [{"a": 1, "b": "x"}, [1, 2], None, "text", 3.5]
    _file("logical.VARIANT", "VARIANT, unshredded (metadata + value)", {"v": var}, [("v", T.variant.variant_type())])
    varsh = [{"event": "signup", "n": 1}, {"event": "login"}, None, "oops", {"event": "x", "n": 2, "extra": True}]
    _file("logical.VARIANT_shredded", "VARIANT shredded into typed_value (object fields)", {"v": varsh},
          [("v", T.variant.variant_type(shredding={"event": T.string(), "n": T.int64()}))])
    _file("logical.VARIANT_shredded_array", "VARIANT shredded as an array of int64",
          {"v": [[1, 2], [], None, [3, "x"], 5]}, [("v", T.variant.variant_type(shredding=[T.int64()]))])
    fref = [{"uri": "s3://b/k.bin", "offset": 0, "size": 10, "content_type": "image/png", "checksum": None,
             "inline": None}, None,
            {"uri": None, "offset": None, "size": None, "content_type": None, "checksum": None,
             "inline": b"abc"}]
    _file("logical.FILE", "group annotated FILE (uri, offset, size, content_type, checksum, inline)",
          {"v": fref}, [("v", T.file_ref())])
    _file("logical.STRING_converted_only", "version 1.0 file: uint32 as plain INT64, legacy annotations",
          {"v": [1, 4_294_967_295, None, 0, 5]}, [("v", T.uint32())], version="1.0")

    # ---- encodings
    enc_types: dict[str, tuple[DataType, list[Any]]] = {
        "int32": (T.int32(), INTS), "int64": (T.int64(), LONGS), "float": (T.float32(), DOUBLES),
        "double": (T.float64(), DOUBLES), "byte_array": (T.string(), STRINGS),
        "flba": (T.fixed_size_binary(3), [b"abc", b"abd", None, b"zzz", b"abc"]),
        "float16": (T.float16(), DOUBLES),
        "decimal_flba": (T.decimal(4, 2, byte_width=4), dec),
        "boolean": (T.bool_(), BOOLS),
    }
    applies = {
        "RLE_DICTIONARY": ["int32", "int64", "float", "double", "byte_array", "flba", "boolean"],
        "DELTA_BINARY_PACKED": ["int32", "int64"],
        "DELTA_LENGTH_BYTE_ARRAY": ["byte_array"],
        "DELTA_BYTE_ARRAY": ["byte_array", "flba", "decimal_flba"],
        "BYTE_STREAM_SPLIT": ["float", "double", "int32", "int64", "flba", "float16", "decimal_flba"],
        "ALP": ["float", "double"],
        "RLE": ["boolean"],
    }
    for enc, kinds in applies.items():
        for kind in kinds:
            typ, vals = enc_types[kind]
            # a few hundred rows so that the encodings' blocks and miniblocks fill up
            many = (vals * 60)
            if enc == "RLE_DICTIONARY":
                opts: dict[str, Any] = dict(use_dictionary=True)
            else:
                opts = dict(column_encoding=enc.lower())
            _file(f"encoding.{enc}.{kind}", f"{enc} on {kind}", {"v": many}, [("v", typ)], **opts)
    _file("encoding.RLE_DICTIONARY.format_v1", "dictionary pages in a file of format version 1 (version='1.0')",
          {"v": STRINGS * 20}, [("v", T.string())], use_dictionary=True, version="1.0")

    # ---- codecs
    codecs = {"SNAPPY": "snappy", "GZIP": "gzip", "BROTLI": "brotli", "ZSTD": "zstd", "LZ4_RAW": "lz4_raw",
              "LZ4_HADOOP": "lz4", "LZO": "lzo"}
    for name, c in codecs.items():
        _file(f"codec.{name}", f"{name} compression (page v1)", {"v": STRINGS * 40, "i": LONGS * 40},
              [("v", T.string()), ("i", T.int64())], compression=c)

    # ---- pages
    big: dict[str, list[Any]] = {"v": [f"s{i % 97}" for i in range(3000)], "i": list(range(3000))}
    big_schema = [("v", T.string()), ("i", T.int64())]
    _file("page.v2", "data page v2, uncompressed", big, big_schema, data_page_version="2.0")
    _file("page.v2_compressed", "data page v2, snappy", big, big_schema, data_page_version="2.0",
          compression="snappy")
    _file("page.v2_zstd_dictionary", "data page v2, zstd, dictionary", big, big_schema,
          data_page_version="2.0", compression="zstd", use_dictionary=True)
    _file("page.v1_compressed", "data page v1, gzip", big, big_schema, compression="gzip")
    _file("page.many", "many small pages per chunk (100 rows each)", big, big_schema,
          data_page_row_count_limit=100)
    _file("page.row_groups", "several row groups (500 rows each)", big, big_schema, row_group_size=500)
    _file("dictionary.fallback", "dictionary fallback to PLAIN mid-chunk", {"v": [f"value-{i}" for i in range(4000)]},
          [("v", T.string())], use_dictionary=True, dictionary_pagesize_limit=4096, data_page_size=4096)
    _file("dictionary.fallback_v2", "dictionary fallback mid-chunk, page v2",
          {"v": [f"value-{i}" for i in range(4000)]}, [("v", T.string())], use_dictionary=True,
          dictionary_pagesize_limit=4096, data_page_size=4096, data_page_version="2.0")
    _file("dictionary.all_null", "dictionary chunk of only nulls", {"v": [None] * 10},
          [("v", T.string())], use_dictionary=True)

    # ---- nested
    lists = [[1, 2], [], None, [None, 3], [4]]
    _file("nested.list_3level", "LIST, 3-level (list / element), nullable elements", {"v": lists},
          [("v", T.list_(T.int64()))])
    _file("nested.list_2level_legacy", "legacy 2-level list (repeated int64 array)",
          {"v": [[1, 2], [], None, [3], [4]]}, [("v", T.list_(T.field("element", T.int64(), nullable=False)))],
          legacy_list_layout=True)
    _file("nested.list_legacy_bag", "legacy list with nullable elements (bag / array)", {"v": lists},
          [("v", T.list_(T.int64()))], legacy_list_layout=True)
    _file("nested.list_of_list", "LIST of LIST", {"v": [[[1], [2, 3]], [], None, [None, []], [[4]]]},
          [("v", T.list_(T.list_(T.int64())))])
    _file("nested.struct", "struct (plain group)",
          {"v": [{"a": 1, "b": "x"}, {"a": None, "b": None}, None, {"a": 2, "b": "y"}, {"a": 3, "b": ""}]},
          [("v", T.struct([("a", T.int64()), ("b", T.string())]))])
    _file("nested.struct_nested", "struct in struct",
          {"v": [{"p": {"q": 1}}, {"p": None}, None, {"p": {"q": None}}, {"p": {"q": 5}}]},
          [("v", T.struct([("p", T.struct([("q", T.int64())]))]))])
    maps = [[("a", 1), ("b", None)], [], None, [("c", 3)], [("d", 4)]]
    _file("nested.map", "MAP<string, int64>", {"v": maps}, [("v", T.map_(T.string(), T.int64()))],
          expected={"v": [None if m is None else [[k, x] for k, x in m] for m in maps]})
    _file("nested.list_of_struct", "LIST of struct",
          {"v": [[{"a": 1}], [], None, [None, {"a": None}], [{"a": 2}, {"a": 3}]]},
          [("v", T.list_(T.struct([("a", T.int64())])))])
    mol: list[list[tuple[str, list[int] | None]] | None] = [[("a", [1, 2])], [], None, [("b", None)], [("c", [])]]
    _file("nested.map_of_list", "MAP<string, LIST<int32>>", {"v": mol},
          [("v", T.map_(T.string(), T.list_(T.int32())))],
          expected={"v": [None if m is None else [[k, from_python(x)] for k, x in m] for m in mol]})
    _file("nested.list_required", "required LIST of required elements",
          {"v": [[1], [], [2, 3], [4], [5]]},
          [("v", (T.list_(T.field("element", T.int64(), nullable=False)), False))])

    # ---- statistics
    _file("stats.minmax", "min/max statistics (exact), null counts", {"v": STRINGS, "i": LONGS},
          [("v", T.string()), ("i", T.int64())], write_statistics=True)
    _file("stats.minmax_truncated", "binary min/max truncated to 8 bytes (is_max_value_exact=false)",
          {"v": ["a" * 30, "b" * 30, None, "c" * 30, "d"]}, [("v", T.string())], write_statistics=True,
          statistics_truncate_length=8)
    _file("stats.page_statistics", "statistics in data page headers", {"i": LONGS}, [("i", T.int64())],
          write_statistics=True, write_page_statistics=True)
    _file("stats.float_total_order", "IEEE_754_TOTAL_ORDER column order with nan_count",
          {"v": DOUBLES}, [("v", T.float64())], write_statistics=True, float_column_order="ieee754_total_order")
    _file("stats.nan_count", "nan_count for floats (type-defined order)", {"v": DOUBLES},
          [("v", T.float64())], write_statistics=True)
    _file("stats.size_statistics", "SizeStatistics (unencoded bytes, level histograms)",
          {"v": STRINGS, "l": lists}, [("v", T.string()), ("l", T.list_(T.int64()))],
          write_statistics=True, write_size_statistics=True)
    _file("stats.int96_order", "INT96 min/max under INT96_TIMESTAMP_ORDER", int96,
          expected=_expect(int96, ("v",)), use_deprecated_int96_timestamps=True,
          write_statistics=True, int96_statistics=True)
    _file("stats.geospatial", "geospatial statistics (bounding box, geometry types)",
          {"v": [wkb_pt, wkb_ln, None, wkb_pt, wkb_pt]}, [("v", T.geometry())], write_statistics=True)

    # ---- Bloom filters, page index, CRC, sorting, metadata
    _file("bloom.filter", "split-block Bloom filter per column chunk", {"v": STRINGS, "i": LONGS},
          [("v", T.string()), ("i", T.int64())], bloom_filter_options={None: True})
    _file("index.page_index", "ColumnIndex + OffsetIndex", big, big_schema, write_page_index=True,
          write_statistics=True, data_page_row_count_limit=500)
    _file("index.page_index_nested", "page index on a nested column (first_row_index counts records)",
          {"v": lists * 200}, [("v", T.list_(T.int64()))], write_page_index=True, write_statistics=True,
          data_page_row_count_limit=100)
    _file("crc.page", "CRC-32 of every page (v1)", big, big_schema, write_page_checksum=True)
    _file("crc.page_v2_dictionary", "CRC-32 of every page (v2, dictionary)", big, big_schema,
          write_page_checksum=True, data_page_version="2.0", use_dictionary=True)
    _file("sorting_columns", "RowGroup.sorting_columns", {"i": [1, 2, 3, 4, 5]}, [("i", T.int64())],
          sorting_columns=[pc.SortingColumn(0)])
    _file("metadata.kv", "file key/value metadata", {"i": [1, 2, 3]}, [("i", T.int64())],
          key_value_metadata={"origin": "pqc compat", "empty": ""})
    _file("metadata.column_kv", "column-chunk key/value metadata", {"i": [1, 2, 3]}, [("i", T.int64())],
          column_key_value_metadata={"i": {"unit": "m"}})
    _file("metadata.arrow_schema", "ARROW:schema stored (pyarrow's own footer key)",
          {"i": [1, 2, 3], "s": ["a", None, "c"]}, [("i", T.int64()), ("s", T.string())], store_schema=True)
    _file("metadata.spark_flavor", "flavor='spark': INT96 timestamps, sanitized names",
          {"a b": [1, 2, 3], "t": [dt.datetime(2020, 1, 1), None, dt.datetime(1999, 12, 31)]},
          [("a b", T.int64()), ("t", T.timestamp("us"))], flavor="spark",
          expected=_expect({"a_b": [1, 2, 3], "t": [dt.datetime(2020, 1, 1), None, dt.datetime(1999, 12, 31)]},
                           ("t",)))
    _file("metadata.empty_file", "a file with no rows (one empty row group or none)", {"i": []},
          [("i", T.int64())])

    _external_features()
    _encryption_features()

    # ---- realistic combinations
    combo_cols: dict[str, list[Any]] = {"id": list(range(2000)), "name": [f"n{i % 50}" for i in range(2000)],
                  "price": [None if i % 7 == 0 else D(i).scaleb(-2) for i in range(2000)],
                  "ts": [dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(seconds=i) for i in range(2000)],
                  "tags": [[f"t{i % 3}"] * (i % 3) for i in range(2000)]}
    combo_schema = [("id", T.int64()), ("name", T.string()), ("price", T.decimal(12, 2)),
                    ("ts", T.timestamp("us", utc=True)), ("tags", T.list_(T.string()))]
    _file("combo.pc_defaults", "parquet_core's defaults (snappy, dictionary, stats, page index, size stats)",
          combo_cols, combo_schema, **{k: v for k, v in _DEFAULTS.items()})
    _file("combo.modern", "zstd, page v2, DELTA encodings, page index, Bloom filters, size statistics",
          combo_cols, combo_schema, compression="zstd", data_page_version="2.0", use_dictionary=["name"],
          column_encoding={"id": "delta_binary_packed", "tags.list.element": "delta_byte_array"},
          write_statistics=True, write_page_index=True, write_size_statistics=True,
          bloom_filter_options={"id": True}, data_page_row_count_limit=500)
    _file("combo.legacy_spark", "Spark-2-style: snappy, dictionary, INT96, legacy lists",
          combo_cols, combo_schema, compression="snappy", use_dictionary=True, write_statistics=True,
          use_deprecated_int96_timestamps=True, legacy_list_layout=True,
          expected=_expect({**combo_cols, "ts": [t.replace(tzinfo=None) for t in combo_cols["ts"]]}, ("ts",)))
    _file("combo.lz4raw_bss", "LZ4_RAW with BYTE_STREAM_SPLIT doubles and checksums",
          {"x": [i / 8 for i in range(2000)], "y": [float(i) for i in range(2000)]},
          [("x", T.float64()), ("y", T.float32())], compression="lz4_raw", use_byte_stream_split=True,
          write_page_checksum=True, write_statistics=True)


_DEFAULTS: dict[str, Any] = dict(compression="snappy", use_dictionary=True, write_statistics=True,
                                 write_page_index=True, write_size_statistics=True, store_schema=True)


def _external_features() -> None:
    def file_path(folder: Path) -> Written:
        """Column chunks in a sibling file: the footer's file_path names it."""
        import parquet_core as pc
        name = FEATURES["external.file_path"].file_name
        sub = folder / (name + ".data")
        sub.mkdir(exist_ok=True)
        pc.write_table({"i": [1, 2, 3], "s": ["a", None, "c"]}, str(sub / "part-0.parquet"), **BASE)
        md = pc.read_metadata(str(sub / "part-0.parquet"))
        for rg in md.raw.row_groups:
            for chunk in rg.columns:
                chunk.file_path = f"{name}.data/part-0.parquet"
        pc.write_metadata(pc.read_schema(str(sub / "part-0.parquet")), str(folder / name), [md])
        return Written(name, _expect({"i": [1, 2, 3], "s": ["a", None, "c"]}))
    _add("external.file_path", "a footer whose column chunks live in another file (file_path)", file_path)

    def metadata(folder: Path) -> Written:
        """A folder of two files with _metadata and _common_metadata beside them."""
        import parquet_core as pc
        name = FEATURES["dataset._metadata"].file_name
        sub = folder / name
        sub.mkdir(exist_ok=True)
        collected: list = []
        for k in range(2):
            part = f"part-{k}.parquet"
            pc.write_table({"i": [k * 10 + 1, k * 10 + 2]}, str(sub / part), **BASE)
            md = pc.read_metadata(str(sub / part))
            for rg in md.raw.row_groups:
                for chunk in rg.columns:
                    chunk.file_path = part
            collected.append(md)
        schema = pc.read_schema(str(sub / "part-0.parquet"))
        pc.write_metadata(schema, str(sub / "_metadata"), collected)
        pc.write_metadata(schema, str(sub / "_common_metadata"))
        return Written(name, _expect({"i": [1, 2, 11, 12]}), unordered=True)
    _add("dataset._metadata", "a folder of files with _metadata (the reader is given the folder)", metadata)


_KF = bytes(range(16))
_KC = bytes(range(16, 32))


def _encryption_features() -> None:
    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "encryption.gcm_footer": ("AES_GCM_V1, encrypted footer, one key", dict()),
        "encryption.ctr": ("AES_GCM_CTR_V1 (pages AES-CTR)", dict(algorithm="AES_GCM_CTR_V1")),
        "encryption.plaintext_footer": ("AES_GCM_V1, signed plaintext footer", dict(plaintext_footer=True)),
        "encryption.column_keys": ("AES_GCM_V1, one column under its own key, one plaintext",
                                   dict(column_keys={"s": _KC})),
        "encryption.aad_prefix_stored": ("AES_GCM_V1 with an AAD prefix stored in the file",
                                         dict(aad_prefix=b"table-x", store_aad_prefix=True)),
        "encryption.aad_prefix_supplied": ("AES_GCM_V1 with an AAD prefix the reader must supply",
                                           dict(aad_prefix=b"table-x", store_aad_prefix=False)),
    }
    for fid, (desc, kw) in cases.items():
        def make(folder: Path, fid: str = fid, kw: dict[str, Any] = kw) -> Written:
            import parquet_core as pc
            name = FEATURES[fid].file_name
            enc = pc.FileEncryptionProperties(footer_key=_KF, **kw)
            cols: dict[str, list[Any]] = {"i": [1, 2, None, 4], "s": ["a", None, "c", "d"]}
            pc.write_table(cols, str(folder / name), encryption=enc, **BASE)
            keys: dict[str, Any] = {"footer_key": _KF.hex()}
            if "column_keys" in kw:
                keys["column_keys"] = {k: v.hex() for k, v in kw["column_keys"].items()}
            if kw.get("aad_prefix") is not None and not kw.get("store_aad_prefix", True):
                keys["aad_prefix"] = kw["aad_prefix"].hex()
            keys["algorithm"] = kw.get("algorithm", "AES_GCM_V1")
            return Written(name, _expect(cols), keys)
        _add(fid, desc, make)
    from parquet_core.compat.kms import encrypt, encryption_features

    for fid, (desc, config) in encryption_features().items():
        def make_kms(folder: Path, fid: str = fid, config: dict = config) -> Written:
            import parquet_core as pc
            name = FEATURES[fid].file_name
            props, keys = encrypt(config)
            cols: dict[str, list] = {"i": [1, 2, None, 4], "s": ["a", None, "c", "d"]}
            pc.write_table(cols, str(folder / name), encryption=props, **BASE)
            return Written(name, _expect(cols), keys)
        _add(fid, desc, make_kms)


_register()

GROUPS: list[str] = list(dict.fromkeys(f.group for f in FEATURES.values()))

#: a subset for the test suite: one or two of each group
QUICK: list[str] = [
    "physical.INT32", "physical.INT96", "logical.STRING", "logical.FLOAT16", "logical.TIMESTAMP_NANOS_UTC",
    "logical.DECIMAL_FLBA", "encoding.DELTA_BYTE_ARRAY.byte_array", "encoding.BYTE_STREAM_SPLIT.int32",
    "codec.ZSTD", "codec.LZ4_RAW", "page.v2_compressed", "nested.list_3level", "nested.map",
    "stats.size_statistics", "bloom.filter", "encryption.gcm_footer",
]


def select(patterns: str | list[str] | None = None, quick: bool = False) -> list[Feature]:
    """The features whose id matches any glob of *patterns* (comma-separated), in catalogue order."""
    names = QUICK if quick else list(FEATURES)
    if patterns:
        pats = patterns.split(",") if isinstance(patterns, str) else list(patterns)
        names = [n for n in names if any(fnmatch.fnmatchcase(n, p.strip()) for p in pats)]
    return [FEATURES[n] for n in names]


def write_all(features: list[Feature], folder: str | os.PathLike) -> dict[str, Written | Exception]:
    """Write each feature's file into *folder*; a feature our writer refuses maps to its exception."""
    out: dict[str, Written | Exception] = {}
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for f in features:
        try:
            out[f.id] = f.make(folder)
        except Exception as exc:  # noqa: BLE001 - reported as the feature's row
            out[f.id] = exc
    return out
