"""The Parquet VARIANT logical type: codec, shredding, and the ``pc.variant`` entry point.

``pc.variant`` is this package, and the package is callable:

* ``pc.variant()`` / ``pc.variant(shredding=...)`` build the column type
  (same as :func:`variant_type`);
* ``pc.variant.encode(obj) -> (metadata, value)`` and
  ``pc.variant.decode(metadata, value)`` are the binary codec
  (:mod:`parquet_core.variant.encoding`);
* ``pc.variant.NULL`` is the Variant null, which ``to_pylist`` keeps apart
  from SQL NULL (``None``).

Making the module callable (a ``ModuleType`` subclass assigned to its
``__class__``, which Python supports for exactly this) keeps one name for the
type and its codec; static type checkers do not know modules can be called,
so typed code may prefer :func:`variant_type`.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from parquet_core.schema.types import DataType
from parquet_core.schema.variant_layout import shredded_type, variant_type
from parquet_core.variant.encoding import NULL, VariantNull, decode, decode_metadata, encode

__all__ = ["NULL", "VariantNull", "decode", "decode_metadata", "encode", "variant_type",
           "shredded_type"]


class _CallableModule(types.ModuleType):
    """This package, callable as the type factory :func:`variant_type`."""

    def __call__(self, shredding: Any = None) -> DataType:
        return variant_type(shredding)


sys.modules[__name__].__class__ = _CallableModule
