"""Fixtures shared by the deployment tests (imported by their modules)."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.spark import deploy_expected, executor_venv


def _skip_unless_spark() -> None:
    from tests._support.spark_checks import spark_skip_reason as _skip_reason

    reason = _skip_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def executor_python(tmp_path_factory) -> str:
    """The executors' interpreter: ``$SPARK_EXECUTOR_VENV`` (built by ``.ci/run``) or a
    venv built here; it has the dependencies and not parquet-core."""
    _skip_unless_spark()
    where = os.environ.get("SPARK_EXECUTOR_VENV") or str(tmp_path_factory.mktemp("executor") / "venv")
    return str(executor_venv.build(where))


@pytest.fixture(scope="session")
def deploy_data(tmp_path_factory):
    """The files the driver program reads, and pyarrow's answers."""
    root = deploy_expected.write_data(tmp_path_factory.mktemp("deploy-data"))
    return root, deploy_expected.expected(root)


@pytest.fixture
def deploy_out(tmp_path):
    out = tmp_path / "out"
    yield out
    shutil.rmtree(out, ignore_errors=True)
