"""select_schema_fields: an ``ARROW:schema`` value narrowed to some top-level fields, without
pyarrow.  Oracle: pyarrow reads our bytes (``pa.ipc.read_schema``, which verifies the
flatbuffer) to the schema pyarrow builds of the same fields, metadata included."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from parquet_core.metadata.arrow_ipc_select import ArrowSchemaSelectError, select_schema_fields

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
hyp = pytest.importorskip("hypothesis")
st = pytest.importorskip("hypothesis.strategies")

DATA = Path(os.environ.get("PARQUET_TEST_DATA", "/work/shared/parquet-testing/data"))


def _encode(schema) -> bytes:
    return base64.b64encode(schema.serialize().to_pybytes())


def _decode(encoded: bytes):
    return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(encoded)))


def _pyarrow_select(schema, keep):
    return pa.schema([schema.field(n) for n in keep], metadata=schema.metadata)


class _Point(pa.ExtensionType):
    def __init__(self) -> None:
        super().__init__(pa.struct([("x", pa.float64()), ("y", pa.float64())]), "test.select.point")

    def __arrow_ext_serialize__(self) -> bytes:
        return b"{\"crs\": 4326}"

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls()


@pytest.fixture(scope="module", autouse=True)
def _registered():
    pa.register_extension_type(_Point())
    yield
    pa.unregister_extension_type("test.select.point")


_LEAVES = st.sampled_from([
    pa.int8(), pa.uint64(), pa.float16(), pa.float64(), pa.bool_(), pa.string(), pa.large_string(),
    pa.binary(), pa.large_binary(), pa.string_view(), pa.binary_view(), pa.binary(7), pa.date32(),
    pa.date64(), pa.time32("ms"), pa.time64("ns"), pa.timestamp("s"), pa.timestamp("ns", "Europe/Oslo"),
    pa.timestamp("us", "+05:30"), pa.duration("s"), pa.duration("ns"), pa.decimal128(9, 2),
    pa.decimal256(40, 5), pa.month_day_nano_interval(), pa.null(), pa.uuid(),
    pa.dictionary(pa.int8(), pa.string()), pa.dictionary(pa.uint32(), pa.binary(), ordered=True),
    pa.dictionary(pa.int64(), pa.timestamp("ms", "UTC"))])
_META = st.one_of(st.none(), st.dictionaries(st.text(min_size=1, max_size=5), st.text(max_size=8), max_size=2))


def _nested(children):
    return st.one_of(
        st.builds(pa.list_, children), st.builds(pa.large_list, children),
        st.builds(pa.list_view, children),
        st.builds(lambda t, n: pa.list_(t, n), children, st.integers(1, 4)),
        st.builds(lambda ts: pa.struct([pa.field(f"s{i}", t) for i, t in enumerate(ts)]),
                  st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda v, s: pa.map_(pa.string(), v, keys_sorted=s), children, st.booleans()))


_TYPES = st.one_of(st.recursive(_LEAVES, _nested, max_leaves=6), st.just(_Point()))


@st.composite
def _schemas(draw):
    n = draw(st.integers(1, 6))
    fields = []
    for i in range(n):
        t = draw(_TYPES)
        # pyarrow refuses a non-nullable field of the null type
        nullable = True if t == pa.null() else draw(st.booleans())
        fields.append(pa.field(f"c{i}", t, nullable=nullable, metadata=draw(_META)))
    meta = draw(_META)
    if draw(st.booleans()):
        meta = dict(meta or {}, pandas='{"index_columns": []}')
    schema = pa.schema(fields, metadata=meta)
    keep = draw(st.permutations(schema.names))[:draw(st.integers(0, n))]
    return schema, keep


@hyp.settings(max_examples=150, deadline=None)
@hyp.given(_schemas())
def test_random_schemas_read_back_as_pyarrow_selects(case):
    schema, keep = case
    got = _decode(select_schema_fields(_encode(schema), keep))
    want = _pyarrow_select(schema, keep)
    assert got.equals(want, check_metadata=True), (got, want)
    # as pyarrow's own bytes of that selection read back (field metadata compared as well)
    theirs = _decode(_encode(want))
    assert [f.metadata for f in got] == [f.metadata for f in theirs]


def _corpus_values():
    out = []
    for path in sorted(DATA.rglob("*.parquet")):
        try:
            md = pq.read_metadata(path).metadata or {}
        except Exception:   # files the corpus has for error cases
            continue
        if b"ARROW:schema" in md:
            out.append(pytest.param(md[b"ARROW:schema"], id=path.name))
    return out[:8]


@pytest.mark.parametrize("encoded", _corpus_values())
def test_arrow_schema_values_of_corpus_files(encoded):
    schema = _decode(encoded)
    for keep in (schema.names[::-1], schema.names[1:], schema.names[:1]):
        got = _decode(select_schema_fields(encoded, keep))
        assert got.equals(_pyarrow_select(schema, keep), check_metadata=True)


def test_the_framing_is_kept_and_str_input_accepted():
    schema = pa.schema([("a", pa.int32()), ("b", pa.duration("ms"))], metadata={"k": "v"})
    encoded = _encode(schema)
    got = select_schema_fields(encoded.decode("ascii"), ["b"])
    assert base64.b64decode(got)[:4] == b"\xff\xff\xff\xff"
    assert _decode(got).equals(_pyarrow_select(schema, ["b"]), check_metadata=True)


@pytest.mark.parametrize("value, keep, message", [
    (b"not base64 of a schema", ["a"], "not a readable"),
    (base64.b64encode(b"\xff\xff\xff\xff\x08\x00\x00\x00" + b"\x01" * 8), ["a"], "not a readable"),
    (None, ["zz"], "no field named 'zz'"),
    ("dup", ["a"], "2 fields named 'a'"),
])
def test_refusals(value, keep, message):
    if value is None:
        value = _encode(pa.schema([("a", pa.int8())]))
    elif value == "dup":
        value = _encode(pa.schema([("a", pa.int8()), ("a", pa.int16())]))
    with pytest.raises(ArrowSchemaSelectError, match=message):
        select_schema_fields(value, keep)


def test_a_record_batch_message_is_refused():
    batch = pa.record_batch({"a": [1]})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as w:
        w.write_batch(batch)
    stream = sink.getvalue().to_pybytes()
    # skip the schema message: what follows is a RecordBatch message
    first = 8 + int.from_bytes(stream[4:8], "little")
    with pytest.raises(ArrowSchemaSelectError, match="not an Arrow IPC Schema"):
        select_schema_fields(base64.b64encode(stream[first:]), ["a"])
