"""A griffe extension for the API reference: docstrings and defaults made at import.

The writer options are declared once (``parquet_core/options/specs.py``); ``write_table``
and ``ParquetWriter`` take them as keywords that ``options.signature.writer_signature``
adds to their signatures at import (the source shows ``**pyarrow_options``), and their
docstrings hold a ``{writer options}`` line filled in at import. Static analysis sees
neither, so this extension replaces both with what Python itself has
(``inspect.signature`` and ``__doc__``) for the objects that use them.
"""

from __future__ import annotations

import importlib
import inspect
import re

from griffe import Extension, Parameter, ParameterKind, Parameters

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
        if any("writer_signature" in str(d.value) for d in func.decorators):
            func.parameters = _parameters(inspect.signature(_runtime(func.path, func.module.path)))
            return
        if any(p.default is not None and "_D[" in str(p.default) for p in func.parameters):
            signature = inspect.signature(_runtime(func.path, func.module.path))
            for p in func.parameters:
                if p.name in signature.parameters and "_D[" in str(p.default):
                    p.default = repr(signature.parameters[p.name].default)


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: ParameterKind.var_keyword,
}


def _parameters(signature: inspect.Signature) -> Parameters:
    """griffe parameters from a runtime signature (annotations as their source text)."""
    out = []
    for p in signature.parameters.values():
        annotation = None if p.annotation is inspect.Parameter.empty else (
            p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation))
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        out.append(Parameter(p.name, annotation=annotation, kind=_KINDS[p.kind], default=default))
    return Parameters(*out)
