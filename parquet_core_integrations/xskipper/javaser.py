"""Java object serialization (``ObjectOutputStream``) of xskipper's Bloom filter cells.

A cell is ``BloomFilterMetaData(bloomFilter)`` serialized by Java: the stream
magic, the wrapper's class descriptor (one object field ``bloomFilter``, a
field-less ``MetadataType`` superclass), then the Spark filter object, whose
class has a ``writeObject`` method that writes only the filter's own
``writeTo`` payload as block data (1024-byte blocks, the last one with a
one-byte length header when it is at most 255 bytes).

:func:`encode_bloom_cell` writes those bytes as Spark 3.0.1 + xskipper wrote
them (class names, serial version UIDs).  :func:`decode_bloom_cell` parses
any such stream generically (grammar of the Java Object Serialization
Stream Protocol, section 6), ignoring UIDs and accepting the legacy IBM
class names, ``BloomFilterImplV2`` and a bare filter object.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from parquet_core_integrations.xskipper.errors import XskipperFormatError
from parquet_core_integrations.xskipper.sketch import SparkBloomFilter

__all__ = ["CURRENT_CLASSES", "LEGACY_CLASSES", "JavaObject", "decode_bloom_cell", "encode_bloom_cell",
           "parse_stream"]

# (wrapper class, wrapper SUID, superclass, superclass SUID)
CURRENT_CLASSES = ("io.xskipper.index.metadata.BloomFilterMetaData", 1,
                   "io.xskipper.index.metadata.MetadataType", 0x603F5D1B7B764446)
LEGACY_CLASSES = ("com.ibm.metaindex.metadata.index.types.BloomFilterMetaData", 1,
                  "com.ibm.metaindex.metadata.index.types.MetadataType", 0xF7B012BF742B86A4)
_FILTER_V1 = ("org.apache.spark.util.sketch.BloomFilterImpl", 0x8303774076CEABF6)

_MAGIC = b"\xac\xed\x00\x05"
TC_NULL, TC_REFERENCE, TC_CLASSDESC, TC_OBJECT, TC_STRING = 0x70, 0x71, 0x72, 0x73, 0x74
TC_ARRAY, TC_CLASS, TC_BLOCKDATA, TC_ENDBLOCKDATA, TC_RESET = 0x75, 0x76, 0x77, 0x78, 0x79
TC_BLOCKDATALONG, TC_LONGSTRING, TC_ENUM = 0x7A, 0x7C, 0x7E
SC_WRITE_METHOD, SC_SERIALIZABLE, SC_EXTERNALIZABLE, SC_BLOCK_DATA = 0x01, 0x02, 0x04, 0x08
_BASE_HANDLE = 0x7E0000
_PRIM = {"B": ">b", "C": ">H", "D": ">d", "F": ">f", "I": ">i", "J": ">q", "S": ">h", "Z": ">?"}


# -- writing -----------------------------------------------------------------------------------------
def _utf(s: str) -> bytes:
    raw = s.encode("utf-8")  # class and field names here are ASCII: modified UTF-8 == UTF-8
    return struct.pack(">H", len(raw)) + raw


def _block_data(payload: bytes) -> bytes:
    out = bytearray()
    for start in range(0, len(payload), 1024):
        piece = payload[start:start + 1024]
        out += (bytes([TC_BLOCKDATA, len(piece)]) if len(piece) <= 0xFF
                else bytes([TC_BLOCKDATALONG]) + struct.pack(">i", len(piece)))
        out += piece
    return bytes(out)


def encode_bloom_cell(bf: SparkBloomFilter, legacy: bool = False) -> bytes:
    """The bytes xskipper stores for *bf* (current classes, or the v1/v2 ``com.ibm`` ones)."""
    if bf.version != 1:
        raise ValueError("only V1 filters are written (Spark <= 4.0 cannot read V2)")
    wrapper, wrapper_uid, sup, sup_uid = LEGACY_CLASSES if legacy else CURRENT_CLASSES
    out = bytearray(_MAGIC)
    out += bytes([TC_OBJECT, TC_CLASSDESC]) + _utf(wrapper) + struct.pack(">qBH", wrapper_uid, SC_SERIALIZABLE, 1)
    out += b"L" + _utf("bloomFilter") + bytes([TC_STRING]) + _utf("Lorg/apache/spark/util/sketch/BloomFilter;")
    out += bytes([TC_ENDBLOCKDATA, TC_CLASSDESC]) + _utf(sup)
    out += struct.pack(">QBH", sup_uid, SC_SERIALIZABLE, 0) + bytes([TC_ENDBLOCKDATA, TC_NULL])
    name, uid = _FILTER_V1
    out += bytes([TC_OBJECT, TC_CLASSDESC]) + _utf(name)
    out += struct.pack(">QBH", uid, SC_SERIALIZABLE | SC_WRITE_METHOD, 2)
    out += b"I" + _utf("numHashFunctions")
    out += b"L" + _utf("bits") + bytes([TC_STRING]) + _utf("Lorg/apache/spark/util/sketch/BitArray;")
    out += bytes([TC_ENDBLOCKDATA, TC_NULL])
    out += _block_data(bf.payload()) + bytes([TC_ENDBLOCKDATA])
    return bytes(out)


# -- reading -----------------------------------------------------------------------------------------
@dataclass
class _ClassDesc:
    name: str
    flags: int
    fields: list[tuple[str, str]]  # (type code, name)
    superclass: _ClassDesc | None


@dataclass
class JavaObject:
    """A deserialized object: class name, default field values, ``writeObject`` annotations."""

    class_name: str
    fields: dict[str, Any] = field(default_factory=dict)
    annotations: list[Any] = field(default_factory=list)  # bytes (block data) and objects

    def block_data(self) -> bytes:
        return b"".join(a for a in self.annotations if isinstance(a, bytes))


def _custom_only(name: str) -> bool:
    """Classes whose ``writeObject`` writes only block data (no ``defaultWriteObject``)."""
    return name.startswith("org.apache.spark.util.sketch.BloomFilterImpl")


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.handles: list[Any] = []

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise XskipperFormatError(f"Java serialization stream truncated at byte {self.pos} (needs {n})")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def utf(self) -> str:
        return self.take(self.unpack(">H")).decode("utf-8", "surrogatepass")

    def new_handle(self, obj: Any) -> int:
        self.handles.append(obj)
        return len(self.handles) - 1

    def content(self, depth: int = 0) -> Any:
        if depth > 64:
            raise XskipperFormatError("Java serialization stream nests objects deeper than 64")
        tc = self.unpack(">B")
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            h = self.unpack(">i") - _BASE_HANDLE
            if not 0 <= h < len(self.handles):
                raise XskipperFormatError(f"Java serialization reference to unknown handle {h}")
            return self.handles[h]
        if tc == TC_STRING:
            s = self.utf()
            self.new_handle(s)
            return s
        if tc == TC_LONGSTRING:
            s = self.take(self.unpack(">q")).decode("utf-8", "surrogatepass")
            self.new_handle(s)
            return s
        if tc in (TC_CLASSDESC, TC_NULL):
            self.pos -= 1
            return self.class_desc(depth)
        if tc == TC_OBJECT:
            return self.obj(depth)
        if tc == TC_BLOCKDATA:
            return self.take(self.unpack(">B"))
        if tc == TC_BLOCKDATALONG:
            return self.take(self.unpack(">i"))
        if tc == TC_ARRAY:
            desc = self.class_desc(depth)
            n = self.unpack(">i")
            if n < 0 or n > len(self.data):
                raise XskipperFormatError(f"Java array of {n} elements in a {len(self.data)}-byte stream")
            code = desc.name[1:2] if desc is not None else "L"
            arr: list[Any] = []
            self.new_handle(arr)
            arr.extend(self.value(code, depth) for _ in range(n))
            return arr
        if tc == TC_ENUM:
            self.class_desc(depth)
            h = self.new_handle(None)
            self.handles[h] = self.content(depth + 1)
            return self.handles[h]
        if tc == TC_CLASS:
            return self.class_desc(depth)
        raise XskipperFormatError(f"unsupported Java serialization type code 0x{tc:02x} at byte {self.pos - 1}")

    def class_desc(self, depth: int) -> _ClassDesc | None:
        tc = self.unpack(">B")
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            self.pos -= 1
            ref = self.content(depth + 1)
            if not isinstance(ref, _ClassDesc):
                raise XskipperFormatError("Java serialization: a class reference names a non-class")
            return ref
        if tc != TC_CLASSDESC:
            raise XskipperFormatError(f"expected a Java class descriptor, got type code 0x{tc:02x}")
        name = self.utf()
        self.take(8)  # serialVersionUID: ignored (readers of any Spark version)
        desc = _ClassDesc(name, 0, [], None)
        self.new_handle(desc)
        desc.flags = self.unpack(">B")
        for _ in range(self.unpack(">H")):
            code = chr(self.unpack(">B"))
            fname = self.utf()
            if code in "L[":
                self.content(depth + 1)  # the field's type name, a string
            elif code not in _PRIM:
                raise XskipperFormatError(f"Java field {name}.{fname} has unknown type code {code!r}")
            desc.fields.append((code, fname))
        self.annotation(depth)  # class annotation
        desc.superclass = self.class_desc(depth + 1)
        return desc

    def annotation(self, depth: int) -> list[Any]:
        out: list[Any] = []
        while True:
            if self.data[self.pos:self.pos + 1] == bytes([TC_ENDBLOCKDATA]):
                self.pos += 1
                return out
            out.append(self.content(depth + 1))

    def value(self, code: str, depth: int) -> Any:
        if code in _PRIM:
            return self.unpack(_PRIM[code])
        return self.content(depth + 1)

    def obj(self, depth: int) -> JavaObject:
        desc = self.class_desc(depth)
        if desc is None:
            raise XskipperFormatError("Java object without a class descriptor")
        result = JavaObject(desc.name)
        self.new_handle(result)
        chain = []
        d: _ClassDesc | None = desc
        while d is not None:
            chain.append(d)
            d = d.superclass
        for d in reversed(chain):  # superclass data first
            if d.flags & SC_EXTERNALIZABLE:
                if not d.flags & SC_BLOCK_DATA:
                    raise XskipperFormatError(f"Java externalizable {d.name} in the old protocol")
                result.annotations += self.annotation(depth)
                continue
            if not d.flags & SC_SERIALIZABLE:
                continue
            if not (d.flags & SC_WRITE_METHOD and _custom_only(d.name)):
                for code, fname in d.fields:
                    result.fields[fname] = self.value(code, depth)
            if d.flags & SC_WRITE_METHOD:
                result.annotations += self.annotation(depth)
        return result


def parse_stream(data: bytes) -> Any:
    """The first object of a Java serialization stream."""
    if data[:4] != _MAGIC:
        raise XskipperFormatError(f"not a Java serialization stream (starts {data[:4].hex()})")
    r = _Reader(data)
    r.pos = 4
    return r.content()


def decode_bloom_cell(data: bytes) -> SparkBloomFilter | None:
    """The Spark Bloom filter of a cell (``None`` if the wrapper holds a null filter)."""
    top = parse_stream(data)
    if not isinstance(top, JavaObject):
        raise XskipperFormatError("Bloom filter cell does not hold a Java object")
    if top.class_name.endswith(".BloomFilterMetaData"):
        if "bloomFilter" not in top.fields:
            raise XskipperFormatError(f"{top.class_name} without a bloomFilter field")
        inner = top.fields["bloomFilter"]
        if inner is None:
            return None
    else:
        inner = top
    if not isinstance(inner, JavaObject) or not _custom_only(inner.class_name):
        name = inner.class_name if isinstance(inner, JavaObject) else type(inner).__name__
        raise XskipperFormatError(f"Bloom filter cell holds {name}, not a Spark sketch Bloom filter")
    return SparkBloomFilter.from_payload(inner.block_data())
