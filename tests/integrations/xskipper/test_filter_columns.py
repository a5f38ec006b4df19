"""Skipping that would quietly do nothing (issue 30, item 6): a metadata folder that is not
there and a filter column the dataset does not have are errors; a column the dataset has
but no index covers is warned about (the file list stays right: it just skips nothing)."""

from __future__ import annotations

import os
import warnings

import pytest

import parquet_core as pc
from parquet_core_integrations.xskipper import Xskipper, XskipperIndexError
from spark_adapter.core.skipping import required_files, skipping_report

c = pc.col


@pytest.fixture
def indexed(tmp_path):
    root = tmp_path / "data"
    for day, temps, cities in [("2024-01-01", [10.0, 20.0], ["x", "y"]), ("2024-01-02", [41.0, 50.0], ["z", "z"])]:
        os.makedirs(root / f"dt={day}")
        pc.write_table({"temp": temps, "city": cities}, str(root / f"dt={day}" / "f.parquet"))
    base = str(tmp_path / "md")
    Xskipper(None, str(root), base).index_builder().add_min_max_index("temp").build()
    return str(root), base


def _names(paths):
    return sorted(os.path.relpath(p).split(os.sep)[-2] for p in paths)


def test_the_index_skips(indexed):
    root, base = indexed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _names(required_files(root, base, c("temp") > 40)) == ["dt=2024-01-02"]
        assert skipping_report(root, base, c("temp") > 40)["skipped"] == 1


@pytest.mark.parametrize("call", [required_files, skipping_report])
def test_a_metadata_base_that_does_not_exist_is_an_error(indexed, tmp_path, call):
    root, _ = indexed
    with pytest.raises(XskipperIndexError, match="metadata base .*no/such/md does not exist"):
        call(root, str(tmp_path / "no" / "such" / "md"), c("temp") > 40)


@pytest.mark.parametrize("call", [required_files, skipping_report])
def test_a_dataset_not_indexed_under_the_base_is_an_error(indexed, tmp_path, call):
    _, base = indexed
    other = tmp_path / "other"
    other.mkdir()
    pc.write_table({"temp": [1.0]}, str(other / "f.parquet"))
    with pytest.raises(XskipperIndexError, match="has no xskipper index under"):
        call(str(other), base, c("temp") > 40)


@pytest.mark.parametrize("call", [required_files, skipping_report])
def test_a_misspelt_column_is_an_error(indexed, call):
    root, base = indexed
    with pytest.raises(XskipperIndexError, match="'tmep', which dataset .* does not have"):
        call(root, base, c("tmep") > 40)
    with pytest.raises(XskipperIndexError, match="'tmep'"):
        call(root, base, [("tmep", ">", 40)])
    with pytest.raises(XskipperIndexError, match="'tmep'"):
        Xskipper(None, root, base).required_files((c("temp") > 40) | (c("tmep") > 40))


def test_a_column_no_index_covers_is_warned_about(indexed):
    root, base = indexed
    with pytest.warns(UserWarning, match="no index of .* covers 'city'"):
        files = required_files(root, base, (c("temp") > 40) & (c("city") == "z"))
    assert _names(files) == ["dt=2024-01-02"]      # temp still skips, city cannot
    with pytest.warns(UserWarning, match="covers 'city'"):
        assert len(Xskipper(None, root, base).required_files(c("city") == "q")) == 2
    # the partition value of a v4 store covers its column: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _names(required_files(root, base, c("dt") == "2024-01-01")) == ["dt=2024-01-01"]


def test_no_predicate_reads_every_file(indexed, tmp_path):
    root, _ = indexed
    assert len(required_files(root, str(tmp_path / "anything"), None)) == 2
