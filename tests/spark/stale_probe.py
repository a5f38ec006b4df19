"""A deliberately unsafe reader for the stale-filter test: it prunes with the filters Spark
pushes (and hands them all back, so Spark re-applies them).  Used only to show that the
scenario of the Spark notes (section 4.3) is live in the installed Spark; never registered
outside that test.  Importable by Spark's workers (the repository root is on PYTHONPATH)."""

from __future__ import annotations

from spark_adapter.pqcore.datasource import PqcoreDataSource
from spark_adapter.pqcore.reader import PqcoreReader


class PushPruningReader(PqcoreReader):
    def pushFilters(self, filters):  # noqa: N802 (Spark's name)
        from pyspark.sql.datasource import LessThan

        from spark_adapter.pqcore.scan import ScanFilter

        terms = [f"`{f.attribute[0]}` < {f.value!r}" for f in filters
                 if isinstance(f, LessThan) and len(f.attribute) == 1 and isinstance(f.value, int)]
        if terms:
            self.filter = ScanFilter({"filter": " and ".join(terms)}, self.time_zone)
        return list(filters)     # nothing claimed: Spark filters every row again


class PushPruningSource(PqcoreDataSource):
    @classmethod
    def name(cls) -> str:
        return "pqcore_push_pruning_probe"

    def reader(self, schema):
        return PushPruningReader(self.options, schema)
