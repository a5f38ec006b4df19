"""The vectorised UTF-8 helpers of the ingest path (parquet_core.table.utf8).

Truth is Python's own codec: ``str.encode`` for encoding, ``bytes.decode``
value by value for validation.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from parquet_core._kernels.binary import ByteArrays
from parquet_core.table import utf8


def _first_bad(values: list[bytes], rows=None) -> int | None:
    for i, v in enumerate(values):
        if rows is not None and not rows[i]:
            continue
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            return i
    return None


def test_encode_ucs4_matches_python():
    rng = random.Random(3)
    # every UTF-8 length class, the edges of each, and embedded NULs
    alphabet = ["a", "\x00", "\x7f", "\x80", "é", "\u07ff", "\u0800", "€", "\uffff",
                "\U00010000", "😀", "\U0010ffff"]
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(300)]
    arr = np.array(words)
    out = utf8.encode_ucs4(arr)
    assert out.to_pylist() == [s.encode("utf-8") for s in arr.tolist()]
    assert out.offsets[0] == 0 and out.offsets.dtype == np.int64


def test_encode_ucs4_ascii_and_empty():
    assert utf8.encode_ucs4(np.array(["ab", "", "c"])).to_pylist() == [b"ab", b"", b"c"]
    assert utf8.encode_ucs4(np.array([], dtype="U3")).to_pylist() == []
    assert utf8.encode_ucs4(np.array(["", ""])).to_pylist() == [b"", b""]
    big_endian = np.array(["é", "x"]).astype(">U1")
    assert utf8.encode_ucs4(big_endian).to_pylist() == [b"\xc3\xa9", b"x"]


def test_encode_ucs4_refuses_surrogates_with_row():
    with pytest.raises(utf8.UnencodableText) as info:
        utf8.encode_ucs4(np.array(["a", "b", "x\udfffy"]))
    assert info.value.row == 2


def test_bytes_from_fixed():
    arr = np.array([b"abc", b"", b"a\x00c", b"\xff"])
    assert utf8.bytes_from_fixed(arr).to_pylist() == arr.tolist()


VALUE_PIECES = [b"a", b"\xc3", b"\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80",
                b"\xc0\xaf", b"", b"\xff", b"\xe2\x82", b"\xf4\x90\x80\x80", b"\x00"]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 24])
def test_first_invalid_matches_per_value_decoding(monkeypatch, chunk):
    monkeypatch.setattr(utf8, "_CHUNK", chunk)
    rng = random.Random(chunk)
    for _ in range(600):
        values = [b"".join(rng.choice(VALUE_PIECES) for _ in range(rng.randint(0, 4)))
                  for _ in range(rng.randint(0, 6))]
        # view into a larger buffer so offsets do not start at 0
        whole = ByteArrays.from_pylist([b"\xe2\x82"] + values + [b"\xac"])
        view = ByteArrays(whole.offsets[1:-1], whole.data)
        assert utf8.first_invalid_utf8(view) == _first_bad(values), values


def test_split_character_is_caught_even_though_concatenation_is_valid():
    values = [b"caf", b"\xc3", b"\xa9"]
    assert (b"".join(values)).decode("utf-8") == "café"
    assert utf8.first_invalid_utf8(ByteArrays.from_pylist(values)) == 1
    assert utf8.first_invalid_utf8(ByteArrays.from_pylist([b"\xc3\xa9", b"", b"x"])) is None


def test_invalid_bytes_in_null_slots_are_ignored():
    values = [b"ok", b"\xff", b"fine", b"\xc3"]
    rows = np.array([True, False, True, True])
    ba = ByteArrays.from_pylist(values)
    assert utf8.first_invalid_utf8(ba, rows) == _first_bad(values, rows) == 3
    assert utf8.first_invalid_utf8(ba, np.array([True, False, True, False])) is None


def test_ascii_values_are_valid_whatever_their_cuts():
    """Only ASCII bytes: every value is valid UTF-8 (Python's codec agrees), including
    sliced buffers (offsets not from 0) and empty values."""
    vals = [b"tag-01", b"", b"x" * 40, b"\x00\x7f", b"tag-39"] * 50
    ba = ByteArrays.from_pylist(vals)
    assert _first_bad(vals) is None
    assert utf8.first_invalid_utf8(ba) is None
    assert utf8.first_invalid_utf8(ba.slice(3, 200)) is None
    bad = ByteArrays.from_pylist(vals[:7] + [b"\xc3"] + vals[7:])     # one cut character
    assert utf8.first_invalid_utf8(bad) == _first_bad(vals[:7] + [b"\xc3"] + vals[7:]) == 7
