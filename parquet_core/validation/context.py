"""State shared by the rule modules while one file is checked.

:class:`Checker` holds the source, the parsed footer, one
:class:`ChunkState` per column chunk (filled in as the levels go deeper:
metadata, then pages, then decoded values) and the findings.  Rule
modules call :meth:`Checker.report` for each finding, and run each unit of
work (a row group, a chunk, a page) inside :meth:`Checker.guard`, so an
exception raised by the engine on one chunk becomes a finding at that
chunk and checking goes on with the next.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from parquet_core.errors import cut_message, quoted
from parquet_core.validation.report import Finding
from parquet_core.validation.rules import ERROR, WARNING, Rule, rule

if TYPE_CHECKING:
    from parquet_core.bloom_filter import SplitBlockBloomFilter

__all__ = ["Checker", "ChunkState", "PageInfo", "LEVELS", "INTERNAL", "MEMORY", "UNREADABLE"]

#: The check levels, shallowest first.
LEVELS = ("footer", "pages", "data")

INTERNAL = rule("check.internal", ERROR, "-",
                "the checker itself failed on this part of the file (reported, not raised)")
MEMORY = rule("check.memory-limit", WARNING, "-",
              "this part of the file is checked within the reader's memory limits (ReaderOptions."
              "max_page_bytes, max_decoded_bytes) and the memory there is; past them it is not checked")
UNREADABLE = rule("file.unreadable", ERROR, "-", "the file can be opened and its size known")


@dataclass
class PageInfo:
    """One page of a chunk as found by walking its headers."""

    ordinal: int           # position in the chunk, every page counted
    header: Any            # pt.PageHeader (decrypted)
    header_size: int
    offset: int            # file offset of the header
    stored: memoryview     # page bytes as stored
    data_ordinal: int | None = None   # data page ordinal (for AADs, offset index)
    first_level: int = 0   # level slot of the chunk the page starts at (data pages)
    page: Any = None       # decoded page (page.model), at the data level
    values: Any = None     # the page's decoded non-null values, at the data level
    def_levels: Any = None
    rep_levels: Any = None


@dataclass
class ChunkState:
    """One column chunk: its metadata and what the deeper levels learn about it."""

    rg: int
    col: int
    raw: Any                # pt.ColumnChunk
    meta: Any               # pt.ColumnMetaData (decrypted), or None
    desc: Any               # ColumnDescriptor
    wrapper: Any = None     # ColumnChunkMetadata (carries the decryptor)
    start: int = 0
    length: int = 0
    usable: bool = True     # False once a finding makes deeper checks meaningless
    pages: list[PageInfo] = field(default_factory=list)
    pages_ok: bool = False  # True when every page header was walked
    buf: Any = None         # the chunk's bytes (kept from the page walk to the data level)
    values: Any = None      # all non-null values of the chunk (physical)
    def_levels: Any = None
    rep_levels: Any = None
    num_levels: int = 0
    decoded: bool = False
    offset_index: Any = None
    column_index: Any = None
    bloom: SplitBlockBloomFilter | None = None   # the chunk's filter, once read
    # Results computed from decoded values (bounds, level histograms), keyed by the id of the
    # array they came from: each page's are shared by the chunk, page header and page index rules.
    memo: dict[Any, Any] = field(default_factory=dict)

    @property
    def path(self) -> str:
        return str(self.desc.dotted_path)

    # (len(pages) when made, the data pages): pages are only ever appended, so a length tells
    _data_pages: tuple[int, list[PageInfo]] = field(default_factory=lambda: (0, []), init=False, repr=False)

    @property
    def data_pages(self) -> list[PageInfo]:
        """The data pages, in order (made once per page walk: rules index it in loops)."""
        made, found = self._data_pages
        if made != len(self.pages):
            found = [p for p in self.pages if p.data_ordinal is not None]
            self._data_pages = (len(self.pages), found)
        return found


class Checker:
    """Collects findings about one file."""

    def __init__(self, source: Any, level: str, decryption: Any = None, options: Any = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
        self.source = source
        self.size: int = source.size
        self.level = level
        self.decryption = decryption
        self.options = options          # a ReaderOptions: the memory limits of decoding (None: defaults)
        self.findings: list[Finding] = []
        self.readable = True
        self.raw: Any = None            # pt.FileMetaData
        self.footer_start = 0           # file offset of the footer's first byte
        self.footer_len = 0
        self.decryptor: Any = None
        self.schema: Any = None         # SchemaDescriptor
        self.chunks: list[list[ChunkState | None]] = []
        self.writer: Any = None         # WriterVersion
        self.externals: dict[str, str | None] = {}   # file_path -> why it cannot be opened (None: it can)

    def deeper(self, level: str) -> bool:
        """True when the requested level includes *level*."""
        return LEVELS.index(self.level) >= LEVELS.index(level)

    def report(self, r: Rule, message: str, *, row_group: int | None = None, column: str | None = None,
               page: int | None = None, offset: int | None = None, severity: str | None = None) -> None:
        """Add a finding of rule *r* (its own severity unless *severity* overrides it).

        A long column path and message are cut (:func:`~parquet_core.errors.quoted`,
        :func:`~parquet_core.errors.cut_message`): names come from the file, which can make
        them megabytes long."""
        if column is not None:
            column = quoted(column, bare=True)
        self.findings.append(Finding(severity or r.severity, r.id, cut_message(message), r.spec, row_group,
                                     column, page, offset))

    def report_chunk(self, r: Rule, ch: ChunkState, message: str, *, page: int | None = None,
                     offset: int | None = None) -> None:
        """:meth:`report` located at column chunk *ch*."""
        self.report(r, message, row_group=ch.rg, column=ch.path, page=page, offset=offset)

    @contextmanager
    def guard(self, r: Rule, *, row_group: int | None = None, column: str | None = None,
              page: int | None = None, offset: int | None = None) -> Iterator[None]:
        """Turn an exception raised inside into a finding of *r* and carry on.

        Errors of the engine (:class:`ParquetError`) are findings about the
        file; a part too large to check (a reader memory limit, or a ``MemoryError``)
        is a ``check.memory-limit`` warning; anything else is a failure of the checker,
        reported under ``check.internal`` rather than raised, so one bad part of a
        file never hides the findings about the others.
        """
        from parquet_core.errors import ParquetError, ParquetResourceError

        try:
            yield
        except (ParquetResourceError, MemoryError) as exc:
            text = _text(exc) if isinstance(exc, ParquetError) else f"out of memory: {exc or type(exc).__name__}"
            self.report(MEMORY, text, row_group=row_group, column=column, page=page, offset=offset)
        except ParquetError as exc:
            self.report(r, _text(exc), row_group=row_group, column=column, page=page, offset=offset)
        except Exception as exc:  # noqa: BLE001 - the checker must report, never crash
            self.report(INTERNAL, f"{type(exc).__name__}: {_text(exc)}", row_group=row_group,
                        column=column, page=page, offset=offset)

    def iter_chunks(self) -> Iterator[ChunkState]:
        """Every usable column chunk, row group by row group."""
        for row in self.chunks:
            for ch in row:
                if ch is not None and ch.usable:
                    yield ch


def _text(exc: BaseException) -> str:
    notes = [n for n in getattr(exc, "__notes__", ()) if not n.startswith("while ")]
    return "; ".join([str(exc)] + notes)
