"""Shared helpers: the pyarrow.dataset oracle and table comparison."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc_arrow
import pyarrow.dataset as ds


def oracle(local_dir, filter=None, columns=None, partitioning="hive"):
    """What pyarrow.dataset reads (dictionary partition columns decoded)."""
    table = ds.dataset(local_dir, format="parquet", partitioning=partitioning).to_table(
        filter=filter, columns=columns)
    return table


def assert_same(ours, theirs, sort_by="n"):
    """Our table (pc.Table) equals pyarrow's, column names, types (after casting ours) and values."""
    mine = ours.to_arrow() if not isinstance(ours, pa.Table) else ours
    assert mine.column_names == theirs.column_names, (mine.column_names, theirs.column_names)
    for name in theirs.column_names:
        a, b = mine.schema.field(name).type, theirs.schema.field(name).type
        # pc.read_table follows pyarrow.parquet: inferred Hive partition columns are dictionaries
        # of the type pyarrow.dataset (this oracle) gives plain
        assert a == b or pa.types.is_dictionary(b) or (pa.types.is_dictionary(a) and a.value_type == b), \
            (name, a, b)
    if pa.types.is_dictionary(theirs.schema[0].type):
        pass
    mine = mine.cast(pa.schema([pa.field(f.name, f.type.value_type if pa.types.is_dictionary(f.type) else f.type)
                                for f in theirs.schema]))
    theirs = theirs.cast(mine.schema)
    if sort_by is not None and mine.num_rows:
        mine = mine.sort_by(sort_by)
        theirs = theirs.sort_by(sort_by)
    assert mine.num_rows == theirs.num_rows
    assert mine.equals(theirs), (mine.to_pydict(), theirs.to_pydict())
