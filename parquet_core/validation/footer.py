"""Footer rules: the file tail, the thrift footer, row groups and column chunk metadata.

Spec: README.md "File format" and "Metadata", parquet.thrift
(``FileMetaData``, ``RowGroup``, ``ColumnChunk``, ``ColumnMetaData``).
Everything here reads only the tail of the file.
"""

from __future__ import annotations

import struct
from typing import Any

from parquet_core.constants import (
    FOOTER_SIZE_BYTES,
    MAGIC,
    MAGIC_ENCRYPTED,
    CompressionCodec,
    Encoding,
    PhysicalType,
    known_value,
)
from parquet_core.errors import ParquetError, quoted
from parquet_core.file.chunk_reader import open_external
from parquet_core.file.footer import read_footer
from parquet_core.metadata.compat import parse_created_by
from parquet_core.metadata.wrappers import ColumnChunkMetadata
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.tree import parse_schema_tree
from parquet_core.schema.types import TypeId
from parquet_core.thrift import pt
from parquet_core.thrift.codec import parse
from parquet_core.validation.context import Checker, ChunkState
from parquet_core.validation.rules import ERROR, INFO, WARNING, rule

__all__ = ["check_footer", "check_row_groups"]

_FF = "README.md#file-format"
_MD = "parquet.thrift FileMetaData"

MAGIC_RULE = rule("footer.magic", ERROR, _FF, "the file starts and ends with the magic PAR1 (PARE when the footer is encrypted)")
TOO_SMALL = rule("footer.too-small", ERROR, _FF, "the file is at least 12 bytes long (magic, footer length, magic)")
LENGTH = rule("footer.length", ERROR, _FF, "the footer length fits between the leading magic and the tail")
THRIFT = rule("footer.thrift", ERROR, "README.md#metadata", "the footer decodes as a thrift compact FileMetaData")
REQUIRED = rule("footer.required-field", ERROR, "parquet.thrift", "every required field of FileMetaData, RowGroup and ColumnMetaData is set")
NUM_ROWS = rule("footer.num-rows", ERROR, _MD + ".num_rows", "FileMetaData.num_rows equals the sum of the row groups' num_rows")
NEGATIVE = rule("footer.negative-count", ERROR, "parquet.thrift", "row counts, value counts, sizes and offsets are not negative")
RG_COLUMNS = rule("footer.row-group-columns", ERROR, "parquet.thrift RowGroup.columns", "every row group has one column chunk per schema leaf")
RG_ORDINAL = rule("footer.row-group-ordinal", ERROR, "parquet.thrift RowGroup.ordinal", "RowGroup.ordinal, when set, is the row group's position in the file")
RG_BYTES = rule("footer.row-group-total-byte-size", WARNING, "parquet.thrift RowGroup.total_byte_size", "total_byte_size equals the sum of its chunks' total_uncompressed_size")
RG_COMPRESSED = rule("footer.row-group-total-compressed-size", WARNING, "parquet.thrift RowGroup.total_compressed_size", "total_compressed_size, when set, equals the sum of its chunks' total_compressed_size")
RG_OFFSET = rule("footer.row-group-file-offset", WARNING, "parquet.thrift RowGroup.file_offset", "file_offset, when set, is the first byte of the row group's first column chunk")
CHUNK_TYPE = rule("footer.chunk-type", ERROR, "parquet.thrift ColumnMetaData.type", "a chunk's physical type is its schema leaf's")
CHUNK_PATH = rule("footer.chunk-path", ERROR, "parquet.thrift ColumnMetaData.path_in_schema", "path_in_schema is the path of the chunk's schema leaf")
CHUNK_VALUES = rule("footer.chunk-num-values", ERROR, "README.md#nested-encoding", "a chunk holds num_values = num_rows (no repetition) or at least num_rows (repeated) level slots")
CHUNK_RANGE = rule("footer.chunk-range", ERROR, "README.md#file-format", "a column chunk's pages lie between the leading magic and the footer")
CHUNK_OVERLAP = rule("footer.chunk-overlap", ERROR, "README.md#file-format", "column chunks do not overlap each other")
DICT_ORDER = rule("footer.dictionary-after-data", ERROR, "README.md#column-chunks", "a dictionary page (dictionary_page_offset) comes before the first data page")
DICT_ZERO = rule("footer.dictionary-offset-zero", WARNING, "parquet.thrift ColumnMetaData.dictionary_page_offset", "dictionary_page_offset 0 (an old parquet-cpp bug): there is no page at offset 0")
CODEC = rule("footer.codec-unknown", ERROR, "parquet.thrift CompressionCodec", "the chunk's codec is one the spec defines")
LZ4 = rule("footer.codec-lz4-deprecated", WARNING, "Compression.md#lz4", "codec LZ4 (Hadoop framing or not, ambiguous) is deprecated in favour of LZ4_RAW")
ENCODING_UNKNOWN = rule("footer.encoding-unknown", ERROR, "parquet.thrift Encoding", "ColumnMetaData.encodings lists only encodings the spec defines")
COLUMN_ORDERS = rule("footer.column-orders", ERROR, _MD + ".column_orders", "column_orders, when set, has one entry per schema leaf")
COLUMN_ORDERS_MISSING = rule("footer.column-orders-missing", WARNING, _MD + ".column_orders", "min_value/max_value statistics come with column_orders (else their order is undefined and readers ignore them)")
ORDER_TYPE = rule("footer.column-order-type", ERROR, _MD + ".column_orders", "IEEE_754_TOTAL_ORDER is only given to FLOAT, DOUBLE and FLOAT16 columns")
VERSION = rule("footer.version", WARNING, _MD + ".version", "FileMetaData.version is 1 or 2")
CREATED_BY = rule("footer.created-by-missing", INFO, _MD + ".created_by", "created_by names the writer (writer bugs cannot be recognised without it)")
KV_DUP = rule("footer.key-value-duplicate", WARNING, _MD + ".key_value_metadata", "key_value_metadata keys are unique (readers keep one of the values)")
ARROW_DECODE = rule("footer.arrow-schema-decode", WARNING, "Arrow IPC format (pyarrow's ARROW:schema key)", "an ARROW:schema key holds base64 of an Arrow IPC schema message (else pyarrow fails to read)")
ARROW_MISMATCH = rule("footer.arrow-schema-mismatch", ERROR, "Arrow IPC format (pyarrow's ARROW:schema key)", "the ARROW:schema fields are the Parquet schema's top-level fields, by name, order and child count")
EMPTY_CHUNK = rule("footer.empty-chunk", INFO, "parquet.thrift ColumnMetaData.data_page_offset",
                   "a chunk of 0 values without a data page (pyarrow's empty tables): data_page_offset points at no "
                   "page, readers read nothing")
EXTERNAL = rule("footer.external-chunk", INFO, "parquet.thrift ColumnChunk.file_path", "a chunk stored in another file (file_path) is not checked")
EXTERNAL_UNREADABLE = rule("footer.external-chunk-unreadable", ERROR, "parquet.thrift ColumnChunk.file_path", "a chunk's file_path names a regular file below the file's folder (symbolic links resolved) that can be opened")


def check_footer(ck: Checker) -> bool:
    """Check the tail and decode the footer; False when nothing more can be read."""
    size = ck.size
    if size < len(MAGIC) + FOOTER_SIZE_BYTES:
        ck.report(TOO_SMALL, f"the file has {size} bytes, fewer than the 12 of an empty Parquet file")
        return False
    tail = bytes(ck.source.read_at(size - FOOTER_SIZE_BYTES, FOOTER_SIZE_BYTES))
    head = bytes(ck.source.read_at(0, 4))
    magic = tail[4:]
    if magic not in (MAGIC, MAGIC_ENCRYPTED):
        ck.report(MAGIC_RULE, f"expected the file to end with b'PAR1' or b'PARE', found {magic!r}",
                  offset=size - 4)
        return False
    if head != magic:
        ck.report(MAGIC_RULE, f"expected the file to start with {magic!r} (as it ends), found {head!r}", offset=0)
    (flen,) = struct.unpack("<I", tail[:4])
    if flen == 0 or flen > size - FOOTER_SIZE_BYTES - len(MAGIC):
        ck.report(LENGTH, f"footer length {flen} does not fit: expected 1..{size - 12} in a file of {size} bytes",
                  offset=size - 8)
        return False
    ck.footer_start, ck.footer_len = size - FOOTER_SIZE_BYTES - flen, flen
    from parquet_core.validation import encryption  # the encryption rules own key problems

    if magic == MAGIC_ENCRYPTED:
        if ck.decryption is None:
            encryption.no_footer_key(ck)
            return False
        try:
            ck.raw, _, ck.decryptor = read_footer(ck.source, ck.decryption)
        except ParquetError as exc:
            encryption.footer_failed(ck, exc)
            ck.raw = None
            return False
        return _check_file_fields(ck)
    ck.raw = _parse_plain(ck)
    if ck.raw is None:
        return False
    if ck.raw.encryption_algorithm is not None:
        encryption.plaintext_footer(ck)
    return _check_file_fields(ck)


def _parse_plain(ck: Checker) -> Any:
    try:
        raw, _ = parse(bytes(ck.source.read_at(ck.footer_start, ck.footer_len)), pt.FileMetaData)
        for name in ("schema", "row_groups"):   # the thrift decoder leaves unset lists as None
            if getattr(raw, name) is None:
                pass
        return raw
    except ParquetError as exc:
        ck.report(THRIFT, f"the footer ({ck.footer_len} bytes) does not decode: {exc}", offset=ck.footer_start)
        return None


def _missing(struct_: Any, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if getattr(struct_, n, None) is None]


def _check_file_fields(ck: Checker) -> bool:
    raw = ck.raw
    miss = _missing(raw, ("version", "schema", "num_rows", "row_groups"))
    if miss:
        ck.report(REQUIRED, f"FileMetaData lacks required field(s) {', '.join(miss)}", offset=ck.footer_start)
    if raw.schema is None:
        return False
    if raw.version is not None and raw.version not in (1, 2):
        ck.report(VERSION, f"expected version 1 or 2, found {raw.version}")
    if raw.created_by is None:
        ck.report(CREATED_BY, "the footer does not say which writer wrote the file")
    ck.writer = parse_created_by(raw.created_by)
    seen: set[bytes] = set()
    for kv in raw.key_value_metadata or []:
        key = kv.key if isinstance(kv.key, bytes) else str(kv.key).encode()
        if key in seen:
            ck.report(KV_DUP, f"key {quoted(key.decode('utf-8', 'replace'))} appears more than once")
        seen.add(key)
    from parquet_core.validation import schema as schema_rules

    try:
        root = parse_schema_tree(raw.schema)
    except ParquetError as exc:
        ck.report(schema_rules.TREE, str(exc))
        return False
    before = len(ck.findings)
    schema_rules.check_schema(ck, root)
    try:
        ck.schema = SchemaDescriptor(raw.schema)
    except ParquetError as exc:
        if not any(f.severity == "error" for f in ck.findings[before:]):
            ck.report(schema_rules.TREE, str(exc))
        return False
    schema_rules.check_layouts(ck)
    _check_arrow_schema(ck)
    n = len(ck.schema)
    if raw.column_orders is not None and len(raw.column_orders) != n:
        ck.report(COLUMN_ORDERS, f"expected {n} column orders (one per leaf), found {len(raw.column_orders)}")
    for i, order in enumerate(raw.column_orders or []):
        desc = ck.schema.column(i) if i < n else None
        if desc is not None and order is not None and getattr(order, "IEEE_754_TOTAL_ORDER", None) is not None \
                and not (desc.physical_type in (PhysicalType.FLOAT, PhysicalType.DOUBLE)
                         or desc.data_type.id is TypeId.FLOAT16):
            ck.report(ORDER_TYPE, f"column {quoted(desc.dotted_path, bare=True)} ({PhysicalType(desc.physical_type).name}) has "
                      "IEEE_754_TOTAL_ORDER", column=desc.dotted_path)
    groups = raw.row_groups or []
    total = sum(rg.num_rows or 0 for rg in groups)
    if raw.num_rows is not None and raw.num_rows != total:
        from parquet_core.validation import writers

        if raw.num_rows == 0 and writers.zero_num_rows(ck, total):
            return True
        ck.report(NUM_ROWS, f"FileMetaData.num_rows is {raw.num_rows}, the row groups hold {total} rows")
    return True


def _check_arrow_schema(ck: Checker) -> None:
    from parquet_core.validation.arrow_schema import arrow_fields

    for kv in ck.raw.key_value_metadata or []:
        key = kv.key if isinstance(kv.key, bytes) else str(kv.key).encode()
        if key != b"ARROW:schema" or kv.value is None:
            continue
        value = kv.value if isinstance(kv.value, bytes) else str(kv.value).encode()
        try:
            fields = arrow_fields(value)
        except ParquetError as exc:
            ck.report(ARROW_DECODE, str(exc))
            return
        parquet = [(c.name, len(c.children)) for c in ck.schema.root.children]
        names = [n for n, _ in parquet]
        if [n for n, _ in fields] != names:
            ck.report(ARROW_MISMATCH, f"ARROW:schema has fields {quoted([n for n, _ in fields])}, the Parquet "
                      f"schema {quoted(names)}")
            return
        for node, (name, a), (_, p) in zip(ck.schema.root.children, fields, parquet):   # same names, same order
            if node.element.type is None and node.element.converted_type is None and node.element.logicalType is None \
                    and a != p:
                ck.report(ARROW_MISMATCH, f"field {quoted(name)}: ARROW:schema gives it {a} children, the Parquet "
                          f"schema {p}", column=name)


def _order_defined(ck: Checker, i: int) -> bool:
    orders = ck.raw.column_orders
    return orders is not None and len(orders) == len(ck.schema) and orders[i].TYPE_ORDER is not None


_CHUNK_FIELDS = ("type", "encodings", "path_in_schema", "codec", "num_values", "total_uncompressed_size",
                 "total_compressed_size", "data_page_offset")


def check_row_groups(ck: Checker) -> None:
    """Check every row group and chunk's metadata; fill ``ck.chunks``."""
    leaves = len(ck.schema)
    stats_without_orders = False
    for g, rg in enumerate(ck.raw.row_groups or []):
        row: list[ChunkState | None] = []
        ck.chunks.append(row)
        miss = _missing(rg, ("columns", "total_byte_size", "num_rows"))
        if miss:
            ck.report(REQUIRED, f"RowGroup lacks required field(s) {', '.join(miss)}", row_group=g)
        cols = rg.columns or []
        rows = rg.num_rows or 0
        if rows < 0:
            ck.report(NEGATIVE, f"num_rows is {rows}", row_group=g)
        if len(cols) != leaves:
            ck.report(RG_COLUMNS, f"expected {leaves} column chunks (one per leaf), found {len(cols)}", row_group=g)
        if rg.ordinal is not None and rg.ordinal != g:
            ck.report(RG_ORDINAL, f"expected ordinal {g}, found {rg.ordinal}", row_group=g)
        for i, cc in enumerate(cols[:leaves]):
            with ck.guard(REQUIRED, row_group=g, column=ck.schema.column(i).dotted_path):
                row.append(_chunk(ck, g, i, cc, rows))
                continue
            row.append(None)
        states = [c for c in row if c is not None and c.meta is not None and not _missing(c.meta, _CHUNK_FIELDS)]
        stats_without_orders |= any(c.meta.statistics is not None and c.meta.statistics.min_value is not None
                                    for c in states)
        if len(states) == leaves and leaves:
            _check_totals(ck, g, rg, states)
    if stats_without_orders and ck.raw.column_orders is None:
        ck.report(COLUMN_ORDERS_MISSING, "chunks have min_value/max_value statistics but the footer has no "
                  "column_orders: their sort order is undefined")
    _check_overlaps(ck)


def _external(ck: Checker, ch: ChunkState, rel: str) -> None:
    """A chunk stored in another file: only whether that file can be opened is checked."""
    if getattr(ck.source, "sibling", None) is None:   # bytes or a file object: nowhere to look
        ck.report_chunk(EXTERNAL, ch, f"the chunk is stored in {quoted(rel)}")
        return
    if rel not in ck.externals:     # each file once (a summary file names each many times)
        try:
            open_external(ck.source, rel, ch.rg, ch.path).close()
            ck.externals[rel] = None
        except ParquetError as exc:
            ck.externals[rel] = str(exc)
            ck.report_chunk(EXTERNAL_UNREADABLE, ch, str(exc))
            return
    elif ck.externals[rel] is not None:
        ck.report_chunk(EXTERNAL_UNREADABLE, ch, f"file_path {quoted(rel)} cannot be opened (as reported "
                        "for an earlier chunk)")
        return
    ck.report_chunk(EXTERNAL, ch, f"the chunk is stored in {quoted(rel)}")


def _chunk(ck: Checker, g: int, i: int, cc: Any, rows: int) -> ChunkState:
    desc = ck.schema.column(i)
    ch = ChunkState(g, i, cc, None, desc)
    if cc.file_path:
        _external(ck, ch, cc.file_path)
        ch.usable = False
        return ch
    if cc.meta_data is not None and cc.crypto_metadata is None:
        meta = cc.meta_data
    else:
        from parquet_core.validation import encryption

        meta = encryption.chunk_metadata(ck, ch)
        if meta is None:
            ch.usable = False
            return ch
    ch.meta = meta
    miss = _missing(meta, _CHUNK_FIELDS)
    if miss:
        ck.report_chunk(REQUIRED, ch, f"ColumnMetaData lacks required field(s) {', '.join(miss)}")
        ch.usable = False
        return ch
    if meta.type != desc.physical_type:
        ck.report_chunk(CHUNK_TYPE, ch, f"expected physical type {desc.physical_type} (the schema's), found {meta.type}")
        ch.usable = False
        return ch
    if ch.wrapper is None:
        ch.wrapper = ColumnChunkMetadata(cc, desc, _order_defined(ck, i), g, i, ck.writer, None)
    path = tuple(meta.path_in_schema)
    if path != desc.path:
        ck.report_chunk(CHUNK_PATH, ch, f"expected path_in_schema {quoted('.'.join(desc.path))}, found {quoted('.'.join(path))}")
    _check_counts(ck, ch, rows)
    _check_codec_encodings(ck, ch)
    _check_range(ck, ch)
    return ch


def _check_counts(ck: Checker, ch: ChunkState, rows: int) -> None:
    m = ch.meta
    for name in ("num_values", "total_uncompressed_size", "total_compressed_size", "data_page_offset"):
        if getattr(m, name) < 0:
            ck.report_chunk(NEGATIVE, ch, f"{name} is {getattr(m, name)}")
            ch.usable = False
    if ch.desc.max_repetition_level == 0 and m.num_values != rows:
        ck.report_chunk(CHUNK_VALUES, ch, f"expected num_values {rows} (one per row), found {m.num_values}")
        ch.usable = False
    elif m.num_values < rows:
        ck.report_chunk(CHUNK_VALUES, ch, f"expected num_values of at least {rows} (the rows), found {m.num_values}")
        ch.usable = False


def _check_codec_encodings(ck: Checker, ch: ChunkState) -> None:
    m = ch.meta
    try:
        codec = CompressionCodec(m.codec)
    except ValueError:
        ck.report_chunk(CODEC, ch, f"unknown codec id {m.codec}")
        ch.usable = False
        return
    if codec == CompressionCodec.LZ4:
        ck.report_chunk(LZ4, ch, "the chunk is compressed with the deprecated LZ4 codec")
    for e in m.encodings or []:
        if not known_value(Encoding, e):
            ck.report_chunk(ENCODING_UNKNOWN, ch, f"unknown encoding id {e} in ColumnMetaData.encodings")


def _check_range(ck: Checker, ch: ChunkState) -> None:
    m = ch.meta
    start = m.data_page_offset
    dpo = m.dictionary_page_offset
    if m.num_values == 0 and start == 0 and (dpo or m.total_compressed_size == 0):
        # a chunk without values and without a data page: only a dictionary page, or nothing (parquet-cpp)
        ck.report_chunk(EMPTY_CHUNK, ch, f"0 values and no data page (data_page_offset 0, "
                        f"{'a dictionary page at ' + str(dpo) if dpo else 'no page at all'})")
        if not dpo:
            ch.start = ch.length = 0
            return
        start = dpo
    elif dpo is not None:
        if dpo == 0:
            ck.report_chunk(DICT_ZERO, ch, "dictionary_page_offset is 0 (no page can start there); "
                            "the dictionary is looked for at data_page_offset", offset=0)
        elif dpo >= start:
            ck.report_chunk(DICT_ORDER, ch, f"expected dictionary_page_offset before data_page_offset {start}, "
                            f"found {dpo}", offset=dpo)
        else:
            start = dpo
    ch.start, ch.length = start, m.total_compressed_size
    end = start + ch.length
    if start < len(MAGIC) or end > ck.footer_start:
        ck.report_chunk(CHUNK_RANGE, ch, f"expected the pages within bytes 4..{ck.footer_start}, found "
                        f"{ch.length} bytes at offset {start}", offset=start)
        ch.usable = False


def _check_totals(ck: Checker, g: int, rg: Any, states: list[ChunkState]) -> None:
    unc = sum(c.meta.total_uncompressed_size for c in states)
    comp = sum(c.meta.total_compressed_size for c in states)
    if rg.total_byte_size is not None and rg.total_byte_size != unc:
        ck.report(RG_BYTES, f"total_byte_size is {rg.total_byte_size}, the chunks' total_uncompressed_size "
                  f"add up to {unc}", row_group=g)
    if rg.total_compressed_size is not None and rg.total_compressed_size != comp:
        ck.report(RG_COMPRESSED, f"total_compressed_size is {rg.total_compressed_size}, the chunks' add up to "
                  f"{comp}", row_group=g)
    if rg.file_offset is not None and states[0].start and rg.file_offset != states[0].start:
        ck.report(RG_OFFSET, f"file_offset is {rg.file_offset}, the first column chunk starts at "
                  f"{states[0].start}", row_group=g, offset=rg.file_offset)


def _check_overlaps(ck: Checker) -> None:
    spans = sorted(((c.start, c.start + c.length, c) for row in ck.chunks for c in row
                    if c is not None and c.meta is not None and c.length > 0), key=lambda t: (t[0], t[1]))
    for (s0, e0, a), (s1, _e1, b) in zip(spans, spans[1:]):
        if s1 < e0:
            ck.report_chunk(CHUNK_OVERLAP, b, f"the chunk starts at {s1}, inside chunk {quoted(a.path, bare=True)} of row group "
                            f"{a.rg} (bytes {s0}..{e0})", offset=s1)
