"""Each data source's one option parser: typed, frozen, unknown names refused with the valid ones
listed (no Spark session: the parsers import no pyspark)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from spark_adapter.kartothek.options import read_options as ktk_read, write_options as ktk_write
from spark_adapter.pqcore.options import read_options, write_options
from spark_adapter.pqmeta.options import meta_options


def test_pqcore_read_options_typed():
    # Spark lower-cases names; a plain dict may use any case
    opts = read_options({"path": "/t", "batchSize": "10", "MERGESCHEMA": "true", "minpartitions": "3",
                         "partitionColumnTypeInference": "False", "parquet.encryption.footer.key": "k",
                         "skipping.md_base": "/md", "filter": "a > 1"})
    assert opts.paths == ("/t",) and opts.batch_size == 10 and opts.merge_schema
    assert opts.min_partitions == 3 and not opts.partition_type_inference
    assert opts.encryption == {"parquet.encryption.footer.key": "k"} and opts.skipping_md_base == "/md"
    assert opts.filter_texts() == {"filter": "a > 1", "filters": None}
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.batch_size = 1   # type: ignore[misc]
    assert pickle.loads(pickle.dumps(opts)) == opts    # Spark pickles the reader holding it
    assert read_options(opts) is opts


def test_pqcore_read_refuses_unknown_names():
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'filer'.*valid options: .*filter.*"):
        read_options({"path": "/t", "filer": "a > 1"})
    with pytest.raises(ValueError, match="must be true or false"):
        read_options({"path": "/t", "mergeschema": "yes"})
    with pytest.raises(ValueError, match="positive integer"):
        read_options({"path": "/t", "batchsize": "0"})


def test_pqcore_write_options():
    opts = write_options({"path": "/o", "rowGroupSize": "10", "compression": "zstd", "partitionby": "a,b",
                          "parquet.encryption.footer.key": "k"})
    assert opts.engine == {"row_group_size": 10, "compression": "zstd"}
    assert opts.partition_by == ("a", "b") and opts.encryption == {"parquet.encryption.footer.key": "k"}
    with pytest.raises(ValueError, match="unknown write option 'compresion'"):
        write_options({"path": "/o", "compresion": "zstd"})
    with pytest.raises(ValueError, match="no path"):
        write_options({})


def test_pqmeta_options():
    opts = meta_options({"path": "/t", "level": "Column", "checkLevel": "pages", "filesPerTask": "2"})
    assert (opts.level, opts.check_level, opts.files_per_task, opts.mode) == ("column", "pages", 2, "permissive")
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'prob'.*probe"):
        meta_options({"path": "/t", "prob": "x"})
    with pytest.raises(ValueError, match="unknown level 'pages'"):
        meta_options({"level": "pages"})
    with pytest.raises(ValueError, match="mode must be one of"):
        meta_options({"mode": "lenient"})


def test_kartothek_options():
    opts = ktk_read({"path": "/s", "datasetUuid": "u", "predicates": '[["P", "==", 2]]', "batchsize": "5"})
    assert (opts.path, opts.dataset_uuid, opts.batch_size) == ("/s", "u", 5)
    assert opts.predicates == [[["P", "==", 2]]]          # one conjunction wrapped
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'partition_on'"):
        ktk_read({"path": "/s", "dataset_uuid": "u", "partition_on": "P"})    # a write option
    w = ktk_write({"path": "/s", "dataset_uuid": "u", "partitionon": "P,L", "secondary_indices": '["C"]',
                   "row_group_size": "7", "metadata": '{"a": 1}'})
    assert w.partition_on == ("P", "L") and w.secondary_indices == ("C",)
    assert w.engine == {"row_group_size": 7} and w.metadata == {"a": 1}
    with pytest.raises(ValueError, match="unknown write option 'bogus'"):
        ktk_write({"path": "/s", "dataset_uuid": "u", "bogus": "1"})


def test_spark_table_properties_pass():
    """CREATE TABLE ... USING pqcore: Spark adds the table's reserved properties to the options."""
    extra = {"provider": "pqcore", "location": "file:/x", "owner": "me"}
    assert read_options({"path": "/t", **extra}).paths == ("/t",)
    assert write_options({"path": "/o", **extra}).engine == {}
    assert meta_options({"path": "/t", **extra}).level == "file"


def test_encryption_option_names_checked():
    with pytest.raises(ValueError, match=r"'parquet.encryption.footer.kye'.*parquet.encryption.footer.key"):
        read_options({"path": "/t", "parquet.encryption.footer.kye": "k"})
    with pytest.raises(ValueError, match="unknown option"):
        write_options({"path": "/o", "parquet.encryption.colum.keys": "k:a"})
    with pytest.raises(ValueError, match="unknown option"):
        meta_options({"path": "/t", "parquet.encryption.footerkey": "k"})
    with pytest.raises(ValueError, match="not supported"):
        ktk_write({"path": "/s", "dataset_uuid": "u", "parquet.encryption.footer.key": "k"})


@pytest.mark.parametrize("word", ["yes", "no", "1", "0", "on", "maybe"])
def test_one_boolean_vocabulary_for_every_option(word):
    """Spark reads its boolean options as true/false only; so do the read, write and key options
    (write_page_index=yes was once accepted while mergeSchema=yes was refused)."""
    from spark_adapter.core.crypto_options import encryption_from_options
    with pytest.raises(ValueError, match="must be true or false"):
        read_options({"path": "/t", "mergeschema": word})
    with pytest.raises(ValueError, match="must be true or false"):
        write_options({"path": "/t", "write_page_index": word})
    with pytest.raises(ValueError, match="must be true or false"):
        encryption_from_options({"parquet.encryption.footer.key": "0123456789012345",
                                 "parquet.encryption.plaintext.footer": word})


def test_boolean_options_ignore_case_and_blanks():
    assert read_options({"path": "/t", "mergeSchema": " TRUE "}).merge_schema
