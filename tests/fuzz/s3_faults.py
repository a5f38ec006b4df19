"""S3 fault campaign: reads and writes through a fault-injecting proxy in front of moto.

    python -m tests.fuzz.s3_faults --operations 200 --seed 1 [--rate 0.3]

A moto S3 server runs on 127.0.0.1; :class:`tests._support.fault_proxy.FaultProxy`
sits in front of it and gives a seeded share of the requests a fault (resets
before and after the reply's headers, a truncated body, a delayed or trickled
reply, 500 and 503 replies).  Operations run one after another through it
(``read_table``, ``ParquetFile.read`` / ``read_row_group`` / ``iter_batches``,
a dataset read, ``write_table``, ``write_to_dataset``), each in a thread with a
deadline.  Each outcome is one of:

* ``ok``: the result equals the fault-free read (for a write: the object(s) read
  back without faults equal the table written);
* ``refused``: a ParquetError;
* ``io_error``: the client's own error after its retries ran out (an ``OSError``
  or a botocore / aiohttp error), the documented outcome of a failed transfer; for
  a write, nothing half-written is visible (what is visible equals the table);
* ``WRONG``: a result different from the fault-free read, or a visible object of a
  failed or finished write that differs from the table (a finding);
* ``HANG``: no outcome by the deadline (a finding);
* ``OTHER``: any other exception (a finding).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
import uuid
from collections import Counter
from typing import Any, Callable

import numpy as np
import pyarrow as pa

OPERATIONS = ("read_table", "file_read", "read_row_group", "iter_batches", "dataset_read",
              "write_table", "write_to_dataset")


def _table(seed: int, rows: int = 3_000) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table({
        "id": pa.array(np.arange(rows)),
        "x": pa.array(rng.normal(size=rows)),
        "s": pa.array([f"v{i % 97}" for i in range(rows)]),
        "l": pa.array([[int(j) for j in range(i % 5)] for i in range(rows)], pa.list_(pa.int64())),
        "part": pa.array([f"p{i % 3}" for i in range(rows)]),
    })


def _is_io_error(exc: BaseException) -> bool:
    if isinstance(exc, (OSError, TimeoutError)):
        return True
    mod = type(exc).__module__ or ""
    return mod.startswith(("botocore", "aiobotocore", "aiohttp", "s3fs", "urllib3", "asyncio"))


class Campaign:
    """The servers, the reference data and the operations (see the module docstring)."""

    def __init__(self, seed: int, rate: float, deadline: float = 120.0, rows: int = 3_000,
                 delay: float = 0.3) -> None:
        from moto.server import ThreadedMotoServer

        from tests._support.fault_proxy import FaultProxy
        from tests._support.s3 import s3_options

        os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                          AWS_DEFAULT_REGION="us-east-1")
        os.environ.pop("AWS_SESSION_TOKEN", None)
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.direct_endpoint = f"http://{host}:{port}"
        import boto3
        import s3fs

        boto3.client("s3", endpoint_url=self.direct_endpoint, region_name="us-east-1").create_bucket(Bucket="faults")
        self.proxy = FaultProxy((host, port), seed, rate, delay=delay)
        self.direct = s3fs.S3FileSystem(**s3_options(self.direct_endpoint))
        opts = s3_options(self.proxy.endpoint)
        opts["config_kwargs"] = {"read_timeout": 10, "connect_timeout": 10}
        self.opts = opts
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.table = _table(seed, rows)
        self.row_group = max(1, rows // 3)
        import parquet_core as pc

        self.pc = pc
        # the reference objects, written without faults
        pc.write_table(self.table, "s3://faults/ref/one.parquet", row_group_size=self.row_group,
                       storage_options=s3_options(self.direct_endpoint))
        self.expected = {
            "read_table": pc.read_table("s3://faults/ref/one.parquet",
                                        storage_options=s3_options(self.direct_endpoint)).to_arrow(),
        }

    def _reference_dataset(self) -> pa.Table:
        """The reference dataset, written (without faults) when first needed."""
        if "dataset_read" not in self.expected:
            from tests._support.s3 import s3_options

            direct = s3_options(self.direct_endpoint)
            self.pc.write_to_dataset(self.table, "s3://faults/ref/ds", partition_cols=["part"],
                                     storage_options=direct)
            self.expected["dataset_read"] = self._dataset(direct)
        return self.expected["dataset_read"]

    def close(self) -> None:
        self.proxy.stop()
        self.server.stop()

    def _dataset(self, opts: dict[str, Any]) -> pa.Table:
        got = self.pc.read_table("s3://faults/ref/ds", storage_options=opts).to_arrow()
        return got.select(sorted(got.column_names)).sort_by("id")

    # -- the operations: each returns (result, expected) or checks the store itself ----------

    def _op(self, name: str) -> Callable[[], tuple[Any, Any]]:
        pc, opts, ref = self.pc, self.opts, "s3://faults/ref/one.parquet"
        table = self.table
        if name == "read_table":
            return lambda: (pc.read_table(ref, storage_options=opts).to_arrow(), table)
        if name == "file_read":
            def file_read() -> tuple[Any, Any]:
                with pc.ParquetFile(ref, storage_options=opts) as pf:
                    return pf.read(columns=["id", "s", "l"]).to_arrow(), table.select(["id", "s", "l"])
            return file_read
        if name == "read_row_group":
            def row_group() -> tuple[Any, Any]:
                with pc.ParquetFile(ref, storage_options=opts) as pf:
                    return pf.read_row_group(1).to_arrow(), table.slice(self.row_group, self.row_group)
            return row_group
        if name == "iter_batches":
            def batches() -> tuple[Any, Any]:
                with pc.ParquetFile(ref, storage_options=opts) as pf:
                    size = max(1, self.row_group * 7 // 10)
                    got = pa.concat_tables(b.to_arrow() for b in pf.iter_batches(batch_size=size))
                return got, table
            return batches
        if name == "dataset_read":
            want = self._reference_dataset()
            return lambda: (self._dataset(opts), want)
        if name == "write_table":
            key = f"faults/out/{uuid.uuid4().hex}.parquet"

            def write_one() -> tuple[Any, Any]:
                try:
                    pc.write_table(table, "s3://" + key, storage_options=opts)
                finally:
                    self._check_written([key])
                return None, None
            return write_one
        if name == "write_to_dataset":
            root = f"faults/outds/{uuid.uuid4().hex}"

            def write_ds() -> tuple[Any, Any]:
                try:
                    pc.write_to_dataset(table, "s3://" + root, partition_cols=["part"], storage_options=opts)
                finally:
                    self._check_written(self.direct.find(root))
                return None, None
            return write_ds
        raise AssertionError(name)

    def _check_written(self, keys: list[str]) -> None:
        """Every visible object of a write (finished or failed) is a whole file whose rows
        are the table's (a partition's rows for a dataset): else WRONG."""
        self.direct.invalidate_cache()
        from tests._support.s3 import s3_options

        direct = s3_options(self.direct_endpoint)
        for key in keys:
            if not self.direct.exists(key) or not key.endswith(".parquet"):
                continue
            try:
                got = self.pc.read_table("s3://" + key, storage_options=direct).to_arrow()
            except Exception as exc:     # noqa: BLE001 - any failure here is a finding
                raise _Wrong(f"visible object {key} is not a readable file: {exc!r}") from exc
            want = self.table
            if "/part=" in key:
                part = key.split("/part=")[1].split("/")[0]
                want = want.filter(pa.compute.equal(want["part"], part)).drop_columns(["part"])
                got = got.select(want.column_names)
            if not got.equals(want):
                raise _Wrong(f"visible object {key} differs from the table written")

    def run_one(self, name: str) -> tuple[str, str]:
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = self._op(name)()
            except BaseException as exc:   # noqa: BLE001 - classified below
                box["error"] = exc

        t = threading.Thread(target=target, daemon=True)
        t.start()
        t.join(self.deadline)
        if t.is_alive():
            return "HANG", f"{name}: no outcome in {self.deadline} s"
        exc = box.get("error")
        if exc is None:
            got, want = box["value"]
            if want is not None and not got.equals(want):
                return "WRONG", f"{name}: result differs from the fault-free read"
            return "ok", ""
        if isinstance(exc, _Wrong):
            return "WRONG", f"{name}: {exc}"
        if isinstance(exc, self.pc.ParquetError):
            return "refused", f"{name}: {type(exc).__name__}: {str(exc)[:160]}"
        if _is_io_error(exc):
            return "io_error", f"{name}: {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:160]}"
        return "OTHER", f"{name}: {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:200]}"


class _Wrong(Exception):
    pass


def run(operations: int, seed: int, rate: float, deadline: float = 120.0, log: Any = None) -> dict[str, Any]:
    """Run *operations* seeded operations; return the counts and the findings."""
    camp = Campaign(seed, rate, deadline)
    outcomes: Counter[str] = Counter()
    per_op: dict[str, Counter[str]] = {op: Counter() for op in OPERATIONS}
    findings: list[str] = []
    t0 = time.monotonic()
    try:
        for i in range(operations):
            name = camp.rng.choice(OPERATIONS)
            outcome, detail = camp.run_one(name)
            outcomes[outcome] += 1
            per_op[name][outcome] += 1
            if outcome in ("WRONG", "HANG", "OTHER"):
                findings.append(detail)
            if log is not None and outcome != "ok":
                print(f"[{i}] {outcome} {detail}", file=log)
    finally:
        requests, injected = camp.proxy.requests, dict(camp.proxy.injected)
        camp.close()
    return {"operations": operations, "seed": seed, "rate": rate, "seconds": round(time.monotonic() - t0, 1),
            "requests": requests, "injected": injected, "outcomes": dict(outcomes),
            "per_operation": {k: dict(v) for k, v in per_op.items()}, "findings": findings}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.s3_faults", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--operations", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0.3, help="share of requests given a fault")
    ap.add_argument("--deadline", type=float, default=120.0, help="seconds before an operation is a hang")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every outcome but ok")
    args = ap.parse_args(argv)
    res = run(args.operations, args.seed, args.rate, args.deadline, sys.stdout if args.verbose else None)
    for k, v in res.items():
        if k != "findings":
            print(f"{k}: {v}")
    print(f"findings: {len(res['findings'])}")
    for f in res["findings"]:
        print("  " + f)
    return 1 if res["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
