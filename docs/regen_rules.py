"""Regenerate the rule table and count line of docs/guide/check.md (run from a checkout root).

``python docs/regen_rules.py``: the table between ``<!-- rules:start -->`` and
``<!-- rules:end -->`` becomes ``parquet_core.validation.rules_table()``, and the sentence
"The rules (N: E errors, W warnings, I infos)" is recounted. ``tests/check/test_check_cli.py``
and the docs build (docs/hooks.py) fail while the page is stale.
"""

import re
import sys
from pathlib import Path

sys.path.insert(0, ".")

from parquet_core.validation import RULES, rules_table  # noqa: E402

PAGE = Path("docs/guide/check.md")


def main() -> None:
    s = PAGE.read_text(encoding="utf-8")
    a = s.index("<!-- rules:start -->") + len("<!-- rules:start -->")
    b = s.index("<!-- rules:end -->")
    s = s[:a] + "\n" + rules_table() + "\n" + s[b:]
    sev = [r.severity for r in RULES.values()]
    s = re.sub(r"The rules \(\d+: \d+ errors, \d+ warnings, \d+ infos\)",
               f"The rules ({len(sev)}: {sev.count('error')} errors, {sev.count('warning')} warnings, "
               f"{sev.count('info')} infos)", s)
    PAGE.write_text(s, encoding="utf-8")
    print(len(sev), "rules")


if __name__ == "__main__":
    main()
