"""Throughput of every codec in parquet_core.compression.

Run as a standalone script::

    python benchmarks/bench_compression.py [--size-mb 16] [--repeat 3]

The payload is fixed-seed and mixes, in 64 KiB pieces, incompressible
random bytes, runs of a repeated phrase, small-integer "column" data, zero
fill and text-like words from a small vocabulary, so that no codec sees only
its best or worst case.  The payload is cut into 1 MiB pages (the default
page size of most writers) and each codec's per-page calls are timed; the
best of ``--repeat`` runs is reported in MB/s of *uncompressed* data.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parquet_core.compression import CodecId, get_codec  # noqa: E402

PAGE = 1 << 20
PIECE = 64 << 10


def make_payload(size: int, seed: int = 20240607) -> bytes:
    """Build the fixed-seed benchmark payload.

    Parameters
    ----------
    size:
        Payload length in bytes.
    seed:
        Random seed.

    Returns
    -------
    bytes
        *size* bytes mixing random, repetitive, small-integer and zero data.
    """
    rng = random.Random(seed)
    vocab = [rng.randbytes(rng.randrange(2, 10)).hex().encode() for _ in range(512)]
    phrase = b"the quick brown fox jumps over the lazy parquet page; "
    out = bytearray()
    while len(out) < size:
        kind = rng.randrange(5)
        if kind == 0:
            out += rng.randbytes(PIECE)
        elif kind == 1:
            out += (phrase * (PIECE // len(phrase) + 1))[:PIECE]
        elif kind == 2:
            out += bytes(rng.randrange(16) for _ in range(PIECE // 64)) * 64
        elif kind == 3:
            out += bytes(PIECE)
        else:  # text-like: words drawn from a small vocabulary
            out += b" ".join(rng.choices(vocab, k=PIECE // 8))[:PIECE].ljust(PIECE, b" ")
    return bytes(out[:size])


def bench(size_mb: int, repeat: int) -> None:
    """Print one line per codec: ratio, compress MB/s, decompress MB/s.

    Parameters
    ----------
    size_mb:
        Payload size in MiB.
    repeat:
        Runs per measurement; the fastest counts.
    """
    payload = make_payload(size_mb << 20)
    pages = [payload[i : i + PAGE] for i in range(0, len(payload), PAGE)]
    mb = len(payload) / 1e6
    print(f"payload: {len(payload) >> 20} MiB in {len(pages)} pages of {PAGE >> 10} KiB")
    print(f"{'codec':<14}{'level':>6}{'ratio':>8}{'compress MB/s':>16}{'decompress MB/s':>18}")
    for cid in CodecId:
        codec = get_codec(cid)
        if not codec.is_available():
            print(f"{cid.name:<14}{'':>6}{'n/a':>8}")
            continue
        best_c = best_d = float("inf")
        bodies: list[bytes] = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            bodies = [codec.compress(p) for p in pages]
            best_c = min(best_c, time.perf_counter() - t0)
        for _ in range(repeat):
            t0 = time.perf_counter()
            for body, page in zip(bodies, pages, strict=True):
                codec.decompress(body, len(page))
            best_d = min(best_d, time.perf_counter() - t0)
        ratio = len(payload) / sum(len(b) for b in bodies)
        level = getattr(codec, "default_level", None)
        print(
            f"{cid.name:<14}{'-' if level is None else level:>6}{ratio:>8.2f}"
            f"{mb / best_c:>16.0f}{mb / best_d:>18.0f}"
        )


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the benchmark.

    Parameters
    ----------
    argv:
        Arguments (default: ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    bench(args.size_mb, args.repeat)


if __name__ == "__main__":
    main()
