"""Which entries of a folder's ``_metadata`` still describe the files the folder holds.

The listing of the folder decides which data files there are; ``_metadata`` is a
cache of their footers, written at some point in the past.  Since then files
may have been added (another writer, an append without rewriting
``_metadata``), removed (``delete_matching``, by hand) or replaced.  Each
file ``_metadata`` names is classified against the listing:

* *used*: it is listed, and its size leaves room for every row group
  ``_metadata`` places in it (the end of its column data plus the 8-byte
  tail: footer length and magic).  Its footer is taken from ``_metadata``.
* *stale*: not listed (gone, or hidden by the listing's rules), too small
  for the row groups ``_metadata`` places in it, or (where the listing gives
  modification times: the local disk, object stores) modified after
  ``_metadata`` (it was replaced) or at the same time by the store's clock
  (whole seconds in an S3 listing), which cannot be ordered.  The entry is ignored; a listed file whose entry is
  stale is read from its own footer.

Files the listing finds and ``_metadata`` does not name are read from their
own footers too.  The sizes come from the listing (a stat per file on local
disk, free in an object store's listing); the row groups' extents come from
``RowGroup.file_offset`` + ``total_compressed_size``, which the lazy footer's
top-level decode already picks out (else one pass of the C thrift decoder over
the footer bytes, the column chunks skipped, not built), else from the column
chunks' own offsets and sizes.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Mapping, Sequence

from thrift.Thrift import TType

from parquet_core.thrift import pt
from parquet_core.thrift.codec import DECODE_ERRORS, HAVE_ACCELERATED
from parquet_core.thrift.lazy_footer import lazy_state, only_fields

__all__ = ["stale_reason", "row_group_ends", "bytes_needed", "TAIL_BYTES"]

#: Bytes after the last column chunk that every Parquet file has: footer length, "PAR1".
TAIL_BYTES = 8


def stale_reason(size: int | None, need: int, mtime: int | None, written: int | None) -> str:
    """Why a ``_metadata`` entry is not used: its file is not listed (*size* None), was
    modified after ``_metadata`` (*mtime* at or after *written*: equal times cannot be
    ordered), or has fewer than *need* bytes (the end of the column data ``_metadata``
    places in it, plus the tail).  The matching itself is ``Summary.match``."""
    if size is None:
        return "not in the folder's listing (removed, or a hidden name)"
    if written is not None and mtime is not None and mtime >= written:
        # equal times cannot be ordered: clocks of files tick coarsely (whole seconds in
        # S3 listings, a few milliseconds on Linux disks), so a file replaced just after
        # _metadata may carry its time; its own footer is read (a cost, never a wrong row)
        return ("the file was modified after _metadata was written" if mtime > written else
                "the file's modification time equals _metadata's (the clock cannot tell "
                "which was written last)")
    return (f"the file has {size} bytes, _metadata places column data up to byte "
            f"{need - TAIL_BYTES} in it (replaced since)")


class _Bag:
    """What the C decoder fills (plain attributes); no ``__init__``, the cheapest to make."""


_RG_EXTENT = only_fields(pt.RowGroup.thrift_spec, {"file_offset", "total_compressed_size"})
_FMD_EXTENTS = only_fields(pt.FileMetaData.thrift_spec, {"row_groups"}, row_groups=(
    4, TType.LIST, "row_groups", (TType.STRUCT, [_Bag, _RG_EXTENT], False), None))


def row_group_ends(raw: Any) -> list[int | None]:
    """The offset just past the column data of each row group of a footer.

    From the row group's ``file_offset`` + ``total_compressed_size`` when both are set
    (every current writer sets them), else from its column chunks.
    """
    bags = _fast_extents(raw)
    if bags:
        try:    # every row group has both fields (every current writer): C-level loops
            starts = [b.file_offset for b in bags]
            sizes = [b.total_compressed_size for b in bags]
            if min(starts) > 0 and min(sizes) >= 0:
                return list(map(operator.add, starts, sizes))
        except (AttributeError, TypeError):
            pass    # one row group without them (or not numbers): each row group below
    n = len(bags) if bags is not None else len(raw.row_groups or [])
    out: list[int | None] = []
    for i in range(n):
        start = size = None
        if bags is not None:
            start = getattr(bags[i], "file_offset", None)
            size = getattr(bags[i], "total_compressed_size", None)
        if start is not None and size is not None and start > 0 and size >= 0:
            out.append(start + size)
        else:
            out.append(_chunk_end(_row_group(raw, i)))
    return out


def bytes_needed(groups: Mapping[str, Sequence[int]], ends: Sequence[int | None]) -> dict[str, int]:
    """Each file's least size for ``_metadata``'s row groups *groups* (file -> row group
    indexes) to fit in it: the end of their column data (*ends*: :func:`row_group_ends`)
    plus the tail (a row group whose end is unknown counts as 0).

    Files of one row group (every writer of one row group per file) take C-level passes,
    files of more one step each."""
    keys, rows = list(groups), list(groups.values())
    counts = list(map(len, rows))
    if 0 not in counts:
        last: list[Any] = list(map(ends.__getitem__, map(_first, rows)))
        if None not in last:
            out = dict(zip(keys, map(TAIL_BYTES.__add__, last)))
            if counts.count(1) != len(counts):     # the files of several (picked in C)
                for rel, gs in itertools.compress(zip(keys, rows), map((1).__ne__, counts)):
                    out[rel] = max([ends[i] or 0 for i in gs]) + TAIL_BYTES
            return out
    return {rel: max([ends[i] or 0 for i in gs], default=0) + TAIL_BYTES for rel, gs in groups.items()}


_first = operator.itemgetter(0)


def _fast_extents(raw: Any) -> list[Any] | None:
    """Each row group's two extent fields: from the lazy footer's top-level decode, else
    decoded in one pass over the footer bytes (None when the footer was decoded eagerly or
    the pass fails: the caller decodes)."""
    state = lazy_state(raw)
    if state is None:
        return None
    marks = state.row_group_marks()    # picked out when the footer was opened
    if marks is not None:
        return marks
    buf = state.buf
    if not HAVE_ACCELERATED or not isinstance(buf, bytes):
        return None
    from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated
    from thrift.transport.TTransport import TMemoryBuffer

    limit = len(buf)
    trans = TMemoryBuffer(buf)
    proto = TCompactProtocolAccelerated(trans, string_length_limit=limit, container_length_limit=limit,
                                        fallback=False)
    top = _Bag()
    try:
        proto._fast_decode(top, proto, [_Bag, _FMD_EXTENTS])
    except DECODE_ERRORS:
        return None
    groups = getattr(top, "row_groups", None)
    if groups is None or len(groups) != state.num_row_groups:
        return None
    return list(groups)


def _row_group(raw: Any, i: int) -> Any:
    state = lazy_state(raw)
    if state is not None:
        return state.row_group(i)
    return raw.row_groups[i]


def _chunk_end(rg: Any) -> int | None:
    """The byte past the last column chunk of a thrift row group (None: no chunk metadata)."""
    end = None
    for chunk in rg.columns or ():
        md = chunk.meta_data
        if md is None or md.data_page_offset is None or md.total_compressed_size is None:
            continue
        start = md.data_page_offset
        dictionary = md.dictionary_page_offset
        if dictionary is not None and 0 < dictionary < start:
            start = dictionary
        e = start + md.total_compressed_size
        end = e if end is None else max(end, e)
    return end
