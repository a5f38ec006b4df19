"""Many small files read together: each file's chunks decoded up to their values, the
values of a column finished for all the files at once.

::

    light_parts(ctx, selected, rg)        one row group (a file's only one, or the one a
                                          ``_metadata`` summary lists for it), every selected
                                          field one unrepeated leaf in the light shape: a
                                          dictionary page and one data page, or one PLAIN page,
                                          no nulls: one SimplePart per field, or None
    join_light_parts(ctx, selected, files) the fields over the files, in order: one Array each

A folder of small files (a few thousand rows each) spent most of a read in fixed costs per
chunk: a dozen numpy calls to expand and gather 2,000 dictionary indices.  The pages are
still read and checked file by file (headers, sizes, checksums, levels); only the decoding
that follows is shared (see :mod:`parquet_core.column.simple_chunks`).  A file of any other
shape is read by :meth:`ParquetFile.read` as before.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from parquet_core.column.simple_chunks import SimplePart, join_simple_parts, simple_chunk_part
from parquet_core.errors import ParquetError
from parquet_core.file.columns import Selected
from parquet_core.file.scan import ReadContext, light_chunk_pages, light_pages
from parquet_core.schema.types import Schema
from parquet_core.table.arrays import Array, Table

__all__ = ["LightRead", "light_parts", "join_light_parts", "join_light_reads"]


class LightRead:
    """One file's selected fields decoded up to their values (:meth:`ParquetFile.light_read`),
    waiting to be joined with other files' (:func:`join_light_reads`)."""

    __slots__ = ("ctx", "selected", "parts", "num_rows", "fields", "key_values", "typed", "nbytes", "descriptor",
                 "_storage")

    def __init__(self, ctx: ReadContext, selected: Sequence[Selected], parts: list[SimplePart],
                 schema: Any, key_values: Any, typed: Callable[[Table], Table], rg: int = 0) -> None:
        self.ctx: ReadContext | None = ctx
        self.selected = selected
        self.parts = parts
        self.num_rows = int(parts[0][0])
        self.fields = schema.fields     # the file's Arrow-facing schema's fields
        self.key_values = key_values
        self.typed: Callable[[Table], Table] | None = typed   # the file's read types applied to a table
        #: the uncompressed bytes of the chunks read (about what the parts hold)
        self.nbytes = sum(ctx.indexes.chunk(rg, shape.leaves[0]).total_uncompressed_size for _, shape in selected)
        #: the file's schema descriptor (files whose footers hold the same schema bytes share one)
        self.descriptor = ctx.metadata.schema
        self._storage: list[tuple[Any, ...]] | None = None

    def joins(self, other: LightRead) -> bool:
        """Whether *other* may be joined with this file: the same fields read, the same
        schema and key/values (so the same types and the same column descriptors)."""
        return [f for f, _ in self.selected] == [f for f, _ in other.selected] and \
            self.fields == other.fields and self.key_values == other.key_values and \
            (self.descriptor is other.descriptor or self.storage() == other.storage())

    def storage(self) -> list[tuple[Any, ...]]:
        """How each selected leaf is stored: equal Arrow schemas can hide different physical
        storage (a decimal in INT32 in one file, INT64 in the next, neither with an Arrow
        schema), and a run's values are built with the first file's descriptors."""
        if self._storage is None:
            descs = self.descriptor.columns
            self._storage = [(d.physical_type, d.type_length, d.data_type, d.max_definition_level,
                              d.max_repetition_level) for d in (descs[shape.leaves[0]] for _, shape in self.selected)]
        return self._storage

    def release(self) -> None:
        """Drop the read context and read types, which only a run's first file lends to the
        join (:func:`join_light_reads`): a file held in a run then keeps its parts, not its
        footer's objects (fewer objects alive while the run's files are read, so fewer and
        shorter garbage collections)."""
        self.ctx = None
        self.typed = None


def join_light_reads(reads: Sequence[LightRead]) -> Table | None:
    """One table of the rows of *reads* (files that :meth:`LightRead.joins` the first) in
    order, typed as the first file's read would be; None when a check made here fails."""
    first = reads[0]
    ctx, typed = first.ctx, first.typed
    if ctx is None or typed is None:
        raise ValueError("the first read of a run was released")
    arrays = join_light_parts(ctx, first.selected, [r.parts for r in reads])
    if arrays is None:
        return None
    return typed(Table(Schema([f for f, _ in first.selected]), arrays, None))


def light_parts(ctx: ReadContext, selected: Sequence[Selected], rg: int = 0) -> list[SimplePart] | None:
    """The selected fields of row group *rg* (a one-row-group file's, or the one row group
    a ``_metadata`` summary lists for a file) decoded up to their values, one part per
    field, or None when a field is not one unrepeated leaf in the light shape, or a chunk
    fails a check (the file is then read by the general path, which names the error)."""
    if not selected:
        return None
    parts: list[SimplePart] = []
    codecs: dict[int, Any] = {}
    try:
        num_rows = ctx.metadata.row_group(rg).num_rows
        for field, shape in selected:
            if len(shape.leaves) != 1:
                return None
            leaf = shape.leaves[0]
            if ctx.keeps(field, shape, leaf):
                return None
            pages, desc = light_chunk_pages(ctx, rg, leaf, num_rows, codecs)
            if pages is None:   # more pages, or a page type skipped: the general walk decides
                pages = light_pages(ctx, ctx.indexes.reader(rg, leaf))[0]
                if pages is None:
                    return None
            part = simple_chunk_part(pages, desc)
            if part is None or part[0] != num_rows:
                return None
            parts.append(part)
    except (ParquetError, MemoryError):
        return None
    return parts


def join_light_parts(ctx: ReadContext, selected: Sequence[Selected],
                     files: Sequence[Sequence[SimplePart]]) -> list[Array] | None:
    """The selected fields over *files* (:func:`light_parts` of files of one schema, *ctx*
    the first one's context), one Array each, rows in file order; None when a chunk fails a
    check made here (an index outside its dictionary): the files are then read one by one."""
    arrays: list[Array] = []
    descs = ctx.metadata.schema.columns
    for k, (field, shape) in enumerate(selected):
        leaf = shape.leaves[0]
        data = join_simple_parts([parts[k] for parts in files], descs[leaf])
        if data is None:
            return None
        arrays.append(ctx.build(field, shape, {leaf: data}))
    return arrays
