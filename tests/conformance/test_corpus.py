"""Every unencrypted file of the Apache parquet-testing corpus, value for value.

The oracle is pyarrow; the ``*_expect.csv`` files and the documented INT96
values are checked too.  Nested columns (lists, maps, structs) are compared
twice: as Python values (``to_pylist``) and as Arrow arrays (``to_arrow``,
type and values).  ``incorrect_map_schema.parquet``, which pyarrow refuses,
is compared with duckdb (``test_nested_corpus.py``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import parquet_core as pc
from tests._support.corpus import CORRUPT_CHECKSUM, FILES, INT96_FILE, ORACLE_CANNOT_READ
from tests._support.corpus import flat_columns as _flat_columns
from tests.conformance.oracle import assert_column_matches, assert_nested_matches

pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is the oracle for conformance tests")
pa = pytest.importorskip("pyarrow")



def test_corpus_present(corpus: Path) -> None:
    """The corpus is where the tests expect it, with its flat files."""
    assert len(FILES) > 60


@pytest.mark.parametrize("name", [f for f in FILES if f not in ORACLE_CANNOT_READ and f != INT96_FILE])
def test_matches_pyarrow(corpus: Path, name: str) -> None:
    path = corpus / name
    verify = Path(name).name not in CORRUPT_CHECKSUM
    flat, nested = _flat_columns(path)
    if flat:
        ours = pc.read_table(path, columns=flat, page_checksum_verification=verify)
        theirs = pq.read_table(path, columns=flat)
        assert ours.num_rows == theirs.num_rows
        assert ours.column_names == flat
        for col in flat:
            assert_column_matches(ours.column(col), theirs.column(col), f"{name}:{col}")
    if nested:
        ours = pc.read_table(path, columns=nested, page_checksum_verification=verify)
        theirs = pq.read_table(path, columns=nested)
        assert ours.column_names == nested
        mine = ours.to_arrow()
        for col in nested:
            a, b = mine.column(col).combine_chunks(), theirs.column(col).combine_chunks()
            assert a.type == b.type, f"{name}:{col}: {a.type} != {b.type}"
            assert a.equals(b), f"{name}:{col}: Arrow values differ"
            try:
                expected = b.to_pylist()
            except OverflowError:  # a datetime pyarrow cannot make; the Arrow comparison stands
                continue
            assert_nested_matches(ours.column(col).to_pylist(), expected, f"{name}:{col}")


def test_int96_from_spark_exact(corpus: Path) -> None:
    """INT96 values far outside datetime's range come back exactly (no wrap-around)."""
    expected_us = [1704141296123456, 1704070800000000, 253402225200000000,
                   1735599600000000, None, 9089380393200000000]
    table = pc.read_table(corpus / INT96_FILE)
    got = []
    for v in table.column("a").to_pylist():
        if v is None:
            got.append(None)
        elif isinstance(v, pc.RawTemporal):
            assert v.value % 1000 == 0
            got.append(v.to("us"))
        else:
            import datetime as dt
            got.append((v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1))
    assert got == expected_us


@pytest.mark.parametrize("name", sorted(CORRUPT_CHECKSUM))
def test_corrupt_checksum_raises_by_default(corpus: Path, name: str) -> None:
    with pytest.raises(pc.ParquetFormatError, match="CRC") as info:
        pc.read_table(corpus / name)
    notes = " ".join(getattr(info.value, "__notes__", []))
    assert "row group 0" in notes and "page" in notes and "column" in notes


@pytest.mark.parametrize("stem", ["delta_binary_packed", "delta_byte_array",
                                  "delta_encoding_optional_column",
                                  "delta_encoding_required_column"])
def test_expect_csv(corpus: Path, stem: str) -> None:
    """Compare with the corpus' own expected-values CSV."""
    table = pc.read_table(corpus / f"{stem}.parquet")
    with open(corpus / f"{stem}_expect.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    assert table.num_rows == len(body)
    # The CSV headers differ in spelling from the Parquet names; match by position.
    assert len(header) == table.num_columns
    for j in range(len(header)):
        col = table.column(j).to_pylist()
        name = table.column_names[j]
        for i, row in enumerate(body):
            text = row[j]
            v = col[i]
            if v is None:
                assert text == "", (stem, name, i)
            elif isinstance(v, str):
                assert v == text, (stem, name, i)
            else:
                assert v == int(text), (stem, name, i, v, text)


@pytest.mark.parametrize("name", ["encrypt_columns_plaintext_footer.parquet.encrypted",
                                  "uniform_encryption.parquet.encrypted"])
def test_encrypted_files_fail_with_encryption_error(corpus: Path, name: str) -> None:
    """Until modular encryption lands (issue 6), encrypted data is refused clearly."""
    with pytest.raises(pc.ParquetEncryptionError):
        pf = pc.ParquetFile(corpus / name)
        pf.read(columns=["float_field"])
