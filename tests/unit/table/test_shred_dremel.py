"""Shredding against the golden levels of the Dremel paper (Melnik et al., VLDB 2010, figs. 2-3).

The paper's ``Document`` schema uses bare repeated fields; a required list
of required elements has exactly the levels of such a field (the required
LIST group adds none, the repeated group one repetition and one definition
level), so the schema below is the paper's in today's layout, and the
column stripes must be the paper's, entry for entry.
"""

from __future__ import annotations

import numpy as np

import parquet_core as pc
from parquet_core.table.ingest import as_table
from parquet_core.schema.descriptor import SchemaDescriptor
from parquet_core.schema.elements import schema_to_elements
from parquet_core.table.shred import shred


def _req_list(item):  # type: ignore[no-untyped-def]
    return pc.list_(pc.Field("element", item, False))


LANGUAGE = pc.struct([pc.field("Code", pc.string(), nullable=False), ("Country", pc.string())])
NAME = pc.struct([pc.field("Language", _req_list(LANGUAGE), nullable=False), ("Url", pc.string())])
SCHEMA = pc.schema([
    pc.field("DocId", pc.int64(), nullable=False),
    pc.field("Links", pc.struct([pc.field("Backward", _req_list(pc.int64()), nullable=False),
                                 pc.field("Forward", _req_list(pc.int64()), nullable=False)])),
    pc.field("Name", _req_list(NAME), nullable=False),
])

R1 = {"DocId": 10, "Links": {"Backward": [], "Forward": [20, 40, 60]},
      "Name": [{"Language": [{"Code": "en-us", "Country": "us"}, {"Code": "en", "Country": None}],
                "Url": "http://A"},
               {"Language": [], "Url": "http://B"},
               {"Language": [{"Code": "en-gb", "Country": "gb"}], "Url": None}]}
R2 = {"DocId": 20, "Links": {"Backward": [10, 30], "Forward": [80]},
      "Name": [{"Language": [], "Url": "http://C"}]}

#: (values, repetition levels, definition levels) of each column, from the paper's figure 3
PAPER = {
    ("Links", "Backward"): ([10, 30], [0, 0, 1], [1, 2, 2]),
    ("Links", "Forward"): ([20, 40, 60, 80], [0, 1, 1, 0], [2, 2, 2, 2]),
    ("Name", "Language", "Code"): (["en-us", "en", "en-gb"], [0, 2, 1, 1, 0], [2, 2, 1, 2, 1]),
    ("Name", "Language", "Country"): (["us", "gb"], [0, 2, 1, 1, 0], [3, 2, 1, 3, 1]),
    ("Name", "Url"): (["http://A", "http://B", "http://C"], [0, 1, 1, 0], [2, 2, 1, 2]),
}


def _short(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in path if p not in ("list", "element"))


def test_document_records_shred_to_the_papers_stripes() -> None:
    table = as_table({k: [R1[k], R2[k]] for k in SCHEMA.names}, SCHEMA)
    descs = iter(SchemaDescriptor(schema_to_elements(table.schema)))
    got = {}
    for f, col in zip(table.schema, table.columns):
        if not f.type.is_nested:
            next(descs)
            continue
        for _, leaf in shred(col, f):
            desc = next(descs)
            got[_short(desc.path)] = (leaf, desc.max_definition_level)
    assert set(got) == set(PAPER)
    for path, (values, reps, defs) in PAPER.items():
        leaf, max_def = got[path]
        vals = leaf.values.to_pylist() if hasattr(leaf.values, "to_pylist") else leaf.values.tolist()
        vals = [v.decode() if isinstance(v, bytes) else v for v in vals]
        assert vals == values, path
        assert leaf.rep_levels.tolist() == reps, path
        all_defs = leaf.def_levels if leaf.def_levels is not None \
            else np.full(leaf.num_levels, max_def)
        assert all_defs.tolist() == defs, path


def test_document_round_trips_through_pyarrow() -> None:
    import io

    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pc.write_table({k: [R1[k], R2[k]] for k in SCHEMA.names}, buf, schema=SCHEMA)
    assert pq.read_table(io.BytesIO(buf.getvalue())).to_pylist() == [R1, R2]


def test_lists_under_lists_that_every_record_ends_above() -> None:
    """Inner lists no record reaches (every outer list empty or null, so the inner
    list array may hold no slots at all), beside records that reach them partly:
    the levels pyarrow writes and the values pyarrow reads back."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    typ = pa.list_(pa.list_(pa.int32()))
    for rows in ([[], None, []], [None, None], [[[1, 2], None, []], None, [], [[3]]]):
        table = pa.table({"a": pa.array(rows, typ)})
        ours, theirs = io.BytesIO(), io.BytesIO()
        pc.write_table(table, ours)
        pq.write_table(table, theirs)
        assert pq.read_table(pa.BufferReader(ours.getvalue())).equals(table)
        got = pq.ParquetFile(pa.BufferReader(ours.getvalue())).metadata.row_group(0).column(0)
        want = pq.ParquetFile(pa.BufferReader(theirs.getvalue())).metadata.row_group(0).column(0)
        assert (got.num_values, got.statistics.null_count) == (want.num_values, want.statistics.null_count)
