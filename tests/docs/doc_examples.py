"""The docs pages' examples, as the test suite runs them.

A page (``docs/**/*.md``) is a sequence of blocks, run in order in one namespace, in an
empty temporary folder:

* ``<!-- docs-setup: ... -->``: Python hidden from the reader (an HTML comment) that makes
  the small files the page's examples read;
* a fenced ```` ```python ```` block: an example, run as written;
* a fenced ```` ```console ```` block: each ``$ pqc ...`` line is run through
  ``parquet_core.cli.main`` and must exit 0, or with the status a following
  ``$ echo $?`` line shows;
* a block right after ``<!-- docs: spark -->`` needs a SparkSession (``spark`` in its
  namespace): it runs only in the spark set (``tests/spark/test_docs_spark_examples.py``).

Other fences (``bash``, ``text``, ...) are shown, not run. The README's one-screen examples
are found by ``readme_block`` and run by ``tests/docs/test_readme_front_page.py`` (Python, CLI) and
``tests/spark/test_docs_spark_examples.py`` (Spark).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

_TOKEN = re.compile(
    r"<!-- docs-setup:\n(?P<setup>.*?)\n-->"
    r"|(?P<marker><!-- docs: (?P<mark>[a-z-]+) -->\n)?^```(?P<lang>[a-z]+)[^\n]*\n(?P<code>.*?)^```",
    re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    kind: str        # "setup", "python", "console"
    code: str
    spark: bool = False


def readme_block(section: str, lang: str) -> Block:
    """The first ``lang`` fence of the README's ``## section``, as the docs runner sees it."""
    text = README.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(section)}\n.*?^```{lang}\n(.*?)^```", text, re.S | re.M)
    assert m, f"README has no ```{lang} block under '## {section}'"
    return Block("README.md", text.count("\n", 0, m.start(1)), lang, m.group(1))


def pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md"))


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    name = str(page.relative_to(ROOT))
    out = []
    for m in _TOKEN.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group("setup") is not None:
            out.append(Block(name, line, "setup", m.group("setup") + "\n"))
        elif m.group("lang") in ("python", "console"):
            mark = m.group("mark")
            if mark not in (None, "spark"):
                raise ValueError(f"{name}:{line}: unknown docs marker {mark!r}")
            out.append(Block(name, line + (1 if mark else 0), m.group("lang"), m.group("code"),
                             spark=mark == "spark"))
    return out


def example_pages(spark: bool) -> list[Path]:
    """Pages with runnable blocks (with a spark block when *spark*)."""
    found = []
    for p in pages():
        bs = blocks(p)
        if any(b.kind != "setup" and b.spark == spark for b in bs) or (not spark and any(
                b.kind != "setup" for b in bs)):
            found.append(p)
    return found


def run_console(block: Block) -> None:
    from parquet_core.cli import main

    lines = block.code.splitlines()
    commands = [(i, ln[2:]) for i, ln in enumerate(lines) if ln.startswith("$ ")]
    for k, (i, command) in enumerate(commands):
        if command == "echo $?":
            continue
        argv = shlex.split(command.split(" #")[0])
        assert argv[0] == "pqc", f"{block.page}:{block.line}: only pqc commands run: {command}"
        expected = 0
        if k + 1 < len(commands) and commands[k + 1][1] == "echo $?":
            expected = int(lines[commands[k + 1][0] + 1])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv[1:])
            except SystemExit as exc:
                status = exc.code
        assert (status or 0) == expected, (
            f"{block.page}:{block.line + i + 1}: `{command}` exited {status}, the page says "
            f"{expected}\n{out.getvalue()[-2000:]}{err.getvalue()[-2000:]}")


def run_page(page: Path, *, spark=None) -> int:
    """Run the page's blocks in order in the current folder; returns how many ran."""
    scope: dict = {"__name__": "__docs__"}
    if spark is not None:
        scope["spark"] = spark
    ran = 0
    for block in blocks(page):
        if block.spark and spark is None:
            continue
        if block.kind == "console":
            run_console(block)
        else:
            # line numbers in tracebacks are the page's
            code = "\n" * (block.line if block.kind != "setup" else block.line) + block.code
            exec(compile(code, str(ROOT / block.page), "exec"), scope)
        ran += 1
    return ran
