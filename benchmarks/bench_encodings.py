"""Throughput of every page-value decoder and encoder in parquet_core.encodings.

Run as a standalone script from the repository root::

    python benchmarks/bench_encodings.py [--values 2000000] [--repeat 5] [--json PATH]
    python benchmarks/bench_encodings.py --side encode [--encode-values 1000000] [--no-arrow]

Decode side:
Inputs are fixed-seed and built with the package's own simple encoders (or
direct numpy construction), once, before timing; each decoder is timed on
whole pages of ``--page-values`` values (20,000 by default, pyarrow's
default row cap per page) and on one big page holding every value, and the
best of ``--repeat`` runs is reported as values/s and MB/s of *encoded*
input.

Encode side (``--side encode``): every encoder the writer uses, on one
page of ``--encode-values`` values (1,000,000 by default), reported as
MB/s of *raw* input (the PLAIN size of the values: 4 + length per string,
1 byte per level or boolean, 4 per dictionary index).  When pyarrow is
importable, the same column is also written by ``pyarrow.parquet`` with
the same encoding (uncompressed, no statistics, data page v2, one page of
all the values), so its time is the whole writer and an upper bound on its
encoder: read it as "how far are we from a C++ writer".  Only the
decode side runs without pyarrow.
"""

from __future__ import annotations

import argparse
import json
import platform
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from parquet_core._kernels.bitpack import pack_bits, unpack_bits  # noqa: E402
from parquet_core.constants import Encoding as E  # noqa: E402
from parquet_core.constants import PhysicalType as PT  # noqa: E402
from parquet_core.encodings import decode_values  # noqa: E402
from parquet_core.encodings.byte_stream_split import encode_byte_stream_split  # noqa: E402
from parquet_core.encodings.delta_binary_packed import encode_delta_binary_packed  # noqa: E402
from parquet_core.encodings.delta_byte_array import encode_delta_byte_array  # noqa: E402
from parquet_core.encodings.delta_length_byte_array import (  # noqa: E402
    encode_delta_length_byte_array,
)
from parquet_core.encodings.rle_hybrid import encode_rle_hybrid  # noqa: E402
from bench_encode import build_encode_cases, run_encode_cases  # noqa: E402

SEED = 20240607


def plain_byte_array(values: list[bytes]) -> bytes:
    """PLAIN BYTE_ARRAY page body (numpy construction, no per-value packing)."""
    lens = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
    starts = np.zeros(len(values), dtype=np.int64)
    np.cumsum(lens[:-1] + 4, out=starts[1:])
    out = np.empty(int(lens.sum()) + 4 * len(values), dtype=np.uint8)
    keep = np.ones(out.size, dtype=bool)
    for k in range(4):
        keep[starts + k] = False
    out[~keep] = lens.astype("<u4").view(np.uint8)
    out[keep] = np.frombuffer(b"".join(values), dtype=np.uint8)
    return out.tobytes()


def words(rng: np.random.Generator, n: int, lo: int, hi: int) -> list[bytes]:
    lens = rng.integers(lo, hi + 1, n)
    data = rng.integers(97, 123, int(lens.sum()), dtype=np.uint8).tobytes()
    out: list[bytes] = []
    at = 0
    for length in lens.tolist():
        out.append(data[at:at + length])
        at += length
    return out


def chunks(n: int, page: int) -> list[tuple[int, int]]:
    return [(a, min(n, a + page)) for a in range(0, n, page)]


class Case:
    """One benchmark row: a list of (encoded page, count) and how to decode it."""

    def __init__(self, name: str, pages: list[tuple[bytes, int]],
                 decode: Callable[[bytes, int], Any]) -> None:
        self.name = name
        self.pages = pages
        self.decode = decode
        self.values = sum(c for _, c in pages)
        self.nbytes = sum(len(b) for b, _ in pages)


def build_cases(n: int, page: int) -> list[Case]:
    rng = np.random.default_rng(SEED)
    cases: list[Case] = []

    def per_page(name: str, encode: Callable[[int, int], bytes],
                 decode: Callable[[bytes, int], Any], big: bool = True) -> None:
        pages = [(encode(a, b), b - a) for a, b in chunks(n, page)]
        cases.append(Case(f"{name} [{page} values/page]", pages, decode))
        if big:
            cases.append(Case(f"{name} [1 page]", [(encode(0, n), n)], decode))

    def values_of(encoding: int, pt: int, tl: int | None = None) -> Callable[[bytes, int], Any]:
        return lambda buf, count: decode_values(encoding, buf, count, pt, tl)

    # bit kernel alone
    for width in (1, 3, 7, 12, 20, 31, 45, 64):
        vals = rng.integers(0, 2**min(width, 63), n, dtype=np.uint64)
        packed = pack_bits(vals, width).tobytes()
        cases.append(Case(f"unpack_bits w={width}", [(packed, n)],
                          lambda buf, count, w=width: unpack_bits(buf, w, count)))

    ints32 = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    walk64 = np.cumsum(rng.integers(-1000, 1000, n)).astype(np.int64)
    floats = rng.standard_normal(n)
    per_page("PLAIN INT32", lambda a, b: ints32[a:b].tobytes(), values_of(E.PLAIN, PT.INT32))
    per_page("PLAIN DOUBLE", lambda a, b: floats[a:b].tobytes(), values_of(E.PLAIN, PT.DOUBLE))
    bools = rng.random(n) < 0.5
    per_page("PLAIN BOOLEAN", lambda a, b: np.packbits(bools[a:b], bitorder="little").tobytes(),
             values_of(E.PLAIN, PT.BOOLEAN))

    short = words(rng, n, 0, 20)
    long_ = words(rng, n // 8, 40, 200)
    per_page("PLAIN BYTE_ARRAY 0-20B", lambda a, b: plain_byte_array(short[a:b]),
             values_of(E.PLAIN, PT.BYTE_ARRAY))
    cases.append(Case("PLAIN BYTE_ARRAY 40-200B [1 page]",
                      [(plain_byte_array(long_), len(long_))], values_of(E.PLAIN, PT.BYTE_ARRAY)))

    indices = np.concatenate([rng.integers(0, 1000, n // 2),
                              np.repeat(rng.integers(0, 1000, n // 40), 20)])[:n]
    per_page("RLE_DICTIONARY indices (w=10)",
             lambda a, b: bytes([10]) + encode_rle_hybrid(indices[a:b], 10),
             values_of(E.RLE_DICTIONARY, PT.INT64))
    def rle_booleans(a: int, b: int) -> bytes:
        body = encode_rle_hybrid(bools[a:b], 1)
        return struct.pack("<I", len(body)) + body

    per_page("RLE BOOLEAN", rle_booleans, values_of(E.RLE, PT.BOOLEAN), big=False)

    per_page("DELTA_BINARY_PACKED INT64 walk", lambda a, b: encode_delta_binary_packed(walk64[a:b]),
             values_of(E.DELTA_BINARY_PACKED, PT.INT64))
    per_page("DELTA_BINARY_PACKED INT32 random",
             lambda a, b: encode_delta_binary_packed(ints32[a:b], np.int32),
             values_of(E.DELTA_BINARY_PACKED, PT.INT32), big=False)

    per_page("DELTA_LENGTH_BYTE_ARRAY 0-20B",
             lambda a, b: encode_delta_length_byte_array(short[a:b]),
             values_of(E.DELTA_LENGTH_BYTE_ARRAY, PT.BYTE_ARRAY), big=False)
    keys = [b"user_%010d" % v for v in np.sort(rng.integers(0, 10**10, n))]
    per_page("DELTA_BYTE_ARRAY sorted keys", lambda a, b: encode_delta_byte_array(keys[a:b]),
             values_of(E.DELTA_BYTE_ARRAY, PT.BYTE_ARRAY), big=False)
    mixed = sorted(short)
    per_page("DELTA_BYTE_ARRAY sorted 0-20B", lambda a, b: encode_delta_byte_array(mixed[a:b]),
             values_of(E.DELTA_BYTE_ARRAY, PT.BYTE_ARRAY), big=False)

    per_page("BYTE_STREAM_SPLIT DOUBLE", lambda a, b: encode_byte_stream_split(floats[a:b], PT.DOUBLE),
             values_of(E.BYTE_STREAM_SPLIT, PT.DOUBLE))
    f16 = rng.standard_normal(n).astype("<f2").view(np.uint8).reshape(n, 2)
    per_page("BYTE_STREAM_SPLIT FLOAT16",
             lambda a, b: encode_byte_stream_split(f16[a:b], PT.FIXED_LEN_BYTE_ARRAY, 2),
             values_of(E.BYTE_STREAM_SPLIT, PT.FIXED_LEN_BYTE_ARRAY, 2), big=False)
    return cases


def run(case: Case, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for buf, count in case.pages:
            case.decode(buf, count)
        times.append(time.perf_counter() - t0)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--values", type=int, default=2_000_000, help="values per case")
    ap.add_argument("--page-values", type=int, default=20_000, help="values per page")
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs")
    ap.add_argument("--only", default="", help="substring filter on case names")
    ap.add_argument("--json", metavar="PATH", help="write all results as JSON")
    ap.add_argument("--side", choices=["decode", "encode", "both"], default="both")
    ap.add_argument("--encode-values", type=int, default=1_000_000,
                    help="values per encode case")
    ap.add_argument("--no-arrow", action="store_true", help="skip the pyarrow encode timings")
    args = ap.parse_args(argv)
    rows: list[dict[str, Any]] = []
    if args.side in ("decode", "both"):
        rows += run_decode(args)
    if args.side in ("encode", "both"):
        cases = [c for c in build_encode_cases(args.encode_values, SEED, not args.no_arrow)
                 if args.only in c.name]
        rows += run_encode_cases(cases, args.repeat)
    if args.json:
        out = {"benchmark": "encodings", "seed": SEED, "repeat": args.repeat,
               "values": args.values, "page_values": args.page_values,
               "encode_values": args.encode_values,
               "python": sys.version.split()[0], "numpy": np.__version__,
               "machine": platform.machine(), "results": rows}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 0


def run_decode(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Time every decode case; print a table and return its rows."""

    t0 = time.perf_counter()
    cases = [c for c in build_cases(args.values, args.page_values) if args.only in c.name]
    print(f"inputs built in {time.perf_counter() - t0:.1f}s; best of {args.repeat}")
    print(f"{'case':48s} {'values':>9s} {'MB in':>8s} {'ms':>9s} {'Mvalues/s':>10s} {'MB/s':>8s}")
    rows = []
    for case in cases:
        times = run(case, args.repeat)
        best = min(times)
        row = {"case": case.name, "values": case.values, "bytes": case.nbytes,
               "pages": len(case.pages), "seconds": times, "best_seconds": best,
               "values_per_s": case.values / best, "mb_per_s": case.nbytes / best / 1e6}
        rows.append(row)
        print(f"{case.name:48s} {case.values:9d} {case.nbytes / 1e6:8.2f} {best * 1e3:9.2f} "
              f"{row['values_per_s'] / 1e6:10.1f} {row['mb_per_s']:8.1f}")
        row["side"] = "decode"
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
