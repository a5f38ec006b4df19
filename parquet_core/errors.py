"""The exception hierarchy of parquet_core.

Every error raised because of the *bytes of a file* derives from
:class:`ParquetError`.  API misuse (a wrong argument type, an unknown option)
raises the ordinary :class:`TypeError` / :class:`ValueError` instead.

::

    ParquetError
    ├── ParquetFormatError        corrupt or malformed input, CRC mismatch
    ├── UnsupportedFeatureError   valid per the spec, not implemented here
    │   └── CodecUnavailableError a codec whose Python backend is missing
    ├── ParquetSchemaError        a bad schema, or data that does not match it
    ├── ParquetEncryptionError    wrong or missing key, AAD / tag mismatch
    └── ParquetResourceError      a read past a memory limit (ReaderOptions.max_page_bytes,
                                  max_decoded_bytes), or one that ran out of memory

Where an error happened (column path, row group, page ordinal, byte offset)
is attached with :meth:`BaseException.add_note` by :func:`add_context`, so
the message itself stays short and the location is always printed.
"""

from __future__ import annotations

import functools
import inspect
import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "ParquetError",
    "ParquetFormatError",
    "UnsupportedFeatureError",
    "CodecUnavailableError",
    "ParquetSchemaError",
    "ParquetEncryptionError",
    "ParquetResourceError",
    "add_context",
    "file_context",
    "out_of_memory",
    "memory_errors",
    "refuses_memory_errors",
    "names_file",
    "note_file",
    "path_of",
]


class ParquetError(Exception):
    """Root of every error caused by the content of a Parquet file."""


class ParquetFormatError(ParquetError):
    """The input is corrupt, truncated or violates the format specification."""


class UnsupportedFeatureError(ParquetError):
    """The input is valid per the specification but uses something we lack."""


class CodecUnavailableError(UnsupportedFeatureError):
    """A compression codec whose backend package is not installed."""

    def __init__(self, codec: str, package: str | None) -> None:
        hint = f"; install the '{package}' package" if package else ""
        super().__init__(f"compression codec {codec} is not available{hint}")
        self.codec = codec
        self.package = package


class ParquetSchemaError(ParquetError):
    """The schema is invalid, or data does not match the schema."""


class ParquetEncryptionError(ParquetError):
    """A key is missing or wrong, or an authentication check failed."""


class ParquetResourceError(ParquetError):
    """Reading the file would take more memory than allowed: a page or a column chunk
    declares more than a reader limit (``ReaderOptions.max_page_bytes``,
    ``max_decoded_bytes``; the message names the one to raise), or an allocation failed
    (a ``MemoryError``, kept as ``__cause__``)."""


def add_context(exc: BaseException, **where: object) -> BaseException:
    """Attach a location note (``column=a.b, row_group=0, page=3``) to *exc*.

    Parameters
    ----------
    exc:
        The exception being propagated.
    **where:
        Location fields; ``None`` values are left out.

    Returns
    -------
    BaseException
        The same exception, for ``raise add_context(e, ...)`` chains.
    """
    parts = [f"{k.replace('_', ' ')}={v}" for k, v in where.items() if v is not None]
    if parts:
        exc.add_note("at " + ", ".join(parts))
    return exc


def out_of_memory(exc: MemoryError, what: str = "reading") -> ParquetResourceError:
    """The :class:`ParquetResourceError` that replaces a ``MemoryError`` raised while *what*
    (raise it ``from exc``; the caller adds where it happened)."""
    detail = str(exc) or "an allocation failed"
    return ParquetResourceError(
        f"out of memory while {what}: {detail}; the file may declare more values than this machine "
        "can hold (ReaderOptions.max_decoded_bytes refuses such counts before allocating)")


@contextmanager
def memory_errors(what: str = "reading") -> Iterator[None]:
    """Turn a ``MemoryError`` raised inside into a :class:`ParquetResourceError`
    (:func:`out_of_memory`), so that none escapes a read."""
    try:
        yield
    except MemoryError as exc:
        raise out_of_memory(exc, what) from exc


def refuses_memory_errors(what: str) -> Callable[[_F], _F]:
    """Decorate a reading function or generator so that a ``MemoryError`` raised in it
    leaves as a :class:`ParquetResourceError` (:func:`out_of_memory`)."""
    def decorate(func: _F) -> _F:
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args: Any, **kwargs: Any) -> Any:
                with memory_errors(what):
                    yield from func(*args, **kwargs)
            return gen  # type: ignore[return-value]

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            with memory_errors(what):
                return func(*args, **kwargs)
        return call  # type: ignore[return-value]
    return decorate


def path_of(target: Any) -> str | None:
    """The file path behind *target* (a path, or a file object with a ``name``), else None."""
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target)  # type: ignore[return-value]
    name = getattr(target, "name", None)
    return name if isinstance(name, str) else None


def note_file(exc: BaseException, path: str | None, action: str) -> BaseException:
    """Add ``while <action> file '<path>'`` to *exc*, once.

    Nothing is added when *path* is None (bytes, anonymous streams), when
    the same note is already there (an outer entry point calling an inner
    one), or when the message itself names the path (``FileNotFoundError``).
    """
    if path is not None:
        note = f"while {action} file {path!r}"
        if note not in getattr(exc, "__notes__", ()) and path not in str(exc):
            exc.add_note(note)
    return exc


@contextmanager
def file_context(path: str | None, action: str) -> Iterator[None]:
    """Name *path* (see :func:`note_file`) in any exception raised inside."""
    try:
        yield
    except Exception as exc:
        note_file(exc, path, action)
        raise





def names_file(action: str) -> Callable[[_F], _F]:
    """Decorate a method of an object with a ``_path`` so its errors name that file.

    The path is looked up when an error happens, so ``__init__`` can be
    decorated as long as it sets ``_path`` first.  While ``"reading"``, a
    ``MemoryError`` becomes a :class:`ParquetResourceError` (:func:`out_of_memory`):
    none escapes a read.  Generator methods are
    wrapped so that errors raised while iterating are noted too.
    """
    def decorate(method: _F) -> _F:
        if inspect.isgeneratorfunction(method):
            @functools.wraps(method)
            def gen(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    yield from method(self, *args, **kwargs)
                except MemoryError as exc:
                    if action != "reading":
                        raise
                    raise note_file(out_of_memory(exc), getattr(self, "_path", None), action) from exc
                except Exception as exc:
                    note_file(exc, getattr(self, "_path", None), action)
                    raise
            return gen  # type: ignore[return-value]

        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except MemoryError as exc:
                if action != "reading":
                    raise
                raise note_file(out_of_memory(exc), getattr(self, "_path", None), action) from exc
            except Exception as exc:
                note_file(exc, getattr(self, "_path", None), action)
                raise
        return call  # type: ignore[return-value]
    return decorate
