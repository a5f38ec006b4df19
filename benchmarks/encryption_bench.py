"""Encryption benchmark: write and read throughput with AES-GCM and AES-GCM-CTR vs plaintext.

Run from the repository root::

    python -m benchmarks.encryption_bench                       # 1M rows, best of 3
    python -m benchmarks.encryption_bench --rows 200000 -n 2     # quick
    python -m benchmarks.encryption_bench --json benchmarks/results/encryption.json

Data: the read/write benchmarks' nine-column table
(``read_bench_data.make_table(rows, seed=20240601)``), written with the write
benchmark's settings (``write_variants``: 1 MiB pages and dictionary limit,
statistics, page index on) in two variants: ``dict_snappy`` (the common
layout) and ``plain_none`` (no dictionary, no compression: the least work
per byte, so encryption's share is largest).

Modes: ``none`` (plaintext), ``gcm`` (AES_GCM_V1) and ``ctr``
(AES_GCM_CTR_V1), uniform encryption (every column and the footer with one
128-bit key), encrypted footer.

Engines, each timed on its own files:

* ``pc``  ``parquet_core.write_table(Table, open(path, "wb"), encryption=...)``
  (file object: no temp file and no fsync, the same work as pyarrow) and
  ``parquet_core.read_table(path, decryption=...)``
* ``pa1`` ``pyarrow.parquet.write_table / read_table`` with
  ``encryption_properties`` / ``decryption_properties`` from its
  ``CryptoFactory`` (a test KMS that wraps by base64, so key unwrapping costs
  nothing), cpu and io thread pools = 1.

MB/s is the Arrow table's in-memory size (``Table.nbytes``) over the best
time, by default this process's CPU time (``--clock cpu``: on a loaded
machine wall time swings by tens of percent between identical runs; both
engines run single-threaded, so CPU time is the work done); ``overhead`` is ``time(mode) / time(none) - 1`` for the same engine
and variant. Every file is read back once (not timed) by the other engine
where it can (pyarrow reads parquet_core's files through the same test KMS)
and compared value for value with the source.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

if __package__ in (None, ""):  # ``python benchmarks/encryption_bench.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

from benchmarks import read_bench_data as data
from benchmarks._harness import best_of
from benchmarks import write_variants as wv

FOOTER_KEY = b"0123456789012345"
MODES = {"none": None, "gcm": "AES_GCM_V1", "ctr": "AES_GCM_CTR_V1"}
VARIANTS = ["dict_snappy", "plain_none"]
SEED = 20240601


class _Base64Kms(pe.KmsClient):
    """pyarrow KMS client whose "wrapping" is base64: free, and only for benchmarks/tests."""

    def __init__(self, config: Any) -> None:
        super().__init__()

    def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
        return base64.b64encode(key_bytes).decode()

    def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
        return base64.b64decode(wrapped_key)


def _material(key: bytes) -> bytes:
    """Footer key material pyarrow's key tools read (single wrapping, base64 KMS)."""
    return json.dumps({"keyMaterialType": "PKMT1", "internalStorage": True, "isFooterKey": True,
                       "masterKeyID": "kf", "wrappedDEK": base64.b64encode(key).decode(),
                       "doubleWrapping": False, "kmsInstanceID": "DEFAULT",
                       "kmsInstanceURL": "DEFAULT"}).encode()


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.encryption_bench",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("-n", "--repeats", type=int, default=3)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--engines", default="pc,pa1")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="cpu: this process's CPU time (steady on a shared machine; both engines "
                         "run single-threaded); wall: elapsed time")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)

    import parquet_core as pc

    arrow = data.make_table(args.rows, SEED)
    mb = arrow.nbytes / 1e6
    out_dir = tempfile.mkdtemp(prefix="pqc_enc_bench_")
    plain = os.path.join(out_dir, "source.parquet")
    pq.write_table(arrow, plain, use_dictionary=False, compression="none")
    table = pc.read_table(plain)
    os.unlink(plain)
    factory = pe.CryptoFactory(lambda config: _Base64Kms(config))
    kms = pe.KmsConnectionConfig()
    variants = {v.name: v for v in wv.ALL_VARIANTS}
    engines = args.engines.split(",")
    results: list[dict[str, Any]] = []
    print(f"rows={args.rows} table={mb:.1f} MB (Arrow nbytes) repeats={args.repeats} "
          f"clock={args.clock} python={sys.version.split()[0]} pyarrow={pa.__version__} "
          f"loadavg={os.getloadavg()[0]:.2f}")
    # every (variant, mode, engine, operation) is a cell; cells are timed in
    # interleaved rounds (best of --repeats), so load from other processes
    # spreads over all of them instead of skewing one
    cells: list[tuple[dict[str, Any], str, Callable[[], Any]]] = []
    for vname in args.variants.split(","):
        v = variants[vname]
        rg = 1 << 20
        for mode, algorithm in MODES.items():
            row: dict[str, Any] = {"variant": vname, "mode": mode}
            results.append(row)
            pc_path = os.path.join(out_dir, f"pc_{vname}_{mode}.parquet")
            pa_path = os.path.join(out_dir, f"pa_{vname}_{mode}.parquet")
            enc = None if algorithm is None else pc.FileEncryptionProperties(
                footer_key=FOOTER_KEY, algorithm=algorithm, footer_key_metadata=_material(FOOTER_KEY))
            dec = None if algorithm is None else pc.FileDecryptionProperties(footer_key=FOOTER_KEY)
            pa_dec = None if algorithm is None else factory.file_decryption_properties(kms)
            if "pc" in engines:
                kw = wv.pc_options(v, rg, True)
                if enc is not None:
                    kw["encryption"] = enc

                def pc_write(path: str = pc_path, kw: dict = kw) -> None:
                    with open(path, "wb") as f:
                        pc.write_table(table, f, **kw)

                pc_write()
                got = pq.read_table(pc_path, decryption_properties=pa_dec)
                row["pc_file_read_by_pyarrow_equal"] = bool(got.equals(arrow))
                rkw = {} if dec is None else {"decryption": dec}
                cells.append((row, "pc_write_s", pc_write))
                try:
                    got = pc.read_table(pc_path, **rkw).to_arrow()
                    row["pc_read_equal"] = bool(got.equals(arrow))
                    cells.append((row, "pc_read_s", lambda p=pc_path, k=rkw: pc.read_table(p, **k)))
                except TypeError as exc:  # a reader without decryption=
                    row["pc_read_error"] = str(exc)
            if "pa1" in engines:
                kw = wv.pa_options(v, rg, True)
                if algorithm is not None:
                    conf = pe.EncryptionConfiguration(
                        footer_key="kf", uniform_encryption=True, encryption_algorithm=algorithm,
                        plaintext_footer=False, double_wrapping=False)
                    kw["encryption_properties"] = factory.file_encryption_properties(kms, conf)
                pq.write_table(arrow, pa_path, **kw)
                cells.append((row, "pa_write_s",
                              lambda p=pa_path, k=kw: pq.write_table(arrow, p, **k)))
                cells.append((row, "pa_read_s",
                              lambda p=pa_path, d=pa_dec: pq.read_table(p, decryption_properties=d)))
    for _ in range(args.repeats):
        for row, key, fn in cells:
            row[key] = min(row.get(key, float("inf")), best_of(fn, 1, CLOCKS[args.clock]))
    base = {(r["variant"], k): r.get(k) for r in results if r["mode"] == "none"
            for k in ("pc_write_s", "pc_read_s", "pa_write_s", "pa_read_s")}
    print(f"{'variant':12} {'mode':5} | {'pc write':>17} | {'pc read':>17} | "
          f"{'pa1 write':>17} | {'pa1 read':>17}")
    for r in results:
        cells = []
        for k in ("pc_write_s", "pc_read_s", "pa_write_s", "pa_read_s"):
            t = r.get(k)
            if t is None:
                cells.append(f"{'n/a':>17}")
                continue
            b = base.get((r["variant"], k))
            over = "" if r["mode"] == "none" or not b else f"{100 * (t / b - 1):+5.1f}%"
            cells.append(f"{mb / t:7.1f} MB/s{over:>8}")
            r[k.replace("_s", "_mbps")] = mb / t
            if r["mode"] != "none" and b:
                r[k.replace("_s", "_overhead")] = t / b - 1
        print(f"{r['variant']:12} {r['mode']:5} | " + " | ".join(cells))
    for r in results:
        if r.get("pc_read_equal") is False:
            print(f"MISMATCH: parquet_core read of its {r['variant']}/{r['mode']} file differs")
        if r.get("pc_file_read_by_pyarrow_equal") is False:
            print(f"MISMATCH: pyarrow read of parquet_core's {r['variant']}/{r['mode']} file differs")
        if r.get("pc_read_error"):
            print(f"pc read n/a ({r['variant']}/{r['mode']}): {r['pc_read_error']}")
    print(f"loadavg at end: {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"rows": args.rows, "mb": mb, "clock": args.clock,
                                               "results": results}, indent=1))
    for name in os.listdir(out_dir):
        os.unlink(os.path.join(out_dir, name))
    os.rmdir(out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
