"""``metadata/arrow_ipc`` reads which columns ``ARROW:schema`` marks as dictionaries, without pyarrow.

pyarrow serialises the schemas (the oracle for the answer too); garbage and
random corruption give an empty answer, never an exception.
"""

from __future__ import annotations

import base64
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from parquet_core.metadata.arrow_ipc import dictionary_field_names

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

REPO = Path(__file__).resolve().parents[3]


def _expected(schema) -> set[str]:
    t = pa.types
    return {f.name for f in schema if t.is_dictionary(f.type) and (
        t.is_string(f.type.value_type) or t.is_large_string(f.type.value_type)
        or t.is_binary(f.type.value_type) or t.is_large_binary(f.type.value_type))}


SCHEMAS = [
    pa.schema([]),
    pa.schema([pa.field("x", pa.string())]),
    pa.schema([pa.field("c", pa.dictionary(pa.int8(), pa.string(), ordered=True)),
               pa.field("x", pa.int64()),
               pa.field("b", pa.dictionary(pa.int32(), pa.binary())),
               pa.field("i", pa.dictionary(pa.int32(), pa.int64())),
               pa.field("L", pa.dictionary(pa.int16(), pa.large_string())),
               pa.field("LB", pa.dictionary(pa.uint8(), pa.large_binary())),
               pa.field("s", pa.struct([("q", pa.dictionary(pa.int8(), pa.string()))])),
               pa.field("ü nicode", pa.dictionary(pa.int32(), pa.utf8()))],
              metadata={"pandas": "{}"}),
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=["empty", "plain", "mixed"])
def test_matches_pyarrow(schema):
    encoded = base64.b64encode(schema.serialize().to_pybytes())
    assert dictionary_field_names(encoded) == _expected(schema)
    assert dictionary_field_names(encoded.decode()) == _expected(schema)


def test_value_pyarrow_writes_to_a_file(tmp_path):
    t = pa.table({"c": pa.array(["a", "b", "a"]).dictionary_encode(), "n": [1, 2, 3]})
    pq.write_table(t, tmp_path / "f.parquet")
    encoded = pq.read_metadata(tmp_path / "f.parquet").metadata[b"ARROW:schema"]
    assert dictionary_field_names(encoded) == {"c"}


@pytest.mark.parametrize("bad", [b"", b"!!!not base64", base64.b64encode(b"\x00" * 3),
                                 base64.b64encode(b"\xff\xff\xff\xff\x10\x00\x00\x00" + b"\x00" * 16),
                                 base64.b64encode(b"\xff\xff\xff\xff\xff\xff\xff\x7f")])
def test_garbage_gives_nothing(bad):
    assert dictionary_field_names(bad) == set()


def test_random_corruption_never_raises():
    raw = SCHEMAS[2].serialize().to_pybytes()
    rng = random.Random(7)
    for _ in range(3000):
        b = bytearray(raw)
        for _ in range(rng.randint(1, 6)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        got = dictionary_field_names(base64.b64encode(bytes(b[:rng.randint(0, len(b))])))
        assert isinstance(got, set)


def test_reading_a_pyarrow_file_does_not_import_pyarrow(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"c": pa.array(["x", "y", "x"]).dictionary_encode()}), path)
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        import parquet_core as pc
        t = pc.read_table({str(path)!r})
        assert t.column("c").to_pylist() == ["x", "y", "x"], t.column("c").to_pylist()
        assert type(t.column("c")).__name__ == "DictionaryArray", type(t.column("c"))
        assert "pyarrow" not in sys.modules, "reading imported pyarrow"
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr
