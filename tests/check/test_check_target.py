"""``pqc check --target``: the compat.<reader> rules (see tests/compat for the feature detection)."""

from __future__ import annotations

from pathlib import Path

import pytest

import parquet_core as pc
from parquet_core.metadata.features import load_table

pytest.importorskip("lzallright")

RULE_OF = {"pyarrow": "compat.pyarrow", "duckdb": "compat.duckdb", "polars": "compat.polars",
           "fastparquet": "compat.fastparquet", "spark": "compat.spark"}


@pytest.mark.parametrize("reader", list(RULE_OF))
def test_lzo_file_warns_for_each_reader_that_refused_it(tmp_path: Path, reader: str) -> None:
    """None of the five readers has an LZO codec (measured: each refused codec.LZO)."""
    assert "codec.LZO" in load_table()["readers"].get(reader, {}).get("features", {}), \
        f"parquet_core/_data/compat_table.json lost its LZO measurement for {reader}"
    path = tmp_path / "lzo.parquet"
    pc.write_table({"i": [1, 2, 3]}, str(path), compression="lzo")
    report = pc.check(str(path), level="footer", targets=[reader])
    found = [f for f in report.findings if f.rule == RULE_OF[reader]]
    assert len(found) == 1 and "codec.LZO" in found[0].message and found[0].severity == "warning"
    assert report.ok
    assert not [f for f in pc.check(str(path), level="footer").findings if f.rule.startswith("compat.")]
