"""Decode a ``FileMetaData`` footer lazily: row groups and statistics when first used.

A footer of 100 columns x 50 row groups holds about 50,000 thrift structs;
decoding all of them into Python objects costs several times what opening the
file needs.  :func:`parse_file_metadata` decodes, with the same C decoder and
the same size limits as :func:`~parquet_core.thrift.codec.parse`:

* at open, every top-level field except ``row_groups`` and
  ``key_value_metadata``: those are skipped by the decoder, which walks (and so
  checks the framing of) every byte of them, and the byte span of each list
  element is recorded;
* a ``RowGroup`` when it is first asked for (``LazyFooter.row_group``; all the
  remaining ones in full when ``FileMetaData.row_groups`` itself is read), with
  ``ColumnMetaData.statistics``, ``encodings``, ``encoding_stats``,
  ``size_statistics``, ``geospatial_statistics``, ``path_in_schema`` and
  ``ColumnChunk.file_offset`` skipped;
* ``statistics`` and ``encodings`` together, and the other five together, for every
  chunk of a row group at once, when one of them is first read from any chunk of that
  group (once statistics were read, later row groups decode the first two with the rest);
* ``key_value_metadata`` when it is first read.

The objects are the generated classes (or subclasses of them: a skipped field
is filled in by a descriptor on its class on first access), so code that reads
``raw.row_groups[i].columns[j].meta_data.statistics`` sees exactly what an eager
decode gives.

Error behaviour.  A struct the lazy decode rejects is rejected by the eager
decode too (same bytes, same decoder, same limits).  When a lazy decode
fails, the whole footer is decoded eagerly once to raise the very
:class:`~parquet_core.errors.ParquetFormatError` (message and notes) that
opening the file raised before this module existed; the file's path is noted
as well.  Anything unusual in the top-level layout (a duplicated field, a
field of an unexpected wire type, an over-long varint) makes
:func:`parse_file_metadata` return None, and the caller decodes eagerly.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Final

from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated
from thrift.Thrift import TType
from thrift.transport.TTransport import TMemoryBuffer

from parquet_core.errors import ParquetFormatError, add_note, note_file
from parquet_core.thrift.codec import DECODE_ERRORS, HAVE_ACCELERATED, parse, serialize
from parquet_core.thrift.generated import ttypes as pt

__all__ = ["LazyFooter", "LazyFileMetaData", "LazyColumnMetaData", "LazyColumnChunk", "LazyRowGroup", "LazyStatistics", "parse_file_metadata",
           "lazy_state", "only_fields", "EXTRA_CHUNK_FIELDS", "EXTRA_CC_FIELDS", "schema_prefix",
           "parse_schema_prefix", "FooterSnapshot"]

#: ``ColumnMetaData`` fields decoded only when first read (``path_in_schema`` repeats the
#: schema's path of the leaf, and a list of strings per chunk is costly to build;
#: ``encodings``, a list per chunk too, is read by pruning and listings, not by reads).
EXTRA_CHUNK_FIELDS: Final = ("statistics", "encodings", "encoding_stats", "size_statistics",
                             "geospatial_statistics", "path_in_schema")
#: the skipped fields decoded with ``statistics``: what pruning reads (bounds; a dictionary
#: encoding among the chunk's encodings)
_STATS_GROUP: Final = ("statistics", "encodings")
_EXTRA_CHUNK_SET: Final = frozenset(EXTRA_CHUNK_FIELDS)
#: ``ColumnChunk`` fields decoded only when first read, with the rarely read group below
#: (``file_offset``, deprecated, is read by nothing but listings of the whole struct)
EXTRA_CC_FIELDS: Final = ("file_offset",)
_EXTRA_CC_SET: Final = frozenset(EXTRA_CC_FIELDS)
_LAZY_TOP: Final = frozenset(("row_groups", "key_value_metadata"))


def _spec_names(cls: Any) -> list[str]:
    return [s[2] for s in cls.thrift_spec if s is not None]


def _fields(obj: Any) -> dict[str, Any]:
    """Every field of a generated struct by name (class-level defaults included), then any
    other instance attribute: what the generated ``__dict__`` holds, in the same order."""
    d = obj.__dict__
    out = {n: getattr(obj, n) for n in _spec_names(type(obj))}
    out.update((k, v) for k, v in d.items() if k not in out)
    return out


def _repr(obj: Any) -> str:
    """The generated ``__repr__``: fields in spec order (the order an eager decode sets them)."""
    fields = ", ".join(f"{n}={v!r}" for n, v in _fields(obj).items())
    return f"{obj.THRIFT_NAME}({fields})"


def _same(a: Any, b: object) -> bool:
    """The generated ``__eq__`` (same kind of struct, same fields) for lazy and eager objects."""
    base = getattr(type(a), "THRIFT_BASE", type(a))
    return isinstance(b, base) and _fields(a) == _fields(b)


def _defaults(cls: Any, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Class attributes standing for the fields the decoder did not set (``__init__`` would
    set them one by one in Python; the C decoder then makes objects without calling it)."""
    return {s[2]: s[4] for s in cls.thrift_spec if s is not None and s[2] not in skip}


class _LikeGenerated:
    """Equality, hashing and repr as the generated classes have them (field by field)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return _same(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]   # as the generated classes

    def __repr__(self) -> str:
        return _repr(self)


class _Deferred:
    """Stands, on :class:`LazyColumnMetaData`, for one of the fields the row group's decode
    skipped: the first read decodes it (and the others of its group, for every chunk of the
    row group while that lives, see :class:`_FooterBytes`) into the instance's ``__dict__``,
    which later reads find first (a non-data descriptor: no ``__set__``, so the decoder's and
    anyone's assignments go to the instance).

    A descriptor per field rather than ``__getattr__`` on the class: a class with
    ``__getattr__`` has every attribute read take CPython's generic slow path (3.11 does not
    specialise the lookups of such a type), and a footer walk reads several fields of each of
    its thousands of chunks."""

    __slots__ = ("name", "default")

    def __init__(self, name: str, default: Any = None) -> None:
        self.name = name
        #: what an eager decode leaves in a field the bytes do not hold
        self.default = default

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:   # on the class: the generated class's default
            return self.default
        lazy = getattr(obj, "_lazy", None)
        if lazy is not None:    # (the footer's bytes and row group, see _FooterBytes; the column)
            lazy[0].load_extras(lazy[1], obj._col, self.name, obj)
        return obj.__dict__.setdefault(self.name, self.default)


class LazyColumnMetaData(_LikeGenerated, pt.ColumnMetaData):
    """A ``pt.ColumnMetaData`` whose statistics fields are decoded on first access.

    The C decoder makes the object (``object.__init__``: unset fields fall back to the
    class-level defaults) and sets the fields it read; the skipped ones are not in
    ``__dict__``, so their class-level :class:`_Deferred` loads them on first read.
    """

    __slots__ = ("_lazy", "_col")
    THRIFT_NAME = "ColumnMetaData"
    THRIFT_BASE = pt.ColumnMetaData
    __init__ = object.__init__
    locals().update(_defaults(pt.ColumnMetaData, _EXTRA_CHUNK_SET))
    locals().update({_n: _Deferred(_n) for _n in EXTRA_CHUNK_FIELDS})

    def load(self) -> None:
        """Decode the skipped fields now (no-op once done)."""
        for n in EXTRA_CHUNK_FIELDS:
            getattr(self, n)

    @property
    def extras_loaded(self) -> bool:
        """Whether every skipped field has been decoded."""
        return all(n in self.__dict__ for n in EXTRA_CHUNK_FIELDS)

    def loaded(self, name: str) -> bool:
        """Whether the skipped field *name* has been decoded."""
        return name in self.__dict__


class LazyColumnChunk(_LikeGenerated, pt.ColumnChunk):
    """A ``pt.ColumnChunk`` made without the generated ``__init__``, its
    :data:`EXTRA_CC_FIELDS` decoded on first access (see LazyColumnMetaData)."""

    __slots__ = ("_lazy", "_col")
    THRIFT_NAME = "ColumnChunk"
    THRIFT_BASE = pt.ColumnChunk
    __init__ = object.__init__
    locals().update(_defaults(pt.ColumnChunk, _EXTRA_CC_SET))
    locals().update({_n: _Deferred(_n, _d) for _n, _d in _defaults(pt.ColumnChunk).items() if _n in _EXTRA_CC_SET})

    def load(self) -> None:
        """Decode the skipped fields now, the chunk's and its metadata's (no-op once done)."""
        for n in EXTRA_CC_FIELDS:
            getattr(self, n)
        md = self.meta_data
        if isinstance(md, LazyColumnMetaData):
            md.load()



class LazyRowGroup(_LikeGenerated, pt.RowGroup):
    """A ``pt.RowGroup`` made without the generated ``__init__`` (a Python call setting every
    field to its default, once per row group decoded; see LazyColumnMetaData)."""

    THRIFT_NAME = "RowGroup"
    THRIFT_BASE = pt.RowGroup
    __init__ = object.__init__
    locals().update(_defaults(pt.RowGroup))


class LazyStatistics(_LikeGenerated, pt.Statistics):
    """A ``pt.Statistics`` made without the generated ``__init__`` (the C decoder sets the
    fields it reads; the unset ones fall back to the class-level defaults), as the lazy
    chunks are: a footer walk decodes one per chunk."""

    THRIFT_NAME = "Statistics"
    THRIFT_BASE = pt.Statistics
    __init__ = object.__init__
    locals().update(_defaults(pt.Statistics))


class LazyFileMetaData(_LikeGenerated, pt.FileMetaData):
    """A ``pt.FileMetaData`` whose ``row_groups`` and ``key_value_metadata`` decode on first access."""

    __slots__ = ("_lazy",)
    THRIFT_NAME = "FileMetaData"
    THRIFT_BASE = pt.FileMetaData

    def __getattr__(self, name: str) -> Any:
        if name not in _LAZY_TOP:
            raise AttributeError(name)
        state: LazyFooter | None = getattr(self, "_lazy", None)
        if state is None:
            value = None
        elif name == "row_groups":
            value = state.all_row_groups()
        else:
            value = state.key_value_metadata()
        return self.__dict__.setdefault(name, value)

    def load(self) -> None:
        """Decode everything that was left for later."""
        for rg in self.row_groups or []:
            for cc in rg.columns or []:
                if isinstance(cc, LazyColumnChunk):
                    cc.load()
                elif isinstance(cc.meta_data, LazyColumnMetaData):
                    cc.meta_data.load()
        self.key_value_metadata  # noqa: B018

    def __repr__(self) -> str:
        self.load()
        return _repr(self)


def lazy_state(raw: Any) -> LazyFooter | None:
    """The :class:`LazyFooter` behind a raw footer decoded by :func:`parse_file_metadata`, else None."""
    return getattr(raw, "_lazy", None) if isinstance(raw, LazyFileMetaData) else None


# -- specs --------------------------------------------------------------------------------

def _with(spec: tuple[Any, ...], **changes: Any) -> tuple[Any, ...]:
    """*spec* with the entries of the named fields replaced (None: skip the field)."""
    out = list(spec)
    for i, entry in enumerate(out):
        if entry is not None and entry[2] in changes:
            out[i] = changes[entry[2]]
    return tuple(out)


def only_fields(spec: tuple[Any, ...], keep: set[str], **changes: Any) -> tuple[Any, ...]:
    """*spec* decoding only the fields in *keep* (others skipped), with some entries replaced."""
    out: list[Any] = [None] * len(spec)
    for i, entry in enumerate(spec):
        if entry is not None and entry[2] in keep:
            out[i] = changes.get(entry[2], entry)
    return tuple(out)


_CMD_TRIM = _with(pt.ColumnMetaData.thrift_spec, **dict.fromkeys(EXTRA_CHUNK_FIELDS))
_CC_TRIM = _with(pt.ColumnChunk.thrift_spec, **dict.fromkeys(EXTRA_CC_FIELDS), meta_data=(
    3, TType.STRUCT, "meta_data", [LazyColumnMetaData, _CMD_TRIM], None))
_RG_TRIM = _with(pt.RowGroup.thrift_spec, columns=(
    1, TType.LIST, "columns", (TType.STRUCT, [LazyColumnChunk, _CC_TRIM], False), None))
#: the same with ``statistics`` (and the rest of its group) decoded too (a footer whose
#: statistics are being read: one pass per row group rather than two)
_STATS_SPEC: Final = (12, TType.STRUCT, "statistics", [LazyStatistics, pt.Statistics.thrift_spec], None)
_CMD_TRIM_STATS = _with(pt.ColumnMetaData.thrift_spec,
                        **dict.fromkeys(n for n in EXTRA_CHUNK_FIELDS if n not in _STATS_GROUP),
                        statistics=_STATS_SPEC)
_CC_TRIM_STATS = _with(pt.ColumnChunk.thrift_spec, **dict.fromkeys(EXTRA_CC_FIELDS), meta_data=(
    3, TType.STRUCT, "meta_data", [LazyColumnMetaData, _CMD_TRIM_STATS], None))
_RG_TRIM_STATS = _with(pt.RowGroup.thrift_spec, columns=(
    1, TType.LIST, "columns", (TType.STRUCT, [LazyColumnChunk, _CC_TRIM_STATS], False), None))


class _Extras:
    """What the extras-only decode builds (plain attribute bags; never exposed).

    No ``__init__``: the C decoder makes one per chunk (twice: chunk and metadata) with no
    arguments and sets the fields itself, so object's own initialiser is the cheapest."""

    __slots__ = ("columns", "meta_data", *EXTRA_CHUNK_FIELDS, *EXTRA_CC_FIELDS)


def _extras_spec(names: tuple[str, ...]) -> tuple[Any, ...]:
    """A ``RowGroup`` spec decoding only ``columns[*].meta_data.<name>`` (and
    ``columns[*].<name>`` for a :data:`EXTRA_CC_FIELDS` name) for *names*."""
    cmd = only_fields(pt.ColumnMetaData.thrift_spec, set(names) & _EXTRA_CHUNK_SET, statistics=_STATS_SPEC)
    cc = only_fields(pt.ColumnChunk.thrift_spec, {"meta_data", *(set(names) & _EXTRA_CC_SET)}, meta_data=(
        3, TType.STRUCT, "meta_data", [_Extras, cmd], None))
    return only_fields(pt.RowGroup.thrift_spec, {"columns"}, columns=(
        1, TType.LIST, "columns", (TType.STRUCT, [_Extras, cc], False), None))


#: The skipped fields in two groups, each decoded (for a whole row group) on the first read of
#: one of its fields: statistics and encodings, which pruning reads, apart from the rest, so
#: reading them does not build the many encoding_stats and size_statistics objects.
_GROUPS: Final = (_STATS_GROUP, ("encoding_stats", "size_statistics", "geospatial_statistics",
                                 "path_in_schema", *EXTRA_CC_FIELDS))
_GROUP_OF: Final = {name: g for g in _GROUPS for name in g}
_RG_EXTRAS: Final = {g: _extras_spec(g) for g in _GROUPS}
assert set(_GROUP_OF) == set(EXTRA_CHUNK_FIELDS) | set(EXTRA_CC_FIELDS)
#: the defaults of the skipped ``ColumnChunk`` fields (an absent ``file_offset`` decodes as 0)
_CC_DEFAULTS: Final = {n: d for n, d in _defaults(pt.ColumnChunk).items() if n in _EXTRA_CC_SET}

_SKIP_ALL: Final[tuple[Any, ...]] = ()


class _Skipped:
    """Target of a decode that skips every field."""


_local = threading.local()


class _StartMark:
    """Stands for a row group in the top-level decode: where it starts in the input, and
    its two extent fields (``file_offset``, ``total_compressed_size``; unset when absent).

    The C decoder makes a (non-frozen) struct's object before it reads the struct's
    fields, so ``start`` is where the element starts.  The extents cost two varints per
    row group here and spare a second pass over the footer where they are needed (a
    ``_metadata`` checked against a folder's listing, ``dataset/staleness.py``).

    ``start`` is set in ``__init__``: the object itself is then made by ``object``'s C
    constructor (a ``__new__`` calling ``object.__new__`` cost ~0.3 µs more per row group:
    0.3 ms of opening a 1,000-row-group ``_metadata``)."""

    __slots__ = ("start", "file_offset", "total_compressed_size")
    start: int
    file_offset: int                # (the decoder sets the two when the row group has them)
    total_compressed_size: int

    def __init__(self) -> None:
        self.start = _local.tell()


_RG_MARK = only_fields(pt.RowGroup.thrift_spec, {"file_offset", "total_compressed_size"})
_FMD_TOP = _with(pt.FileMetaData.thrift_spec,
                 row_groups=(4, TType.LIST, "row_groups", (TType.STRUCT, [_StartMark, _RG_MARK], False), None),
                 key_value_metadata=None)
#: the name the top-level decode sets each field it decodes under, by field id
_TOP_NAMES: Final = {e[0]: e[2] for e in _FMD_TOP if e is not None}
#: stands, in :class:`_TopDecode`'s record, for a field set more than once
_TWICE: Final = -1


class _TopDecode(LazyFileMetaData):
    """What the top-level decode fills in, then made a :class:`LazyFileMetaData` (same layout):
    the C decoder sets each field right after reading its value, so each set records where
    that value ends (``_local.ends``: name -> position, :data:`_TWICE` for a field set twice).

    :func:`_locate` walks the top-level fields again to find the spans of the row groups and
    key/value pairs; a field the decoder read is then stepped over at once rather than
    skipped again element by element (the schema and column orders: one C call per element,
    most of opening a small file's footer, and a wide file's footer walks hundreds)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        ends = getattr(_local, "ends", None)    # (None while ``__init__`` sets the defaults)
        if ends is not None:
            ends[name] = _TWICE if name in ends else _local.tell()
        object.__setattr__(self, name, value)


# -- the state --------------------------------------------------------------------------

class _FooterBytes:
    """What the chunks of lazily decoded row groups refer to (``_lazy = (this, i)``: row
    group *i*; their ``_col``: column *j*) to decode their skipped fields: the footer bytes,
    the row groups' spans, the shared decoder and its lock, which (row group, group of
    fields) were filled.

    It holds no decoded object, so nothing here leads back to a chunk: a row group and its
    chunks are freed by reference counting once the last user drops them (the row groups
    cache lives on :class:`LazyFooter`, which refers to this object, not the other way).
    The row groups are reached through weak references (:attr:`_live`): while a row group
    lives, one decode fills every chunk of it; a chunk kept alone (its row group freed) is
    filled by itself from the same decode.
    """

    def __init__(self, buf: bytes, rg_spans: list[tuple[int, int]] | None,
                 kv_spans: list[tuple[int, int]] | None, fail: Callable[[BaseException], None]) -> None:
        self._buf = buf
        self._rg_spans = rg_spans
        self._kv_spans = kv_spans
        self._fail = fail
        #: the lazily decoded row groups, weakly (None: not decoded, or not since unpickling)
        self._live: list[weakref.ref[Any] | None] = [None] * len(rg_spans or ())
        self._extras_done: set[tuple[int, tuple[str, ...]]] = set()
        self._lock = threading.Lock()
        #: one transport and protocol over the bytes, made once and moved to each struct
        #: (``(trans, proto)``: a new pair per decode cost a quarter of a small row group's
        #: decode); used under ``_lock`` only, never pickled
        self._reader: tuple[Any, Any] | None = None
        self.decoded_extras = 0
        #: see :attr:`LazyFooter.statistics_wanted`
        self.statistics_wanted = False

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        state["_reader"] = None
        state["_live"] = [None] * len(self._live)     # (LazyFooter.__setstate__ sets them again)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _proto(self, start: int) -> tuple[Any, Any]:
        """The footer's decoder, moved to *start* (callers hold ``_lock``)."""
        reader = self._reader
        if reader is None:
            trans = TMemoryBuffer(self._buf)
            limit = len(self._buf)
            reader = self._reader = (trans, TCompactProtocolAccelerated(
                trans, string_length_limit=limit, container_length_limit=limit, fallback=False))
        reader[0].cstringio_buf.seek(start)
        return reader

    def _decode(self, cls: Any, spec: tuple[Any, ...], span: tuple[int, int]) -> Any:
        """One struct of *cls* at *span*, decoded (callers hold ``_lock``: the decoder is shared)."""
        start, end = span
        try:
            trans, proto = self._proto(start)
            obj = cls()
            proto._fast_decode(obj, proto, [cls, spec])
            used = trans.cstringio_buf.tell()
            if used != end:
                raise EOFError(f"struct ends at {used}, its span at {end}")
        except DECODE_ERRORS as exc:
            self._fail(exc)
            raise AssertionError("unreachable") from exc   # _fail always raises
        return obj

    def load_extras(self, i: int, j: int, name: str, obj: Any) -> None:
        """Decode field *name* (one of :data:`EXTRA_CHUNK_FIELDS` or :data:`EXTRA_CC_FIELDS`),
        and the others of its group, into *obj* (column *j* of row group *i*, a chunk or its
        metadata) and, while that row group lives, into every chunk of it and their metadata."""
        group = _GROUP_OF[name]
        key = (i, group)
        if key in self._extras_done:
            return
        if group is _STATS_GROUP:   # (this decode builds the statistics: later groups decode
            self.statistics_wanted = True    # them in their own pass)
        assert self._rg_spans is not None
        with self._lock:
            if key in self._extras_done:
                return
            extras = self._decode(_Extras, _RG_EXTRAS[group], self._rg_spans[i])
            cols = getattr(extras, "columns", None) or []
            if j >= len(cols):   # same bytes, same decoder: cannot happen
                self._fail(EOFError("row group decoded twice with different column counts"))
            md_names = [n for n in group if n in _EXTRA_CHUNK_SET]
            cc_names = [n for n in group if n in _EXTRA_CC_SET]
            live = self._live[i]
            rg = live() if live is not None else None
            if rg is not None:
                chunks = rg.columns or []
                if len(cols) != len(chunks):   # same bytes, same decoder: cannot happen
                    self._fail(EOFError("row group decoded twice with different column counts"))
                for cc, ex in zip(chunks, cols):
                    _fill(cc, ex, md_names, cc_names)
                self._extras_done.add(key)
            # (the row group freed: no other chunk of it can be reached, each one kept fills itself)
            if isinstance(obj, LazyColumnChunk):
                _fill(obj, cols[j], md_names, cc_names)
            elif isinstance(obj, LazyColumnMetaData):
                _fill_md(obj, getattr(cols[j], "meta_data", None), md_names)
            self.decoded_extras += 1


def _fill(cc: Any, ex: Any, md_names: list[str], cc_names: list[str]) -> None:
    """Set the skipped fields *md_names* of chunk *cc*'s metadata and *cc_names* of *cc*
    from *ex* (what the extras-only decode made for that chunk), where not set yet."""
    md = cc.meta_data
    if isinstance(md, LazyColumnMetaData):
        _fill_md(md, getattr(ex, "meta_data", None), md_names)
    if cc_names and isinstance(cc, LazyColumnChunk):
        d = cc.__dict__
        for n in cc_names:
            d.setdefault(n, getattr(ex, n, _CC_DEFAULTS[n]))


def _fill_md(md: Any, got: Any, md_names: list[str]) -> None:
    d = md.__dict__
    for n in md_names:
        d.setdefault(n, getattr(got, n, None))


class LazyFooter:
    """The footer bytes and where its row groups and key/value pairs lie in them; the row
    groups decoded so far.

    The bytes, spans, decoder and lock live on a :class:`_FooterBytes` shared with the
    decoded chunks (their skipped fields are decoded from it); the row groups cache lives
    here only, so no reference cycle runs through the chunks (see ``_FooterBytes``)."""

    def __init__(self, buf: bytes, rg_spans: list[tuple[int, int]] | None,
                 kv_spans: list[tuple[int, int]] | None, fail: Callable[[BaseException], None]) -> None:
        self._src = _FooterBytes(buf, rg_spans, kv_spans, fail)
        self._groups: list[Any] = [None] * len(rg_spans or ())
        #: each row group's ``file_offset`` / ``total_compressed_size`` from the top-level
        #: decode (:class:`_StartMark`), None when not known (see :meth:`row_group_marks`)
        self._rg_marks: list[Any] | None = None
        #: where the schema's encoded elements lie in the footer bytes (None: not known);
        #: footers with the same bytes there have the same schema (see metadata/wrappers.py)
        self.schema_span: tuple[int, int] | None = None
        #: row groups decoded so far, and (row group, group of skipped fields) decoded since
        #: (:attr:`decoded_extras`; kept for tests and benchmarks that check what laziness saved).
        self.decoded_row_groups = 0
        self.decoded_key_value = False
        #: set once :meth:`check_eagerly` found that the eager decode accepts the footer
        self._eager_ok = False

    @property
    def decoded_extras(self) -> int:
        """(Row group, group of skipped fields) decodes so far (see :class:`_FooterBytes`)."""
        return self._src.decoded_extras

    @property
    def statistics_wanted(self) -> bool:
        """Set once statistics were read from any chunk: the row groups decoded after that
        decode their chunks' statistics in the same pass (a walk over every chunk's
        statistics, or pruning by them, reads them from every row group)."""
        return self._src.statistics_wanted

    @statistics_wanted.setter
    def statistics_wanted(self, value: bool) -> None:
        self._src.statistics_wanted = value

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_rg_marks"] = None     # made by the decoder only; the readers fall back
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_eager_ok", False)    # (a state pickled before it existed)
        live = self._src._live
        for i, rg in enumerate(self._groups):
            if isinstance(rg, LazyRowGroup) and i < len(live):
                live[i] = weakref.ref(rg)

    def row_group_marks(self) -> list[Any] | None:
        """Each row group's ``file_offset`` and ``total_compressed_size`` (attributes, unset
        when the row group has none), as the top-level decode saw them; None when unknown."""
        marks = self._rg_marks
        return marks if marks is not None and len(marks) == len(self._groups) else None

    @property
    def num_row_groups(self) -> int:
        return len(self._groups)

    def check_eagerly(self) -> None:
        """Raise what the eager decode of the whole footer raises, if it fails.

        For a check made at open that fails: before this module it could only run once
        the whole footer had decoded, so a footer the eager decode rejects must still
        fail with that decoder's error (costs a full decode, on the error path only, once:
        a footer it accepts is remembered, the bytes do not change).
        """
        if self._eager_ok:
            return
        try:
            parse(self._src._buf, pt.FileMetaData)
        except ParquetFormatError as exc:
            self._src._fail(exc)
        self._eager_ok = True

    @property
    def buf(self) -> bytes:
        """The footer bytes (read only: the spans and the decoded objects come from them)."""
        return self._src._buf

    @property
    def row_group_spans(self) -> list[tuple[int, int]] | None:
        """Where each row group's struct lies in :attr:`buf` (None: no ``row_groups`` field)."""
        return self._src._rg_spans

    def schema_bytes(self, limit: int) -> bytes | None:
        """The footer's encoded schema elements (:attr:`schema_span`), or None when where they
        lie is not known or they are longer than *limit* bytes."""
        span = self.schema_span
        buf = self._src._buf
        if span is None or not isinstance(buf, bytes) or span[1] - span[0] > limit:
            return None
        return buf[span[0]:span[1]]

    @property
    def has_row_groups(self) -> bool:
        """False when the footer has no ``row_groups`` field at all (a corrupt footer)."""
        return self._src._rg_spans is not None

    def row_group(self, i: int) -> Any:
        """The ``pt.RowGroup`` *i*, its chunks' statistics fields left for later."""
        rg = self._groups[i]
        if rg is not None:
            return rg
        src = self._src
        assert src._rg_spans is not None
        with src._lock:
            rg = self._groups[i]
            if rg is not None:
                return rg
            # Each chunk and its metadata learn where their skipped fields are: the footer's
            # bytes and the row group (a tuple shared by its chunks), and the chunk's place in
            # it (a chunk kept without its row group fills itself from the group's decode; a
            # slot holding a small int, not a tuple per chunk: that cost ~50 ns a chunk).
            ref = (src, i)
            stats = src.statistics_wanted
            rg = src._decode(LazyRowGroup, _RG_TRIM_STATS if stats else _RG_TRIM, src._rg_spans[i])
            for j, cc in enumerate(rg.columns or ()):
                cc._lazy = ref
                cc._col = j
                md = cc.meta_data
                if md is not None:
                    md._lazy = ref
                    md._col = j
                    if stats:
                        md.__dict__.setdefault("statistics", None)   # absent: None, as decoded
                        # (an absent ``encodings``, a required field, is set to None by
                        # its descriptor when first read: the group is marked decoded below)
            if stats:
                src._extras_done.add((i, _GROUP_OF["statistics"]))
            src._live[i] = weakref.ref(rg)
            self._groups[i] = rg
            self.decoded_row_groups += 1
        return rg

    def all_row_groups(self) -> list[Any] | None:
        """Every ``pt.RowGroup``: the list ``FileMetaData.row_groups`` holds.

        Code that asks for the raw list walks the whole footer (validation, ``to_dict``,
        datasets merging footers), so the groups not decoded yet are decoded whole, in one
        pass each, rather than trimmed now and completed field by field later.
        """
        src = self._src
        if src._rg_spans is None:
            return None
        with src._lock:
            for i, rg in enumerate(self._groups):
                if rg is None:
                    self._groups[i] = src._decode(pt.RowGroup, pt.RowGroup.thrift_spec, src._rg_spans[i])
                    self.decoded_row_groups += 1
        return list(self._groups)

    def key_value_metadata(self) -> list[Any] | None:
        src = self._src
        if src._kv_spans is None:
            return None
        self.decoded_key_value = True
        with src._lock:
            return [src._decode(pt.KeyValue, pt.KeyValue.thrift_spec, span) for span in src._kv_spans]


# -- the top level ----------------------------------------------------------------------

_T_STOP, _T_TRUE, _T_FALSE, _T_BYTE, _T_I16, _T_I32, _T_I64, _T_DOUBLE, _T_BINARY, _T_LIST, \
    _T_SET, _T_MAP, _T_STRUCT = range(13)


class _Odd(Exception):
    """A layout the walker does not handle: decode eagerly instead."""


class _Walker:
    """Reads the top-level field headers of the footer, skipping values (structs with the C
    decoder), to find where the ``row_groups`` and ``key_value_metadata`` elements lie."""

    def __init__(self, buf: bytes, end: int, trans: Any = None, proto: Any = None) -> None:
        self.buf = buf
        self.end = end
        if trans is None or proto is None:   # else: a decoder over *buf* made by the caller
            trans = TMemoryBuffer(buf)
            limit = len(buf)
            proto = TCompactProtocolAccelerated(
                trans, string_length_limit=limit, container_length_limit=limit, fallback=False)
        self.trans = trans
        self.bio = trans.cstringio_buf
        self.proto = proto
        self.dummy = _Skipped()
        self._skip_args = [_Skipped, _SKIP_ALL]
        self._fast_decode = self.proto._fast_decode
        self._seek = self.bio.seek
        self._tell = self.bio.tell

    def varint(self, pos: int, max_bytes: int) -> tuple[int, int]:
        buf, end = self.buf, self.end
        shift = value = 0
        for _ in range(max_bytes):
            if pos >= end:
                raise _Odd
            b = buf[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value, pos
            shift += 7
        raise _Odd

    def field_header(self, b: int, pos: int, last: int) -> tuple[int, int, int]:
        """``(type, field id, position after the header)`` of a compact field header whose
        first byte *b* (not the stop byte) was read just before *pos*; *last* is the
        previous field's id (the short form stores the id as a delta from it)."""
        ftype, delta = b & 0x0F, b >> 4
        if delta:
            return ftype, last + delta, pos
        zz, pos = self.varint(pos, 3)
        return ftype, (zz >> 1) ^ -(zz & 1), pos

    def struct(self, pos: int) -> int:
        """Position after the struct at *pos*, skipped by the C decoder."""
        self._seek(pos)
        try:
            self._fast_decode(self.dummy, self.proto, self._skip_args)
        except DECODE_ERRORS as exc:
            raise _Odd from exc
        return self._tell()

    def list_header(self, pos: int) -> tuple[int, int, int]:
        if pos >= self.end:
            raise _Odd
        h = self.buf[pos]
        size, etype = h >> 4, h & 0x0F
        pos += 1
        if size == 15:
            size, pos = self.varint(pos, 5)
        if size > self.end - pos:
            raise _Odd
        return size, etype, pos

    def value(self, ftype: int, pos: int) -> int:
        """Skip one value of compact type *ftype*."""
        if ftype in (_T_TRUE, _T_FALSE):
            return pos
        if ftype == _T_BYTE:
            return pos + 1
        if ftype in (_T_I16, _T_I32):
            return self.varint(pos, 5)[1]
        if ftype == _T_I64:
            return self.varint(pos, 10)[1]
        if ftype == _T_DOUBLE:
            return pos + 8
        if ftype == _T_BINARY:
            n, pos = self.varint(pos, 5)
            if n >= 2**31 or n > self.end - pos:
                raise _Odd
            return pos + n
        if ftype == _T_STRUCT:
            return self.struct(pos)
        if ftype in (_T_LIST, _T_SET):
            size, etype, pos = self.list_header(pos)
            if etype in (_T_TRUE, _T_FALSE):   # booleans take one byte each in a container
                return pos + size
            if etype in (_T_LIST, _T_SET, _T_MAP, _T_STOP) or etype > _T_STRUCT:
                raise _Odd
            if etype == _T_STRUCT:   # the schema, column orders: one C skip per element
                struct_end = self.struct
                for _ in range(size):
                    pos = struct_end(pos)
                return pos
            for _ in range(size):   # a list outside row_groups: small (schema, column orders)
                pos = self.value(etype, pos)
            return pos
        raise _Odd   # MAP, or an unknown type

    def elements(self, pos: int) -> tuple[list[tuple[int, int]], int, int]:
        """A list of structs: the element count, the elements' start, and the position after
        its header."""
        size, etype, pos = self.list_header(pos)
        if etype != _T_STRUCT:
            raise _Odd
        return [], size, pos


def parse_file_metadata(buf: bytes, fail: Callable[[BaseException], None]) -> tuple[Any, int] | None:
    """Decode *buf* (a whole plaintext ``FileMetaData``, maybe followed by a signature) lazily.

    Returns ``(raw, used)`` as :func:`~parquet_core.thrift.codec.parse` does, *raw* a
    :class:`LazyFileMetaData`, or None when the footer should be decoded eagerly (no C
    decoder, an unusual layout, or a decoding error: the eager decode reports it).
    *fail* is called with the cause when a later lazy decode fails; it must raise.
    """
    if not HAVE_ACCELERATED or type(buf) is not bytes:
        return None
    limit = len(buf)
    trans = TMemoryBuffer(buf)
    proto = TCompactProtocolAccelerated(trans, string_length_limit=limit,
                                        container_length_limit=limit, fallback=False)
    _local.ends = None
    raw = _TopDecode()
    _local.tell = trans.cstringio_buf.tell
    ends: dict[str, int] = {}
    _local.ends = ends
    try:
        proto._fast_decode(raw, proto, [LazyFileMetaData, _FMD_TOP])
    except DECODE_ERRORS:
        return None
    finally:
        _local.tell = _local.ends = None
    raw.__class__ = LazyFileMetaData
    used = trans.cstringio_buf.tell()
    d = raw.__dict__
    marks = d.pop("row_groups", None)
    starts = [m.start for m in marks] if marks is not None else None
    d.pop("key_value_metadata", None)
    where: dict[str, tuple[int, int]] = {}
    try:
        spans = _locate(buf, used, starts, trans, proto, where, ends)   # the walker reuses the decoder
    except _Odd:
        return None
    if spans is None:
        return None
    rg_spans, kv_spans = spans
    raw._lazy = LazyFooter(buf, rg_spans, kv_spans, fail)
    raw._lazy._src._reader = (trans, proto)      # the decoder made here, reused for the row groups
    raw._lazy._rg_marks = marks
    raw._lazy.schema_span = where.get("schema")
    return raw, used


#: The top-level fields a :class:`FooterSnapshot` keeps encoded apart (all but the two lazy ones).
_FMD_REST = _with(pt.FileMetaData.thrift_spec, row_groups=None, key_value_metadata=None)


class FooterSnapshot:
    """What :func:`parse_file_metadata` found in a footer's bytes, kept so that the same
    bytes can be opened again without the pass over them: :meth:`fresh` makes a new
    :class:`LazyFileMetaData` equal to a new decode of those bytes, whose every object
    (the top-level fields, the row groups and statistics decoded later) is its own.

    Kept: the footer bytes, the row groups' and key/value pairs' spans, the row groups'
    marks (read, never changed) and the top-level fields other than ``row_groups`` and
    ``key_value_metadata`` re-encoded on their own (a few hundred bytes for a schema of a
    few columns, decoded again by the C decoder for each :meth:`fresh`).  Nothing here is
    handed out: the spans and marks are read by the :class:`LazyFooter` only.

    The caller decides when the bytes are the same (``dataset/summary_cache.py`` compares
    them byte for byte); this class never looks at a file.
    """

    __slots__ = ("buf", "_rg_spans", "_kv_spans", "_marks", "_schema_span", "_rest", "_fail")

    def __init__(self, raw: Any) -> None:
        state = lazy_state(raw)
        if state is None or not HAVE_ACCELERATED:
            raise ValueError("only a lazily decoded footer can be kept")
        src = state._src
        self.buf: bytes = src._buf
        self._rg_spans = src._rg_spans
        self._kv_spans = src._kv_spans
        self._marks = state.row_group_marks()
        self._schema_span = state.schema_span
        self._fail = src._fail
        top = pt.FileMetaData()
        d = raw.__dict__
        for entry in _FMD_REST:
            if entry is not None and entry[2] in d:
                setattr(top, entry[2], d[entry[2]])
        self._rest: bytes = serialize(top)      # row_groups and key_value_metadata unset: left out

    def fresh(self) -> Any:
        """A new :class:`LazyFileMetaData` of the kept bytes (what :func:`parse_file_metadata`
        returns, without its pass over the row groups)."""
        rest = self._rest
        limit = len(self.buf)
        trans = TMemoryBuffer(rest)
        proto = TCompactProtocolAccelerated(trans, string_length_limit=limit,
                                            container_length_limit=limit, fallback=False)
        raw = LazyFileMetaData()
        proto._fast_decode(raw, proto, [LazyFileMetaData, _FMD_REST])
        d = raw.__dict__
        d.pop("row_groups", None)
        d.pop("key_value_metadata", None)
        state = raw._lazy = LazyFooter(self.buf, self._rg_spans, self._kv_spans, self._fail)
        state._rg_marks = self._marks
        state.schema_span = self._schema_span
        return raw


def _locate(buf: bytes, used: int, starts: list[int] | None, trans: Any = None, proto: Any = None,
            spans: dict[str, tuple[int, int]] | None = None, ends: dict[str, int] | None = None,
            ) -> tuple[list[tuple[int, int]] | None, list[tuple[int, int]] | None] | None:
    """Walk the top-level fields; the element spans of row_groups and key_value_metadata.

    *starts* are the row groups' start positions the C decoder reported (None: it saw
    no ``row_groups``); the walker checks the first against the list's header and finds
    the end of the last with one more skip.  *trans* and *proto*: a decoder over *buf*
    (with the limits :func:`parse_file_metadata` sets) to reuse; the walker seeks it.
    *spans*, when given, receives ``"schema"``: where the schema field's value lies in *buf*.
    *ends*: where the values the top-level decode set end (see :class:`_TopDecode`); a field
    set once is stepped over to its end (the walker sees a field twice, and gives up, just
    the same: the record of a field set twice is not used).
    """
    w = _Walker(buf, used, trans, proto)
    pos = last = 0
    seen: set[int] = set()
    rg_spans: list[tuple[int, int]] | None = None
    kv_spans: list[tuple[int, int]] | None = None
    while True:
        if pos >= used:
            return None
        b = buf[pos]
        pos += 1
        if b == 0:
            break
        ftype, fid, pos = w.field_header(b, pos, last)
        last = fid
        if fid in seen:
            return None   # a duplicated field: the eager decode keeps the last one
        seen.add(fid)
        if fid == 4:
            if ftype != _T_LIST or starts is None:
                return None
            _, size, first = w.elements(pos)
            if size != len(starts) or (size and starts[0] != first):
                return None
            end = ends.get("row_groups", _TWICE) if ends is not None else _TWICE
            if end > first:
                pos = end
            else:
                pos = w.struct(starts[-1]) if size else first
            rg_spans = list(zip(starts, [*starts[1:], pos]))
        elif fid == 5:
            if ftype != _T_LIST:
                return None
            _, size, pos = w.elements(pos)
            kv_spans = []
            for _ in range(size):
                nxt = w.struct(pos)
                kv_spans.append((pos, nxt))
                pos = nxt
        else:
            start = pos
            end = _TWICE
            if ends is not None:
                name = _TOP_NAMES.get(fid)
                if name is not None:
                    end = ends.get(name, _TWICE)
            pos = end if start < end <= used else w.value(ftype, pos)
            if fid == 2 and spans is not None:
                spans["schema"] = (start, pos)
    if pos != used or (rg_spans is None) != (starts is None):
        return None
    return rg_spans, kv_spans


def schema_prefix(buf: bytes) -> int | None:
    """Length of the shortest prefix of *buf* (a plaintext ``FileMetaData``) that holds every
    top-level field up to and including the schema (field 2): for planning a dataset, which
    needs the schema only.

    Writers put ``version`` (1) and ``schema`` (2) first, so this reads a few bytes and skips
    the schema's elements with the C decoder; whatever comes after (row groups, key/value
    metadata) is not looked at.  The thrift decoder reads a prefix the same way whatever
    follows it, so two footers that share this prefix have the same schema.  None when the
    layout is unusual (no schema, a duplicated field, an over-long varint, a list whose
    count exceeds the bytes left, bytes the C decoder rejects): decode the whole footer.
    """
    if not HAVE_ACCELERATED or type(buf) is not bytes:
        return None
    end = len(buf)
    w = _Walker(buf, end)
    pos = last = 0
    seen: set[int] = set()
    try:
        while pos < end:
            b = buf[pos]
            pos += 1
            if b == 0:
                return None     # the struct ended without a schema
            ftype, fid, pos = w.field_header(b, pos, last)
            last = fid
            if fid in seen:
                return None     # a duplicated field: the eager decode keeps the last one
            seen.add(fid)
            if fid == 2 and ftype != _T_LIST:
                return None
            pos = w.value(ftype, pos)
            if fid == 2:
                return pos if pos <= end else None
    except _Odd:
        return None
    return None


def parse_schema_prefix(buf: bytes, used: int) -> Any:
    """The ``FileMetaData`` fields in ``buf[:used]`` (a :func:`schema_prefix`), decoded: the
    schema and any field written before it; the other fields are None.

    Raises
    ------
    ParquetFormatError
        The prefix does not decode (the caller may decode the whole footer for its error).
    """
    if not 0 < used <= len(buf):
        raise ValueError(f"prefix length {used} outside a footer of {len(buf)} bytes")
    raw, n = parse(buf[:used] + b"\x00", pt.FileMetaData)   # the prefix, closed with a stop byte
    if n != used + 1:
        raise ParquetFormatError(f"the footer's schema prefix decoded as {n - 1} bytes, not {used}")
    return raw


def eager_error(buf: bytes, cause: BaseException) -> ParquetFormatError:
    """The error an eager decode of the footer *buf* raises (or one describing *cause*)."""
    try:
        parse(buf, pt.FileMetaData)
    except ParquetFormatError as exc:
        return exc
    reason = str(cause) or type(cause).__name__
    return ParquetFormatError(f"cannot decode thrift FileMetaData at offset 0: {reason}")


def raise_eager(buf: bytes, notes: tuple[str, ...], path: str | None, cause: BaseException) -> None:
    """Raise :func:`eager_error` with *notes* (as opening the file adds them) and the file's path.

    Bound with :func:`functools.partial` as a :class:`LazyFooter`'s ``fail``.
    """
    exc = eager_error(buf, cause)
    for n in notes:
        if n not in getattr(exc, "__notes__", ()):
            add_note(exc, n)
    note_file(exc, path, "reading")
    raise exc
