"""A standalone Spark cluster (a master and two workers with their own executor JVMs)
whose executors' Python has the dependencies but NOT parquet-core: the code is shipped
by ``spark_adapter.ship`` (``addPyFile``) and by the documented ``spark-submit
--py-files`` recipe.  Results equal pyarrow's answers on the same files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.spark import deploy, deploy_expected
from tests.spark.deploy_fixtures import deploy_data, deploy_out, executor_python  # noqa: F401
from tests.spark.doc_commands import command

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# the job of the --py-files recipe: nothing of parquet-core installed where it runs
_JOB = r"""
import json, os, sys
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
import spark_adapter, parquet_core
spark = SparkSession.builder.getOrCreate()
spark_adapter.register(spark)
data = os.environ["DATA"]
def where(_):
    import parquet_core, sys
    return json.dumps([sys.executable, parquet_core.__file__])
print("RESULT " + json.dumps({
    "driver": parquet_core.__file__,
    "workers": json.loads(spark.range(1).select(udf(where)("id")).first()[0]),
    "count": spark.read.format("pqcore").option("filter", "g = 1 and id < 1500").load(data).count(),
    "rowgroups": spark.read.format("pqmeta").option("level", "rowgroup").load(data).count()}))
spark.stop()
"""


def test_standalone_cluster_runs_shipped_code(tmp_path, executor_python, deploy_data, deploy_out):  # noqa: F811
    data, want = deploy_data
    with deploy.standalone_cluster(tmp_path / "cluster", python=executor_python) as url:
        env = deploy.base_env(executor_python)
        got = deploy.run_driver(["--master", url, "--executor-python", executor_python, "--data", str(data),
                                 "--out", str(deploy_out), "--ship", "--register"], tmp_path, env)
        # the executors ran the executor venv and imported the shipped zip
        python, origin = got["workers"]
        assert python == executor_python and ".zip" in origin, got["workers"]
        deploy_expected.check(got, want, deploy_out)

        # the --py-files recipe of docs/spark-deployment.md, as written
        job_dir = tmp_path / "job"
        job_dir.mkdir()
        (job_dir / "my_job.py").write_text(_JOB)
        env = deploy.base_env()
        env.update(MASTER=url, EXECUTOR_PYTHON=executor_python, DATA=str(data / "plain"),
                   PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),
                   PYTHONPATH=str(deploy.REPO))     # for the recipe's first line, which builds the zip
        proc = subprocess.run(["bash", "-c", command("py-files")], cwd=job_dir, env=env, capture_output=True,
                              text=True, timeout=900)
        lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-6000:]
    res = json.loads(lines[-1][len("RESULT "):])
    assert ".zip" in res["driver"] and ".zip" in res["workers"][1], res
    assert res["workers"][0] == executor_python
    assert res["count"] == want["filter_option"][0]
    assert res["rowgroups"] == want["pqmeta"]["rowgroup"]
