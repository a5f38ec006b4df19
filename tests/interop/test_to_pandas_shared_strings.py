"""Issue 31: ``to_pandas()`` of a text column decodes each distinct value once and shares the
``str`` among its rows (as pyarrow's ``deduplicate_objects``), falling back to decoding every
value where keys would not be exact (a NUL byte, values over 16 bytes) or sharing does not pay.

Oracle: ``pq.read_table(f).to_pandas()`` of the same file.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import parquet_core as pc

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

_WORDS = ["", "a", "word", "exactly8", "é", "ééééé", "日本語テ", "sixteen_bytes_xx", "x" * 7 + "é",
          "🙂🙂🙂🙂", "mot-é-8b", "tail\x7f", "abcdefgh1"]


def _same(values, rows=5000, seed=0):
    rng = np.random.default_rng(seed)
    picked = [values[i] for i in rng.integers(0, len(values), rows)]
    mask = rng.random(rows) < 0.1
    table = pa.table({"s": pa.array(picked, pa.string(), mask=mask), "b": pa.array(
        [v.encode() for v in picked], pa.binary(), mask=mask)})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    got = pc.read_table(io.BytesIO(buf.getvalue())).to_pandas()
    want = pq.read_table(io.BytesIO(buf.getvalue())).to_pandas()
    pd.testing.assert_frame_equal(got, want)
    return got


def test_repeated_values_of_every_length_up_to_16_bytes():
    got = _same(_WORDS)
    s = got["s"]
    firsts = {}
    for v in s:      # one str object per distinct value, as pyarrow's
        if v is not None:
            assert firsts.setdefault(v, v) is v


@pytest.mark.parametrize("values", [
    ["with\x00nul", "plain"],                              # a NUL byte: keys would not be exact
    ["a value longer than sixteen bytes", "short"],         # over 16 bytes
    [f"v{i}" for i in range(4000)],                         # mostly distinct
], ids=["nul", "long", "distinct"])
def test_fallbacks_give_the_same_frame(values):
    _same(values)


def test_few_rows_and_all_null():
    _same(["a", "b"], rows=10)
    table = pa.table({"s": pa.array([None] * 3000, pa.string())})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    pd.testing.assert_frame_equal(pc.read_table(io.BytesIO(buf.getvalue())).to_pandas(),
                                  pq.read_table(io.BytesIO(buf.getvalue())).to_pandas())


def test_values_of_17_to_32_bytes_are_shared_too():
    # issue 32: lineitem's l_shipinstruct ("DELIVER IN PERSON", 17 bytes) was decoded row by row
    words = ["DELIVER IN PERSON", "TAKE BACK RETURN", "x" * 31 + "a", "x" * 31 + "b", "y" * 24 + "é",
             "y" * 24, "short", "z" * 17 + "\x7f"]
    got = _same(words, rows=6000, seed=3)
    firsts = {}
    for v in got["s"]:
        if v is not None:
            assert firsts.setdefault(v, v) is v


def test_values_of_at_most_8_bytes_decoded_from_their_keys():
    """All values within one 64-bit key (the key's bytes are the value's: decoded from the
    distinct keys), also from a slice whose offsets do not start at 0."""
    short = [w for w in _WORDS if len(w.encode()) <= 8] + ["日本", "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f", "ü8bytes"]
    assert max(len(w.encode()) for w in short) == 8
    got = _same(short, rows=6000, seed=3)
    firsts = {}
    for v in got["s"]:
        if v is not None:
            assert firsts.setdefault(v, v) is v
    rng = np.random.default_rng(4)
    t = pa.table({"s": [short[i] for i in rng.integers(0, len(short), 5000)]})
    buf = io.BytesIO()
    pq.write_table(t, buf)
    ours = pc.read_table(io.BytesIO(buf.getvalue())).slice(1001, 2500)
    pd.testing.assert_frame_equal(ours.to_pandas(), t.slice(1001, 2500).to_pandas())
