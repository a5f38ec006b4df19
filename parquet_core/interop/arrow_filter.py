"""A ``pyarrow.compute.Expression`` as a plain tree, for ``filters=``.

pyarrow pickles an expression as an Arrow IPC file (``Expression.__reduce__``):
the schema's custom metadata lists the expression in prefix order (``call``
<function>, its arguments, ``options`` <column>, ``end`` <function>;
``field_ref`` <name>; ``nested_field_ref`` <n> followed by n names;
``literal`` <column>), and the record batch holds one column per literal and
per options object.  That format is Arrow's own and versioned with it, unlike
the expression's ``str()``; the metadata is read in order by
:func:`parquet_core.metadata.arrow_ipc.file_schema_key_values` (pyarrow's
``schema.metadata`` is a dict, which would lose repeated keys), the columns by
pyarrow.

The tree is made of tuples: ``("call", function, [arguments], options dict or
None)``, ``("field", "a.b")`` and ``("literal", Python value)``;
:mod:`parquet_core.predicate.arrow_expression` turns it into our predicate.
"""

from __future__ import annotations

from typing import Any

from parquet_core.errors import UnsupportedFeatureError
from parquet_core.metadata.arrow_ipc import file_schema_key_values

__all__ = ["is_arrow_expression", "arrow_expression_tree"]


def is_arrow_expression(obj: Any) -> bool:
    """True for a ``pyarrow.compute.Expression`` (checked without importing pyarrow)."""
    cls = type(obj)
    return cls.__name__ == "Expression" and (cls.__module__ or "").startswith("pyarrow")


def arrow_expression_tree(expr: Any) -> Any:
    """The tree of *expr* (see the module).

    Raises
    ------
    UnsupportedFeatureError
        When the expression cannot be read (a pyarrow whose serialization differs).
    """
    import pyarrow as pa

    try:
        rebuild, args = expr.__reduce__()
        data = args[0].to_pybytes()
        tokens = file_schema_key_values(data)
        table = pa.ipc.open_file(pa.py_buffer(data)).read_all()
    except Exception as exc:   # noqa: BLE001 - any failure means "cannot be read"
        raise UnsupportedFeatureError(f"cannot read the pyarrow expression {expr} ({exc}); "
                                      f"pass filters as a DNF list or a pc.col() expression") from None
    if not tokens:
        raise UnsupportedFeatureError(f"cannot read the pyarrow expression {expr}; pass filters as a DNF "
                                      f"list or a pc.col() expression")
    reader = _Reader(tokens, table, str(expr))
    tree = reader.node()
    if reader.at != len(tokens):
        reader.fail("trailing tokens")
    return tree


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]], table: Any, shown: str) -> None:
        self.tokens, self.table, self.shown, self.at = tokens, table, shown, 0

    def fail(self, why: str) -> None:
        raise UnsupportedFeatureError(f"cannot read the pyarrow expression {self.shown}: {why}")

    def next(self) -> tuple[str, str]:
        if self.at >= len(self.tokens):
            self.fail("it ends early")
        tok = self.tokens[self.at]
        self.at += 1
        return tok

    def column_value(self, text: str) -> Any:
        try:
            return self.table.column(int(text))[0].as_py()
        except (ValueError, IndexError, KeyError) as exc:
            self.fail(f"no value {text} ({exc})")

    def node(self) -> Any:
        key, value = self.next()
        if key == "literal":
            return ("literal", self.column_value(value))
        if key == "field_ref":
            return ("field", value)
        if key == "nested_field_ref":
            names = []
            for _ in range(int(value)):
                k, v = self.next()
                if k != "field_ref":
                    self.fail(f"a nested field reference holds {k}")
                names.append(v)
            return ("field", ".".join(names))
        if key == "call":
            args: list[Any] = []
            options = None
            while True:
                if self.at >= len(self.tokens):
                    self.fail(f"call {value} is not closed")
                k, v = self.tokens[self.at]
                if k == "end":
                    self.at += 1
                    break
                if k == "options":
                    self.at += 1
                    options = self.column_value(v)
                    continue
                args.append(self.node())
            return ("call", value, args, options)
        self.fail(f"unknown element {key!r}")
