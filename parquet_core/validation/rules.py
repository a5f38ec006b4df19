"""The rule registry: every rule ``pqc check`` can report, declared once.

A rule is declared at import time of the module that checks it
(:func:`rule`), with a stable id (``area.what``), a severity, the spec
section it rests on and a one-line summary.  ``pqc check --list-rules``
and the rule table of docs/guide/check.md are both generated from :data:`RULES`.

Severities:

* ``error``: the file breaks a MUST of the spec, or its metadata
  contradicts its data, so that some reader may return wrong results;
* ``warning``: legal but known to break readers, deprecated, or a writer
  bug recognised from ``created_by``;
* ``info``: worth knowing, not a problem (e.g. a part left unchecked for
  want of a key).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ERROR", "WARNING", "INFO", "Rule", "RULES", "rule", "rules_table"]

ERROR = "error"
WARNING = "warning"
INFO = "info"
_SEVERITIES = (ERROR, WARNING, INFO)


@dataclass(frozen=True, slots=True)
class Rule:
    """One check: id, default severity, spec reference and what it checks."""

    id: str
    severity: str
    spec: str
    summary: str


#: Every rule, by id, in declaration order.
RULES: dict[str, Rule] = {}


def rule(id: str, severity: str, spec: str, summary: str) -> Rule:
    """Declare a rule (once per id) and return it.

    Raises
    ------
    ValueError
        A second declaration of the same id, or an unknown severity.
    """
    if severity not in _SEVERITIES:
        raise ValueError(f"rule {id}: unknown severity {severity!r}")
    if id in RULES:
        raise ValueError(f"rule {id} is declared twice")
    RULES[id] = r = Rule(id, severity, spec, summary)
    return r


def rules_table() -> str:
    """The rules as a Markdown table (docs/guide/check.md holds this text)."""
    lines = ["| rule | severity | spec | checks |", "|---|---|---|---|"]
    for r in sorted(RULES.values(), key=lambda r: r.id):
        lines.append(f"| `{r.id}` | {r.severity} | {r.spec} | {r.summary} |")
    return "\n".join(lines)
