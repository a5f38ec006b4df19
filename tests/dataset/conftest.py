"""Stores the dataset tests run against: the local disk, fsspec's memory://, and a real S3
protocol served by moto on 127.0.0.1 (started here, dummy credentials), reached both by
``s3://`` URLs with ``storage_options`` and by ``filesystem=s3fs.S3FileSystem(...)``."""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from tests._support.s3 import s3_options


@pytest.fixture(scope="session")
def s3_server():
    """A moto S3 server on 127.0.0.1 (a free port) for the whole session."""
    pytest.importorskip("s3fs")
    moto_server = pytest.importorskip("moto.server")
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                            "AWS_DEFAULT_REGION", "AWS_SESSION_TOKEN")}
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_DEFAULT_REGION="us-east-1")
    os.environ.pop("AWS_SESSION_TOKEN", None)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    assert host == "127.0.0.1"
    endpoint = f"http://127.0.0.1:{port}"
    import boto3

    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket="test-bucket")
    yield endpoint
    server.stop()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@dataclass
class Store:
    """Where one test's dataset lives and how to name it to parquet_core."""

    kind: str
    root: str                      # what the user passes (path or URL, or path inside filesystem)
    kwargs: dict[str, Any]         # filesystem= / storage_options=
    fs: Any = None                 # fsspec file system to upload with (None: local)

    def url(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def upload(self, local_dir: str) -> str:
        """Copy a local folder to this store; return its root as the user names it."""
        if self.fs is None:
            return local_dir
        target = self.root.rstrip("/")
        stripped = self.fs._strip_protocol(target)
        # as writers write: the data files first, the summary files last (a store's listing
        # gives modification times, and a data file newer than _metadata is not read through it)
        paths = [os.path.join(d, name) for d, _, files in os.walk(local_dir) for name in files]
        paths.sort(key=lambda p: os.path.basename(p) in ("_metadata", "_common_metadata"))
        summary_yet = False
        for path in paths:
            if self.kind.startswith("s3") and not summary_yet and \
                    os.path.basename(path) in ("_metadata", "_common_metadata"):
                # an S3 listing's times are whole seconds, and a data file of the same second
                # as _metadata cannot be ordered against it (read from its own footer): the
                # summary in the next second, as a writer that takes a moment to write it
                summary_yet = True
                time.sleep(1.01 - time.time() % 1)
            rel = os.path.relpath(path, local_dir).replace(os.sep, "/")
            with open(path, "rb") as f:
                self.fs.pipe_file(f"{stripped}/{rel}", f.read())
        return target

    def download(self, local_dir: str) -> str:
        """Copy this store's dataset to a local folder (for the pyarrow oracle)."""
        if self.fs is None:
            return self.root
        stripped = self.fs._strip_protocol(self.root.rstrip("/"))
        for path in self.fs.find(stripped):
            rel = path[len(stripped) + 1:]
            dest = os.path.join(local_dir, *rel.split("/"))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(self.fs.cat_file(path))
        return local_dir


@pytest.fixture(params=["local", "memory", "s3-url", "s3-filesystem"])
def store(request, tmp_path):
    kind = request.param
    name = uuid.uuid4().hex
    if kind == "local":
        return Store(kind, str(tmp_path / "ds"), {})
    fsspec = pytest.importorskip("fsspec")
    if kind == "memory":
        fs = fsspec.filesystem("memory")
        return Store(kind, f"memory://{name}/ds", {}, fs)
    endpoint = request.getfixturevalue("s3_server")
    s3fs = pytest.importorskip("s3fs")
    opts = s3_options(endpoint)
    fs = s3fs.S3FileSystem(**opts)
    if kind == "s3-url":
        return Store(kind, f"s3://test-bucket/{name}/ds", {"storage_options": opts}, fs)
    return Store(kind, f"test-bucket/{name}/ds", {"filesystem": fs}, fs)
