"""A griffe extension for the API reference: docstrings and defaults made at import.

The writer options are declared once (``parquet_core/options/specs.py``); ``write_table``
and ``ParquetWriter`` take them as keywords whose defaults read ``_D["name"]`` in the
source and whose docstrings hold a ``{writer options}`` line filled in at import. Static
analysis sees neither, so this extension replaces both with what Python itself has
(``inspect.signature`` and ``__doc__``) for the objects that use them.
"""

from __future__ import annotations

import importlib
import inspect
import re

from griffe import Extension

MARKER = "{writer options}"
#: Sphinx roles in the docstrings (:class:`~parquet_core.Table`): shown as code, the last name
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|exc|data|obj|const):`~?([^`]+)`")


def _runtime(path: str, module: str):
    obj = importlib.import_module(module)
    for part in path[len(module) + 1:].split("."):
        obj = getattr(obj, part)
    return obj


class RuntimeDocs(Extension):
    def on_instance(self, *, obj, **kwargs):
        if getattr(obj, "docstring", None) is not None and ":`" in obj.docstring.value:
            obj.docstring.value = ROLE.sub(lambda m: f"``{m.group(1)}``", obj.docstring.value)

    def on_class_instance(self, *, cls, **kwargs):
        if cls.docstring is not None and MARKER in cls.docstring.value:
            cls.docstring.value = inspect.cleandoc(_runtime(cls.path, cls.module.path).__doc__)

    def on_function_instance(self, *, func, **kwargs):
        if func.docstring is not None and MARKER in func.docstring.value:
            func.docstring.value = inspect.cleandoc(_runtime(func.path, func.module.path).__doc__)
        if any(p.default is not None and "_D[" in str(p.default) for p in func.parameters):
            signature = inspect.signature(_runtime(func.path, func.module.path))
            for p in func.parameters:
                if p.name in signature.parameters and "_D[" in str(p.default):
                    p.default = repr(signature.parameters[p.name].default)
