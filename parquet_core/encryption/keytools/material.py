"""Key material and key metadata: the JSON the key tools store per key.

A wrapped data key is described by a *key material* JSON object (format
``PKMT1``, shared by parquet-java, parquet-cpp / Arrow and this package)::

    keyMaterialType     "PKMT1"
    isFooterKey         true for the footer key
    kmsInstanceID       footer key only: the KMS instance that wrapped it
    kmsInstanceURL      footer key only
    masterKeyID         the master key (in the KMS) that protects this key
    wrappedDEK          the data key, wrapped (base64 text)
    doubleWrapping      whether the DEK is wrapped by a KEK rather than the KMS
    keyEncryptionKeyID  double wrapping only: base64 of the KEK's 16-byte id
    wrappedKEK          double wrapping only: the KEK wrapped by the KMS

The *key metadata* stored in the Parquet file (``key_metadata`` of the footer
or a column) is either the key material itself plus ``"internalStorage":
true``, or, for external storage, a reference into the key material file::

    {"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"footerKey"}
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from parquet_core.errors import ParquetEncryptionError, quoted

__all__ = [
    "KEY_MATERIAL_TYPE", "FOOTER_KEY_ID_IN_FILE", "COLUMN_KEY_ID_IN_FILE_PREFIX",
    "KeyMaterial", "KeyMetadata",
]

KEY_MATERIAL_TYPE = "PKMT1"
FOOTER_KEY_ID_IN_FILE = "footerKey"
COLUMN_KEY_ID_IN_FILE_PREFIX = "columnKey"

_TYPE = "keyMaterialType"
_INTERNAL = "internalStorage"
_REFERENCE = "keyReference"
_IS_FOOTER = "isFooterKey"
_KMS_ID = "kmsInstanceID"
_KMS_URL = "kmsInstanceURL"
_MASTER = "masterKeyID"
_WRAPPED_DEK = "wrappedDEK"
_DOUBLE = "doubleWrapping"
_KEK_ID = "keyEncryptionKeyID"
_WRAPPED_KEK = "wrappedKEK"


def _load_object(text: str | bytes, what: str) -> dict:
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ParquetEncryptionError(f"{what} is not UTF-8 text") from None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: hostile nesting
        raise ParquetEncryptionError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ParquetEncryptionError(f"{what} is not a JSON object")
    kind = obj.get(_TYPE)
    if kind != KEY_MATERIAL_TYPE:
        raise ParquetEncryptionError(
            f"{what} has key material type {quoted(kind)}; only {quoted(KEY_MATERIAL_TYPE)} is known")
    return obj


def _get(obj: dict, name: str, kind: type, what: str):
    if name not in obj:
        raise ParquetEncryptionError(f"{what} lacks the field {quoted(name)}")
    value = obj[name]
    if not isinstance(value, kind):
        raise ParquetEncryptionError(
            f"{what} field {quoted(name)} is {type(value).__name__}, expected {kind.__name__}")
    return value


@dataclass(frozen=True)
class KeyMaterial:
    """One wrapped data key and how to unwrap it."""

    is_footer_key: bool
    master_key_id: str
    wrapped_dek: str
    double_wrapping: bool
    kms_instance_id: str | None = None
    kms_instance_url: str | None = None
    kek_id: str | None = None
    wrapped_kek: str | None = None

    def to_json(self, internal_storage: bool) -> str:
        """Serialise in the field order parquet-cpp writes (readers accept any order)."""
        obj: dict = {_TYPE: KEY_MATERIAL_TYPE}
        if internal_storage:
            obj[_INTERNAL] = True
        obj[_IS_FOOTER] = self.is_footer_key
        if self.is_footer_key:
            obj[_KMS_ID] = self.kms_instance_id or ""
            obj[_KMS_URL] = self.kms_instance_url or ""
        obj[_MASTER] = self.master_key_id
        obj[_WRAPPED_DEK] = self.wrapped_dek
        obj[_DOUBLE] = self.double_wrapping
        if self.double_wrapping:
            obj[_KEK_ID] = self.kek_id
            obj[_WRAPPED_KEK] = self.wrapped_kek
        return json.dumps(obj, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str | bytes, what: str = "key material") -> KeyMaterial:
        """Parse a stand-alone key material object (as in the external file)."""
        return cls._from_object(_load_object(text, what), what)

    @classmethod
    def _from_object(cls, obj: dict, what: str) -> KeyMaterial:
        is_footer = _get(obj, _IS_FOOTER, bool, what)
        kms_id = _get(obj, _KMS_ID, str, what) if is_footer else None
        kms_url = _get(obj, _KMS_URL, str, what) if is_footer else None
        double = _get(obj, _DOUBLE, bool, what)
        return cls(
            is_footer_key=is_footer,
            master_key_id=_get(obj, _MASTER, str, what),
            wrapped_dek=_get(obj, _WRAPPED_DEK, str, what),
            double_wrapping=double,
            kms_instance_id=kms_id,
            kms_instance_url=kms_url,
            kek_id=_get(obj, _KEK_ID, str, what) if double else None,
            wrapped_kek=_get(obj, _WRAPPED_KEK, str, what) if double else None,
        )


@dataclass(frozen=True)
class KeyMetadata:
    """What a file's ``key_metadata`` says: the material, or a reference to it."""

    material: KeyMaterial | None = None
    key_reference: str | None = None

    @property
    def internal(self) -> bool:
        return self.material is not None

    @staticmethod
    def external_json(key_reference: str) -> str:
        """The key metadata pointing at *key_reference* in the key material file."""
        return json.dumps({_TYPE: KEY_MATERIAL_TYPE, _INTERNAL: False, _REFERENCE: key_reference},
                          separators=(",", ":"))

    @classmethod
    def parse(cls, key_metadata: bytes | str, what: str = "key metadata") -> KeyMetadata:
        obj = _load_object(key_metadata, what)
        if _get(obj, _INTERNAL, bool, what):
            return cls(material=KeyMaterial._from_object(obj, what))
        return cls(key_reference=_get(obj, _REFERENCE, str, what))
