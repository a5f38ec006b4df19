"""What ``check`` returns: a :class:`CheckReport` holding :class:`Finding` s."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from parquet_core.validation.rules import ERROR, WARNING

__all__ = ["Finding", "CheckReport"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem (or remark) about a file, located as precisely as known.

    ``row_group``, ``column`` (dotted leaf path), ``page`` (ordinal within
    the column chunk, the dictionary page being 0 when there is one) and
    ``offset`` (file byte offset) are None when they do not apply.
    """

    severity: str
    rule: str
    message: str
    spec: str
    row_group: int | None = None
    column: str | None = None
    page: int | None = None
    offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The finding as the ``--json`` output spells it."""
        return asdict(self)

    def __str__(self) -> str:
        where = [f"{k.replace('_', ' ')} {v}" for k, v in (
            ("row_group", self.row_group), ("column", self.column), ("page", self.page),
            ("offset", self.offset)) if v is not None]
        loc = f" [{', '.join(where)}]" if where else ""
        return f"{self.severity}: {self.rule}{loc}: {self.message} ({self.spec})"


@dataclass
class CheckReport:
    """The findings about one file.

    ``readable`` is False when not even the footer could be decoded (the
    ``pqc check`` exit status is then 2).
    """

    file: str | None
    level: str
    findings: list[Finding] = field(default_factory=list)
    readable: bool = True

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    @property
    def ok(self) -> bool:
        """True when the file could be read and no finding is an error."""
        return self.readable and not self.errors

    def rules(self, severity: str | None = None) -> set[str]:
        """The ids of the rules found (of one severity, if given)."""
        return {f.rule for f in self.findings if severity is None or f.severity == severity}

    def to_dict(self) -> dict[str, Any]:
        """``{"file", "ok", "findings": [...]}``, as ``pqc check --json`` prints it."""
        return {"file": self.file, "ok": self.ok, "level": self.level, "readable": self.readable,
                "findings": [f.to_dict() for f in self.findings]}

    def __str__(self) -> str:
        head = (f"{self.file or '<buffer>'}: {'OK' if self.ok else 'FAILED'} ({len(self.errors)} errors, "
                f"{len(self.warnings)} warnings, level {self.level})")
        return "\n".join([head] + [f"  {f}" for f in self.findings])
