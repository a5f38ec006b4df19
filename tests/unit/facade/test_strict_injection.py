"""The validator behind ``strict=True`` is injected, never a global written from above.

``pc.ParquetFile`` / ``pc.ParquetDataset`` / ``pc.read_*`` are ``parquet_core.entry``'s: the
file and dataset layers' classes and functions with the validator named in a subclass body
and the classes handed down explicitly.  Every public entry refuses a file that breaks a
rule; the layers' own classes are left as they were defined, whatever was read.
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquet_core as pc
from tests.interop.footer_edit import edit_footer

ROOT = Path(__file__).resolve().parents[3]


def _pyarrow_file() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"a": pa.array([1, 2, 3], pa.int64())}), buf)
    return buf.getvalue()


@pytest.fixture()
def broken(tmp_path: Path) -> tuple[str, str]:
    """A file whose footer claims 5 rows where its one row group holds 3 (the spec's
    FileMetaData.num_rows is the file's number of rows), alone and in a folder."""
    data = edit_footer(_pyarrow_file(), lambda m: setattr(m, "num_rows", 5))
    path = tmp_path / "broken.parquet"
    path.write_bytes(data)
    folder = tmp_path / "ds" / "year=2024"
    folder.mkdir(parents=True)
    (folder / "part-0.parquet").write_bytes(data)
    return str(path), str(tmp_path / "ds")


def test_lenient_reads_take_the_file(broken: tuple[str, str]) -> None:
    path, folder = broken
    assert pc.read_table(path).column("a").to_pylist() == [1, 2, 3]
    assert pc.read_table(folder).num_rows == 3


STRICT_ENTRIES = {
    "ParquetFile": lambda path, folder: pc.ParquetFile(path, strict=True),
    "ParquetFile(options=)": lambda path, folder: pc.ParquetFile(path, options=pc.ReaderOptions(strict=True)),
    "read_table(file)": lambda path, folder: pc.read_table(path, strict=True),
    "read_table(bytes)": lambda path, folder: pc.read_table(Path(path).read_bytes(), strict=True),
    "read_table(folder)": lambda path, folder: pc.read_table(folder, strict=True),
    "read_pandas": lambda path, folder: pc.read_pandas(path, strict=True),
    "ParquetDataset": lambda path, folder: pc.ParquetDataset(folder, strict=True).read(),
    "ParquetDataset(file)": lambda path, folder: pc.ParquetDataset(path, strict=True).read(),
    "read_metadata": lambda path, folder: pc.read_metadata(path, options=pc.ReaderOptions(strict=True)),
    "read_schema": lambda path, folder: pc.read_schema(path, options=pc.ReaderOptions(strict=True)),
}


@pytest.mark.parametrize("entry", sorted(STRICT_ENTRIES))
def test_every_public_entry_validates(entry: str, broken: tuple[str, str]) -> None:
    with pytest.raises(pc.ParquetFormatError, match="footer.num-rows"):
        STRICT_ENTRIES[entry](*broken)


def test_files_a_dataset_opens_are_the_public_class(broken: tuple[str, str]) -> None:
    path, folder = broken
    ds = pc.ParquetDataset(folder)
    with ds.open_fragment(ds.fragments[0]) as pf:
        assert isinstance(pf, pc.ParquetFile)
    with pc.ParquetFile(path) as pf:
        assert type(pf) is pc.ParquetFile
    assert pc.ParquetDataset.file_class is pc.ParquetFile


def test_the_layers_classes_are_never_written() -> None:
    # a fresh process: after every public entry read strictly, the file and dataset layers'
    # classes are as defined (no validator, no file class other than their own)
    code = """
import io, sys, tempfile, os
import parquet_core as pc
folder = tempfile.mkdtemp()
path = os.path.join(folder, "f.parquet")
pc.write_table({"a": [1, 2]}, path)
pc.ParquetFile(path, strict=True).read()
pc.read_table(path, strict=True)
pc.read_table(folder, strict=True)
pc.ParquetDataset(folder, strict=True).read()
pc.read_metadata(path, options=pc.ReaderOptions(strict=True))
import parquet_core.file.reader as reader, parquet_core.dataset.dataset as dataset
assert reader.ParquetFile.strict_validator is None, reader.ParquetFile.strict_validator
assert dataset.ParquetDataset.file_class is reader.ParquetFile
assert "strict_validator" not in vars(reader.ParquetFile) or vars(reader.ParquetFile)["strict_validator"] is None
assert pc.ParquetFile is not reader.ParquetFile and issubclass(pc.ParquetFile, reader.ParquetFile)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert out.stdout.strip() == "ok", out.stderr


SEAMS = {"strict_validator", "file_class"}


def test_no_code_writes_the_seams_outside_a_class_body() -> None:
    """``X.strict_validator = ...`` / ``X.file_class = ...`` / ``setattr(X, "file_class", ...)``
    anywhere in the package would make the seam a global again: only class bodies set them."""
    found = []
    for path in sorted((ROOT / "parquet_core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr in SEAMS:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                    and node.args[1].value in SEAMS):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_asking_for_parquet_file_loads_no_dataset_layer_nor_validator() -> None:
    code = ("import sys, parquet_core as pc\npc.ParquetFile\n"
            "print(sorted(m for m in sys.modules if m.startswith(('parquet_core.dataset', "
            "'parquet_core.validation', 'parquet_core.entry.dataset'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert out.stdout.strip() == "[]", out.stderr
