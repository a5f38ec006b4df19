"""Property test: random nested tables written by parquet_core read back equal in pyarrow and in our reader.

The random schemas and values are those of ``test_hypothesis_nested.py``
(lists, structs and maps up to three deep, every field optional or
required, null and empty lists, null structs and maps, many leaf types).
Each example is written by our writer from the pyarrow Table, or from the
same values as Python objects under the equivalent parquet_core schema,
with random page sizes (down to one record a page), data page v1/v2,
dictionary on and off, small row groups, and the standard or legacy list
layout; pyarrow's reading and ours must equal the values the table was
built from.  Seeds are fixed (``derandomize``) and sizes bounded.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parquet_core as pc
from tests.conformance.oracle import assert_nested_matches
from tests._support.nested_tables import arrow_types, random_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(types=st.lists(st.tuples(arrow_types(3), st.booleans()), min_size=1, max_size=3),
       n=st.integers(0, 200), seed=st.integers(0, 2**32), null_p=st.sampled_from([0.0, 0.2, 0.6]),
       dictionary=st.booleans(), version=st.sampled_from(["1.0", "2.0"]),
       page_size=st.sampled_from([1, 64, 1024, 1 << 20]), row_group=st.sampled_from([5, 64, 10_000]),
       from_python=st.booleans(), legacy=st.booleans())
def test_random_nested_tables_we_write(types, n, seed, null_p, dictionary, version, page_size,
                                       row_group, from_python, legacy) -> None:
    table = random_table(types, n, seed, null_p)
    expected = table.to_pylist()
    if from_python:
        from parquet_core.interop.arrow import schema_from_arrow

        source = {name: table.column(name).to_pylist() for name in table.column_names}
        schema = schema_from_arrow(table.schema)
    else:
        source, schema = table, None
    buf = io.BytesIO()
    pc.write_table(source, buf, schema=schema, use_dictionary=dictionary, data_page_version=version,
                   data_page_size=page_size, row_group_size=row_group, legacy_list_layout=legacy)
    data = buf.getvalue()
    theirs = pq.read_table(io.BytesIO(data))
    assert theirs.num_rows == n
    assert theirs.to_pylist() == expected
    ours = pc.read_table(data)
    assert ours.to_arrow().to_pylist() == expected
    for name in table.column_names:
        assert_nested_matches(ours.column(name).to_pylist(), theirs.column(name).to_pylist(), name)
