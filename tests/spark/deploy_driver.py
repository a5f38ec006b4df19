"""The driver program of the cluster and Spark Connect tests (run as a subprocess).

    python tests/spark/deploy_driver.py --master spark://127.0.0.1:7077 --data D --out O [--ship] [--register]
    python tests/spark/deploy_driver.py --remote sc://127.0.0.1:15002 --data D --out O [--ship] [--register]

It imports parquet-core from the checkout (put on ``sys.path`` here, not through
``PYTHONPATH``, so Spark's Python workers do not inherit it), optionally ships the
code (``spark_adapter.ship``) and registers the sources, runs the queries that
matter (pqcore read/write with partitions and filters, pqmeta at every level,
kartothek, skipping through ``spark_adapter.read``, encryption options) and prints
one line ``RESULT <json>`` that the test compares with pyarrow's answers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

LEVELS = ("file", "schema", "rowgroup", "column", "page", "index", "bloom", "check")
FOOTER_KEY = "0123456789012345"
COLUMN_KEY = "5432109876543210"
ENCRYPTION = {"parquet.encryption.footer.key": FOOTER_KEY,
              "parquet.encryption.column.keys": f"{COLUMN_KEY}:x"}


def session(args):
    from pyspark.sql import SparkSession

    if args.remote:
        builder = SparkSession.builder.remote(args.remote)
        if args.remote.startswith("local"):
            builder = builder.config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
        return builder.getOrCreate()
    builder = (SparkSession.builder.master(args.master).appName("parquet-core-deploy-test")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC").config("spark.driver.memory", "768m"))
    if args.master.startswith("spark://"):
        builder = (builder.config("spark.executor.memory", "512m").config("spark.executor.cores", "1")
                   .config("spark.cores.max", "2"))
    if args.executor_python:
        builder = builder.config("spark.pyspark.python", args.executor_python)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def worker_view(spark):
    """Where the executors' Python workers find parquet_core, and which interpreter they run."""
    from pyspark.sql.functions import udf

    def probe(_):
        import importlib.util
        import sys as _sys

        spec = importlib.util.find_spec("parquet_core")
        return json.dumps([_sys.executable, spec.origin if spec else None])

    return json.loads(spark.range(1).select(udf(probe)("id")).first()[0])


def run(spark, data: str, out: str) -> dict:
    import spark_adapter

    res: dict = {}
    plain = os.path.join(data, "plain")
    read = spark.read.format("pqcore")
    res["count"] = read.load(plain).count()
    r = spark.read.format("pqcore").option("filter", "g = 1 and id < 1500").load(plain) \
        .selectExpr("count(*) as n", "sum(id) as s").first()
    res["filter_option"] = [r.n, r.s]
    res["groups"] = sorted([row.g, row.n] for row in spark.read.format("pqcore").load(plain)
                           .filter("id >= 2000").groupBy("g").agg({"*": "count"}).withColumnRenamed("count(1)", "n")
                           .collect())
    part = os.path.join(out, "partitioned")
    spark.read.format("pqcore").load(plain).write.format("pqcore").mode("overwrite") \
        .option("partitionBy", "g").save(part)
    r = spark.read.format("pqcore").load(part).filter("g = 2").selectExpr("count(*) as n", "sum(id) as s").first()
    res["partitioned_g2"] = [r.n, r.s]
    res["pqmeta"] = {lv: spark.read.format("pqmeta").option("level", lv).load(plain).count() for lv in LEVELS}
    ktk = os.path.join(out, "ktk")
    spark.read.format("pqcore").load(plain).write.format("kartothek").mode("append") \
        .option("dataset_uuid", "u").option("partition_on", "g").save(ktk)
    r = spark.read.format("kartothek").option("dataset_uuid", "u").option("predicates", '[[["g", "==", 3]]]') \
        .load(ktk).selectExpr("count(*) as n", "sum(id) as s").first()
    res["kartothek_g3"] = [r.n, r.s]
    res["skipping"] = spark_adapter.read(spark, plain, lambda d: d.filter("id < 100").groupBy().count()) \
        .collect()[0][0]
    enc = os.path.join(out, "encrypted")
    w = spark.read.format("pqcore").load(plain).write.format("pqcore").mode("overwrite")
    for k, v in ENCRYPTION.items():
        w = w.option(k, v)
    w.save(enc)
    r = spark.read.format("pqcore").options(**ENCRYPTION).load(enc).selectExpr("count(*) as n", "sum(x) as s").first()
    res["encrypted"] = [r.n, r.s]
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--master")
    ap.add_argument("--remote")
    ap.add_argument("--executor-python")
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ship", action="store_true", help="spark_adapter.ship(spark)")
    ap.add_argument("--register", action="store_true", help="spark_adapter.register(spark)")
    args = ap.parse_args()
    spark = session(args)
    try:
        import spark_adapter

        if args.ship:
            spark_adapter.ship(spark)
        if args.register:
            spark_adapter.register(spark)
        result = {"workers": worker_view(spark), **run(spark, args.data, args.out)}
    finally:
        spark.stop()
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
