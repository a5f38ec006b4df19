"""``pqc`` on folders, globs and URLs: every command that takes FILE takes what
``read_table`` takes (issues 17 and 19).  Files are written by pyarrow; what
each command reports is compared with pyarrow's view of the same files."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from parquet_core.cli import main
from tests._support.s3 import s3_options


def _lake(root) -> list[str]:  # type: ignore[no-untyped-def]
    """Three data files in Hive folders, plus the litter Spark and Hadoop leave."""
    paths = []
    for k, year in enumerate((2023, 2024, 2024)):
        folder = root / f"year={year}"
        folder.mkdir(exist_ok=True)
        path = folder / f"part-{k}.parquet"
        pq.write_table(pa.table({"id": list(range(k * 10, k * 10 + 5 + k)), "s": [f"x{k}"] * (5 + k)}),
                       path, row_group_size=4)
        paths.append(str(path))
    (root / "_SUCCESS").write_bytes(b"")
    (root / "year=2023" / ".part-0.parquet.crc").write_bytes(b"crc")
    (root / "_temporary").mkdir()
    (root / "_temporary" / "junk.parquet").write_bytes(b"not parquet")
    return sorted(paths)


def _lines(capsys) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]


def test_check_a_folder_reports_each_data_file_and_skips_litter(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    files = _lake(tmp_path)
    assert main(["check", str(tmp_path), "--json"]) == 0
    reports = _lines(capsys)
    assert [r["file"] for r in reports] == files
    assert all(r["ok"] for r in reports)


def test_check_a_glob_and_a_missing_path(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    files = _lake(tmp_path)
    missing = str(tmp_path / "nope")
    assert main(["check", str(tmp_path / "year=2024" / "*.parquet"), missing, "--json"]) == 2
    reports = _lines(capsys)
    assert [r["file"] for r in reports] == files[1:] + [missing]
    assert reports[-1]["ok"] is False


def test_meta_json_and_cat_over_a_folder(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    files = _lake(tmp_path)
    assert main(["meta", str(tmp_path), "--json"]) == 0
    metas = _lines(capsys)
    assert [m["file"] for m in metas] == files
    assert [m["num_rows"] for m in metas] == [pq.ParquetFile(f).metadata.num_rows for f in files]
    assert main(["cat", str(tmp_path), "--json"]) == 0
    rows = _lines(capsys)
    # a folder is read as the dataset it is: its partition column included, as pyarrow reads it
    expected = pq.read_table(str(tmp_path)).to_pylist()
    assert rows == expected and {r["year"] for r in rows} == {2023, 2024}
    assert main(["head", str(tmp_path), "--json", "-n", "7", "--columns", "id,year"]) == 0
    assert _lines(capsys) == [{"id": r["id"], "year": r["year"]} for r in expected[:7]]
    assert main(["cat", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        ", ".join(f"{k}={json.dumps(v)}" for k, v in r.items()) for r in expected]
    # a glob names files: each file's own rows, as before
    assert main(["cat", str(tmp_path / "year=2024" / "*.parquet"), "--json"]) == 0
    assert _lines(capsys) == [r for f in files[1:] for r in pq.read_table(f).to_pylist()]


def test_cat_of_a_folder_whose_folder_disagrees_with_its_file_is_refused(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A folder read as a dataset gets the dataset's checks: here a file storing ``year``
    under a folder ``year=2023`` that says otherwise."""
    (tmp_path / "year=2023").mkdir()
    pq.write_table(pa.table({"id": [1], "year": [2024]}), tmp_path / "year=2023" / "a.parquet")
    assert main(["cat", str(tmp_path), "--json"]) == 1
    err = capsys.readouterr().err
    assert "a.parquet" in err and "year" in err


def test_chunk_commands_over_a_folder(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    files = _lake(tmp_path)
    assert main(["pages", str(tmp_path), "--json", "--columns", "id"]) == 0
    chunks = _lines(capsys)
    expected = [(f, rg) for f in files for rg in range(pq.ParquetFile(f).metadata.num_row_groups)]
    assert [(c["file"], c["row_group"]) for c in chunks] == expected
    assert main(["column-size", str(tmp_path), "--json"]) == 0
    assert [c["file"] for c in _lines(capsys)] == files
    assert main(["footer", str(tmp_path), "--json"]) == 0
    assert len(_lines(capsys)) == len(files)


def test_an_empty_folder_is_an_error(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "empty").mkdir()
    assert main(["pages", str(tmp_path / "empty")]) == 1
    assert "no Parquet data files" in capsys.readouterr().err


def test_memory_urls(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    fsspec = pytest.importorskip("fsspec")
    files = _lake(tmp_path)
    fs = fsspec.filesystem("memory")
    for k, f in enumerate(files):
        fs.pipe(f"/pqc-cli/t/part-{k}.parquet", open(f, "rb").read())
    fs.pipe("/pqc-cli/t/_SUCCESS", b"")
    assert main(["check", "memory://pqc-cli/t", "--json"]) == 0
    assert [r["file"] for r in _lines(capsys)] == [f"memory:///pqc-cli/t/part-{k}.parquet" for k in range(3)]
    assert main(["cat", "memory://pqc-cli/t/part-1.parquet", "--json"]) == 0
    assert _lines(capsys) == pq.read_table(files[1]).to_pylist()


def test_s3_with_storage_options(tmp_path, capsys, s3_server) -> None:  # type: ignore[no-untyped-def]
    import s3fs

    files = _lake(tmp_path)
    opts = s3_options(s3_server)
    fs = s3fs.S3FileSystem(**opts)
    for k, f in enumerate(files):
        fs.put(f, f"test-bucket/pqc-cli/part-{k}.parquet")
    flags = [x for key, value in opts.items() for x in ("--storage-option", f"{key}={json.dumps(value)}")]
    assert main(["check", "s3://test-bucket/pqc-cli", "--json", *flags]) == 0
    reports = _lines(capsys)
    assert [os.path.basename(r["file"]) for r in reports] == [f"part-{k}.parquet" for k in range(3)]
    assert all(r["file"].startswith("s3://") and r["ok"] for r in reports)
    assert main(["head", "s3://test-bucket/pqc-cli/part-2.parquet", "--json", "-n", "3", *flags]) == 0
    assert _lines(capsys) == pq.read_table(files[2]).to_pylist()[:3]
    assert main(["offset-index", "s3://test-bucket/pqc-cli/part-0.parquet", "--json", *flags]) == 0
    assert len(_lines(capsys)) == 2 * pq.ParquetFile(files[0]).metadata.num_row_groups
