"""Encryption and decryption configurations of the crypto factory.

Field names and defaults follow pyarrow's ``EncryptionConfiguration`` /
``DecryptionConfiguration`` (and parquet-java's ``parquet.encryption.*``
properties): double wrapping on, key material inside the file, 128-bit data
keys, AES_GCM_V1, encrypted footer, caches living 600 seconds.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from parquet_core.encryption.properties import AES_GCM_CTR_V1, AES_GCM_V1

__all__ = ["EncryptionConfiguration", "DecryptionConfiguration", "parse_column_keys", "seconds"]

_DATA_KEY_LENGTHS = (128, 192, 256)
DEFAULT_CACHE_LIFETIME = 600.0


def parse_column_keys(spec: str | Mapping[str, Sequence[str]] | None) -> dict[str, str]:
    """``"k1:a,b;k2:c"`` (or ``{"k1": ["a", "b"], "k2": ["c"]}``) -> ``{column: master key id}``.

    Whitespace around names is ignored and empty ``;`` sections are skipped;
    anything else that does not fit the grammar, an empty key or column name,
    or a column named twice raises :class:`ValueError` saying where.
    """
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        pairs = []
        for key_id, columns in spec.items():
            if isinstance(columns, str) or not isinstance(columns, Sequence):
                raise ValueError(f"column_keys[{key_id!r}] must be a list of column names")
            pairs.append((key_id, list(columns), f"column_keys[{key_id!r}]"))
    elif isinstance(spec, str):
        pairs = []
        for section in spec.split(";"):
            section = section.strip()
            if not section:
                continue
            parts = section.split(":")
            if len(parts) != 2:
                raise ValueError(f"column_keys section {section!r} is not 'masterKeyID:col1,col2'")
            pairs.append((parts[0], parts[1].split(","), f"column_keys section {section!r}"))
    else:
        raise TypeError("column_keys must be a 'key:col,col;key:col' string or a mapping")
    out: dict[str, str] = {}
    for key_id, columns, where in pairs:
        if not isinstance(key_id, str) or not key_id.strip():
            raise ValueError(f"{where}: empty master key id")
        key_id = key_id.strip()
        if not columns:
            raise ValueError(f"{where}: no columns for master key {key_id!r}")
        for column in columns:
            if not isinstance(column, str) or not column.strip():
                raise ValueError(f"{where}: empty column name for master key {key_id!r}")
            column = column.strip()
            if column in out:
                raise ValueError(f"column {column!r} is given two keys ({out[column]!r} and {key_id!r})")
            out[column] = key_id
    return out


def seconds(value: float | datetime.timedelta | None, what: str) -> float:
    """*value* as seconds (None -> the 600 s default); ValueError if negative."""
    if value is None:
        return DEFAULT_CACHE_LIFETIME
    if isinstance(value, datetime.timedelta):
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"{what} must be a non-negative number of seconds or a timedelta")
    return float(value)


@dataclass(frozen=True)
class EncryptionConfiguration:
    """What to encrypt and how; keys are named by their *master key ids*.

    ``column_keys`` maps master keys to columns (``"k1:a,b;k2:c"``, dotted
    column paths); columns not named stay plaintext. ``uniform_encryption``
    encrypts every column with the footer key instead (then ``column_keys``
    must be empty). ``internal_key_material=False`` keeps the key material
    in ``_KEY_MATERIAL_FOR_<file>.json`` next to the file.
    ``plaintext_footer`` is honoured with uniform encryption too (Arrow
    ignores it there and encrypts the footer).
    """

    footer_key: str
    column_keys: str | Mapping[str, Sequence[str]] | None = None
    encryption_algorithm: str = AES_GCM_V1
    plaintext_footer: bool = False
    double_wrapping: bool = True
    cache_lifetime: float | datetime.timedelta | None = DEFAULT_CACHE_LIFETIME
    internal_key_material: bool = True
    data_key_length_bits: int = 128
    uniform_encryption: bool = False
    # {column path: master key id}, parsed from column_keys (column_master_keys)
    _column_master_keys: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.footer_key, str) or not self.footer_key.strip():
            raise ValueError("footer_key must be a non-empty master key id")
        object.__setattr__(self, "footer_key", self.footer_key.strip())
        parsed = parse_column_keys(self.column_keys)
        if self.uniform_encryption and parsed:
            raise ValueError("uniform_encryption=True and column_keys cannot both be set")
        if not self.uniform_encryption and not parsed:
            raise ValueError("set column_keys (e.g. 'k1:a,b;k2:c') or uniform_encryption=True")
        object.__setattr__(self, "_column_master_keys", parsed)
        if self.encryption_algorithm not in (AES_GCM_V1, AES_GCM_CTR_V1):
            raise ValueError(f"encryption_algorithm must be {AES_GCM_V1!r} or {AES_GCM_CTR_V1!r}, "
                             f"not {self.encryption_algorithm!r}")
        if self.data_key_length_bits not in _DATA_KEY_LENGTHS:
            raise ValueError(f"data_key_length_bits must be 128, 192 or 256, not {self.data_key_length_bits!r}")
        object.__setattr__(self, "cache_lifetime", seconds(self.cache_lifetime, "cache_lifetime"))
        for name in ("plaintext_footer", "double_wrapping", "internal_key_material", "uniform_encryption"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool")

    @property
    def column_master_keys(self) -> dict[str, str]:
        """``{dotted column path: master key id}`` parsed from ``column_keys``."""
        return dict(self._column_master_keys)


@dataclass(frozen=True)
class DecryptionConfiguration:
    """How long KMS clients and unwrapped KEKs stay cached (seconds or timedelta)."""

    cache_lifetime: float | datetime.timedelta | None = DEFAULT_CACHE_LIFETIME

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_lifetime", seconds(self.cache_lifetime, "cache_lifetime"))
