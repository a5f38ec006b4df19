"""DictionaryArray: slicing, row selection and concatenation keep what pyarrow keeps."""

from __future__ import annotations

import pyarrow as pa
import pytest

from parquet_core.interop.arrow import array_from_arrow, array_to_arrow
from parquet_core.table.arrays import Array
from parquet_core.table.dictionary import DictionaryArray
from parquet_core.table.select import take_array

_SRC = pa.DictionaryArray.from_arrays(pa.array([2, None, 0, 2, 1], pa.int32()), pa.array(["x", "yy", "zzz", "u"]))


@pytest.mark.parametrize("start, stop", [(0, 5), (1, 4), (3, 3), (4, 9)])
def test_slice_keeps_the_whole_dictionary(start, stop):
    arr = array_from_arrow(_SRC).slice(start, stop)
    assert isinstance(arr, DictionaryArray)
    assert array_to_arrow(arr).equals(_SRC.slice(start, max(stop - start, 0)))


def test_take_keeps_the_dictionary():
    rows = pa.array([4, 0, 1, 0])
    assert array_to_arrow(take_array(array_from_arrow(_SRC), rows.to_numpy())).equals(_SRC.take(rows))


def test_concat_keeps_one_dictionary_per_part():
    other = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array(["w"]))
    both = Array.concat([array_from_arrow(_SRC), array_from_arrow(other)])
    assert isinstance(both, DictionaryArray)
    assert array_to_arrow(both).equals(pa.chunked_array([_SRC, other]))
    mixed = Array.concat([array_from_arrow(_SRC), array_from_arrow(pa.array(["w", None]))])
    assert type(mixed) is Array
    assert mixed.to_pylist() == _SRC.to_pylist() + ["w", None]


def test_values_are_decoded_with_empty_nulls():
    arr = array_from_arrow(_SRC)
    assert arr.to_pylist() == _SRC.to_pylist()
    assert arr.values.lengths().tolist() == [3, 0, 1, 3, 2]
