"""Files encrypted through a KMS (the key tools' envelope encryption), for ``pqc compat``.

pyarrow and Spark (parquet-java) take no explicit keys: they decrypt through a
crypto factory that unwraps the data keys stored in the file's key metadata
with a KMS client.  The features here are written by :class:`parquet_core.CryptoFactory`
with an in-memory test KMS (AES-GCM under the master key, the master key id as
AAD, base64: the scheme of parquet-java's and Arrow's in-memory test KMSs), and
each reader is handed the master keys:

* pyarrow: ``pyarrow.parquet.encryption.CryptoFactory`` with :func:`arrow_kms_class`'s
  client, written on ``cryptography`` (not on our key tools);
* Spark: ``PropertiesDrivenCryptoFactory`` with ``java/PqcoreTestKms.java``, compiled
  with the JDK's ``javac`` and defined in the session's JVM (:func:`spark_read_options`);
* explicit-key readers (duckdb, polars, ...): the file's data keys themselves, as
  for the other encryption features (they ignore the key metadata).

The master keys are public test values: never use them for data.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["MASTER_KEYS", "KMS_CLASS", "arrow_kms_class", "define_test_kms", "encryption_features",
           "spark_read_options"]

#: master key id -> key (test values, 128 and 256 bits)
MASTER_KEYS = {"kf": bytes(range(32, 48)), "kc1": bytes(range(48, 80))}
#: the Java KMS client's class name (``java/PqcoreTestKms.java``, default package)
KMS_CLASS = "PqcoreTestKms"
JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "PqcoreTestKms.java"


def encryption_features() -> dict[str, tuple[str, dict[str, Any]]]:
    """feature id -> (description, :class:`~parquet_core.EncryptionConfiguration` arguments)."""
    return {
        "encryption.kms_double_wrapping": (
            "KMS key tools: double wrapping, key material in the footer, a column key",
            dict(footer_key="kf", column_keys="kc1:s", double_wrapping=True)),
        "encryption.kms_single_wrapping": (
            "KMS key tools: single wrapping, 256-bit data keys, uniform encryption",
            dict(footer_key="kf", uniform_encryption=True, double_wrapping=False, data_key_length_bits=256)),
    }


def encrypt(config_args: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Encryption properties for one file, and the keys handed to readers: the master keys
    (``kms``) for KMS readers, the data keys (``footer_key`` / ``column_keys``) for the others."""
    import parquet_core as pc
    from parquet_core.encryption.keytools import InMemoryKms

    factory = pc.CryptoFactory(lambda config: InMemoryKms(MASTER_KEYS))
    props = factory.file_encryption_properties(None, pc.EncryptionConfiguration(**config_args))
    keys: dict[str, Any] = {"kms": {k: v.hex() for k, v in MASTER_KEYS.items()},
                            "footer_key": props.footer_key.hex(), "algorithm": "AES_GCM_V1"}
    if props.column_keys:
        keys["column_keys"] = {k: v.hex() for k, v in props.column_keys.items()}
    return props, keys


def arrow_kms_class() -> type:
    """A ``pyarrow.parquet.encryption.KmsClient`` for the test KMS; its master keys come from
    ``KmsConnectionConfig.custom_kms_conf`` (id -> hex)."""
    import pyarrow.parquet.encryption as pe
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    class ArrowTestKms(pe.KmsClient):
        def __init__(self, config: Any) -> None:
            super().__init__()
            self.keys = {k: bytes.fromhex(v) for k, v in config.custom_kms_conf.items()}

        def wrap_key(self, key_bytes: bytes, master_key_identifier: str) -> str:
            nonce = os.urandom(12)
            sealed = AESGCM(self.keys[master_key_identifier]).encrypt(
                nonce, bytes(key_bytes), master_key_identifier.encode())
            return base64.b64encode(nonce + sealed).decode()

        def unwrap_key(self, wrapped_key: str, master_key_identifier: str) -> bytes:
            raw = base64.b64decode(wrapped_key)
            return AESGCM(self.keys[master_key_identifier]).decrypt(
                raw[:12], raw[12:], master_key_identifier.encode())

    return ArrowTestKms


def define_test_kms(spark: Any) -> None:
    """Compile ``PqcoreTestKms.java`` against pyspark's jars and define it in *spark*'s JVM.

    parquet-java resolves the KMS client class through Hadoop's ``Configuration``,
    whose class loader does not see jars added to a running session, so the class is
    defined directly in the application class loader (where parquet-java lives).
    Raises ``RuntimeError`` when no ``javac`` is found.
    """
    jvm, gateway = spark.sparkContext._jvm, spark.sparkContext._gateway
    loader = jvm.java.lang.ClassLoader.getSystemClassLoader()
    try:
        jvm.java.lang.Class.forName(KMS_CLASS, False, loader)
        return  # defined earlier in this JVM
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        pass
    javac = shutil.which("javac")
    if javac is None:
        raise RuntimeError("javac not found: cannot build the test KMS client for parquet-java")
    import pyspark

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")
    with tempfile.TemporaryDirectory(prefix="pqc-kms-") as out:
        subprocess.run([javac, "-nowarn", "-d", out, "-cp", jars, str(JAVA_SOURCE)],
                       check=True, capture_output=True, timeout=180)
        class_bytes = (Path(out) / f"{KMS_CLASS}.class").read_bytes()
    types = gateway.new_array(jvm.java.lang.Class, 4)
    types[0] = jvm.java.lang.Class.forName("java.lang.String")
    types[1] = jvm.java.lang.Class.forName("[B")
    types[2] = jvm.java.lang.Integer.TYPE
    types[3] = jvm.java.lang.Integer.TYPE
    define = jvm.java.lang.Class.forName("java.lang.ClassLoader").getDeclaredMethod("defineClass", types)
    define.setAccessible(True)
    args = gateway.new_array(jvm.java.lang.Object, 4)
    args[0], args[1], args[2], args[3] = KMS_CLASS, bytearray(class_bytes), 0, len(class_bytes)
    define.invoke(loader, args)


def spark_read_options(master_keys: dict[str, bytes]) -> dict[str, str]:
    """The Hadoop options a Spark read of a KMS-encrypted file takes (per read)."""
    keys = ",".join(f"{k}:{base64.b64encode(v).decode()}" for k, v in master_keys.items())
    return {"parquet.crypto.factory.class": "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory",
            "parquet.encryption.kms.client.class": KMS_CLASS, "pqcore.test.master.keys": keys}
