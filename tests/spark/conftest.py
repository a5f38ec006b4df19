"""One local SparkSession for the whole test run, and the pqcore source registered in it.

Spark freezes the environment of its Python workers when the JVM starts, so
everything they need is set here, at import time, before any session exists:

* ``PYSPARK_PYTHON`` / ``PYSPARK_DRIVER_PYTHON``: workers run this interpreter
  (otherwise ``python3`` from PATH, which may lack pyarrow or the project);
* ``PYTHONPATH`` starts with the repository root, so workers can import
  ``spark_adapter`` and ``parquet_core`` (classes are pickled by reference) and
  Spark's data-source lookup finds the ``pyspark_pqcore`` shim;
* ``SPARK_LOCAL_IP``: loopback only.

The session's JVM runs C1-only with the serial collector (``deploy.JVM_OPTIONS``): the
tests' small queries never pay back C2's compiling, which took half the JVM's CPU.

Tests skip (with the reason) only when pyspark is not importable or no Java
runtime is found.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests._support.spark_checks import spark_skip_reason
from tests.spark.deploy import JVM_OPTIONS

REPO_ROOT = Path(__file__).resolve().parents[2]

os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
os.environ.setdefault("SPARK_LOCAL_HOSTNAME", "localhost")
os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")
_pp = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
if str(REPO_ROOT) not in _pp:
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *_pp])


@pytest.fixture(scope="module")
def kms_spark(spark, tmp_path_factory):
    """The shared session, with the Java test KMS class compiled and defined (the key tools
    tests: MASTER_KEYS and hadoop_crypto_options in tests/_support/spark_checks.py)."""
    import shutil

    from parquet_core.compat.kms import define_test_kms

    if shutil.which("javac") is None:
        pytest.skip("javac not found: cannot build the Java test KMS client")
    define_test_kms(spark)   # compiled against pyspark's jars, defined in the session's JVM
    return spark


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """A local[2] SparkSession, UTC session time zone, UI off, logs at ERROR."""
    reason = spark_skip_reason()
    if reason:
        pytest.skip(reason)
    from pyspark.sql import SparkSession

    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("parquet-core-tests")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={warehouse} {JVM_OPTIONS}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def pqcore_spark(spark):
    """The session with ``format("pqcore")`` registered explicitly."""
    import spark_adapter

    spark_adapter.register(spark)
    return spark


@pytest.fixture(scope="session")
def ids_dataset(pqcore_spark, tmp_path_factory):
    """8,000 ids with ``qty = id % 7`` in 4 files x 4 row groups of 500 rows (written by Spark),
    so pruning by statistics has something to skip."""
    root = tmp_path_factory.mktemp("ids") / "t"
    pqcore_spark.range(8000).selectExpr("id", "cast(id % 7 as int) as qty").repartition(4) \
        .sortWithinPartitions("id").write.option("parquet.block.size", 4096).parquet(str(root))
    return str(root)


@pytest.fixture
def pushdown_on(pqcore_spark):
    """The session with ``spark.sql.python.filterPushdown.enabled`` on, for one test."""
    conf = "spark.sql.python.filterPushdown.enabled"
    pqcore_spark.conf.set(conf, "true")
    yield pqcore_spark
    pqcore_spark.conf.unset(conf)
