"""Issue 32, write memory: peak resident memory above the table while writing it.

    python -m benchmarks.write_memory_bench [--rows 1000000] [--engine both|pc|pa] [--trim]

Each engine writes a TPC-H ``lineitem``-like table (``real_tables_bench.lineitem``)
in a fresh child process, one thread, pyarrow's defaults (snappy, dictionary,
statistics).  The child builds the table, resets its high-water mark
(``/proc/self/clear_refs``, Linux), writes, and reports ``VmHWM`` minus the
resident size just before the write: the memory the write needs above the
table it was given.

Building the table frees memory that glibc keeps resident (a million Python
strings), and parquet_core's allocations reuse it without raising VmHWM.
``--trim`` hands freed memory back first (glibc's ``malloc_trim``, pyarrow's
``release_unused``), so every page the write touches counts: the cold figure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def child(engine: str, rows: int, trim: bool = False) -> dict[str, float]:
    import gc

    import pyarrow.parquet as pq

    import parquet_core as pc
    from benchmarks.real_tables_bench import lineitem

    table = lineitem(rows)
    path = os.path.join(tempfile.mkdtemp(prefix="pqc_wmem_"), "out.parquet")
    # warm both engines' code paths on a small slice (imports, caches)
    small = table.slice(0, 1000)
    pc.write_table(small, path, use_threads=False)
    pq.write_table(small, path)
    gc.collect()
    if trim:
        import ctypes

        import pyarrow as pa

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        pa.default_memory_pool().release_unused()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    base = _status("VmRSS")
    if engine == "pc":
        pc.write_table(table, path, use_threads=False, compression="snappy")
    else:
        pq.write_table(table, path, compression="snappy")
    peak = _status("VmHWM")
    return {"engine": engine, "rows": rows, "table_mib": table.nbytes / 2**20,
            "above_mib": (peak - base) / 2**20}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--engine", default="both", choices=["both", "pc", "pa"])
    ap.add_argument("--trim", action="store_true",
                    help="return freed heap memory to the OS before the write (cold figure)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.engine, args.rows, args.trim)))
        return 0
    engines = ["pc", "pa"] if args.engine == "both" else [args.engine]
    res = {}
    for eng in engines:
        out = subprocess.run([sys.executable, "-m", "benchmarks.write_memory_bench", "--child",
                              "--engine", eng, "--rows", str(args.rows)] + (["--trim"] if args.trim else []),
                             check=True, capture_output=True, text=True)
        res[eng] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{eng}: table {res[eng]['table_mib']:.0f} MiB, write peak above it "
              f"{res[eng]['above_mib']:.1f} MiB")
    if len(res) == 2:
        print(f"ratio pc/pa: {res['pc']['above_mib'] / max(res['pa']['above_mib'], 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
