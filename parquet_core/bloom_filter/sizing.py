"""How big a split-block Bloom filter should be, and what false-positive rate to expect.

The spec (parquet-format ``BloomFilter.md``, "Sizing an SBBF") gives sample
ratios of bits of space per inserted value to false-positive probability,
:data:`SPEC_TABLE`, and the approximation ``c = -8 / ln(1 - p ** (1/8))`` bits
per value.  That approximation treats every block as equally full and so
under-estimates (9.7 bits for 1 %, where the table says 10.5).

:func:`model_fpp` computes the rate exactly for random hashes: the number of
values landing in one block is Poisson with mean ``ndv / blocks``, and a
block holding ``j`` values answers "maybe" for a fresh hash when each of its
eight 32-bit words already has the probed bit set, probability
``(1 - (31/32) ** j) ** 8``.  It reproduces the spec's table (10.5 bits per
value -> 1.0 %).  :func:`optimal_num_bytes` starts from the spec's formula and
grows the filter (in powers of two) until the model meets the target.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np

__all__ = [
    "SPEC_TABLE", "BYTES_PER_BLOCK", "MIN_BYTES", "DEFAULT_MAX_BYTES", "MAX_BYTES",
    "bits_per_value", "model_fpp", "optimal_num_bytes",
]

#: (bits of space per inserted value, false-positive probability), from the spec.
SPEC_TABLE: Final = ((6.0, 0.10), (10.5, 0.01), (16.9, 0.001), (26.4, 0.0001), (41.0, 0.00001))

#: A block is eight 32-bit words.
BYTES_PER_BLOCK: Final = 32
#: The smallest filter: one block.
MIN_BYTES: Final = BYTES_PER_BLOCK
#: Default cap on a filter's size (parquet-java uses the same 128 MiB).
DEFAULT_MAX_BYTES: Final = 128 * 1024 * 1024
#: The largest power of two that ``BloomFilterHeader.numBytes`` (an i32) can hold.
MAX_BYTES: Final = 1 << 30


def bits_per_value(fpp: float) -> float:
    """The spec's approximate bits per distinct value for a target rate *fpp*."""
    _check_fpp(fpp)
    return -8.0 / math.log1p(-(fpp ** 0.125))


def model_fpp(num_bytes: int, ndv: int) -> float:
    """Expected false-positive rate of a *num_bytes* filter holding *ndv* distinct hashes.

    Parameters
    ----------
    num_bytes:
        Filter size, a positive multiple of 32.
    ndv:
        Distinct values inserted.

    Returns
    -------
    float
        Probability that a hash never inserted is reported as present.
    """
    if num_bytes < BYTES_PER_BLOCK or num_bytes % BYTES_PER_BLOCK:
        raise ValueError(f"num_bytes must be a positive multiple of 32, got {num_bytes}")
    if ndv < 0:
        raise ValueError(f"ndv must not be negative, got {ndv}")
    lam = ndv / (num_bytes // BYTES_PER_BLOCK)
    if lam == 0:
        return 0.0
    if lam > 5000:  # blocks are nearly saturated: every bit of every word is set
        return float((1.0 - (31 / 32) ** lam) ** 8)
    hi = int(lam + 12 * math.sqrt(lam) + 40)
    j = np.arange(hi + 1, dtype=np.float64)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(j[1:]))])
    pmf = np.exp(j * math.log(lam) - lam - log_fact)
    return float(np.sum(pmf * (1.0 - (31 / 32) ** j) ** 8))


def optimal_num_bytes(ndv: int, fpp: float = 0.01, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
    """Size in bytes of a filter for *ndv* distinct values at false-positive rate *fpp*.

    The result is a power of two, at least 32 (one block), at most the
    largest power of two not above *max_bytes*, and the smallest such size
    whose :func:`model_fpp` is at most *fpp*.

    Parameters
    ----------
    ndv:
        Expected number of distinct values (0 gives the minimum size).
    fpp:
        Target false-positive probability, strictly between 0 and 1.
    max_bytes:
        Upper bound on the size (at least 32).
    """
    _check_fpp(fpp)
    if ndv < 0:
        raise ValueError(f"ndv must not be negative, got {ndv}")
    if max_bytes < MIN_BYTES:
        raise ValueError(f"max_bytes must be at least {MIN_BYTES}, got {max_bytes}")
    cap = 1 << (min(max_bytes, MAX_BYTES).bit_length() - 1)
    want = math.ceil(ndv * bits_per_value(fpp) / 8)
    size = max(MIN_BYTES, 1 << max(0, (want - 1).bit_length()))
    # The formula under-estimates; grow until the model agrees (at most a few doublings).
    while size < cap and model_fpp(size, ndv) > fpp:
        size *= 2
    return min(size, cap)


def _check_fpp(fpp: float) -> None:
    if not 0.0 < fpp < 1.0:
        raise ValueError(f"fpp must be strictly between 0 and 1, got {fpp}")
