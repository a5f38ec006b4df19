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
    ├── ParquetEncryptionError    OSError              wrong or missing key, AAD / tag mismatch
    ├── DatasetWriteConflictError FileExistsError      a dataset folder holds data, or another writer holds it
    └── ParquetResourceError                           a read past a memory limit (ReaderOptions.max_page_bytes,
                                                       max_decoded_bytes), or one that ran out of memory

Where an error happened (column path, row group, page ordinal, byte offset)
is attached with :meth:`BaseException.add_note` by :func:`add_context`, so
the message itself stays short and the location is always printed.  The file
is the exception: :func:`note_file` puts it in the message itself (``str(e)``
names it, once), since a one-line log of the error must still say which file.
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
    "ParquetChecksumError",
    "UnsupportedFeatureError",
    "CodecUnavailableError",
    "ParquetSchemaError",
    "ParquetEncryptionError",
    "DatasetWriteConflictError",
    "ParquetResourceError",
    "add_context",
    "add_page_context",
    "has_page_context",
    "location",
    "page_location",
    "PAGE_NOTE",
    "add_note",
    "has_note",
    "file_context",
    "out_of_memory",
    "memory_errors",
    "refuses_memory_errors",
    "names_file",
    "note_file",
    "path_of",
    "quoted",
    "cut_message",
    "QUOTE_LIMIT",
    "MESSAGE_LIMIT",
]


#: A ParquetError message longer than this is cut in the middle (a safety net: values
#: quoted in messages go through :func:`quoted` already).
MESSAGE_LIMIT = 4000


class ParquetError(Exception):
    """Root of every error caused by the content of a Parquet file."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str) and len(args[0]) > MESSAGE_LIMIT:
            args = (cut_message(args[0]),) + args[1:]
        super().__init__(*args)


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


def cut_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """*text* if it is at most *limit* characters, else its start and end around a marker."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}...({len(text) - 2 * half} characters cut)...{text[-half:]}"


#: How many characters (or bytes) of a value :func:`quoted` keeps.
QUOTE_LIMIT = 200


def quoted(value: object, limit: int = QUOTE_LIMIT, *, bare: bool = False) -> str:
    """``repr(value)`` for an error message or a finding, cut to about *limit* characters.

    Names, paths, key metadata, ``created_by``, statistics and key/value
    metadata come from the file, and a file can make them megabytes long;
    every message that quotes such a value goes through here so that the
    message stays a few hundred characters.  A cut value ends in
    ``...(N characters)`` (``bytes`` for binary values) giving its full size.
    With *bare*, ``str(value)`` is cut instead (a column path shown as ``a.b``).
    """
    if bare:
        text = str(value)
        return text if len(text) <= limit else f"{text[:limit]}...({len(text)} characters)"
    head: str | bytes | bytearray | None
    if isinstance(value, memoryview):
        value = value.cast("B")
        size, head = value.nbytes, value[:limit].tobytes()
    elif isinstance(value, (str, bytes, bytearray)):
        size, head = len(value), value[:limit]
    else:
        size, head = 0, None
    if head is not None:
        text = repr(head)
        if size > limit:
            text += f"...({size} {'characters' if isinstance(value, str) else 'bytes'})"
    else:
        text = repr(value)
    cap = 4 * limit + 40     # escapes (\x.., \U........) make a repr longer than its value
    if len(text) > cap:
        text = f"{text[:cap]}...({len(text)} characters)"
    return text


class DatasetWriteConflictError(ParquetError, FileExistsError):
    """``write_to_dataset`` refused a folder: it holds data (``existing_data_behavior="error"``),
    or another writer holds it; names the folder and the other writer."""


class ParquetResourceError(ParquetError):
    """Reading the file would take more memory than allowed: a page or a column chunk
    declares more than a reader limit (``ReaderOptions.max_page_bytes``,
    ``max_decoded_bytes``; the message names the one to raise), or an allocation failed
    (a ``MemoryError``, kept as ``__cause__``)."""


def add_note(exc: BaseException, note: str) -> BaseException:
    """Attach *note* to *exc* (``BaseException.add_note``; on Python 3.10, which lacks it,
    the note goes into ``exc.__notes__`` the same way, where tools and tests find it).

    Every note the package writes goes through here; a location (a column, a row group,
    a field, the footer, a page...) is worded by :func:`location` / :func:`page_location`
    and added with :func:`add_context` / :func:`add_page_context`, never written here as
    text (tests/unit/errors/test_note_sites.py).
    Returns the same exception, for ``raise add_note(e, ...)``.
    """
    adder = getattr(exc, "add_note", None)
    if adder is not None:
        adder(note)
    else:   # pragma: no cover - Python 3.10
        notes = getattr(exc, "__notes__", None)
        if not isinstance(notes, list):
            notes = []
            exc.__notes__ = notes  # type: ignore[attr-defined]  # PEP 678's attribute, absent from 3.10's stubs
        notes.append(note)
    return exc


def has_note(exc: BaseException, prefix: str) -> bool:
    """Whether a note of *exc* starts with *prefix* (a location added already deeper down)."""
    return any(isinstance(n, str) and n.startswith(prefix) for n in getattr(exc, "__notes__", ()))


def location(*, part: str | None = None, column: object = None, row_group: object = None,
             file_offset: object = None, how: str = "", **where: object) -> str:
    """The one wording of a location: ``in column a.b, row group 0 (file offset 120)``.

    *part* names the structure first, as is (``part="the footer of 412 bytes"``:
    ``in the footer of 412 bytes (file offset 1234)``); ``None`` fields are left out;
    other fields (*where*) follow the row group as ``name value`` (``field="s"`` reads
    ``field s``, ``geometry_value=3`` reads ``geometry value 3``);
    *how* is appended as is (`` (pages read through the offset index)``).
    A page is named by :func:`page_location`, in a note of its own.
    """
    parts = [part] if part else []
    parts += [f"{k} {quoted(v, bare=True)}"
              for k, v in (("column", column), ("row group", row_group)) if v is not None]
    parts += [f"{k.replace('_', ' ')} {quoted(v, bare=True)}" for k, v in where.items() if v is not None]
    text = "in " + ", ".join(parts) if parts else ""
    if file_offset is not None:
        text += f" (file offset {file_offset})" if text else f"at file offset {file_offset}"
    return text + how


def add_context(exc: BaseException, *, part: str | None = None, how: str = "", **where: object) -> BaseException:
    """Attach a location note (:func:`location`: ``in column a.b, row group 0 (file offset 120)``) to *exc*.

    Parameters
    ----------
    exc:
        The exception being propagated.
    part:
        The structure, named first as is (``"the FileCryptoMetaData"``).
    how:
        Words appended to the note (`` (joining the decoded pages)``).
    **where:
        Location fields (``column``, ``row_group``, ``file_offset``, others);
        ``None`` values are left out.

    Returns
    -------
    BaseException
        The same exception, for ``raise add_context(e, ...)`` chains.
    """
    text = location(part=part, how=how, **where)
    if text and text != how:
        add_note(exc, text)
    return exc


#: how every page location note starts (:func:`page_location`)
PAGE_NOTE = "at page"


def page_location(ordinal: int, file_offset: int, last: int | None = None) -> str:
    """The one wording of a page location: ``at page 3 (file offset 120)``; with *last*,
    a run of pages: ``at pages 3 to 5 (file offset 120)`` (the first one's offset)."""
    if last is None or last == ordinal:
        return f"{PAGE_NOTE} {ordinal} (file offset {file_offset})"
    return f"{PAGE_NOTE}s {ordinal} to {last} (file offset {file_offset})"


def add_page_context(exc: BaseException, ordinal: int, file_offset: int,
                     last: int | None = None) -> BaseException:
    """Attach :func:`page_location` to *exc*, unless a note names its page already
    (:func:`has_page_context`: the deepest reader that knows the page names it, once)."""
    if not has_page_context(exc):
        add_note(exc, page_location(ordinal, file_offset, last))
    return exc


def has_page_context(exc: BaseException) -> bool:
    """Whether *exc* carries a page location note (:func:`add_page_context`)."""
    return has_note(exc, PAGE_NOTE)


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
        return os.fspath(target)
    name = getattr(target, "name", None)
    return name if isinstance(name, str) else None


def note_file(exc: BaseException, path: str | None, action: str) -> BaseException:
    """Name *path* in *exc*'s message, once: ``<message> (while <action> file '<path>')``.

    The file goes into ``str(exc)`` itself, so ``logger.error("%s", exc)`` and
    other one-line reports keep it; the other notes (column, row group, page)
    stay notes.  Nothing changes when *path* is None (bytes, anonymous
    streams) or when the message names the path already (an outer entry point
    calling an inner one, ``FileNotFoundError``).  An exception whose message
    is not its one text argument (``KeyError``, ``OSError(errno, text)``)
    gets the same words as a note instead.
    """
    if path is None or path in str(exc):
        return exc
    note = f"while {action} file {path!r}"
    if note in getattr(exc, "__notes__", ()):
        return exc
    args = exc.args
    if len(args) == 1 and isinstance(args[0], str) and str(exc) == args[0]:
        exc.args = (f"{args[0]} ({note})",)
    else:
        add_note(exc, note)
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
