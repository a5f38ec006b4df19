"""When the S3 client gives up: every request to one object fails, every time.

The fault proxy (:meth:`FaultProxy.fail_always`) resets or answers 503 to every
request for one key, so botocore's and s3fs's retries (cut to one attempt here,
with short timeouts, to stay quick) run out.  A read or a write must then end in
an ``OSError`` (or a ParquetError) whose message names the file: never a raw
botocore / aiohttp exception, never "no such file" for a file that exists, never
data, and a failed write leaves no visible object at its target.
"""

from __future__ import annotations

import os
import posixpath
import uuid
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pytest

pytest.importorskip("moto.server")
s3fs = pytest.importorskip("s3fs")

import parquet_core as pc  # noqa: E402
from tests._support.fault_proxy import FaultProxy  # noqa: E402
from tests._support.s3 import s3_options  # noqa: E402

BUCKET = "giveup"
REF = f"{BUCKET}/ref.parquet"
# random doubles: the file (~160 KB) is larger than the tail a reader fetches first (64 KiB)
TABLE = pa.table({"id": pa.array(range(20_000), pa.int64()),
                  "x": pa.array(np.random.default_rng(0).random(20_000)),
                  "part": pa.array([f"p{i % 2}" for i in range(20_000)])})


@pytest.fixture(scope="module")
def store() -> Iterator[dict[str, Any]]:
    from moto.server import ThreadedMotoServer

    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                            "AWS_DEFAULT_REGION", "AWS_SESSION_TOKEN")}
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_DEFAULT_REGION="us-east-1")
    os.environ.pop("AWS_SESSION_TOKEN", None)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    import boto3

    boto3.client("s3", endpoint_url=f"http://{host}:{port}", region_name="us-east-1").create_bucket(Bucket=BUCKET)
    direct = s3fs.S3FileSystem(**s3_options(f"http://{host}:{port}"))
    pc.write_table(TABLE, "s3://" + REF, row_group_size=5_000, storage_options=s3_options(f"http://{host}:{port}"))
    proxy = FaultProxy((host, port), seed=0, rate=0.0)
    try:
        yield {"proxy": proxy, "direct": direct}
    finally:
        proxy.stop()
        server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def env(store: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setattr(s3fs.S3FileSystem, "retries", 1)     # s3fs's own retry loop: one try
    opts = s3_options(store["proxy"].endpoint)
    opts["config_kwargs"] = {"retries": {"max_attempts": 1, "mode": "standard"},
                             "connect_timeout": 2, "read_timeout": 2}
    yield {**store, "opts": opts}
    store["proxy"].fail_always(None)


def _fails_naming(call: Any, name: str) -> BaseException:
    with pytest.raises(Exception) as info:
        call()
    exc = info.value
    assert isinstance(exc, (pc.ParquetError, OSError)), f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    assert not isinstance(exc, FileNotFoundError), exc      # the file is there; the store failed
    assert name in str(exc), str(exc)
    return exc


def _read_table(opts: dict[str, Any]) -> Any:
    return pc.read_table("s3://" + REF, storage_options=opts)


def _file_read(opts: dict[str, Any]) -> Any:
    with pc.ParquetFile("s3://" + REF, storage_options=opts) as pf:
        return pf.read()


def _iter_batches(opts: dict[str, Any]) -> Any:
    with pc.ParquetFile("s3://" + REF, storage_options=opts) as pf:
        return [b for b in pf.iter_batches(batch_size=300)]


READS = {"read_table": _read_table, "ParquetFile.read": _file_read, "iter_batches": _iter_batches}


@pytest.mark.parametrize("fault", ["reset_before", "http_503"])
@pytest.mark.parametrize("op", sorted(READS))
def test_a_read_that_never_gets_through_names_the_file(env: dict[str, Any], fault: str, op: str) -> None:
    env["proxy"].fail_always(fault, key="/" + REF)
    _fails_naming(lambda: READS[op](env["opts"]), REF)
    assert env["proxy"].injected[fault] >= 1


@pytest.mark.parametrize("op", sorted(READS))
def test_a_read_whose_data_requests_fail_after_the_footer_names_the_file(env: dict[str, Any], op: str) -> None:
    # the lookup, the size and the tail (footer) come through; every later request (the
    # column chunks before the tail) is reset
    env["proxy"].fail_always("reset_before", key="/" + REF, after=3)
    _fails_naming(lambda: READS[op](env["opts"]), REF)
    assert env["proxy"].injected["reset_before"] >= 1


@pytest.mark.parametrize("fault", ["reset_before", "http_503"])
def test_a_write_table_that_never_gets_through_leaves_nothing(env: dict[str, Any], fault: str) -> None:
    key = f"{BUCKET}/out/{uuid.uuid4().hex}.parquet"
    env["proxy"].fail_always(fault, key="/" + key)
    _fails_naming(lambda: pc.write_table(TABLE, "s3://" + key, storage_options=env["opts"]), key)
    env["direct"].invalidate_cache()
    assert not env["direct"].exists(key)


@pytest.mark.parametrize("fault", ["reset_before", "http_503"])
def test_a_write_to_dataset_whose_files_never_get_through_leaves_nothing_visible(
        env: dict[str, Any], fault: str) -> None:
    root = f"{BUCKET}/ds/{uuid.uuid4().hex}"
    env["proxy"].fail_always(fault, key=".parquet")       # every data file; locks and listings pass
    _fails_naming(lambda: pc.write_to_dataset(TABLE, "s3://" + root, partition_cols=["part"],
                                              storage_options=env["opts"]), root)
    env["direct"].invalidate_cache()
    left = env["direct"].find(root) if env["direct"].exists(root) else []
    visible = [p for p in left
               if not any(seg.startswith(("_", ".")) for seg in posixpath.relpath(p, root).split("/"))]
    assert visible == [], left
