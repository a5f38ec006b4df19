"""ARROW:schema written without pyarrow (metadata/arrow_ipc_write.py).

Oracle: pyarrow decodes what we encode (``pa.ipc.read_schema``) to the schema the
same Arrow C format strings describe (pyarrow's own ``pa.Schema._import_from_c``
of the same fields, exported by pyarrow); our own reader
(:func:`schema_field_facts`) reads back the facts it needs.  Without pyarrow,
the writer's ARROW:schema checks use those facts.
"""

from __future__ import annotations

import base64
import io

import pytest

import parquet_core as pc
from parquet_core.arrow_c.consume import import_schema
from parquet_core.metadata.arrow_ipc import schema_field_facts
from parquet_core.metadata.arrow_ipc_write import encode_schema_nodes
from parquet_core.schema.types import DataType, Field, Schema

pa = pytest.importorskip("pyarrow")

_FIELDS = [
    pa.field("n", pa.null()), pa.field("b", pa.bool_(), nullable=False),
    *[pa.field(f"i{t}", getattr(pa, t)()) for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32",
                                                    "int64", "uint64", "float16", "float32", "float64")],
    pa.field("s", pa.string()), pa.field("ls", pa.large_string()), pa.field("vs", pa.string_view()),
    pa.field("bin", pa.binary()), pa.field("lbin", pa.large_binary()), pa.field("vbin", pa.binary_view()),
    pa.field("fsb", pa.binary(7)), pa.field("d32", pa.date32()), pa.field("d64", pa.date64()),
    pa.field("t32s", pa.time32("s")), pa.field("t32ms", pa.time32("ms")), pa.field("t64us", pa.time64("us")),
    pa.field("t64ns", pa.time64("ns")),
    *[pa.field(f"ts_{u}", pa.timestamp(u)) for u in ("s", "ms", "us", "ns")],
    pa.field("ts_zone", pa.timestamp("us", tz="America/New_York")), pa.field("ts_off", pa.timestamp("ms", "+05:30")),
    *[pa.field(f"dur_{u}", pa.duration(u)) for u in ("s", "ms", "us", "ns")],
    pa.field("dec", pa.decimal128(20, 4)), pa.field("dec256", pa.decimal256(60, 10)),
    pa.field("dec32", pa.decimal32(7, 2)), pa.field("dec64", pa.decimal64(15, 3)),
    pa.field("mdn", pa.month_day_nano_interval()),
    pa.field("list", pa.list_(pa.field("item", pa.int32(), nullable=False))),
    pa.field("llist", pa.large_list(pa.string())), pa.field("fsl", pa.list_(pa.float64(), 3)),
    pa.field("map", pa.map_(pa.string(), pa.list_(pa.duration("ms")), keys_sorted=True)),
    pa.field("st", pa.struct([pa.field("x", pa.int64(), metadata={"PARQUET:field_id": "3"}),
                              pa.field("y", pa.dictionary(pa.int16(), pa.string(), ordered=True))])),
    *[pa.field(f"dict_{t}", pa.dictionary(getattr(pa, t)(), pa.binary())) for t in ("int8", "uint32", "int64")],
    pa.field("uuid", pa.uuid()), pa.field("json", pa.json_()),
    pa.field("meta", pa.int8(), metadata={"k": "v", "PARQUET:field_id": "9"}),
]


def _nodes(schema):
    return import_schema(schema.__arrow_c_schema__()).children


def test_pyarrow_decodes_our_encoding_to_the_same_schema():
    schema = pa.schema(_FIELDS, metadata={"pandas": "{}", "other": "x"})
    encoded = encode_schema_nodes(_nodes(schema), {b"pandas": b"{}", b"other": b"x"})
    got = pa.ipc.read_schema(pa.BufferReader(base64.b64decode(encoded)))
    assert got.equals(schema, check_metadata=True), (got, schema)


def test_our_reader_reads_the_facts_back():
    schema = pa.schema(_FIELDS)
    facts = {f.name: f for f in schema_field_facts(encode_schema_nodes(_nodes(schema)))}
    assert facts["dur_s"].kind == "duration" and facts["dur_s"].unit == "s"
    assert facts["ts_s"].unit == "s" and facts["ts_zone"].tz == "America/New_York"
    assert facts["dict_uint32"].dictionary and facts["dict_uint32"].index_bits == 32
    assert not facts["dict_uint32"].index_signed
    assert facts["st"].children[1].dictionary and facts["st"].children[1].ordered
    assert facts["uuid"].extension == "arrow.uuid"
    assert facts["iint16"].bits == 16 and facts["ifloat16"].bits == 16
    assert [c.name for c in facts["map"].children[0].children] == ["key", "value"]


@pytest.mark.parametrize("fmt", ["+ud:0", "+r", "+vl", "tiM"])
def test_formats_without_ipc_type_here_are_refused(fmt):
    from parquet_core.arrow_c.export import SchemaNode

    with pytest.raises(pc.UnsupportedFeatureError, match="ARROW:schema"):
        encode_schema_nodes([SchemaNode(fmt, "c", children=[SchemaNode("i", "x")])])


def test_writer_checks_arrow_schema_without_pyarrow(monkeypatch):
    """Without pyarrow, ARROW:schema is kept when its facts fit the data, dropped when
    stale, and store_schema=False still refuses a duration."""
    import parquet_core.interop.stored_schema as stored

    monkeypatch.setattr(stored, "_decode", lambda encoded: None)   # what a missing pyarrow gives
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"td": pd.to_timedelta([1, 2], "s"), "c": pd.Categorical(["a", "b"])})
    table = pc.as_table(df)
    kept = stored.footer_key_values(table.metadata, table.schema, True)
    assert "ARROW:schema" in kept and "pandas" in kept
    other = Schema([Field("td", DataType("int32")), Field("c", DataType("string"))])
    assert "ARROW:schema" not in stored.footer_key_values(table.metadata, other, True)
    renamed = Schema([Field("x", DataType("int64")), Field("c", DataType("string"))])
    assert "ARROW:schema" not in stored.footer_key_values(table.metadata, renamed, True)
    with pytest.raises(pc.ParquetError, match=r"td: duration\[ns\].*store_schema=True"):
        stored.footer_key_values(table.metadata, table.schema, False)
    buf = io.BytesIO()
    pc.write_table(df, buf)
    assert pa.ipc.read_schema(pa.BufferReader(base64.b64decode(
        pc.read_metadata(io.BytesIO(buf.getvalue())).metadata[b"ARROW:schema"]))).field("td").type == \
        pa.duration("ns")
