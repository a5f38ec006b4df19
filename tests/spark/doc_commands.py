"""The shell commands of docs/spark-deployment.md that the deployment tests run.

A block is marked by the comment ``<!-- tested: NAME -->`` on the line before its
```` ```bash ```` fence; :func:`command` returns its text, which the tests run with
``bash`` and the environment variables the document names (``SPARK_HOME``,
``PORT``, ``SERVER_PYTHON``, ``MASTER``, ``EXECUTOR_PYTHON``), so the document shows
exactly what is tested.
"""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "spark-deployment.md"


def command(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- tested: {re.escape(name)} -->\s*\n```bash\n(.*?)\n```", text, re.S)
    if m is None:
        raise LookupError(f"{DOC} has no block marked 'tested: {name}'")
    return m.group(1)
