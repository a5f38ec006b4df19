"""Friendly read-only views over the raw thrift footer (``pt.FileMetaData``).

Three forms of metadata exist and keep distinct names: the footer *bytes*,
the raw thrift structs (always written ``pt.X``), and these wrappers
(``FileMetadata``, ``RowGroupMetadata``, ``ColumnChunkMetadata``).
"""

from __future__ import annotations

from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

from parquet_core.constants import CompressionCodec, Encoding, PageType, PhysicalType, enum_name
from parquet_core.errors import ParquetEncryptionError, ParquetError, ParquetFormatError, add_context, quoted
from parquet_core.metadata.column_orders import TYPE_ORDER, column_order_name
from parquet_core.metadata.compat import WriterVersion, chunk_length_padding, parse_created_by
from parquet_core.metadata.thrift_dict import thrift_to_dict
from parquet_core.schema.descriptor import ColumnDescriptor, SchemaDescriptor
from parquet_core.thrift.lazy_footer import lazy_state

if TYPE_CHECKING:
    # decoded on first use: opening a file (its schema, its row counts) loads neither
    # numpy nor the value types these need
    from parquet_core.encryption.context import ChunkDecryption, FileDecryption
    from parquet_core.metadata.geospatial import GeospatialStatistics
    from parquet_core.metadata.statistics import Statistics, StatisticsDecoder

__all__ = ["FileMetadata", "RowGroupMetadata", "ColumnChunkMetadata"]


def _req(struct: Any, field: str, where: str) -> Any:
    """Return a required thrift field, or raise if a corrupt footer left it unset.

    Required fields are checked where they are read rather than by walking
    the whole footer up front: a footer with thousands of column chunks
    parses much faster, and a missing field still cannot slip through.
    """
    value = getattr(struct, field)
    if value is None:
        raise ParquetFormatError(f"{where}: required field {field!r} is missing")
    return value


def _opt_int(value: Any) -> int | None:
    """An optional thrift integer field as a Python int, or None when the writer left it out."""
    return None if value is None else int(value)




def chunk_encryption(raw_chunk: Any) -> tuple[str | None, tuple[str, ...] | None, bytes | None]:
    """``(key kind, column path, key metadata)`` of a raw ``ColumnChunk``'s crypto metadata:
    kind ``"footer"``/``"column"``/None; path and key metadata only for a column key.
    Readable without the key (for chunks whose metadata cannot be decrypted)."""
    cm = raw_chunk.crypto_metadata
    if cm is None:
        return None, None, None
    ck = cm.ENCRYPTION_WITH_COLUMN_KEY
    if ck is None:
        return "footer", None, None
    path = None if ck.path_in_schema is None else tuple(ck.path_in_schema)
    return "column", path, None if ck.key_metadata is None else bytes(ck.key_metadata)


_new_chunk = object.__new__


class _ChunkContext:
    """What the chunks of one row group share: the writer, the leaves' column orders and the
    leaves' statistics decoders (one list, filled in on first use; None: each chunk makes
    its own).  One per row group: a chunk wrapper made on the footer walk's hot path sets one
    reference to it rather than three attributes."""

    __slots__ = ("writer", "orders", "decoders")

    def __init__(self, writer: WriterVersion | None, orders: Any,
                 decoders: list[StatisticsDecoder | None] | None) -> None:
        self.writer = writer
        #: indexed by the chunk's leaf index (a list, or a one-entry dict for a lone chunk)
        self.orders = orders
        self.decoders = decoders

    def __getstate__(self) -> tuple[Any, Any, Any]:
        return self.writer, self.orders, self.decoders

    def __setstate__(self, state: tuple[Any, Any, Any]) -> None:
        self.writer, self.orders, self.decoders = state


class ColumnChunkMetadata:
    """One column chunk of one row group."""

    # A footer walk makes one wrapper per chunk: RowGroupMetadata.column makes a plaintext
    # chunk's without __init__, setting these slots (cheaper to make than a __dict__); the
    # fields it leaves unset have class-level defaults and, when set, live in __dict__.
    __slots__ = ("raw", "meta", "descriptor", "row_group", "index", "_ctx", "_statistics", "__dict__")
    _stats_decoder: StatisticsDecoder | None = None
    decryptor: ChunkDecryption | None = None

    def __init__(self, raw: Any, desc: ColumnDescriptor, order_defined: bool | str | None,
                 row_group: int, index: int, writer: WriterVersion | None = None,
                 decryptor: FileDecryption | None = None, ordinal: int | None = None) -> None:
        self.raw = raw
        self._statistics: Statistics | None | bool = False    # False: not decoded yet
        self.descriptor = desc
        self.row_group = row_group
        self.index = index
        #: writer, column order; no shared statistics decoders (:meth:`RowGroupMetadata.column`
        #: sets its row group's context instead, whose decoders its chunks share)
        self._ctx = _ChunkContext(writer, {index: order_defined}, None)
        #: The chunk's :class:`~parquet_core.encryption.decryptor.ColumnDecryptor` (None: plaintext).
        self.decryptor: ChunkDecryption | None = None
        md = raw.meta_data
        if raw.crypto_metadata is not None:
            md = self._decrypt(decryptor, row_group if ordinal is None else ordinal)
        if md is None:
            raise ParquetFormatError(
                f"column chunk {quoted(desc.dotted_path, bare=True)} of row group {row_group} has no metadata "
                "(encrypted column metadata needs a decryption key)")
        self.meta = md
        ptype = md.type
        if ptype is None:
            _req(md, "type", self._where)   # raises
        if ptype != desc.physical_type:
            raise ParquetFormatError(
                f"{self._where}: chunk metadata says physical type {md.type}, the schema says "
                f"{desc.physical_type}")

    def _need(self, field: str) -> Any:
        """A required ``ColumnMetaData`` field; the error (naming the chunk) is built only
        when the field is missing."""
        value = getattr(self.meta, field)
        if value is None:
            _req(self.meta, field, self._where)   # raises
        return value

    @property
    def _where(self) -> str:
        # built when an error or a missing field needs it, not for every chunk wrapped
        return f"column chunk {quoted(self.descriptor.dotted_path, bare=True)} of row group {self.row_group}"

    def _decrypt(self, decryptor: FileDecryption | None, ordinal: int) -> Any:
        """Find the chunk's key (raising, naming the column, when it is unknown) and its full metadata."""
        path = self.descriptor.dotted_path
        if decryptor is None:
            raise ParquetFormatError(
                f"{self._where} has crypto metadata but the file declares no encryption algorithm")
        try:
            self.decryptor = decryptor.column(self.raw, ordinal, self.index, path)
            if self.raw.encrypted_column_metadata is None:
                return self.raw.meta_data   # encrypted footer, footer key: kept in the footer
            return decryptor.column_metadata(self.raw, self.decryptor)
        except ParquetEncryptionError as exc:
            add_context(exc, column=path, row_group=self.row_group)
            raise

    @property
    def is_encrypted(self) -> bool:
        """True when the chunk's pages are encrypted (``crypto_metadata`` set)."""
        return self.raw.crypto_metadata is not None

    @property
    def path_in_schema(self) -> str:
        """Dotted column path."""
        return self.descriptor.dotted_path

    @property
    def physical_type(self) -> str:
        """Physical type name."""
        return PhysicalType(self._need("type")).name

    @property
    def compression(self) -> str | None:
        """Codec name."""
        return enum_name(CompressionCodec, self.codec_id)

    @property
    def codec_id(self) -> int:
        """``ColumnMetaData.codec`` as stored."""
        return int(self._need("codec"))

    @property
    def encodings(self) -> tuple[str | None, ...]:
        """Encodings used in the chunk, as listed by the writer."""
        return tuple(enum_name(Encoding, e) for e in (self.meta.encodings or []) if e is not None)

    @property
    def num_values(self) -> int:
        """Number of values including nulls."""
        return int(self._need("num_values"))

    @property
    def total_compressed_size(self) -> int:
        """Bytes of all pages as stored."""
        value = self.meta.total_compressed_size
        if value is None:
            _req(self.meta, "total_compressed_size", self._where)   # raises
        return int(value)

    @property
    def total_uncompressed_size(self) -> int:
        """Bytes of all pages once decompressed."""
        return int(self._need("total_uncompressed_size"))

    @property
    def data_page_offset(self) -> int:
        """File offset of the first data page."""
        return int(self._need("data_page_offset"))

    @property
    def dictionary_page_offset(self) -> int | None:
        """File offset of the dictionary page, if the writer recorded one."""
        return self.meta.dictionary_page_offset

    @property
    def bloom_filter_offset(self) -> int | None:
        """File offset of the chunk's Bloom filter header, if the writer stored a filter."""
        return _opt_int(self.meta.bloom_filter_offset)

    @property
    def bloom_filter_length(self) -> int | None:
        """Bytes of Bloom filter header plus bitset, when the writer recorded it."""
        return _opt_int(self.meta.bloom_filter_length)

    @property
    def file_path(self) -> str | None:
        """Path of an external file holding the chunk (rare)."""
        return self.raw.file_path

    @property
    def column_index_offset(self) -> int | None:
        """File offset of the chunk's ColumnIndex, if the writer stored one."""
        return _opt_int(self.raw.column_index_offset)

    @property
    def offset_index_offset(self) -> int | None:
        """File offset of the chunk's OffsetIndex, if the writer stored one."""
        return _opt_int(self.raw.offset_index_offset)

    @property
    def encryption_key(self) -> str | None:
        """Which key encrypts the chunk: ``"footer"``, ``"column"`` (its own), or None."""
        return chunk_encryption(self.raw)[0]

    @property
    def key_metadata(self) -> bytes | None:
        """The column key's ``key_metadata`` (e.g. PKMT1 key material), or None."""
        return chunk_encryption(self.raw)[2]

    @property
    def encoding_stats(self) -> list[tuple[str | None, str | None, int]] | None:
        """``(page type, encoding, page count)`` per kind of page, by spec names, or None
        when the writer recorded no ``encoding_stats``."""
        stats = self.meta.encoding_stats
        if not stats:
            return None
        return [(enum_name(PageType, e.page_type), enum_name(Encoding, e.encoding), int(e.count or 0))
                for e in stats]

    def byte_range(self, file_size: int | None = None) -> tuple[int, int]:
        """Return ``(start, length)`` of the chunk's pages in the file.

        With *file_size* given, known writer bugs that under-report the length
        are compensated (see :mod:`parquet_core.metadata.compat`), never
        reaching into the last 8 bytes of the file.

        The chunk starts at the dictionary page when one is recorded before the
        first data page; an offset of 0 (written by some old writers) is not a
        real position and is ignored, the dictionary page then being found first
        at ``data_page_offset``.
        """
        start = self.data_page_offset
        dpo = self.dictionary_page_offset
        if dpo is not None and 0 < dpo < start:
            start = dpo
        length = self.total_compressed_size
        if start < 0 or length < 0:
            raise ParquetFormatError(
                f"column chunk {quoted(self.path_in_schema, bare=True)}: negative offset or size ({start}, {length})")
        writer = self._ctx.writer
        if file_size is not None and writer is not None:
            pad = chunk_length_padding(writer)
            if pad:
                length = max(length, min(length + pad, file_size - 8 - start))
        return start, length

    @property
    def statistics(self) -> Statistics | None:
        """Decoded statistics (typed min/max per the spec's sort-order rules), decoded once."""
        # cached by hand (functools.cached_property takes a lock on every first access, 3.11)
        # in a slot: False until decoded (a decode gives Statistics or None; False, unlike a
        # sentinel object, is itself after pickling)
        st = self._statistics
        if st is False:
            ctx = self._ctx
            decs = ctx.decoders
            dec = self._stats_decoder if decs is None else decs[self.index]
            if dec is None:
                from parquet_core.metadata.statistics import StatisticsDecoder

                dec = StatisticsDecoder(self.descriptor, ctx.orders[self.index])
                if decs is not None:    # kept for the leaf's other chunks
                    decs[self.index] = dec
                else:
                    self._stats_decoder = dec
            st = self._statistics = dec.decode(self.meta.statistics)
        return st   # type: ignore[return-value]   # decoded: Statistics or None

    @cached_property
    def geospatial_statistics(self) -> GeospatialStatistics | None:
        """Bounding box and WKB type codes of a GEOMETRY/GEOGRAPHY chunk (None: not stored)."""
        from parquet_core.metadata.geospatial import decode_geospatial_statistics

        return decode_geospatial_statistics(self.meta.geospatial_statistics)

    @property
    def column_order(self) -> str | None:
        """The chunk's ``ColumnOrder`` name (None: the footer gives no column orders)."""
        o = self._ctx.orders[self.index]
        return "TYPE_ORDER" if o is True else (None if o is False else o)

    def to_dict(self) -> dict[str, Any]:
        """A plain-Python summary (used by ``pqc meta``)."""
        st = self.statistics
        geo = self.geospatial_statistics
        return {
            "path": self.path_in_schema, "type": self.physical_type,
            "codec": self.compression, "encodings": list(self.encodings),
            "num_values": self.num_values, "compressed": self.total_compressed_size,
            "uncompressed": self.total_uncompressed_size,
            "min": None if st is None else st.min, "max": None if st is None else st.max,
            "null_count": None if st is None else st.null_count,
            "nan_count": None if st is None else st.nan_count,
            "column_order": self.column_order,
            "geospatial_statistics": None if geo is None else geo.to_dict(),
        }

    def footer_dict(self) -> dict[str, Any]:
        """The chunk's whole ``ColumnMetaData`` (decrypted when it was encrypted), enum names."""
        return thrift_to_dict(self.meta)

    def __repr__(self) -> str:
        return (f"<ColumnChunkMetadata {quoted(self.path_in_schema, bare=True)} row_group={self.row_group} "
                f"type={self.physical_type} codec={self.compression} "
                f"encodings={list(self.encodings)} num_values={self.num_values} "
                f"compressed={self.total_compressed_size} uncompressed={self.total_uncompressed_size}>")


class _CheckedChunk(ColumnChunkMetadata):
    """A :class:`ColumnChunkMetadata` of a row group decoded from footer bytes by the thrift
    decoder (its integer fields are Python ints) whose every chunk passed
    :func:`_lean_check` (so ``num_values``, both sizes and ``data_page_offset`` are set and
    not negative): those four read straight from the chunk's metadata by C getters, with no
    Python frame and none of the general properties' None checks and ``int`` calls, which
    cannot change what these return (a walk over a footer's thousands of chunks reads them
    once each; made by :meth:`RowGroupMetadata.column` only)."""

    __slots__ = ()
    num_values = property(attrgetter("meta.num_values"), doc=ColumnChunkMetadata.num_values.__doc__)
    total_compressed_size = property(attrgetter("meta.total_compressed_size"),
                                     doc=ColumnChunkMetadata.total_compressed_size.__doc__)
    total_uncompressed_size = property(attrgetter("meta.total_uncompressed_size"),
                                       doc=ColumnChunkMetadata.total_uncompressed_size.__doc__)
    data_page_offset = property(attrgetter("meta.data_page_offset"),
                                doc=ColumnChunkMetadata.data_page_offset.__doc__)


# A page's ``num_values`` is an i32 and every page takes at least one byte of
# the chunk, so no chunk can hold more level slots than this per stored byte.
_MAX_VALUES_PER_PAGE = 2**31 - 1


def _check_counts(raw: Any, schema: SchemaDescriptor, index: int, file_size: int | None) -> bool:
    """Refuse a row group whose declared counts and sizes cannot all be true; return True
    when, besides, every chunk is plaintext (no ``crypto_metadata``), has its metadata and
    the physical type of its leaf (:meth:`RowGroupMetadata.column` then makes its wrappers
    without checking those again), False when that is not known of every chunk.

    Everything the reader later allocates from (row masks of ``num_rows``,
    level and value buffers of ``num_values``) is checked here, against the
    other counts and against the file's size, before any of it is used:

    * ``num_rows`` is not negative;
    * a chunk's ``num_values``, ``total_compressed_size`` and
      ``total_uncompressed_size`` are not negative;
    * a leaf without repetition holds exactly one level slot per row
      (``num_values == num_rows``); a repeated leaf holds at least one;
    * ``num_values`` is not more than its bytes can hold
      (``total_compressed_size`` pages of at most 2**31 - 1 values);
    * the chunk's pages lie inside the file.

    Chunks whose metadata is encrypted (and not yet decrypted) are checked
    when they are opened with their key.
    """
    rows = raw.num_rows
    if rows < 0:
        raise ParquetFormatError(f"row group {index}: num_rows is {rows}; a row count cannot be negative")
    try:
        lean = _lean_check(raw.columns, schema.repeated_leaves, schema.leaf_types, rows, file_size)
        if lean is not None:
            return lean
    except TypeError:   # a field missing (None): the loop below names it
        pass
    limit = _MAX_VALUES_PER_PAGE
    for i, (chunk, repeated) in enumerate(zip(raw.columns, schema.repeated_leaves)):
        md = chunk.meta_data
        if md is None:
            continue
        # a chunk kept in another file (``file_path``) is not bounded by this file's size
        size = None if chunk.file_path else file_size
        # The common case in one expression; anything it does not accept goes through
        # _check_chunk_counts, which raises the precise error.
        v, c, u = md.num_values, md.total_compressed_size, md.total_uncompressed_size
        start, dpo = md.data_page_offset, md.dictionary_page_offset
        if (v is not None and c is not None and u is not None and start is not None
                and c >= 0 and u >= 0 and rows <= v <= c * limit
                and (v == rows or repeated)
                and (size is None or (0 <= start < size and (dpo is None or 0 <= dpo < size)
                                      and (dpo if dpo is not None and 0 < dpo < start else start) + c
                                      <= size))):
            continue
        desc = schema.columns[i]
        _check_chunk_counts(md, desc, rows, f"column chunk {quoted(desc.dotted_path, bare=True)} of row group {index}", size)
    return False


#: stands for "no file size known" in :func:`_counts_plausible` (above any i64 offset + size)
_NO_SIZE = 1 << 65


def _counts_plausible(chunks: list[Any], repeated_leaves: Any, rows: int, file_size: int | None) -> bool:
    """True when every chunk passes :func:`_check_counts`' rules (see :func:`_lean_check`)."""
    return _lean_check(chunks, repeated_leaves, None, rows, file_size) is not None


def _lean_check(chunks: list[Any], repeated_leaves: Any, leaf_types: list[int] | None, rows: int,
                file_size: int | None) -> bool | None:
    """Not None when every chunk passes :func:`_check_counts`' rules (the loop over a footer's
    thousands of chunks, as lean as it goes); None when one may not (or has no metadata): the
    caller then checks chunk by chunk for the precise error.

    Not None, it says whether every chunk is also plaintext and of its leaf's physical type
    (*leaf_types*, one code per leaf; None: not asked, False).  A chunk that is not (a
    column key's metadata, a type that disagrees with the schema) is not refused here: its
    wrapper is made, and refused, by the general path when that chunk is asked for.

    Stricter than the rules where that is cheaper (a chunk's ``data_page_offset`` must be
    set and not negative even when no file size is known; a chunk kept in another file, its
    ``file_path`` set, is bounded by this file's size all the same, which costs nothing per
    chunk where reading ``file_path``, unset in all but a few files, costs a slow attribute
    lookup); raises TypeError where a field is missing (None)."""
    limit = _MAX_VALUES_PER_PAGE
    size = _NO_SIZE if file_size is None else file_size
    plain = leaf_types is not None
    for chunk, repeated, ptype in zip(chunks, repeated_leaves, leaf_types or repeated_leaves):
        md = chunk.meta_data
        if md is None:
            return None
        if plain and (md.type != ptype or chunk.crypto_metadata is not None):
            plain = False
        v = md.num_values
        c = md.total_compressed_size
        start = md.data_page_offset
        dpo = md.dictionary_page_offset
        if not (0 <= start < size and c >= 0 and md.total_uncompressed_size >= 0
                and rows <= v <= c * limit and (v == rows or repeated)):
            return None
        if dpo is not None:
            if not 0 < dpo < size:     # (0: ignored by the reader; the exact loop handles it)
                return None
            if dpo < start:
                start = dpo
        if start + c > size:
            return None
    return plain


def _check_chunk_counts(md: Any, desc: ColumnDescriptor, rows: int, where: str,
                        file_size: int | None) -> None:
    values = _req(md, "num_values", where)
    compressed = _req(md, "total_compressed_size", where)
    for name, v in (("num_values", values), ("total_compressed_size", compressed),
                    ("total_uncompressed_size", _req(md, "total_uncompressed_size", where))):
        if v < 0:
            raise ParquetFormatError(f"{where}: {name} is {v}; it cannot be negative")
    if desc.max_repetition_level == 0 and values != rows:
        raise ParquetFormatError(
            f"{where}: num_values is {values} but the row group has {rows} rows; a column "
            "without repetition holds exactly one value or null per row")
    if values < rows:
        raise ParquetFormatError(
            f"{where}: num_values is {values}, fewer than the row group's {rows} rows; every row "
            "holds at least one value, null or empty list")
    if values > compressed * _MAX_VALUES_PER_PAGE:
        raise ParquetFormatError(
            f"{where}: num_values is {values}, more than {compressed} bytes of pages can hold")
    if file_size is not None:
        start = _req(md, "data_page_offset", where)
        dpo = md.dictionary_page_offset
        if not 0 <= start < file_size or (dpo is not None and not 0 <= dpo < file_size):
            raise ParquetFormatError(
                f"{where}: data_page_offset {start} or dictionary_page_offset {dpo} is not an "
                f"offset inside the file of {file_size} bytes")
        if dpo is not None and 0 < dpo < start:
            start = dpo
        if start + compressed > file_size:
            raise ParquetFormatError(
                f"{where}: its pages ({compressed} bytes at offset {start}) do not lie inside "
                f"the file of {file_size} bytes")


class RowGroupMetadata:
    """One row group: its row count and column chunks."""

    def __init__(self, raw: Any, schema: SchemaDescriptor, orders: list[str | None], index: int,
                 writer: WriterVersion | None = None, decryptor: FileDecryption | None = None,
                 file_size: int | None = None, *,
                 stats_decoders: list[StatisticsDecoder | None] | None = None, decoded: bool = False,
                 eager_check: Callable[[], None] | None = None) -> None:
        self.raw = raw
        #: for a row group of a lazily decoded footer: raises what the eager decode of the whole
        #: footer raises, if it fails (called before a chunk is refused, see :meth:`_checked_column`)
        self._eager_check = eager_check
        self._decryptor = decryptor
        self._writer = writer
        self.index = index
        self._schema = schema
        self._orders = orders
        self._file_size = file_size
        cols = _req(raw, "columns", f"row group {index}")
        _req(raw, "num_rows", f"row group {index}")
        if len(cols) != len(schema):
            raise ParquetFormatError(
                f"row group {index} has {len(cols)} column chunks, the schema has {len(schema)} leaves")
        #: every chunk plaintext, with its metadata, of its leaf's physical type, and its
        #: counts checked (below): :meth:`column` wraps them without checking again
        self._plain = _check_counts(raw, schema, index, file_size)
        #: what :meth:`column` makes of a chunk when ``_plain``: a :class:`_CheckedChunk` when
        #: *decoded* says the thrift decoder made *raw* from footer bytes (``FileMetadata``
        #: passes it for the row groups of a lazily decoded footer)
        self._chunk_class: type[ColumnChunkMetadata] = (
            _CheckedChunk if decoded and self._plain else ColumnChunkMetadata)
        self._chunks: list[Any] = cols
        #: one per leaf, built on first use; shared with the file's other row groups
        self._stats_decoders: list[StatisticsDecoder | None] = (
            stats_decoders if stats_decoders is not None else [None] * len(cols))
        #: what the group's chunk wrappers share (see :meth:`column`)
        self._ctx = _ChunkContext(writer, orders, self._stats_decoders)
        self._descs: list[ColumnDescriptor] = schema.columns

    @property
    def num_rows(self) -> int:
        """Rows in the group."""
        return int(self.raw.num_rows)

    @property
    def num_columns(self) -> int:
        """Leaf column count."""
        return len(self.raw.columns)

    @property
    def total_byte_size(self) -> int:
        """Uncompressed size of all the group's data, as the writer reported it."""
        return int(self.raw.total_byte_size or 0)

    @property
    def total_compressed_size(self) -> int | None:
        """Bytes of the group's chunks as stored, when the writer recorded it (optional field)."""
        return _opt_int(self.raw.total_compressed_size)

    @property
    def file_offset(self) -> int | None:
        """File offset of the group's first page, when the writer recorded it."""
        return _opt_int(self.raw.file_offset)

    @property
    def ordinal(self) -> int | None:
        """The group's ordinal as the writer stored it (encrypted files' AADs use it), or None."""
        return _opt_int(self.raw.ordinal)

    @property
    def sorting_columns(self) -> list[tuple[int, bool, bool]] | None:
        """``(column index, descending, nulls first)`` per sorting column, or None."""
        cols = self.raw.sorting_columns
        if not cols:
            return None
        return [(int(c.column_idx), bool(c.descending), bool(c.nulls_first)) for c in cols]

    def column_encryption(self, i: int) -> tuple[str | None, tuple[str, ...] | None, bytes | None]:
        """Column chunk *i*'s ``(key kind, column path, key metadata)`` (see
        :func:`chunk_encryption`), readable without its key, unlike :meth:`column`."""
        return chunk_encryption(self.raw.columns[i])

    def to_dict(self) -> dict[str, Any]:
        """The row group's whole thrift struct as plain Python, enum names, encrypted column
        metadata decrypted where the key is known."""
        out = thrift_to_dict(self.raw)
        for i, col in enumerate(out.get("columns", [])):
            if "meta_data" in col and self.raw.columns[i].crypto_metadata is None:
                continue
            try:
                col["meta_data"] = self.column(i).footer_dict()
                col.pop("encrypted_column_metadata", None)
            except ParquetEncryptionError:
                col["meta_data"] = None   # its key was not given
        return out

    def __repr__(self) -> str:
        return (f"<RowGroupMetadata {self.index}: num_rows={self.num_rows} "
                f"num_columns={self.num_columns} total_byte_size={self.total_byte_size}>")

    def column(self, i: int) -> ColumnChunkMetadata:
        """Return the i-th column chunk."""
        if self._plain:
            # every chunk plaintext, typed as its leaf and its counts checked when the group
            # was made (every chunk of most files)
            raw = self._chunks[i]
            md = raw.meta_data
            chunk = _new_chunk(self._chunk_class)
        else:
            raw = self.raw.columns[i]
            md = raw.meta_data
            if md is None or raw.crypto_metadata is not None or md.type != self._descs[i].physical_type:
                return self._checked_column(raw, i)
            # a plaintext chunk whose type agrees with its leaf (checked one by one)
            chunk = _new_chunk(ColumnChunkMetadata)
        # what __init__ sets, without its checks (made once per call: the hot path of a
        # footer walk)
        chunk.raw = raw
        chunk.meta = md
        chunk.descriptor = self._descs[i]
        chunk.row_group = self.index
        chunk.index = i if i >= 0 else i + len(self._descs)
        chunk._ctx = self._ctx
        chunk._statistics = False
        return chunk

    def _checked_column(self, raw: Any, i: int) -> ColumnChunkMetadata:
        """:meth:`column` of an encrypted chunk, or one whose type is not its leaf's: the
        wrapper's own checks (and the counts of a chunk decrypted just now).

        A chunk of a lazily decoded row group that these checks refuse may come from a footer
        the eager decode rejects (its decode skipped bytes that one rejects): the eager decode's
        error, naming the file, is raised then, as opening the file eagerly would have."""
        try:
            return self._wrap_checked(raw, i)
        except ParquetError:
            if self._eager_check is not None:
                self._eager_check()
            raise

    def _wrap_checked(self, raw: Any, i: int) -> ColumnChunkMetadata:
        chunk = ColumnChunkMetadata(raw, self._schema.column(i), self._orders[i], self.index, i,
                                    self._writer, self._decryptor, self.raw.ordinal)
        chunk._ctx = self._ctx    # the leaves' decoders, made when first used
        if raw.meta_data is None:   # decrypted just now: its counts are checked only now
            _check_chunk_counts(chunk.meta, chunk.descriptor, self.num_rows,
                                f"column chunk {quoted(chunk.path_in_schema, bare=True)} of row group {self.index}",
                                None if raw.file_path else self._file_size)
        return chunk


#: Schema descriptors by the footer bytes that encode the schema, shared by the files that
#: encode it alike (a folder of files one writer wrote): building one is most of opening a
#: small file.  Bounded; the oldest entry goes first.
_DESCRIPTORS: dict[bytes, SchemaDescriptor] = {}
_DESCRIPTORS_MAX = 256
#: schemas encoded in more bytes than this are not kept
_DESCRIPTOR_KEY_MAX = 1 << 20


def _schema_descriptor(raw: Any) -> SchemaDescriptor:
    """The footer's schema descriptor: shared with an earlier footer whose schema bytes are
    the same (the thrift decoder turns equal bytes into equal elements), else built.  Only
    lazily decoded footers know where their schema bytes lie; the others build their own."""
    state = lazy_state(raw)
    key = None if state is None else state.schema_bytes(_DESCRIPTOR_KEY_MAX)
    if key is None:
        return SchemaDescriptor(raw.schema)
    found = _DESCRIPTORS.get(key)
    if found is None:
        found = SchemaDescriptor(raw.schema)
        if len(_DESCRIPTORS) >= _DESCRIPTORS_MAX:
            try:
                del _DESCRIPTORS[next(iter(_DESCRIPTORS))]
            except (StopIteration, KeyError, RuntimeError):    # emptied by another thread
                pass
        _DESCRIPTORS[key] = found
    return found


#: Where a schema descriptor keeps its statistics decoders, by column orders: shared by the
#: footers that share the descriptor (a folder of files one writer wrote; see
#: :func:`_schema_descriptor`).  A decoder depends on its leaf and column order only, never
#: on a file's contents.  Kept by identity on the descriptor (not by its structural hash).
_DECODERS_KEY = "_shared_statistics_decoders"


def _shared_decoders(schema: SchemaDescriptor, orders: list[str | None]) -> list[StatisticsDecoder | None]:
    """The per-leaf decoder list (filled in on first use) for *schema* under *orders*."""
    key = tuple(orders)
    d = getattr(schema, "__dict__", None)
    if d is None:
        own: list[StatisticsDecoder | None] = [None for _ in orders]
        return own
    by_orders: dict[tuple[str | None, ...], list[StatisticsDecoder | None]] | None = d.get(_DECODERS_KEY)
    if by_orders is None:
        by_orders = d.setdefault(_DECODERS_KEY, {})
    found = by_orders.get(key)
    if found is None or len(found) != len(orders):
        fresh: list[StatisticsDecoder | None] = [None for _ in orders]
        found = by_orders[key] = fresh
    return found


class FileMetadata:
    """The decoded footer of a Parquet file."""

    def __init__(self, raw: Any, footer_size: int = 0, decryptor: FileDecryption | None = None,
                 file_size: int | None = None) -> None:
        try:
            self._init(raw, footer_size, decryptor, file_size)
        except ParquetError:
            state = lazy_state(raw)
            if state is not None:   # a footer the eager decoder rejects fails with its error
                state.check_eagerly()
            raise

    def _init(self, raw: Any, footer_size: int, decryptor: FileDecryption | None, file_size: int | None) -> None:
        self.raw = raw
        self._key_values: dict[bytes, bytes] | None = None     # see metadata
        self.footer_size = footer_size
        #: Size of the whole file in bytes, when known (chunk ranges are checked against it).
        self.file_size = file_size
        #: The file's :class:`~parquet_core.encryption.decryptor.FileDecryptor` (None: not encrypted).
        self.decryptor = decryptor
        if raw.schema is None:
            raise ParquetFormatError("footer has no schema")
        #: The Parquet schema (leaf descriptors), as pyarrow's ``FileMetaData.schema``;
        #: the table schema built from it is ``ParquetFile.schema_arrow``.
        self.schema = _schema_descriptor(raw)
        self.writer = parse_created_by(raw.created_by)
        n = len(self.schema)
        orders = raw.column_orders
        if orders is not None and len(orders) == n:
            self._orders: list[str | None] = [column_order_name(o) for o in orders]
        else:
            self._orders = [None] * n
        if raw.num_rows is None or raw.num_rows < 0:
            raise ParquetFormatError(f"footer has an invalid num_rows ({raw.num_rows})")
        # Row groups are decoded (a footer from ``read_footer``), wrapped and their counts
        # checked when first asked for.
        self._lazy = lazy_state(raw)
        #: the lazy footer's ``__dict__`` (None: an eager footer): ``row_groups`` appears in it
        #: once the raw list is decoded or assigned (kept: reading ``raw.__dict__`` per call
        #: costs more than the rest of :meth:`row_group`'s cached path)
        self._lazy_dict: dict[str, Any] | None = None if self._lazy is None else raw.__dict__
        self._row_groups: list[RowGroupMetadata | None] = [None] * self.num_row_groups
        self._stats_decoders: list[StatisticsDecoder | None] = _shared_decoders(self.schema, self._orders)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._lazy_dict is not None:    # (a copy was restored: the raw footer's own dict)
            self._lazy_dict = self.raw.__dict__

    def expect_statistics(self) -> None:
        """Say that the chunks' statistics will be read (a filter is being planned): the row
        groups not decoded yet then decode them in the same pass (a lazy footer otherwise
        decodes a row group once for its chunks, then again for their statistics)."""
        if self._lazy is not None:
            self._lazy.statistics_wanted = True

    @property
    def num_rows(self) -> int:
        """Total rows in the file."""
        return int(self.raw.num_rows)

    @property
    def num_row_groups(self) -> int:
        """Number of row groups."""
        if self._lazy is not None and "row_groups" not in self.raw.__dict__:
            return self._lazy.num_row_groups
        # decoded (or an eager footer): the list may have been edited (datasets merge footers)
        return len(self.raw.row_groups or [])

    @property
    def num_columns(self) -> int:
        """Number of leaf columns."""
        return len(self.schema)

    @property
    def created_by(self) -> str | None:
        """The writer's identification string."""
        return self.raw.created_by

    @property
    def format_version(self) -> int | None:
        """``FileMetaData.version``."""
        return self.raw.version

    @property
    def encryption_algorithm(self) -> str | None:
        """``"AES_GCM_V1"`` or ``"AES_GCM_CTR_V1"`` for an encrypted file, else None."""
        return None if self.decryptor is None else self.decryptor.algorithm

    @property
    def footer_mode(self) -> str | None:
        """How an encrypted file keeps its footer: ``"encrypted"`` (a ``PARE`` file) or
        ``"plaintext"`` (signed); None for a file without encryption."""
        if self.decryptor is None:
            return None
        return "plaintext" if self.raw.encryption_algorithm is not None else "encrypted"

    @property
    def metadata(self) -> dict[bytes, bytes]:
        """Key/value metadata as bytes, like ``pyarrow``'s ``FileMetaData.metadata`` (a new
        dict each call).  Decoded once: a dataset read asks each small file for it several
        times (the run check, the read types, the dictionaries kept), and a lazy footer
        decodes its key/values again on every ``key_value_metadata``."""
        done = self._key_values
        if done is None:
            out: dict[bytes, bytes] = {}
            for kv in self.raw.key_value_metadata or []:
                k = kv.key.encode() if isinstance(kv.key, str) else kv.key
                v = kv.value if kv.value is not None else b""
                out[k] = v.encode() if isinstance(v, str) else v
            done = self._key_values = out
        return dict(done)

    def row_group(self, i: int) -> RowGroupMetadata:
        """Return row group *i*."""
        d = self._lazy_dict
        if d is not None and i >= 0 and "row_groups" not in d:
            # the lazy footer's row groups (their number cannot change): the wrapper made before
            try:
                group = self._row_groups[i]
            except IndexError:
                group = None
            if group is not None:
                return group
        if not 0 <= i < self.num_row_groups:
            raise IndexError(f"row group {i} out of range (file has {self.num_row_groups})")
        if i >= len(self._row_groups):
            self._row_groups.extend([None] * (i + 1 - len(self._row_groups)))
        group = self._row_groups[i]
        if group is None:
            lazy = self._lazy
            decoded = lazy is not None and "row_groups" not in self.raw.__dict__
            if lazy is not None and decoded:    # (a row group the thrift decoder made from the bytes)
                raw = lazy.row_group(i)
            else:
                raw = self.raw.row_groups[i]
            check = lazy.check_eagerly if lazy is not None and decoded else None
            try:
                group = RowGroupMetadata(
                    raw, self.schema, self._orders, i, self.writer, self.decryptor,
                    self.file_size, stats_decoders=self._stats_decoders, decoded=decoded, eager_check=check)
            except ParquetError:
                if check is not None:   # a footer the eager decode rejects fails with its error
                    check()
                raise
            self._row_groups[i] = group
        return group

    def column_order_defined(self, i: int) -> bool:
        """True when column *i* has a TypeDefinedOrder."""
        return self._orders[i] == TYPE_ORDER

    def column_order(self, i: int) -> str | None:
        """Column *i*'s ``ColumnOrder`` member name (``"TYPE_ORDER"``,
        ``"IEEE_754_TOTAL_ORDER"``, ``"INT96_TIMESTAMP_ORDER"``, ``"UNKNOWN"``),
        or None when the footer has no column orders."""
        return self._orders[i]

    def to_dict(self) -> dict[str, Any]:
        """The whole footer (``FileMetaData``) as plain Python: enum fields by spec name,
        binary as text or ``0x``-hex, encrypted column metadata decrypted where the key is
        known (None where it is not)."""
        out = thrift_to_dict(self.raw)
        out["row_groups"] = [self.row_group(i).to_dict() for i in range(self.num_row_groups)]
        if self.decryptor is not None:
            out["encryption"] = {"algorithm": self.encryption_algorithm, "footer_mode": self.footer_mode}
        return out

    def __repr__(self) -> str:
        return (f"<FileMetadata created_by={quoted(self.created_by)} num_rows={self.num_rows} "
                f"num_row_groups={self.num_row_groups} num_columns={self.num_columns}>")
