"""The FILE logical type: a group that locates a range of bytes.

LogicalTypes.md, "FILE" (parquet-format 24102ed5, 2026): FILE annotates a
*group* (not a leaf) whose members are found by name, case sensitively, in
any order.  Each member is optional in the schema (a group defines only the
ones it uses) and, when present, has OPTIONAL repetition::

    optional group doc (FILE) {
      optional binary uri (STRING);      where the bytes are; unset = this file
      optional int64 offset;             start of the range (>= 0)
      optional int64 size;               length of the range (>= 0)
      optional binary content_type (STRING);   MIME type of the bytes
      optional binary checksum (STRING); "<ALGORITHM>:<digest>"
      optional binary inline;            the bytes themselves
    }

The annotation carries no parameters.  In a table a FILE column is a
``struct`` whose :class:`DataType` has ``annotation="file"``; values read
back as dicts.  Resolving a value to its bytes is file IO and lives in
:mod:`parquet_core.file.file_refs`.

Edge cases: a FILE group with a member of another name or type is refused on
write and read as a plain struct member (the spec does not let readers
guess); a FILE annotation on a leaf is ignored (the leaf keeps its physical
type), as for any annotation that does not fit.
"""

from __future__ import annotations

from typing import Any, Iterable

from parquet_core.schema.types import DataType, Field

__all__ = ["FILE_ANNOTATION", "FILE_MEMBERS", "file_ref", "check_file_ref", "is_file_group"]

#: ``DataType.annotation`` of a FILE-annotated struct.
FILE_ANNOTATION = "file"

#: The members the spec defines, in the order the spec lists them, with their types.
FILE_MEMBERS: dict[str, DataType] = {
    "uri": DataType("string"),
    "offset": DataType("int64"),
    "size": DataType("int64"),
    "content_type": DataType("string"),
    "checksum": DataType("string"),
    "inline": DataType("binary"),
}


def file_ref(members: Iterable[str] | None = None) -> DataType:
    """A FILE-annotated group holding *members* (default: all six, in spec order).

    Parameters
    ----------
    members:
        Names among ``uri``, ``offset``, ``size``, ``content_type``,
        ``checksum``, ``inline``; they are written in the order given.
        Every member is nullable, as the spec requires.

    Raises
    ------
    ValueError
        For an unknown or repeated name, or an empty selection.
    """
    names = list(FILE_MEMBERS) if members is None else list(members)
    if isinstance(members, str):
        raise TypeError("file_ref() takes a list of member names, not one string")
    unknown = [n for n in names if n not in FILE_MEMBERS]
    if unknown:
        raise ValueError(f"FILE groups have no member {unknown[0]!r}; "
                         f"expected some of {list(FILE_MEMBERS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"file_ref() names a member twice: {names}")
    if not names:
        raise ValueError("a FILE group needs at least one member")
    fields = tuple(Field(n, FILE_MEMBERS[n], True) for n in names)
    return DataType("struct", fields=fields, annotation=FILE_ANNOTATION)


def check_file_ref(dt: DataType) -> None:
    """Check that a FILE struct only holds spec members of the spec's types, all nullable.

    Raises
    ------
    ValueError
        Naming the first offending member.
    """
    for f in dt.fields:
        want = FILE_MEMBERS.get(f.name)
        if want is None:
            raise ValueError(f"FILE groups have no member {f.name!r}; "
                             f"expected some of {list(FILE_MEMBERS)}")
        if f.type != want:
            raise ValueError(f"FILE member {f.name!r} must be {want}, not {f.type}")
        if not f.nullable:
            raise ValueError(f"FILE member {f.name!r} must be nullable (OPTIONAL)")


def is_file_group(element: Any) -> bool:
    """True when a group's ``SchemaElement`` carries the FILE logical type."""
    lt = getattr(element, "logicalType", None)
    return lt is not None and getattr(lt, "FILE", None) is not None
