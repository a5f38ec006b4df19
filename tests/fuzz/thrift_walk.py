"""A small, independent walker over Thrift compact-protocol structs.

The fuzzer must not trust ``parquet_core``'s own thrift decoder to tell it where
fields are (a bug there would hide itself), so this module parses the compact
protocol on its own and records, for every value it meets, the byte span it
occupies and how it is encoded.  Mutators then rewrite exactly those bytes.

Compact protocol, the parts Parquet uses::

    field header   [delta:4 | type:4]                       delta 1..15 from the previous id
                   [0:4 | type:4] [zigzag varint i16 id]    long form
    stop           0x00
    bool field     the value is the type nibble (1 true, 2 false)
    i8             one raw byte
    i16/i32/i64    zigzag ULEB128 varint
    double         8 bytes little endian
    binary         ULEB128 length, then the bytes
    list / set     [count:4 | elem type:4]                  count < 15
                   [0xF:4 | elem type:4] [ULEB128 count]    long form
    map            ULEB128 count, then [key type:4 | value type:4] when count > 0
    struct         fields until a stop byte

Names come from a table of the Parquet structs the fuzzer aims at; fields it
does not know are named ``f<id>``.  Every item records the dotted path of the
field (``row_groups[0].columns[1].meta_data.data_page_offset``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Item", "WalkError", "walk_struct", "encode_uvarint", "encode_zigzag", "zigzag",
           "field_header", "list_header", "STRUCTS", "ENUM_FIELDS", "OFFSET_FIELDS", "LENGTH_FIELDS"]

# compact type codes
BOOL_TRUE, BOOL_FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)
INT_TYPES = {I16: "i16", I32: "i32", I64: "i64"}
MAX_DEPTH = 64


class WalkError(Exception):
    """The bytes are not a well-formed compact struct (the walker's own error)."""


# struct name -> {field id: (field name, element/child struct name or None)}
STRUCTS: dict[str, dict[int, tuple[str, str | None]]] = {
    "FileMetaData": {1: ("version", None), 2: ("schema", "SchemaElement"), 3: ("num_rows", None),
                     4: ("row_groups", "RowGroup"), 5: ("key_value_metadata", "KeyValue"),
                     6: ("created_by", None), 7: ("column_orders", "ColumnOrder"),
                     8: ("encryption_algorithm", None), 9: ("footer_signing_key_metadata", None)},
    "SchemaElement": {1: ("type", None), 2: ("type_length", None), 3: ("repetition_type", None),
                      4: ("name", None), 5: ("num_children", None), 6: ("converted_type", None),
                      7: ("scale", None), 8: ("precision", None), 9: ("field_id", None),
                      10: ("logicalType", "LogicalType")},
    "LogicalType": {1: ("STRING", None), 2: ("MAP", None), 3: ("LIST", None), 4: ("ENUM", None),
                    5: ("DECIMAL", "DecimalType"), 6: ("DATE", None), 7: ("TIME", "TimeType"),
                    8: ("TIMESTAMP", "TimeType"), 10: ("INTEGER", "IntType"), 11: ("UNKNOWN", None),
                    12: ("JSON", None), 13: ("BSON", None), 14: ("UUID", None), 15: ("FLOAT16", None),
                    16: ("VARIANT", None), 17: ("GEOMETRY", None), 18: ("GEOGRAPHY", None)},
    "DecimalType": {1: ("scale", None), 2: ("precision", None)},
    "TimeType": {1: ("isAdjustedToUTC", None), 2: ("unit", "TimeUnit")},
    "TimeUnit": {1: ("MILLIS", None), 2: ("MICROS", None), 3: ("NANOS", None)},
    "IntType": {1: ("bitWidth", None), 2: ("isSigned", None)},
    "KeyValue": {1: ("key", None), 2: ("value", None)},
    "ColumnOrder": {1: ("TYPE_ORDER", None)},
    "RowGroup": {1: ("columns", "ColumnChunk"), 2: ("total_byte_size", None), 3: ("num_rows", None),
                 4: ("sorting_columns", "SortingColumn"), 5: ("file_offset", None),
                 6: ("total_compressed_size", None), 7: ("ordinal", None)},
    "SortingColumn": {1: ("column_idx", None), 2: ("descending", None), 3: ("nulls_first", None)},
    "ColumnChunk": {1: ("file_path", None), 2: ("file_offset", None), 3: ("meta_data", "ColumnMetaData"),
                    4: ("offset_index_offset", None), 5: ("offset_index_length", None),
                    6: ("column_index_offset", None), 7: ("column_index_length", None),
                    8: ("crypto_metadata", None), 9: ("encrypted_column_metadata", None)},
    "ColumnMetaData": {1: ("type", None), 2: ("encodings", None), 3: ("path_in_schema", None),
                       4: ("codec", None), 5: ("num_values", None), 6: ("total_uncompressed_size", None),
                       7: ("total_compressed_size", None), 8: ("key_value_metadata", "KeyValue"),
                       9: ("data_page_offset", None), 10: ("index_page_offset", None),
                       11: ("dictionary_page_offset", None), 12: ("statistics", "Statistics"),
                       13: ("encoding_stats", "PageEncodingStats"), 14: ("bloom_filter_offset", None),
                       15: ("bloom_filter_length", None), 16: ("size_statistics", "SizeStatistics")},
    "Statistics": {1: ("max", None), 2: ("min", None), 3: ("null_count", None), 4: ("distinct_count", None),
                   5: ("max_value", None), 6: ("min_value", None), 7: ("is_max_value_exact", None),
                   8: ("is_min_value_exact", None)},
    "PageEncodingStats": {1: ("page_type", None), 2: ("encoding", None), 3: ("count", None)},
    "SizeStatistics": {1: ("unencoded_byte_array_data_bytes", None), 2: ("repetition_level_histogram", None),
                       3: ("definition_level_histogram", None)},
    "PageHeader": {1: ("type", None), 2: ("uncompressed_page_size", None), 3: ("compressed_page_size", None),
                   4: ("crc", None), 5: ("data_page_header", "DataPageHeader"),
                   6: ("index_page_header", None), 7: ("dictionary_page_header", "DictionaryPageHeader"),
                   8: ("data_page_header_v2", "DataPageHeaderV2")},
    "DataPageHeader": {1: ("num_values", None), 2: ("encoding", None), 3: ("definition_level_encoding", None),
                       4: ("repetition_level_encoding", None), 5: ("statistics", "Statistics")},
    "DictionaryPageHeader": {1: ("num_values", None), 2: ("encoding", None), 3: ("is_sorted", None)},
    "DataPageHeaderV2": {1: ("num_values", None), 2: ("num_nulls", None), 3: ("num_rows", None),
                         4: ("encoding", None), 5: ("definition_levels_byte_length", None),
                         6: ("repetition_levels_byte_length", None), 7: ("is_compressed", None),
                         8: ("statistics", "Statistics")},
    "ColumnIndex": {1: ("null_pages", None), 2: ("min_values", None), 3: ("max_values", None),
                    4: ("boundary_order", None), 5: ("null_counts", None),
                    6: ("repetition_level_histograms", None), 7: ("definition_level_histograms", None)},
    "OffsetIndex": {1: ("page_locations", "PageLocation"), 2: ("unencoded_byte_array_data_bytes", None)},
    "PageLocation": {1: ("offset", None), 2: ("compressed_page_size", None), 3: ("first_row_index", None)},
    "BloomFilterHeader": {1: ("numBytes", None), 2: ("algorithm", None), 3: ("hash", None),
                          4: ("compression", None)},
}

#: field names whose i32 value is a spec enum (mutated to unknown members)
ENUM_FIELDS = {"type", "repetition_type", "converted_type", "codec", "encodings", "encoding",
               "definition_level_encoding", "repetition_level_encoding", "page_type", "boundary_order"}
#: field names holding an absolute file offset
OFFSET_FIELDS = {"data_page_offset", "dictionary_page_offset", "index_page_offset", "column_index_offset",
                 "offset_index_offset", "bloom_filter_offset", "file_offset", "offset"}
#: field names holding a byte length or a size
LENGTH_FIELDS = {"column_index_length", "offset_index_length", "bloom_filter_length", "total_compressed_size",
                 "total_uncompressed_size", "compressed_page_size", "uncompressed_page_size", "numBytes",
                 "total_byte_size", "definition_levels_byte_length", "repetition_levels_byte_length"}


@dataclass(slots=True)
class Item:
    """One encoded value (or a field header) found by the walker, with absolute byte spans.

    ``kind`` is one of ``int`` (zigzag varint; ``bits`` 16/32/64), ``byte``, ``bool``
    (a bool field: the value lives in the header's type nibble), ``double``,
    ``binary`` (``start..end`` is the length prefix, ``data_end`` ends the
    content), ``list`` (``start..end`` is the header; ``elements`` the element
    spans), ``map`` and ``field`` (a field header: ``fid``, ``ftype``,
    ``value_end``, ``prev_fid``).
    """

    kind: str
    start: int
    end: int
    path: str
    name: str | None = None
    value: object = None
    bits: int = 0
    data_end: int = 0
    elem_type: int = 0
    elements: list[tuple[int, int]] = field(default_factory=list)
    fid: int = 0
    ftype: int = 0
    value_end: int = 0
    prev_fid: int = 0


def zigzag(n: int) -> int:
    """Zigzag-map a signed integer to an unsigned one (unbounded width)."""
    return (n << 1) if n >= 0 else ((-n) << 1) - 1


def encode_uvarint(n: int) -> bytes:
    """ULEB128 of a non-negative integer."""
    if n < 0:
        raise ValueError("uvarint of a negative number")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode_zigzag(n: int) -> bytes:
    """The compact-protocol encoding of a signed integer."""
    return encode_uvarint(zigzag(n))


def field_header(fid: int, prev_fid: int, ftype: int) -> bytes:
    """Encode a field header, short form when the delta allows it."""
    delta = fid - prev_fid
    if 0 < delta <= 15:
        return bytes([(delta << 4) | ftype])
    return bytes([ftype]) + encode_zigzag(fid)


def list_header(count: int, elem_type: int) -> bytes:
    """Encode a list/set header for ``count`` elements."""
    if 0 <= count < 15:
        return bytes([(count << 4) | elem_type])
    return bytes([0xF0 | elem_type]) + encode_uvarint(count)


class _Reader:
    def __init__(self, buf: bytes, pos: int, limit: int, items: list[Item]) -> None:
        self.buf, self.pos, self.limit, self.items = buf, pos, limit, items

    def byte(self) -> int:
        if self.pos >= self.limit:
            raise WalkError(f"ran past the end at {self.pos}")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def uvarint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 70:
                raise WalkError("varint longer than 10 bytes")

    def svarint(self) -> int:
        u = self.uvarint()
        return (u >> 1) ^ -(u & 1)

    def value(self, ftype: int, path: str, name: str | None, child: str | None, depth: int) -> None:
        start = self.pos
        if ftype in INT_TYPES:
            v = self.svarint()
            self.items.append(Item("int", start, self.pos, path, name, v, bits=int(INT_TYPES[ftype][1:])))
        elif ftype == BYTE:
            v = self.byte()
            self.items.append(Item("byte", start, self.pos, path, name, v))
        elif ftype in (BOOL_TRUE, BOOL_FALSE):  # only inside lists: one byte per element
            v = self.byte()
            self.items.append(Item("byte", start, self.pos, path, name, v))
        elif ftype == DOUBLE:
            if self.pos + 8 > self.limit:
                raise WalkError("double past the end")
            self.pos += 8
            self.items.append(Item("double", start, self.pos, path, name, self.buf[start:self.pos]))
        elif ftype == BINARY:
            n = self.uvarint()
            head_end = self.pos
            if self.pos + n > self.limit:
                raise WalkError(f"binary of {n} bytes past the end at {start}")
            self.pos += n
            self.items.append(Item("binary", start, head_end, path, name, n, data_end=self.pos))
        elif ftype in (LIST, SET):
            h = self.byte()
            count, et = h >> 4, h & 0x0F
            if count == 15:
                count = self.uvarint()
            item = Item("list", start, self.pos, path, name, count, elem_type=et)
            self.items.append(item)
            if count > self.limit - self.pos:
                raise WalkError(f"list of {count} elements cannot fit")
            for i in range(count):
                s = self.pos
                self.value(et, f"{path}[{i}]", name, child, depth + 1)
                item.elements.append((s, self.pos))
        elif ftype == MAP:
            count = self.uvarint()
            item = Item("map", start, self.pos, path, name, count)
            self.items.append(item)
            if count:
                kv = self.byte()
                item.end = self.pos
                for i in range(count):
                    self.value(kv >> 4, f"{path}{{k{i}}}", name, None, depth + 1)
                    self.value(kv & 0x0F, f"{path}{{v{i}}}", name, None, depth + 1)
        elif ftype == STRUCT:
            self.struct(child, path, depth + 1)
        else:
            raise WalkError(f"unknown compact type {ftype} at {start}")

    def struct(self, sname: str | None, path: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise WalkError("structs nested too deep")
        names = STRUCTS.get(sname or "", {})
        prev = 0
        while True:
            hstart = self.pos
            h = self.byte()
            if h == 0:
                return
            ftype = h & 0x0F
            delta = h >> 4
            fid = prev + delta if delta else self.svarint()
            name, child = names.get(fid, (f"f{fid}", None))
            fpath = f"{path}.{name}" if path else name
            hdr = Item("field", hstart, self.pos, fpath, name, fid, fid=fid, ftype=ftype, prev_fid=prev)
            self.items.append(hdr)
            if ftype in (BOOL_TRUE, BOOL_FALSE):
                self.items.append(Item("bool", hstart, self.pos, fpath, name, ftype == BOOL_TRUE))
            else:
                self.value(ftype, fpath, name, child, depth)
            hdr.value_end = self.pos
            prev = fid


def walk_struct(buf: bytes, start: int, limit: int, sname: str, path: str = "") -> tuple[list[Item], int]:
    """Walk one struct named ``sname`` at ``buf[start:limit]``.

    Returns every item found (absolute spans) and the offset just past the
    struct's stop byte.  Raises :class:`WalkError` on malformed bytes.
    """
    items: list[Item] = []
    r = _Reader(buf, start, limit, items)
    r.struct(sname, path, 0)
    return items, r.pos
