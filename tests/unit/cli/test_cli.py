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


def test_the_parser_is_built_once_per_process(monkeypatch, capsys) -> None:
    """``main`` builds its parser once (the fuzzer calls it once per mutant), and a parse
    leaves it as it was: a list default filled by one command line is empty in the next."""
    from parquet_core import cli

    built = []
    real = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: built.append(1) or real())
    cli._parser.cache_clear()
    try:
        assert main(["schema", sample_path()]) == 0
        assert main(["meta", sample_path()]) == 0
        assert built == [1]
        parser = cli._parser()
        assert parser.parse_args(["bloom-filter", "--probe", "7", "f.parquet"]).probe == ["7"]
        assert parser.parse_args(["bloom-filter", "f.parquet"]).probe == []
    finally:
        cli._parser.cache_clear()
    capsys.readouterr()
