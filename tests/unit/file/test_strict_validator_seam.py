"""``strict=True`` asks ``ParquetFile.strict_validator``: the file layer's one seam for the
validator, which sits above it.  A subclass names its validator in its class body
(``pc.ParquetFile`` the package's, see tests/unit/facade/test_strict_injection.py); the
file layer's own class has none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.errors import UnsupportedFeatureError
from parquet_core.file.reader import ParquetFile


@pytest.fixture()
def small_file(tmp_path: Path) -> str:
    path = tmp_path / "f.parquet"
    pc.write_table({"a": [1, 2, 3]}, str(path))
    return str(path)


def test_a_subclass_brings_its_own_validator(small_file: str) -> None:
    seen: list[tuple[str, object]] = []

    def record(source: object, level: str, decryption: object) -> None:
        seen.append((level, decryption))

    class Recorded(ParquetFile):
        strict_validator = record       # a plain function: read on the class, never bound

    with Recorded(small_file, strict=True) as pf:
        assert seen == [("footer", None)]          # on opening
        assert pf.read().column("a").to_pylist() == [1, 2, 3]
        pf.read()
    assert seen == [("footer", None), ("data", None)]   # once per level


def test_a_validator_that_refuses_stops_the_open(small_file: str) -> None:
    def refuse(source: object, level: str, decryption: object) -> None:
        raise pc.ParquetFormatError(f"refused at {level}")

    class Refusing(ParquetFile):
        strict_validator = refuse

    with pytest.raises(pc.ParquetFormatError, match="refused at footer"):
        Refusing(small_file, strict=True)
    with Refusing(small_file) as pf:               # not strict: never asked
        assert pf.read().num_rows == 3


def test_without_a_validator_strict_is_refused(small_file: str) -> None:
    class Unchecked(ParquetFile):
        strict_validator = None

    with pytest.raises(UnsupportedFeatureError, match="strict=True needs the validator"):
        Unchecked(small_file, strict=True)
    with pytest.raises(UnsupportedFeatureError, match="open the file as parquet_core.ParquetFile"):
        ParquetFile(small_file, strict=True)      # the file layer's class brings none
    with Unchecked(small_file) as pf:
        assert pf.read().num_rows == 3


def test_strict_dataset_reads_use_the_same_seam(tmp_path: Path) -> None:
    # the files a dataset opens are ParquetFiles: a broken rule is refused there too
    folder = tmp_path / "ds"
    folder.mkdir()
    pc.write_table({"a": [1, 2]}, str(folder / "part-0.parquet"))
    assert pc.read_table(str(folder), strict=True).column("a").to_pylist() == [1, 2]
    assert pc.ParquetDataset(str(folder), strict=True).read().num_rows == 2
