"""``pqc compat --quick`` over parquet_core and pyarrow: the verdicts, the JSON schema, the HTML page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from parquet_core.compat.features import QUICK

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("pyarrow")


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("compat")
    files = {k: out / f"m.{k}" for k in ("json", "html", "md")}
    proc = subprocess.run(
        [sys.executable, "-m", "parquet_core.cli", "compat", "--quick", "--readers", "pc,pyarrow", "--no-progress",
         "--json", str(files["json"]), "--html", str(files["html"]), "--markdown", str(files["md"]),
         "--keep", str(out / "files"), "--timeout", "120"],
        capture_output=True, text=True, cwd=ROOT, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    files["stdout"] = out / "stdout.txt"
    files["stdout"].write_text(proc.stdout)
    files["keep"] = out / "files"
    return files


def test_json_schema(quick: dict[str, Path]) -> None:
    doc = json.loads(quick["json"].read_text())
    assert set(doc) == {"generated", "readers", "writers", "features"}
    assert doc["generated"].endswith("+00:00")
    import pyarrow
    assert doc["readers"] == {"pc": doc["readers"]["pc"], "pyarrow": pyarrow.__version__}
    assert set(doc["writers"]) == {"pc"}
    assert [f["feature"] for f in doc["features"]] == QUICK
    for row in doc["features"]:
        assert set(row) == {"feature", "group", "description", "file", "writer", "results"}
        assert row["group"] == row["feature"].split(".")[0] and row["writer"] == "pc"
        assert Path(row["file"]).exists()                   # --keep: the JSON names each file
        assert set(row["results"]) == {"pc", "pyarrow"}
        for cell in row["results"].values():
            assert set(cell) == {"verdict", "detail", "seconds"}
            assert cell["verdict"] in ("ok", "different", "refused", "crash", "n/a")
            assert isinstance(cell["seconds"], float)


def test_verdicts(quick: dict[str, Path]) -> None:
    """Every quick feature reads back as written with parquet_core and with pyarrow 15+, which reads
    each of them (FLOAT16, nanosecond timestamps, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT on INT32 from
    16); the encrypted one is n/a for pyarrow, whose keys come only through a KMS client."""
    doc = json.loads(quick["json"].read_text())
    for row in doc["features"]:
        assert row["results"]["pc"]["verdict"] == "ok", row
        want = "n/a" if row["feature"].startswith("encryption.") else "ok"
        assert row["results"]["pyarrow"]["verdict"] == want, row
    text = quick["stdout"].read_text()
    assert "logical.FLOAT16" in text and "pyarrow" in text.splitlines()[0]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.cells: list[dict] = []
        self.buttons: list[str] = []
        self.external: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "tr" and "data-group" in a:
            self.rows.append(a)
        if tag == "td" and "title" in a:
            self.cells.append(a)
        if tag == "button":
            self.buttons.append(a.get("data-g", ""))
        if tag == "script":
            self.scripts += 1
        for k in ("src", "href"):
            if k in a:
                self.external.append(a[k])


def test_html_page(quick: dict[str, Path]) -> None:
    page = _Page()
    page.feed(quick["html"].read_text())
    assert len(page.rows) == len(QUICK)
    assert len(page.cells) == 2 * len(QUICK)
    assert all(c["class"].split()[1] in ("ok", "different", "refused", "crash", "na") for c in page.cells)
    assert all(c["title"] for c in page.cells)                 # the detail on hover
    groups = {r["data-group"] for r in page.rows}
    assert set(page.buttons) == {"all"} | groups              # one filter per group
    assert page.scripts == 1 and not page.external            # self-contained


def test_markdown(quick: dict[str, Path]) -> None:
    text = quick["md"].read_text()
    assert text.startswith("# ")
    assert "| feature | description | pc | pyarrow |" in text
    for fid in QUICK:
        assert f"| `{fid}` |" in text
