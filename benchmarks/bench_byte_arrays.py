"""BYTE_ARRAY value decoding: parquet_core's decoders vs pyarrow, 1M-value columns.

Run from the repository root::

    python benchmarks/bench_byte_arrays.py [--rows 1000000] [--repeat 5] [--baseline PATH]

Each case is one required string column written by pyarrow (uncompressed,
no dictionary unless the case is a dictionary one, default data page size,
so ~20,000-row pages as pyarrow caps them).  The value sections of every
page are extracted once with :func:`parquet_core.page.reader.iter_pages`;
then, in the same process, CPU time (``time.process_time``, best of
``--repeat``) is reported for

* ``per-page``: the page decoder called once per page, then
  :meth:`ByteArrays.concat` (what the column reader does today);
* ``chunk``: the ``decode_*_multi`` function of the encoding over all pages
  of the chunk at once (what a whole-chunk reader calls);
* ``pyarrow``: ``pq.read_table(path, use_threads=False)`` of that file
  (decompression-free, so close to pyarrow's decoder plus its page walk);
* ``baseline`` (``--baseline /path/to/checkout``): the per-page decoder of
  another checkout (e.g. an export of ``main``:
  ``git archive main | tar -x -C /tmp/main``), timed in a child process that
  imports that checkout, on the same files.

Dictionary cases time :meth:`ByteArrays.take` (1M indices into the
dictionary page) against pyarrow reading the dictionary-encoded column.
MB/s is of the decoded string bytes, at the faster of per-page and chunk;
``best/arrow`` is that time over pyarrow's and ``base/best`` the speed-up
over the baseline.  Timings are CPU time, so a busy machine inflates them
less than wall time, but cache contention still shows: compare columns of
one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _strings(kind: str, n: int, rng: np.random.Generator) -> list[str]:
    if kind == "short_mixed":      # 0-24 ASCII chars
        lens = rng.integers(0, 25, n)
        pool = np.frombuffer(rng.integers(97, 123, int(lens.sum()) + 1, dtype=np.uint8).tobytes(), "S1")
        raw = pool.tobytes().decode()
        out, at = [], 0
        for ln in lens.tolist():
            out.append(raw[at:at + ln]); at += ln
        return out
    if kind == "same_len":         # 16-char ids
        return [f"{x:016x}" for x in rng.integers(0, 2**62, n).tolist()]
    if kind == "long_mixed":       # 50-150 chars
        lens = rng.integers(50, 151, n)
        raw = rng.integers(97, 123, int(lens.sum()), dtype=np.uint8).tobytes().decode()
        out, at = [], 0
        for ln in lens.tolist():
            out.append(raw[at:at + ln]); at += ln
        return out
    if kind == "sorted_keys":      # front-coding friendly
        return sorted(f"user/{x:010d}/item" for x in rng.integers(0, 10**10, n).tolist())
    if kind == "urls":             # shared prefixes, varied tails
        hosts = ["https://example.com/", "https://data.example.org/path/", "http://x.io/"]
        return [hosts[h] + f"{v:x}" * (1 + v % 3) for h, v in
                zip(rng.integers(0, 3, n).tolist(), rng.integers(0, 2**40, n).tolist())]
    if kind == "low_card":         # dictionary: 1000 distinct words
        words = [f"w{i:04d}" + "x" * (i % 13) for i in range(1000)]
        return [words[i] for i in rng.integers(0, 1000, n).tolist()]
    if kind == "codes":            # dictionary: 100 distinct 1-8 char codes (all <= 8 bytes)
        words = [f"c{i}" + "z" * (i % 6) for i in range(100)]
        return [words[i] for i in rng.integers(0, 100, n).tolist()]
    if kind == "low_card_long":    # dictionary: 200 distinct ~100-char values
        words = [f"{i:05d}" + "y" * (80 + i % 40) for i in range(200)]
        return [words[i] for i in rng.integers(0, 200, n).tolist()]
    raise ValueError(kind)


CASES = [  # (name, data kind, parquet encoding or "DICT")
    ("plain/short_mixed", "short_mixed", "PLAIN"),
    ("plain/same_len", "same_len", "PLAIN"),
    ("plain/long_mixed", "long_mixed", "PLAIN"),
    ("plain/urls", "urls", "PLAIN"),
    ("dba/sorted_keys", "sorted_keys", "DELTA_BYTE_ARRAY"),
    ("dba/urls", "urls", "DELTA_BYTE_ARRAY"),
    ("dba/short_mixed", "short_mixed", "DELTA_BYTE_ARRAY"),
    ("dlba/short_mixed", "short_mixed", "DELTA_LENGTH_BYTE_ARRAY"),
    ("dlba/long_mixed", "long_mixed", "DELTA_LENGTH_BYTE_ARRAY"),
    ("dict/low_card", "low_card", "DICT"),
    ("dict/codes", "codes", "DICT"),
    ("dict/low_card_long", "low_card_long", "DICT"),
]


def write_cases(rows: int, outdir: str) -> dict[str, str]:
    import pyarrow as pa
    import pyarrow.parquet as pq
    rng = np.random.default_rng(20261126)
    paths = {}
    for name, kind, enc in CASES:
        vals = _strings(kind, rows, rng)
        table = pa.table({"s": pa.array(vals, pa.string())},
                         schema=pa.schema([pa.field("s", pa.string(), nullable=False)]))
        path = os.path.join(outdir, name.replace("/", "_") + ".parquet")
        if enc == "DICT":
            pq.write_table(table, path, compression="none", use_dictionary=True,
                           write_statistics=False)
        else:
            pq.write_table(table, path, compression="none", use_dictionary=False,
                           column_encoding={"s": enc}, write_statistics=False)
        paths[name] = path
    return paths


def extract_pages(path: str) -> tuple[Any, list[tuple[int, memoryview, int]]]:
    """(dictionary page body or None, [(encoding, values buffer, count)]) of column 0."""
    import pyarrow.parquet as pq
    from parquet_core.page.model import DataPageV1, DataPageV2, DictionaryPage
    from parquet_core.page.reader import iter_pages
    md = pq.ParquetFile(path).metadata.row_group(0).column(0)
    start = md.dictionary_page_offset if md.has_dictionary_page else md.data_page_offset
    with open(path, "rb") as f:
        f.seek(start)
        chunk = f.read(md.total_compressed_size)
    dictionary = None
    pages = []
    for page in iter_pages(chunk, 0, md.num_values):
        if isinstance(page, DictionaryPage):
            dictionary = (memoryview(page.body), page.num_values)
        elif isinstance(page, DataPageV1):
            pages.append((page.encoding, memoryview(page.body), page.num_values))
        elif isinstance(page, DataPageV2):
            pages.append((page.encoding, memoryview(page.values), page.num_values))
    return dictionary, pages


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def time_ours(paths: dict[str, str], repeat: int, with_chunk: bool) -> dict[str, dict[str, float]]:
    from parquet_core._kernels.binary import ByteArrays
    from parquet_core.constants import PhysicalType as PT
    from parquet_core.encodings import decode_values
    multi: dict[int, Any] = {}
    if with_chunk:
        try:
            from parquet_core.encodings.delta_byte_array import decode_delta_byte_arrays_multi
            from parquet_core.encodings.delta_length_byte_array import (
                decode_delta_length_byte_arrays_multi,
            )
            from parquet_core.encodings.plain import decode_plain_byte_arrays_multi
            multi = {0: decode_plain_byte_arrays_multi, 6: decode_delta_length_byte_arrays_multi,
                     7: decode_delta_byte_arrays_multi}
        except ImportError:
            multi = {}
    out: dict[str, dict[str, float]] = {}
    for name, path in paths.items():
        dictionary, pages = extract_pages(path)
        res: dict[str, float] = {}
        if dictionary is not None:
            d = decode_values(0, dictionary[0], dictionary[1], PT.BYTE_ARRAY, None)
            idx = np.concatenate([decode_values(enc, buf, n, PT.BYTE_ARRAY, None)
                                  for enc, buf, n in pages])
            res["per-page"] = best(lambda: d.take(idx), repeat)
            res["bytes"] = float(d.take(idx).data.size)
        else:
            def per_page() -> Any:
                return ByteArrays.concat([decode_values(enc, buf, n, PT.BYTE_ARRAY, None)
                                          for enc, buf, n in pages])
            res["per-page"] = best(per_page, repeat)
            res["bytes"] = float(per_page().data.size)
            fn = multi.get(pages[0][0])
            if fn is not None:
                bufs = [b for _, b, _ in pages]
                counts = [n for _, _, n in pages]
                res["chunk"] = best(lambda: fn(bufs, counts), repeat)
        out[name] = res
    return out


def time_pyarrow(paths: dict[str, str], repeat: int) -> dict[str, float]:
    import pyarrow.parquet as pq
    return {name: best(lambda: pq.read_table(path, use_threads=False), repeat)
            for name, path in paths.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline", help="another checkout to time the same decoders from")
    ap.add_argument("--only", help="substring filter on case names")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:  # timing run inside another checkout
        paths = json.loads(args._child)
        sys.path.insert(0, os.getcwd())
        print(json.dumps(time_ours(paths, args.repeat, with_chunk=False)))
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_cases(args.rows, tmp)
        if args.only:
            paths = {k: v for k, v in paths.items() if args.only in k}
        base = None
        if args.baseline:
            child = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--repeat", str(args.repeat),
                 "--_child", json.dumps(paths)],
                cwd=args.baseline, capture_output=True, text=True, check=True,
                env={**os.environ, "PYTHONPATH": args.baseline})
            base = json.loads(child.stdout.strip().splitlines()[-1])
        ours = time_ours(paths, args.repeat, with_chunk=True)
        arrow = time_pyarrow(paths, args.repeat)
    hdr = f"{'case':22s} {'MB':>6s} {'base ms':>8s} {'page ms':>8s} {'chunk ms':>8s} {'arrow ms':>8s} {'best/arrow':>10s} {'base/best':>9s} {'MB/s':>7s}"
    print(hdr)
    for name, res in ours.items():
        mb = res["bytes"] / 1e6
        b = base[name]["per-page"] * 1e3 if base else float("nan")
        p = res["per-page"] * 1e3
        c = res.get("chunk", float("nan")) * 1e3
        a = arrow[name] * 1e3
        bestt = min(p, c) if c == c else p
        print(f"{name:22s} {mb:6.1f} {b:8.1f} {p:8.1f} {c:8.1f} {a:8.1f} {bestt / a:10.2f}x "
              f"{(b / bestt if base else float('nan')):8.2f}x {mb / (bestt / 1e3):7.0f}")


if __name__ == "__main__":
    main()
