"""How files are read: one frozen :class:`ReaderOptions`, validated when it is made.

Every reading entry point (``ParquetFile``, ``read_table``, ``read_metadata``,
``read_schema``, ``ParquetDataset``) keeps pyarrow's keyword arguments and
builds one ``ReaderOptions`` from them (:func:`reader_options`); that object,
not loose keywords, is what travels down to the files a dataset opens.  Each
option is declared once below, as a dataclass field whose metadata holds its
documentation and its check, so the default, the validation, the unknown-name
check and :func:`document_reader_options` all come from that one place.
"""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from parquet_core.encryption.properties import FileDecryptionProperties
from parquet_core.options.pyarrow import PYARROW_OPTIONS, refuse_pyarrow_crypto, split_pyarrow_arguments

__all__ = ["ReaderOptions", "READER_ALIASES", "reader_options", "document_reader_options",
           "DEFAULT_MAX_PAGE_BYTES", "DEFAULT_MAX_DECODED_BYTES"]

#: Default of ``ReaderOptions.max_page_bytes``: 2**31 - 1, the most a page header can
#: declare (its sizes are thrift i32). Writers cut pages at about 1 MiB, but real files hold
#: larger ones: Arrow's own test file ``large_string_map.brotli.parquet`` has a page of
#: 1 GiB + 4 bytes, which pyarrow reads; a lower default would refuse it.
DEFAULT_MAX_PAGE_BYTES = (1 << 31) - 1
#: Default of ``ReaderOptions.max_decoded_bytes``: 4 GiB.
DEFAULT_MAX_DECODED_BYTES = 4 << 30


def _numpy_scalar(value: Any, kind: str) -> bool:
    """*value* is a numpy scalar of *kind* (``bool_``, ``integer``).  Asked of numpy only when
    it is loaded (a value cannot be one otherwise): opening a file must not import numpy."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, getattr(np, kind))


def is_flag(value: Any) -> bool:
    """*value* is True or False (a Python or numpy bool)."""
    return isinstance(value, bool) or _numpy_scalar(value, "bool_")


def is_integer(value: Any) -> bool:
    """*value* is an integer (Python or numpy), and not a bool."""
    return not isinstance(value, bool) and (isinstance(value, int) or _numpy_scalar(value, "integer"))


def _flag(name: str, value: Any) -> bool:
    if not is_flag(value):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _decryption(name: str, value: Any) -> FileDecryptionProperties | None:
    if value is None or isinstance(value, FileDecryptionProperties):
        return value
    refuse_pyarrow_crypto(name, value)
    raise TypeError(f"{name} must be a parquet_core FileDecryptionProperties or None, not "
                    f"{type(value).__name__}")


def _names(name: str, value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of column names, not a {type(value).__name__}")
    names = list(value)
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise TypeError(f"{name} must hold column names (str), got {bad[0]!r}")
    return frozenset(names)


def _int96_unit(name: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be 'ns', 'us', 'ms', 's' or None, not a {type(value).__name__}")
    if value is None or value == "ns":
        return None
    if value in ("ms", "us", "s"):
        return str(value)
    raise ValueError(f"{name} must be 'ns', 'us', 'ms', 's' or None, got {value!r}")


_BINARY_TYPES = ("binary", "large_binary", "binary_view")


def _binary_type(name: str, value: Any) -> str | None:
    """pyarrow's ``binary_type``: a pyarrow binary type (or its name), kept as the name."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    if text not in _BINARY_TYPES:
        raise TypeError(f"{name} must be pa.binary(), pa.large_binary() or pa.binary_view(), got {value!r}")
    return None if text == "binary" else text


def _list_type(name: str, value: Any) -> str | None:
    """pyarrow's ``list_type``: ``pa.ListType`` or ``pa.LargeListType`` (the classes), or a name."""
    if value is None:
        return None
    text = value if isinstance(value, str) else getattr(value, "__name__", repr(value))
    known = {"ListType": None, "list": None, "LargeListType": "large_list", "large_list": "large_list"}
    if text not in known:
        raise TypeError(f"{name} must be pa.ListType or pa.LargeListType, got {value!r}")
    return known[text]


def _byte_limit(name: str, value: Any) -> int:
    if not is_integer(value):
        raise TypeError(f"{name} must be a number of bytes (int), not {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return int(value)


def _option(default: Any, check: Callable[[str, Any], Any], doc: str, kind: str | None = None) -> Any:
    """A ReaderOptions field: its default, the check that validates (and normalises) a value,
    its documentation and (when it differs from the annotation) the type it is given as."""
    return field(default=default, metadata={"check": check, "doc": " ".join(doc.split()), "kind": kind})


@dataclass(frozen=True, slots=True)
class ReaderOptions:
    """How files are read (every field is checked when the object is made).

    Build it with keyword arguments (``ReaderOptions(strict=True)``) or from a
    mapping with :meth:`from_kwargs`, which also takes pyarrow's names
    (``decryption_properties``) and refuses unknown ones.  Pass it as
    ``options=`` to :class:`~parquet_core.ParquetFile`, :func:`~parquet_core.read_table`
    or :class:`~parquet_core.ParquetDataset`; keywords given beside it override its fields.
    """

    page_checksum_verification: bool = _option(True, _flag, """
        Verify each page's CRC-32 when the writer stored one; a mismatch raises
        ParquetFormatError. The name is pyarrow's; our default (True) is the safer one.""")
    decryption: FileDecryptionProperties | None = _option(None, _decryption, """
        A FileDecryptionProperties (keys, key retriever, AAD prefix) for encrypted files
        (pyarrow's name: ``decryption_properties``). Without it an encrypted footer cannot be
        read, and encrypted columns of a plaintext-footer file raise ParquetEncryptionError
        naming them.""")
    read_dictionary: frozenset[str] = _option(frozenset(), _names, """
        Names of string / binary columns to keep dictionary-encoded (each row group's
        dictionary page becomes the column's dictionary; ``to_arrow`` gives int32
        indices), as pyarrow's option of that name;
        other names are ignored, as pyarrow ignores them. Columns the file's ARROW:schema
        records as dictionaries are kept so as well.""", kind="list of str")
    strict: bool = _option(False, _flag, """
        Turn every error the validator (``pc.check``) finds into a ParquetFormatError: the
        footer's when the file is opened, the pages' and values' before the first data is
        read. Without it, files that break a rule but are unambiguous are read (as duckdb
        reads them).""")
    use_threads: bool = _option(True, _flag, """
        Decode column chunks on a thread pool (as pyarrow does by default); False decodes
        them one after another. The result, and any error raised, is the same. A read
        call's own ``use_threads=`` overrides it.""")
    coerce_int96_timestamp_unit: str | None = _option(None, _int96_unit, """
        Read INT96 timestamps (columns, and values inside lists, maps and structs) as
        timestamps of this unit, ``"us"``, ``"ms"`` or ``"s"`` (sub-unit digits dropped,
        toward minus infinity, as pyarrow does), which reach dates beyond the years
        1677-2262 of nanoseconds; ``None`` / ``"ns"`` keep them as INT96 (``to_arrow``
        gives ``timestamp[ns]``), pyarrow's default. Every read entry honours it (whole
        files, row groups, batches, datasets). A value with no exact count in the unit
        (beyond int64, where pyarrow wraps around; a negative nanosecond field; Julian
        day 0) raises UnsupportedFeatureError naming the column.""",
                                                      kind="str or None")
    binary_type: str | None = _option(None, _binary_type, """
        The Arrow type ``to_arrow()`` gives Parquet binary columns (not strings) of a file
        without ``ARROW:schema``: ``pa.large_binary()`` or ``pa.binary_view()`` (as
        pyarrow's option of that name, also ignored when the file has ``ARROW:schema``);
        the values are the same.""", kind="pyarrow type or None")
    list_type: str | None = _option(None, _list_type, """
        ``pa.LargeListType`` makes ``to_arrow()`` give lists of a file without
        ``ARROW:schema`` as ``large_list`` (as pyarrow's option of that name).""",
                                    kind="pyarrow list class or None")
    max_page_bytes: int = _option(DEFAULT_MAX_PAGE_BYTES, _byte_limit, """
        Largest page read, in bytes, stored or decompressed: a page header declaring more
        raises ParquetResourceError naming this option before any byte is inflated. The
        default, 2**31 - 1, is what a header can declare at all (real writers have written
        1 GiB pages); lower it to bound what one page may take. Independently of it, a page declaring more than its column
        chunk's ``total_uncompressed_size`` is refused as ParquetFormatError.""", kind="int")
    max_decoded_bytes: int = _option(DEFAULT_MAX_DECODED_BYTES, _byte_limit, """
        Largest memory, in bytes, that one column chunk (``read_table``, ``read``,
        ``read_row_group``) or one page (``iter_batches``) may decode into, estimated
        before decoding from the value count it declares: the count times the bytes a
        value takes once decoded (its fixed width, or 4 for variable-length types; and
        2 per level kind). A count is refused (ParquetResourceError naming this option)
        before anything is allocated for it, however few bytes encode it (an RLE run can
        declare 2**31 nulls in 6 bytes). Default 4 GiB.""", kind="int")

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, f.metadata["check"](f.name, getattr(self, f.name)))

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> ReaderOptions:
        """Options from keyword arguments: pyarrow's aliases (:data:`READER_ALIASES`) are
        accepted, ``None`` means "the default" and an unknown name raises TypeError.
        pyarrow's options that only tune its C++ reader (``memory_map``, ``pre_buffer``...,
        see :mod:`parquet_core.options.pyarrow`) are checked and accepted without effect."""
        return cls()._replace(kwargs)

    def replace(self, **kwargs: Any) -> ReaderOptions:
        """A copy with the options given changed (``None``: keep this object's value)."""
        return self._replace(kwargs)

    def threads(self, use_threads: bool | None) -> bool:
        """A read call's ``use_threads`` (None: this object's)."""
        return self.use_threads if use_threads is None else _flag("use_threads", use_threads)

    def _replace(self, kwargs: Mapping[str, Any]) -> ReaderOptions:
        for name, value in kwargs.items():
            if value is not None or name not in _PLAIN_NAMES:
                break
        else:   # only our own options (or aliases), none given: this object (a file opened
            return self     # with a dataset's options, once per file of a folder)
        changes: dict[str, Any] = {}
        for name, value in kwargs.items():
            target = READER_ALIASES.get(name, name)
            pyarrow_only = PYARROW_OPTIONS.get(name)
            if target not in _NAMES and pyarrow_only is not None and pyarrow_only.kind in ("tuning", "default"):
                split_pyarrow_arguments("reader", {name: value})   # checked (or refused), no field
                continue
            if target not in _NAMES:
                raise TypeError(f"unknown reader option {name!r}; the options are: {', '.join(_NAMES)}")
            if value is None:
                continue
            if target in changes:
                raise TypeError(f"reader option {target!r} given twice (as {target!r} and as its alias)")
            changes[target] = value
        return dataclasses.replace(self, **changes) if changes else self


_NAMES = tuple(f.name for f in dataclasses.fields(ReaderOptions))
#: pyarrow's name -> ours
READER_ALIASES: Mapping[str, str] = {"decryption_properties": "decryption"}
#: names that :meth:`ReaderOptions._replace` takes as they are (no pyarrow-only check)
_PLAIN_NAMES = frozenset((*_NAMES, *READER_ALIASES))


def reader_options(options: ReaderOptions | None = None, **kwargs: Any) -> ReaderOptions:
    """The one ``ReaderOptions`` of an entry point: *options* (default: the defaults) with
    the keywords given beside it (``None``: not given) applied on top."""
    if options is None:
        options = ReaderOptions()
    elif not isinstance(options, ReaderOptions):
        raise TypeError(f"options must be a ReaderOptions, not a {type(options).__name__}")
    return options._replace(kwargs)


def document_reader_options(names: Iterable[str] | None = None, indent: str = "    ") -> str:
    """numpydoc entries ``name : type, default <repr>`` and the text of each option (all of
    them, or those in *names*), from the field definitions above."""
    wanted = None if names is None else set(names)
    out = []
    for f in dataclasses.fields(ReaderOptions):
        if wanted is not None and f.name not in wanted:
            continue
        default = None if f.name == "read_dictionary" else f.default
        out.append(f"{indent}{f.name} : {f.metadata['kind'] or f.type}, default {default!r}")
        out.extend(f"{indent}    {line}" for line in textwrap.wrap(f.metadata["doc"], 76 - len(indent)))
    return "\n".join(out)
