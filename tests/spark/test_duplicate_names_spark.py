"""``format("pqcore")`` on a file that gives two top-level columns one name.

The source matches columns by name, which cannot tell the two ``a`` columns apart: it must
never hand Spark one column's values under the other's name.  A name the file has once
(``b``) still reads; a duplicated one is refused with an error naming it and its positions.
Expected values come from pyarrow's ``ParquetFile.read`` of the same file.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.spark

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def dup_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dupnames") / "dup.parquet"
    table = pa.table([pa.array([1, 2, 3], pa.int32()), pa.array(["x", "y", "z"]),
                      pa.array([10.5, 20.5, 30.5])], names=["a", "b", "a"])
    pq.write_table(table, path)
    return str(path)


def _expected(path):
    return pq.ParquetFile(path).read()


def test_inferred_schema_refuses_the_duplicated_name(pqcore_spark, dup_file):
    with pytest.raises(Exception, match=r"pqcore: column name 'a' is ambiguous in .*dup.parquet: "
                                        r"2 columns have it, at positions 0, 2"):
        pqcore_spark.read.format("pqcore").load(dup_file).collect()


def test_given_schema_with_the_duplicated_name_is_refused(pqcore_spark, dup_file):
    for schema in ("a int, b string", "a double", "b string, a double"):
        with pytest.raises(Exception, match=r"column name 'a' is ambiguous in the file: 2 columns have it, "
                                            r"at positions 0, 2"):
            pqcore_spark.read.format("pqcore").schema(schema).load(dup_file).collect()


def test_a_filter_option_on_the_duplicated_name_is_refused(pqcore_spark, dup_file):
    df = pqcore_spark.read.format("pqcore").schema("b string").option("filter", "a = 2").load(dup_file)
    with pytest.raises(Exception, match=r"column name 'a' is ambiguous in the file \(a filter column\)"):
        df.collect()


def test_a_name_the_file_has_once_reads(pqcore_spark, dup_file):
    want = _expected(dup_file).column(1).to_pylist()
    df = pqcore_spark.read.format("pqcore").schema("b string").load(dup_file)
    assert [r.b for r in df.collect()] == want


def test_a_filter_on_a_name_the_file_has_once(pqcore_spark, pushdown_on, dup_file):
    t = _expected(dup_file)
    want = [b for b in t.column(1).to_pylist() if b > "x"]
    df = pushdown_on.read.format("pqcore").schema("b string").load(dup_file).where("b > 'x'")
    assert sorted(r.b for r in df.collect()) == want
