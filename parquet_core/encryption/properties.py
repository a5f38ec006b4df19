"""What a writer encrypts with, and what a reader decrypts with.

Keys are ``bytes`` of 16, 24 or 32 bytes; columns are named by their dotted
path (``"a.b.c"``, as in ``ColumnChunk.meta_data.path_in_schema``).

Encryption layouts
------------------
*Uniform*: ``column_keys`` empty, every column and the footer use the footer
key. *Per column*: only the columns named in ``column_keys`` are encrypted,
each with its own key; the others stay plaintext and readable without keys.

Footer modes
------------
``plaintext_footer=False`` (default): the footer is encrypted and the file
ends in ``PARE``. ``plaintext_footer=True``: the footer stays readable (the
file ends in ``PAR1``) but is signed with the footer key, and encrypted
columns' statistics are kept out of the plaintext copy of their metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from parquet_core.errors import ParquetEncryptionError, quoted

__all__ = [
    "AES_GCM_V1", "AES_GCM_CTR_V1", "FileEncryptionProperties", "FileDecryptionProperties", "check_key",
]

AES_GCM_V1 = "AES_GCM_V1"
AES_GCM_CTR_V1 = "AES_GCM_CTR_V1"
_ALGORITHMS = (AES_GCM_V1, AES_GCM_CTR_V1)
_KEY_LENGTHS = (16, 24, 32)


def check_key(key: object, what: str) -> bytes:
    """Return *key* as ``bytes`` after checking it is an AES-128/192/256 key."""
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes, not {type(key).__name__}")
    key = bytes(key)
    if len(key) not in _KEY_LENGTHS:
        raise ValueError(f"{what} is {len(key)} bytes; AES keys are 16, 24 or 32 bytes")
    return key


def _as_metadata(value: bytes | str | None, what: str) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes or str, not {type(value).__name__}")


def _column_keys(keys: Mapping[str, bytes] | None, what: str) -> dict[str, bytes]:
    if keys is None:
        return {}
    if not isinstance(keys, Mapping):
        raise TypeError(f"{what} must be a mapping of dotted column path -> key bytes")
    return {str(path): check_key(key, f"{what}[{path!r}]") for path, key in keys.items()}


@dataclass(frozen=True)
class FileEncryptionProperties:
    """How to encrypt one file (pass as ``encryption=`` to the writers)."""

    footer_key: bytes
    column_keys: Mapping[str, bytes] | None = None
    algorithm: str = AES_GCM_V1
    aad_prefix: bytes | None = None
    store_aad_prefix: bool = True
    plaintext_footer: bool = False
    footer_key_metadata: bytes | str | None = None
    column_key_metadata: Mapping[str, bytes | str] | None = None
    #: Writer hook (set by the key tools for external key material): the
    #: writer calls ``on_file_written(final_path)`` once the file's bytes are
    #: complete, just before renaming the temp file to *final_path* (``None``
    #: when writing to a file object). If it raises, the writer aborts and
    #: leaves nothing at *final_path*.
    on_file_written: Callable[[str | None], object] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.on_file_written is not None and not callable(self.on_file_written):
            raise TypeError("on_file_written must be callable(final_path) or None")
        object.__setattr__(self, "footer_key", check_key(self.footer_key, "footer_key"))
        object.__setattr__(self, "column_keys", _column_keys(self.column_keys, "column_keys"))
        if self.algorithm not in _ALGORITHMS:
            raise ValueError(f"algorithm must be one of {_ALGORITHMS}, not {self.algorithm!r}")
        object.__setattr__(self, "aad_prefix", _as_metadata(self.aad_prefix, "aad_prefix"))
        if not self.store_aad_prefix and not self.aad_prefix:
            raise ValueError("store_aad_prefix=False needs an aad_prefix")
        object.__setattr__(self, "footer_key_metadata",
                           _as_metadata(self.footer_key_metadata, "footer_key_metadata"))
        metas = dict(self.column_key_metadata or {})
        unknown = sorted(set(metas) - set(self.column_keys or {}))
        if unknown:
            raise ValueError(f"column_key_metadata names columns without a key: {unknown}")
        object.__setattr__(self, "column_key_metadata", {
            str(p): _as_metadata(m, f"column_key_metadata[{p!r}]") for p, m in metas.items()})

    @property
    def uniform(self) -> bool:
        """True when every column is encrypted with the footer key."""
        return not self.column_keys

    def column_key(self, path: str) -> bytes | None:
        """The key of column *path*, or None when the column stays plaintext."""
        if self.uniform:
            return self.footer_key
        return (self.column_keys or {}).get(path)


@dataclass(frozen=True)
class FileDecryptionProperties:
    """How to decrypt files (pass as ``decryption=`` to the readers).

    Keys are looked up in this order: the explicit ``footer_key`` /
    ``column_keys``, then ``key_retriever(key_metadata)``, which may return
    ``None`` when it has no key.
    """

    footer_key: bytes | None = None
    column_keys: Mapping[str, bytes] | None = None
    key_retriever: Callable[[bytes], bytes | None] | None = None
    aad_prefix: bytes | None = None
    verify_plaintext_footer: bool = True
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.footer_key is not None:
            object.__setattr__(self, "footer_key", check_key(self.footer_key, "footer_key"))
        object.__setattr__(self, "column_keys", _column_keys(self.column_keys, "column_keys"))
        object.__setattr__(self, "aad_prefix", _as_metadata(self.aad_prefix, "aad_prefix"))
        if self.key_retriever is not None and not callable(self.key_retriever):
            raise TypeError("key_retriever must be callable(key_metadata) -> key bytes")

    def _retrieve(self, key_metadata: bytes | None, what: str) -> bytes | None:
        if self.key_retriever is None or key_metadata is None:
            return None
        cache_key = bytes(key_metadata)
        if cache_key not in self._cache:
            try:
                key = self.key_retriever(cache_key)
            except ParquetEncryptionError:
                raise
            except Exception as exc:  # a KMS failure: report it as a key problem
                raise ParquetEncryptionError(f"key retriever failed for the {what}: {exc}") from exc
            self._cache[cache_key] = None if key is None else check_key(key, f"{what} key")
        return self._cache[cache_key]

    def find_footer_key(self, key_metadata: bytes | None) -> bytes | None:
        """The footer key, or None when neither ``footer_key`` nor the retriever gives one."""
        return self.footer_key or self._retrieve(key_metadata, "footer")

    def key_for_footer(self, key_metadata: bytes | None) -> bytes:
        """The footer key, or a :class:`ParquetEncryptionError` saying it is missing."""
        key = self.find_footer_key(key_metadata)
        if key is None:
            raise ParquetEncryptionError(
                "the footer is encrypted but no footer key was given (footer_key= or key_retriever=)")
        return key

    def key_for_column(self, path: str, key_metadata: bytes | None) -> bytes | None:
        """The key of encrypted column *path*, or None when none is known."""
        return (self.column_keys or {}).get(path) or self._retrieve(key_metadata, f"column {quoted(path, bare=True)}")
