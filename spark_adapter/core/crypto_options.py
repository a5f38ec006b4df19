"""Encryption ``.option(...)`` strings -> parquet_core encryption properties.

Two ways to give keys, chosen by whether a KMS client class is named.

**Through a KMS** (the properties-driven crypto factory of parquet-java and
Arrow; keys never appear in options, only master key ids)::

    parquet.encryption.kms.client.class   "my_pkg.kms:MyKms" (a pc.KmsClient subclass,
                                          called with a pc.KmsConnectionConfig), or
                                          "InMemoryKms" with parquet.encryption.key.list
    parquet.encryption.key.list           "kf:<base64 key>, kc1:<base64 key>" (InMemoryKms;
                                          tests only, as in parquet-java)
    parquet.encryption.kms.instance.id / .kms.instance.url / .key.access.token
    parquet.encryption.cache.lifetime.seconds
  writing also:
    parquet.encryption.footer.key         master key id of the footer
    parquet.encryption.column.keys        "k1:col1,col2;k2:col3" (master key ids)
    parquet.encryption.uniform.key        one master key id for footer and all columns
    parquet.encryption.algorithm          AES_GCM_V1 (default) | AES_GCM_CTR_V1
    parquet.encryption.plaintext.footer   false (default) | true
    parquet.encryption.double.wrapping    true (default) | false
    parquet.encryption.key.material.store.internally   true (default) | false
    parquet.encryption.data.key.length.bits           128 | 192 | 256

**With explicit keys** (no KMS class)::

    parquet.encryption.footer.key     the footer key
    parquet.encryption.column.keys    "<key>:col1,col2;<key2>:col3"
    parquet.encryption.aad.prefix     AAD prefix (reading files that do not store it; writing)
    parquet.encryption.store.aad.prefix  true (default) | false   (writing)
  plus .algorithm and .plaintext.footer when writing. A key is its ASCII
  text, or ``hex:<hex digits>`` / ``base64:<text>``.

Column names are dotted paths (``a.b.c``). Every malformed value raises a
``ValueError`` naming the option.
"""

from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Mapping
from typing import Any

from spark_adapter.core.option_values import parse_bool


class _Engine:
    """``parquet_core``, imported on first use: Spark's planning worker imports this module
    (through the reader) but needs the engine only when it reads footers."""

    def __getattr__(self, name: str) -> Any:
        import parquet_core

        return getattr(parquet_core, name)


pc = _Engine()

__all__ = [
    "ENCRYPTION_OPTIONS", "decryption_from_options", "encryption_from_options", "encryption_options", "file_encryption",
    "has_encryption_options",
    "key_material_name", "open_parquet",
]

P = "parquet.encryption."
#: every ``parquet.encryption.*`` option this module reads (see the module docstring)
ENCRYPTION_OPTIONS = tuple(P + n for n in (
    "aad.prefix", "algorithm", "cache.lifetime.seconds", "column.keys", "data.key.length.bits",
    "double.wrapping", "footer.key", "key.access.token", "key.list", "key.material.store.internally",
    "kms.client.class", "kms.instance.id", "kms.instance.url", "plaintext.footer", "store.aad.prefix",
    "uniform.key"))


def _get(options: Mapping[str, Any], name: str) -> str | None:
    # Spark's option map is case-insensitive; a plain dict may use any case.
    want = (P + name).lower()
    for key, value in options.items():
        if str(key).lower() == want and value is not None:
            return str(value)
    return None


def _flag(options: Mapping[str, Any], name: str, default: bool) -> bool:
    text = _get(options, name)
    if text is None:
        return default
    return parse_bool(text, f"option {P + name}")


def has_encryption_options(options: Mapping[str, Any]) -> bool:
    """True when any ``parquet.encryption.*`` option is set."""
    return any(str(k).lower().startswith(P) for k in options)


def parse_key(text: str, what: str) -> bytes:
    """A key given as ASCII text, ``hex:...`` or ``base64:...``."""
    text = text.strip()
    try:
        if text.startswith("hex:"):
            return bytes.fromhex(text[4:])
        if text.startswith("base64:"):
            return base64.b64decode(text[7:], validate=True)
    except (ValueError, binascii.Error) as exc:
        raise ValueError(f"{what}: cannot decode the key: {exc}") from None
    return text.encode("utf-8")


def _explicit_column_keys(text: str | None) -> dict[str, bytes]:
    """``"<key>:c1,c2;<key2>:c3"`` -> {column: key}; the key ends at the last ':'."""
    out: dict[str, bytes] = {}
    for n, section in enumerate((text or "").split(";")):
        if not section.strip():
            continue
        where = f"option {P}column.keys, section {n + 1} ({section.strip()!r})"
        if ":" not in section:
            raise ValueError(f"{where}: expected <key>:<column>[,<column>...]")
        key_text, cols = section.rsplit(":", 1)
        key = parse_key(key_text, where)
        for column in (c.strip() for c in cols.split(",")):
            if not column:
                raise ValueError(f"{where}: empty column name")
            if column in out:
                raise ValueError(f"{where}: column {column!r} is given a key twice")
            out[column] = key
    return out


def _key_list(text: str | None) -> dict[str, bytes]:
    """parquet-java's ``parquet.encryption.key.list``: ``"id:<base64>, id2:<base64>"``."""
    keys: dict[str, bytes] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        if ":" not in item:
            raise ValueError(f"option {P}key.list: expected <key id>:<base64 key>, got {item.strip()!r}")
        kid, b64 = item.split(":", 1)
        try:
            keys[kid.strip()] = base64.b64decode(b64.strip(), validate=True)
        except (ValueError, binascii.Error) as exc:
            raise ValueError(f"option {P}key.list: key {kid.strip()!r} is not base64: {exc}") from None
    return keys


def _kms_class(options: Mapping[str, Any]) -> Any:
    name = (_get(options, "kms.client.class") or "").strip()
    if not name:
        return None
    if name in ("InMemoryKms", "parquet_core.InMemoryKms"):
        keys = _key_list(_get(options, "key.list"))
        if not keys:
            raise ValueError(f"option {P}kms.client.class=InMemoryKms needs {P}key.list")
        from parquet_core.encryption.keytools import InMemoryKms  # for tests: not in the facade
        return lambda _config: InMemoryKms(keys)
    module, _, attr = name.partition(":") if ":" in name else name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ValueError(f"option {P}kms.client.class: cannot load {name!r}: {exc}") from None
    if not callable(cls):
        raise ValueError(f"option {P}kms.client.class: {name!r} is not callable")
    return cls


def _kms_config(options: Mapping[str, Any]) -> Any:
    custom = {str(k)[len(P):]: str(v) for k, v in options.items() if str(k).lower().startswith(P)}
    return pc.KmsConnectionConfig(
        kms_instance_id=_get(options, "kms.instance.id") or "",
        kms_instance_url=_get(options, "kms.instance.url") or "",
        key_access_token=_get(options, "key.access.token") or "DEFAULT",
        custom_kms_conf=custom)


def _cache_lifetime(options: Mapping[str, Any]) -> float | None:
    text = _get(options, "cache.lifetime.seconds")
    if text is None:
        return pc.DecryptionConfiguration().cache_lifetime
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"option {P}cache.lifetime.seconds must be a number, not {text!r}") from None


def decryption_from_options(options: Mapping[str, Any], path: str | None = None) -> Any:
    """``pc.FileDecryptionProperties`` for the file at *path*, or None without options."""
    if not has_encryption_options(options):
        return None
    kms = _kms_class(options)
    if kms is not None:
        factory = pc.CryptoFactory(kms)
        return factory.file_decryption_properties(
            _kms_config(options), pc.DecryptionConfiguration(cache_lifetime=_cache_lifetime(options)),
            path)
    footer = _get(options, "footer.key")
    prefix = _get(options, "aad.prefix")
    return pc.FileDecryptionProperties(
        footer_key=None if footer is None else parse_key(footer, f"option {P}footer.key"),
        column_keys=_explicit_column_keys(_get(options, "column.keys")),
        aad_prefix=None if prefix is None else prefix.encode("utf-8"))


def encryption_from_options(options: Mapping[str, Any], path: str | None = None) -> Any:
    """``pc.FileEncryptionProperties`` for a new file at *path*, or None without a footer key."""
    algorithm = (_get(options, "algorithm") or "AES_GCM_V1").strip().upper()
    plaintext_footer = _flag(options, "plaintext.footer", False)
    kms = _kms_class(options)
    uniform = _get(options, "uniform.key")
    footer = _get(options, "footer.key")
    if kms is not None:
        master = uniform or footer
        if not master:
            raise ValueError(f"encrypting through a KMS needs {P}footer.key or {P}uniform.key")
        bits_text = _get(options, "data.key.length.bits") or "128"
        try:
            bits = int(bits_text)
        except ValueError:
            raise ValueError(f"option {P}data.key.length.bits must be 128, 192 or 256") from None
        config = pc.EncryptionConfiguration(
            footer_key=master.strip(),
            column_keys=None if uniform else _get(options, "column.keys"),
            encryption_algorithm=algorithm, plaintext_footer=plaintext_footer,
            double_wrapping=_flag(options, "double.wrapping", True),
            internal_key_material=_flag(options, "key.material.store.internally", True),
            data_key_length_bits=bits, uniform_encryption=bool(uniform),
            cache_lifetime=_cache_lifetime(options))
        return pc.CryptoFactory(kms).file_encryption_properties(_kms_config(options), config, path)
    if footer is None:
        if has_encryption_options(options):
            raise ValueError(f"encryption options need {P}footer.key (or a KMS client class)")
        return None
    prefix = _get(options, "aad.prefix")
    return pc.FileEncryptionProperties(
        footer_key=parse_key(footer, f"option {P}footer.key"),
        column_keys=_explicit_column_keys(_get(options, "column.keys")),
        algorithm=algorithm, plaintext_footer=plaintext_footer,
        aad_prefix=None if prefix is None else prefix.encode("utf-8"),
        store_aad_prefix=_flag(options, "store.aad.prefix", True))


def encryption_options(options: Mapping[str, Any]) -> dict[str, str]:
    """Just the ``parquet.encryption.*`` entries of *options* (plain values, picklable)."""
    return {str(k): str(v) for k, v in options.items() if str(k).lower().startswith(P)}


def open_parquet(path: str, options: Mapping[str, Any] | None, **read_options: Any) -> Any:
    """``pc.ParquetFile`` of *path* with the decryption the options describe (and any other
    of ``pc.ParquetFile``'s reading options)."""
    return pc.ParquetFile(path, decryption=decryption_from_options(options or {}, path), **read_options)


def key_material_name(parquet_name: str) -> str:
    """The external key material file that goes with a Parquet file name (parquet-java's rule)."""
    return f"_KEY_MATERIAL_FOR_{parquet_name}.json"


def file_encryption(options: Mapping[str, Any], path: str) -> Any:
    """Encryption properties for one new file at *path* (None without encryption options).

    Called once per file, so a KMS setup gives every file fresh data keys.
    """
    return encryption_from_options(options, path) if options else None
