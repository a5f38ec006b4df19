"""The cipher layer: AAD layout, module framing, footer signing, key checks.

Outside truths: the AAD layout table and the CTR counter rule of the spec,
an AES-ECB keystream computed independently of the CTR mode under test, and
the footer of a parquet-java-written corpus file.
"""

from __future__ import annotations

import struct
import pytest

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from parquet_core.encryption import (
    FileDecryptionProperties,
    FileEncryptionProperties,
    ModuleType,
    file_aad,
    module_aad,
)
from parquet_core.encryption.ciphers import (
    ModuleCipher,
    sign_footer,
    verify_footer_signature,
)
from parquet_core.errors import ParquetEncryptionError, ParquetFormatError

KEY = b"0123456789012345"


def test_module_type_numbers_are_the_specs():
    assert [m.value for m in ModuleType] == list(range(10))
    assert ModuleType.BLOOM_FILTER_BITSET == 9 and ModuleType.COLUMN_INDEX == 6


@pytest.mark.parametrize("module, has_ordinals, has_page", [
    (ModuleType.FOOTER, False, False),
    (ModuleType.COLUMN_META_DATA, True, False),
    (ModuleType.DATA_PAGE, True, True),
    (ModuleType.DICTIONARY_PAGE, True, False),
    (ModuleType.DATA_PAGE_HEADER, True, True),
    (ModuleType.DICTIONARY_PAGE_HEADER, True, False),
    (ModuleType.COLUMN_INDEX, True, False),
    (ModuleType.OFFSET_INDEX, True, False),
    (ModuleType.BLOOM_FILTER_HEADER, True, False),
    (ModuleType.BLOOM_FILTER_BITSET, True, False),
])
def test_module_aad_layout(module, has_ordinals, has_page):
    base = file_aad(b"pre", b"U" * 8)
    assert base == b"preUUUUUUUU"
    aad = module_aad(base, module, 258, 3, 4) if has_page else (
        module_aad(base, module, 258, 3) if has_ordinals else module_aad(base, module))
    expected = base + bytes([module])
    if has_ordinals:
        expected += b"\x02\x01" + b"\x03\x00"  # little-endian 258, 3
    if has_page:
        expected += b"\x04\x00"
    assert aad == expected


def test_ordinal_overflow_is_an_encryption_error():
    with pytest.raises(ParquetEncryptionError, match="row group ordinal 32768"):
        module_aad(b"", ModuleType.COLUMN_INDEX, 32768, 0)


@pytest.mark.parametrize("ctr", [False, True])
def test_framing_round_trip_and_length(ctr):
    cipher = ModuleCipher(KEY)
    framed = cipher.encrypt(b"payload", b"aad", ctr=ctr)
    (length,) = struct.unpack_from("<I", framed)
    assert length == len(framed) - 4 == 12 + 7 + (0 if ctr else 16)
    assert cipher.decrypt(framed + b"trailing", b"aad", ctr=ctr) == (b"payload", len(framed))


def test_ctr_keystream_starts_at_counter_one():
    nonce = bytes(range(12))
    framed = ModuleCipher(KEY).encrypt(bytes(32), b"", ctr=True, nonce=nonce)
    ecb = Cipher(algorithms.AES(KEY), modes.ECB()).encryptor()
    stream = ecb.update(nonce + b"\x00\x00\x00\x01" + nonce + b"\x00\x00\x00\x02")
    assert framed[16:] == stream


@pytest.mark.parametrize("mutate", ["key", "aad", "bit"])
def test_gcm_detects_wrong_key_aad_or_altered_bytes(mutate):
    framed = bytearray(ModuleCipher(KEY).encrypt(b"secret values", b"aad"))
    key, aad = KEY, b"aad"
    if mutate == "key":
        key = b"1" * 16
    elif mutate == "aad":
        aad = b"aae"
    else:
        framed[20] ^= 0x01
    with pytest.raises(ParquetEncryptionError, match="authentication failed"):
        ModuleCipher(key).decrypt(bytes(framed), aad, where="data page")


@pytest.mark.parametrize("buf", [b"\x01\x00", struct.pack("<I", 100) + b"x" * 10,
                                 struct.pack("<I", 5) + b"x" * 5])
def test_truncated_or_short_modules_are_format_errors(buf):
    with pytest.raises(ParquetFormatError):
        ModuleCipher(KEY).decrypt(buf, b"")


def test_footer_signature():
    sig = sign_footer(KEY, b"footer bytes", b"aad")
    assert len(sig) == 28
    verify_footer_signature(KEY, b"footer bytes", sig, b"aad")
    with pytest.raises(ParquetEncryptionError, match="signature"):
        verify_footer_signature(KEY, b"footer bytez", sig, b"aad")


def test_decrypts_a_parquet_java_footer(corpus):
    from parquet_core.thrift import pt
    from parquet_core.thrift.codec import parse

    buf = (corpus / "uniform_encryption.parquet.encrypted").read_bytes()
    assert buf[-4:] == b"PARE"
    (n,) = struct.unpack("<I", buf[-8:-4])
    tail = buf[-8 - n:-8]
    crypto, used = parse(tail, pt.FileCryptoMetaData)
    alg = crypto.encryption_algorithm.AES_GCM_V1
    aad = module_aad(file_aad(alg.aad_prefix, alg.aad_file_unique), ModuleType.FOOTER)
    plain, consumed = ModuleCipher(KEY).decrypt(tail[used:], aad, where="footer")
    assert consumed == len(tail) - used
    meta, _ = parse(plain, pt.FileMetaData)
    assert meta.num_rows == 50 and crypto.key_metadata == b"kf"


def test_properties_validate_keys_and_names():
    with pytest.raises(ValueError, match="16, 24 or 32"):
        FileEncryptionProperties(footer_key=b"short")
    with pytest.raises(TypeError):
        FileEncryptionProperties(footer_key="0123456789012345")
    with pytest.raises(ValueError, match="algorithm"):
        FileEncryptionProperties(footer_key=KEY, algorithm="AES_CBC")
    with pytest.raises(ValueError, match="aad_prefix"):
        FileEncryptionProperties(footer_key=KEY, store_aad_prefix=False)
    with pytest.raises(ValueError, match="without a key"):
        FileEncryptionProperties(footer_key=KEY, column_key_metadata={"a": b"k"})
    props = FileEncryptionProperties(footer_key=KEY, column_keys={"a.b": b"k" * 24},
                                     footer_key_metadata="kf")
    assert props.footer_key_metadata == b"kf"
    assert props.column_key("a.b") == b"k" * 24 and props.column_key("c") is None
    assert FileEncryptionProperties(footer_key=KEY).column_key("c") == KEY


def test_decryption_properties_lookup_order():
    calls = []

    def retriever(meta):
        calls.append(meta)
        return {b"kf": KEY, b"kc1": b"c" * 16}.get(meta)

    props = FileDecryptionProperties(column_keys={"x": b"x" * 16}, key_retriever=retriever)
    assert props.key_for_footer(b"kf") == KEY
    assert props.key_for_column("x", b"kc1") == b"x" * 16
    assert props.key_for_column("y", b"kc1") == b"c" * 16
    assert props.key_for_column("y", b"kc1") == b"c" * 16
    assert calls == [b"kf", b"kc1"]  # cached per key metadata
    assert props.key_for_column("z", b"unknown") is None
    with pytest.raises(ParquetEncryptionError, match="no footer key"):
        FileDecryptionProperties().key_for_footer(b"kf")
