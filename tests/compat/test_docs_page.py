"""docs/compat.md is current with the feature catalogue (its verdicts depend on the installed
readers and are not checked; regenerate it with
``python -m parquet_core.cli compat --markdown docs/compat.md``)."""

from __future__ import annotations

import re
from pathlib import Path

from parquet_core.compat.features import FEATURES

ROOT = Path(__file__).resolve().parents[2]


def test_docs_page_lists_the_catalogue() -> None:
    text = (ROOT / "docs" / "compat.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([^`]+)` \|", text, flags=re.M)
    assert listed == list(FEATURES), (
        "docs/compat.md is stale: run python -m parquet_core.cli compat --markdown docs/compat.md "
        f"(missing {sorted(set(FEATURES) - set(listed))}, gone {sorted(set(listed) - set(FEATURES))})")
    assert "compat --markdown docs/compat.md" in text


def test_catalogue_is_large_and_well_formed() -> None:
    assert len(FEATURES) >= 100
    for fid, f in FEATURES.items():
        assert re.fullmatch(r"[a-z_]+(\.[A-Za-z0-9_]+)*", fid), fid
        assert f.description
