"""The ``pqc`` console script."""

from __future__ import annotations

import subprocess
import sys

import pytest

from parquet_core.cli import main, sample_path


def test_inspect_sample(capsys) -> None:
    assert main(["inspect", "-n", "3"]) == 0
    out = capsys.readouterr().out
    assert "Parquet schema:" in out and "File metadata:" in out and "First 3 rows:" in out
    assert "item-01" in out and "decimal(9, 2)" in out


@pytest.mark.parametrize("cmd", ["schema", "meta", "head"])
def test_each_command(cmd, capsys) -> None:
    assert main([cmd, sample_path()]) == 0
    assert capsys.readouterr().out


def test_errors_are_reported_not_raised(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet PAR1")
    assert main(["meta", str(bad)]) == 1
    assert "pqc:" in capsys.readouterr().err


def test_checksum_flag(capsys, corpus) -> None:
    f = str(corpus / "datapage_v1-corrupt-checksum.parquet")
    assert main(["head", f]) == 1
    assert "CRC" in capsys.readouterr().err
    assert main(["head", "--no-verify-checksums", f]) == 0


def test_console_script_module() -> None:
    out = subprocess.run([sys.executable, "-m", "parquet_core", "schema", sample_path()],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "message schema" in out.stdout
