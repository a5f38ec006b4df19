"""The environment of the deployment tests' own JVMs (tests/spark/deploy.py): every one of
them - master, workers, drivers, executors, Connect servers - gets the same JVM options."""

from __future__ import annotations

from tests.spark import deploy


def _defaults() -> dict[str, str]:
    conf = deploy.CONF_DIR / "spark-defaults.conf"
    pairs = (line.split(None, 1) for line in conf.read_text().splitlines() if line.strip() and line[0] != "#")
    return {k: v.strip() for k, v in pairs}


def test_every_deploy_jvm_gets_the_same_options() -> None:
    env = deploy.base_env("/some/python")
    assert env["SPARK_CONF_DIR"] == str(deploy.CONF_DIR)
    assert env["SPARK_DAEMON_JAVA_OPTS"] == deploy.JVM_OPTIONS        # the standalone master and workers
    defaults = _defaults()                                             # spark-submit reads these for the rest
    assert defaults["spark.driver.extraJavaOptions"] == deploy.JVM_OPTIONS
    assert defaults["spark.executor.extraJavaOptions"] == deploy.JVM_OPTIONS
    assert env["PYSPARK_PYTHON"] == "/some/python" and "PYTHONPATH" not in env
