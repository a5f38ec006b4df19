"""The README is the short front page: its Python example runs and its links lead into docs/."""

from __future__ import annotations

import re

from tests.docs.doc_examples import ROOT

README = ROOT / "README.md"


def test_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 250


def test_readme_links_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        assert (ROOT / link).is_file(), f"README links to {link}, which is not there"


def test_readme_python_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = README.read_text(encoding="utf-8")
    code = re.search(r"## Python in one screen\n\n```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(code, str(README), "exec"), scope)
    assert scope["table"].to_pylist() == [{"id": 3, "name": "c"}]
