"""Typed values of Spark option strings, and the check of option names.

Spark hands a Python data source its ``.option(...)`` pairs as a
``CaseInsensitiveDict``: every name lower-cased, every value a string.  Each
source turns them into one frozen, typed object once (its ``options.py``,
with :func:`check_names` refusing names it does not know); the helpers here
parse the values every source shares.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SPARK_TABLE_PROPERTIES", "check_names", "flag", "lowered", "positive"]

#: what Spark itself adds to a source's options for a catalog table (``CREATE TABLE ...
#: USING pqcore`` hands ``schema()`` the table's reserved properties next to its OPTIONS):
#: accepted by every source, and ignored
SPARK_TABLE_PROPERTIES = ("provider", "location", "owner", "comment", "external", "is_managed_location",
                          "collation")


def lowered(options: Mapping[str, Any] | None) -> dict[str, str]:
    """A plain ``{lower-cased name: value}`` copy (Spark's map already lower-cases names;
    a plain dict given by a test or a helper may use any case)."""
    return {str(k).lower(): v for k, v in (options or {}).items() if v is not None}


def check_names(source: str, options: Mapping[str, Any], names: Iterable[str],
                prefixes: Iterable[str] = ()) -> None:
    """Refuse an option *source* does not know, listing the ones it does.

    *names* are the documented spellings (matched without case, as Spark matches them);
    an option starting with one of *prefixes* (e.g. ``parquet.encryption.``) is left to
    the parser of that family.
    """
    known = {n.lower(): n for n in names}
    prefixes = tuple(p.lower() for p in prefixes)
    unknown = sorted(k for k in (str(k).lower() for k in options)
                     if k not in known and k not in SPARK_TABLE_PROPERTIES and not k.startswith(prefixes))
    if unknown:
        valid = sorted(known.values(), key=str.lower) + [p + "*" for p in prefixes]
        raise ValueError(f"{source}: unknown option(s) {', '.join(repr(u) for u in unknown)}; "
                         f"valid options: {', '.join(valid)}")


def parse_bool(text: Any, what: str) -> bool:
    """The one reading of a boolean option of the data sources: ``true`` or ``false``, any case,
    surrounding blanks ignored (Spark's own reading of its options: no ``yes``, ``1`` or ``on``).
    Anything else raises ``ValueError`` naming *what* (``"pqcore: option mergeSchema"``)."""
    t = str(text).strip().lower()
    if t == "true":
        return True
    if t == "false":
        return False
    raise ValueError(f"{what} must be true or false, got {text!r}")


def flag(source: str, options: Mapping[str, Any], key: str, default: bool, shown: str | None = None) -> bool:
    """A ``true``/``false`` option (see :func:`parse_bool`)."""
    raw = options.get(key)
    return default if raw is None else parse_bool(raw, f"{source}: option {shown or key}")


def positive(options: Mapping[str, Any], key: str, default: int, zero: bool = False,
             source: str = "pqcore") -> int:
    """A positive (or, with *zero*, non-negative) integer option."""
    raw = options.get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0 or (value == 0 and not zero):
        raise ValueError(f"{source}: option {key!r} must be a {'non-negative' if zero else 'positive'} "
                         f"integer, got {raw!r}")
    return value
