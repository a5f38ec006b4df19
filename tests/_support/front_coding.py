"""DELTA_BYTE_ARRAY (front coding) written out from the spec for the tests: a page from prefix
lengths and suffixes, the spec's recurrence ``value[i] = value[i-1][:prefix[i]] + suffix[i]``,
and the front coding of a list of values (each prefix the longest shared with the value before)."""

from __future__ import annotations

import numpy as np

from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed
from parquet_core.encodings.delta_length_byte_array import encode_delta_length_byte_array


def page(prefixes: list[int], suffixes: list[bytes]) -> bytes:
    """A DELTA_BYTE_ARRAY page body: the prefix lengths (DELTA_BINARY_PACKED), then the
    suffixes (DELTA_LENGTH_BYTE_ARRAY)."""
    return (encode_delta_binary_packed(np.asarray(prefixes, dtype=np.int64), np.int32)
            + encode_delta_length_byte_array(suffixes))


def spec_values(prefixes: list[int], suffixes: list[bytes]) -> list[bytes]:
    """The values the spec's recurrence gives, one at a time."""
    out, prev = [], b""
    for p, s in zip(prefixes, suffixes):
        prev = prev[:p] + s
        out.append(prev)
    return out


def front_code(values: list[bytes]) -> tuple[list[int], list[bytes]]:
    """Prefix lengths and suffixes of *values*, each prefix the longest shared with the value before."""
    prefixes, suffixes, prev = [], [], b""
    for v in values:
        k = 0
        while k < min(len(v), len(prev)) and v[k] == prev[k]:
            k += 1
        prefixes.append(k)
        suffixes.append(v[k:])
        prev = v
    return prefixes, suffixes
