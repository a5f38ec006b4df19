"""The exception hierarchy of parquet_core.

Every error raised because of the *bytes of a file* derives from
:class:`ParquetError`.  API misuse (a wrong argument type, an unknown option)
raises the ordinary :class:`TypeError` / :class:`ValueError` instead.

Each class also derives from the builtin that pyarrow raises in its place
(second column), so ``except (ValueError, OSError)`` written for pyarrow
still catches a corrupt file::

    ParquetError
    ├── ParquetFormatError        ValueError           corrupt or malformed input
    │   └── ParquetChecksumError  ValueError, OSError  page CRC mismatch
    ├── UnsupportedFeatureError   NotImplementedError  valid per the spec, not implemented here
    │   └── CodecUnavailableError                      a codec whose Python backend is missing
    ├── ParquetSchemaError        ValueError           a bad schema, or data that does not match it
    └── ParquetEncryptionError    OSError              wrong or missing key, AAD / tag mismatch

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

__all__ = [
    "ParquetError",
    "ParquetFormatError",
    "ParquetChecksumError",
    "UnsupportedFeatureError",
    "CodecUnavailableError",
    "ParquetSchemaError",
    "ParquetEncryptionError",
    "add_context",
    "file_context",
    "names_file",
    "note_file",
    "path_of",
]


class ParquetError(Exception):
    """Root of every error caused by the content of a Parquet file."""


class ParquetFormatError(ParquetError, ValueError):
    """The input is corrupt, truncated or violates the format specification."""


class ParquetChecksumError(ParquetFormatError, OSError):
    """A page's bytes do not match its CRC-32 (pyarrow raises OSError for it)."""

    def __init__(self, message: str) -> None:   # one argument: OSError would read two as errno
        super().__init__(message)


class UnsupportedFeatureError(ParquetError, NotImplementedError):
    """The input is valid per the specification but uses something we lack."""


class CodecUnavailableError(UnsupportedFeatureError):
    """A compression codec whose backend package is not installed."""

    def __init__(self, codec: str, package: str | None) -> None:
        hint = f"; install the '{package}' package" if package else ""
        super().__init__(f"compression codec {codec} is not available{hint}")
        self.codec = codec
        self.package = package


class ParquetSchemaError(ParquetError, ValueError):
    """The schema is invalid, or data does not match the schema."""


class ParquetEncryptionError(ParquetError, OSError):
    """A key is missing or wrong, or an authentication check failed."""

    def __init__(self, *args: object) -> None:
        # OSError would take two arguments as (errno, strerror): keep the message whole
        super().__init__(" ".join(str(a) for a in args) if len(args) > 1 else (args[0] if args else ""))


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


_F = TypeVar("_F", bound=Callable[..., Any])


def names_file(action: str) -> Callable[[_F], _F]:
    """Decorate a method of an object with a ``_path`` so its errors name that file.

    The path is looked up when an error happens, so ``__init__`` can be
    decorated as long as it sets ``_path`` first.  Generator methods are
    wrapped so that errors raised while iterating are noted too.
    """
    def decorate(method: _F) -> _F:
        if inspect.isgeneratorfunction(method):
            @functools.wraps(method)
            def gen(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    yield from method(self, *args, **kwargs)
                except Exception as exc:
                    note_file(exc, getattr(self, "_path", None), action)
                    raise
            return gen  # type: ignore[return-value]

        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:
                note_file(exc, getattr(self, "_path", None), action)
                raise
        return call  # type: ignore[return-value]
    return decorate
