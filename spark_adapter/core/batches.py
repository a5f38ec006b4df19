"""Engine Arrow columns -> the record batches Spark wants (exact target schema).

Spark validates every batch a Python source yields against
``to_arrow_schema(schema, timezone="UTC")`` exactly (names, order, types,
nullability), so each source rebuilds its batches here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["conform_batch", "to_spark_arrow"]


def conform_batch(columns: dict[str, Any], source_cols: Sequence[str | None],
                  target: pa.Schema, num_rows: int,
                  constants: dict[str, Any] | None = None) -> pa.RecordBatch:
    """Build a record batch on *target* from engine Arrow columns.

    ``source_cols[i]`` names the column of *columns* that feeds ``target[i]``
    (``None``: missing from the file, all nulls); a field named in
    *constants* repeats that value (a partition column).
    """
    import pyarrow as pa

    if len(target) == 0:
        # no column wanted (e.g. count() over .schema("") ): the batch must still carry
        # its row count, which from_arrays([]) would lose; a struct of no fields carries
        # it without allocating anything (pa.nulls would, per row)
        rows = pa.StructArray.from_buffers(pa.struct([]), num_rows, [None])
        return pa.RecordBatch.from_struct_array(rows)
    arrays = []
    for field, src in zip(target, source_cols):
        if constants and field.name in constants:
            arr = pa.repeat(pa.scalar(constants[field.name], type=field.type), num_rows)
        elif src is None:
            arr = pa.nulls(num_rows, type=field.type)
        else:
            arr = to_spark_arrow(columns[src], field.type, field.name)
        if not field.nullable and arr.null_count:
            raise ValueError(
                f"column {field.name!r} is declared NOT NULL but the file holds "
                f"{arr.null_count} null(s)")
        arrays.append(arr)
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def _floor_to_micros(arr: pa.Array, factor: int, tz: str | None) -> pa.Array:
    """Nanosecond timestamps to microseconds rounding toward -inf (as Spark's
    INT96 conversion does); Arrow's own unsafe cast truncates toward zero.

    Works on the array's buffers with numpy (no copy of the validity bitmap; unlike
    ``pa.array`` or ``fill_null`` with a Python scalar, nothing imports pandas)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pac

    validity, data = arr.buffers()[:2]
    ints = np.frombuffer(data, dtype=np.int64, count=arr.offset + len(arr))[arr.offset:]
    micros = np.floor_divide(ints, factor)
    if not arr.null_count:
        bitmap = None
    elif arr.offset == 0:
        bitmap = validity
    else:
        valid = pac.is_valid(arr).to_numpy(zero_copy_only=False)
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.timestamp("us", tz=tz), len(arr), [bitmap, pa.py_buffer(micros)])


def to_spark_arrow(col: Any, typ: pa.DataType, name: str = "?") -> pa.Array:
    """Cast one engine column (Array or ChunkedArray) to the Arrow type Spark expects."""
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if isinstance(col, pa.ExtensionArray):  # e.g. arrow.uuid -> its fixed-size storage
        col = col.storage
    if col.type.equals(typ):
        return col
    try:
        if pa.types.is_timestamp(typ) and pa.types.is_timestamp(col.type) and col.type.unit == "ns":
            return _floor_to_micros(col, 1000, typ.tz)
        if pa.types.is_timestamp(typ) and pa.types.is_timestamp(col.type) and col.type.unit == typ.unit:
            # the same instants, only the zone label differs (as the line above labels them)
            return col.view(typ)
        if pa.types.is_null(col.type):
            return pa.nulls(len(col), type=typ)
        if pa.types.is_struct(typ) and pa.types.is_struct(col.type) and \
                any(col.type.get_field_index(f.name) < 0 for f in typ):
            # a struct field this file lacks (mergeSchema): nulls, as Spark reads it
            kids = [to_spark_arrow(col.field(f.name), f.type, f"{name}.{f.name}")
                    if col.type.get_field_index(f.name) >= 0 else pa.nulls(len(col), type=f.type) for f in typ]
            return pa.StructArray.from_arrays(kids, fields=list(typ), mask=col.is_null() if col.null_count else None)
        return col.cast(typ)  # safe cast: overflow or lossy conversions raise
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise TypeError(
            f"pqcore: cannot read column {name!r} of type {col.type} as {typ}: {exc}") from exc
