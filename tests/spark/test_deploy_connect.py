"""Spark Connect: the driver program of the cluster test through ``remote("local[2]")``
and through a separately started Connect server (docs/spark-deployment.md's command),
with parquet-core found by the server's auto-discovery, or shipped by the client with
``spark.addArtifacts(..., pyfile=True)`` to a server whose Python does not have it."""

from __future__ import annotations

import sys

import pytest

from tests.spark import deploy, deploy_expected
from tests.spark.deploy_fixtures import deploy_data, deploy_out, executor_python  # noqa: F401

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def _run(url, tmp_path, data, out, env, ship):
    args = ["--remote", url, "--data", str(data), "--out", str(out)]
    if ship:
        args += ["--ship", "--register"]
    return deploy.run_driver(args, tmp_path, env)


def test_remote_local_with_shipped_code(tmp_path, executor_python, deploy_data, deploy_out):  # noqa: F811
    """``remote("local[2]")``: the in-process server's workers run ``PYSPARK_PYTHON``
    (the executor venv, without parquet-core); the client ships the zip."""
    data, want = deploy_data
    got = _run("local[2]", tmp_path, data, deploy_out, deploy.base_env(executor_python), ship=True)
    assert got["workers"][0] == executor_python and ".zip" in got["workers"][1], got["workers"]
    deploy_expected.check(got, want, deploy_out)


def test_connect_server_discovers_installed_sources(tmp_path, deploy_data, deploy_out):  # noqa: F811
    """A server whose Python has parquet-core (this interpreter, the checkout on its path):
    no ``register``, no shipping - the server's auto-discovery finds the three sources."""
    data, want = deploy_data
    with deploy.connect_server(tmp_path / "server", sys.executable, extra_path=str(deploy.REPO)) as url:
        got = _run(url, tmp_path, data, deploy_out, deploy.base_env(), ship=False)
    assert got["workers"][1].startswith(str(deploy.REPO)), got["workers"]
    deploy_expected.check(got, want, deploy_out)


def test_connect_server_with_shipped_code(tmp_path, executor_python, deploy_data, deploy_out):  # noqa: F811
    """A server whose Python lacks parquet-core: ``ship`` sends the zip as a Python artifact
    of the session and ``register`` registers the sources in it."""
    data, want = deploy_data
    with deploy.connect_server(tmp_path / "server", executor_python) as url:
        got = _run(url, tmp_path, data, deploy_out, deploy.base_env(), ship=True)
    assert got["workers"][0] == executor_python and ".zip" in got["workers"][1], got["workers"]
    deploy_expected.check(got, want, deploy_out)
