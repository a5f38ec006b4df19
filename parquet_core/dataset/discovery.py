"""Which files a path means: a file, a folder (recursive), a glob, or a list of them.

Litter is skipped the way Spark and pyarrow skip it: every file or folder
whose name starts with ``_`` or ``.`` below the root (``_SUCCESS``, ``.crc``
files, ``_temporary/``, ``_delta_log/``, our own ``.<name>...pqcore-tmp``
temporary files) and Hadoop's in-flight copies ending in ``._COPYING_``.
``_metadata`` and ``_common_metadata`` at the root are not data, but are
remembered: the dataset takes the footers of the files listed here from
``_metadata`` when it still describes them (see ``staleness.py``).  The
listing decides which files there are, never ``_metadata``.  The bookkeeping
files of ``write_to_dataset`` are never data, and a folder a write is
committing is listed as its committed version (``commit_markers.py``).

A list of paths is read as given: in its order, a path given twice read twice
(as pyarrow); a folder's files and a glob's matches are sorted.

The *root* is where partition folders start: the folder given, the fixed
prefix of a glob without its trailing ``key=value`` folders (``ds/k=a/*/*.parquet``
-> ``ds``, so ``k`` is a column), a file's own folder, or the common folder of a list.
"""

from __future__ import annotations

import os
import posixpath
import time
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Sequence, TypeAlias

from parquet_core.dataset.commit_markers import (
    ListingRaced,
    apply_markers,
    is_internal,
    is_marker,
    read_generation,
)
from parquet_core.errors import ParquetError, add_context, has_note, quoted
from parquet_core.file.filesystem import FileSystem, LocalFileSystem

__all__ = ["Discovery", "discover", "is_hidden", "list_data_files", "DEFAULT_IGNORE_PREFIXES"]

DEFAULT_IGNORE_PREFIXES = (".", "_")
_GLOB_CHARS = "*?["


def is_hidden(name: str, prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES) -> bool:
    """A name Spark and pyarrow leave out of a listing."""
    return name.startswith(tuple(prefixes)) or name.endswith("._COPYING_")


@dataclass
class Discovery:
    """The data files (``(path, size)`` in reading order), the root, and the summary files found there.

    ``folders`` and ``times`` run parallel to ``files``: each file's folders below the root
    (the files of one folder share one list) and its modification time in ns where the
    listing gives it for free (the local disk's stat, an object store's listing), else None.
    """

    files: list[tuple[str, int]]
    root: str | None
    metadata_path: str | None = None
    common_metadata_path: str | None = None
    folders: list[list[str]] = field(default_factory=list)
    times: list[int | None] = field(default_factory=list)
    #: ``_metadata``'s modification time as an object store's listing gave it (None: unknown,
    #: or the local disk, where it is read when needed)
    metadata_time: int | None = None

    @property
    def relative(self) -> dict[str, list[str]]:
        """path -> its folders below the root."""
        return {p: below for (p, _), below in zip(self.files, self.folders)}

    @property
    def mtimes(self) -> dict[str, int]:
        """path -> modification time (ns), for the files whose listing gave one (and
        ``_metadata``'s, where a store's listing gave it)."""
        out = {p: t for (p, _), t in zip(self.files, self.times) if t is not None}
        if self.metadata_path is not None and self.metadata_time is not None:
            out[self.metadata_path] = self.metadata_time
        return out


def list_data_files(folder: str, fs: FileSystem | None = None,
                    ignore_prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES) -> list[tuple[str, int]]:
    """Every data file below *folder* (recursive, sorted), without litter: ``(path, size)``.

    The one listing rule shared by :class:`ParquetDataset` and the Spark adapter.
    Summary files (``_metadata``...) are litter here: :func:`discover` picks them up itself.
    """
    fs = fs or LocalFileSystem()

    def attempt() -> dict[str, int]:
        markers: list[tuple[str, list[str]]] = []
        files = {p: size for p, size, _, _ in _walk(fs, folder, tuple(ignore_prefixes), markers=markers, times=False)}
        if markers:
            apply_markers(fs, markers, files)
        return files

    def spans(files: dict[str, int]) -> bool:
        dirname = _paths(fs).dirname
        return len({dirname(p) for p in files}) > 1

    return sorted(_listed_whole(fs, folder, attempt, lambda: None, spans).items())


def _paths(fs: FileSystem) -> Any:
    """The path module of *fs*'s paths: ``os.path`` on the local disk, ``posixpath`` (``/``)
    on a store."""
    return os.path if isinstance(fs, LocalFileSystem) else posixpath


#: Listings of a folder taken before one is found that no write changed meanwhile.
_LIST_ATTEMPTS = 6


def _root_state(fs: FileSystem, folder: str) -> tuple[int, int, int] | tuple[str, bytes | None] | None:
    """What every commit to the dataset at *folder* changes: on the local disk the root
    folder's times and inode (a commit makes and removes its record there); on a store the
    bytes of its generation object (``commit_markers.GENERATION_NAME``, one GET; absent on
    a dataset no transactional write committed to).  None when the local folder is gone.
    An fsspec file system that is the local disk underneath (``fs.local_disk``) takes the
    local rule: our local writer makes no generation object there."""
    if not fs.local_disk:
        return ("generation", read_generation(fs, folder))
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _roots(fs: FileSystem, folder: str) -> list[str]:
    """*folder*, then the folders above it that a writer could have committed to: while the
    folder (or its parent...) is hive-named (``key=value``, a partition), its parent, up to
    and including the first folder that is not (the dataset root of ``read_table("ds/k=1")``
    is ``ds``).  Nothing above that: an unrelated folder (``/tmp``) is never a root."""
    paths = _paths(fs)
    dirname, basename = paths.dirname, paths.basename
    out = [folder]
    path = os.path.abspath(folder) if isinstance(fs, LocalFileSystem) else (folder.rstrip("/") or folder)
    while True:
        key, eq, _ = basename(path).partition("=")
        parent = dirname(path)
        if not (eq and key) or not parent or parent == path:
            return out
        out.append(parent)
        path = parent


def _listed_whole(fs: FileSystem, folder: str, attempt: Any, undo: Any, spans: Any) -> Any:
    """``attempt()`` (a listing of the tree at *folder*), taken again (after ``undo()``)
    until no write committed while it ran.

    A listing walks folder after folder (a store's, page after page); a ``write_to_dataset``
    that commits in between leaves the folders listed before it in the old version and those
    listed after it in the new one (each folder is consistent, the whole is not).  Every
    commit changes :func:`_root_state` of the dataset's root: locally it makes and removes its
    record in the root folder, whose times (and inode) taken before and after the listing
    then differ; on a store it rewrites the root's generation object, read before and after.
    A marker that vanished before it was read (:class:`ListingRaced`) says the same everywhere.
    The roots compared are *folder* and, for a partition folder read on its own, the folders
    above it up to the dataset's root (:func:`_roots`): a commit to ``ds`` changes ``ds``,
    not the ``ds/k=1`` being listed.
    Locally the roots' states are compared only when the files listed lie in two folders or
    more (``spans(result)``): the files of one folder come from one read of that folder,
    which its marker makes consistent, and a flat folder that other files keep arriving in
    (a landing folder) is not listed again for them.  A store's listing of one folder is
    paged (and its generation object changes with commits only): always compared there.
    On a store a generation object is read after the listing, and before it only when this
    process last found one at that root (:func:`_expect_generation`): absent after the
    listing, it was absent throughout (it is never removed), so no commit's roll-forward fell
    inside; a dataset no transactional write committed to costs one failed GET per root and
    listing.  Found after a listing not preceded by a read, the listing is taken again.
    Retried :data:`_LIST_ATTEMPTS` times, then a :class:`ParquetError` (writes kept
    committing).  Limit: a glob is checked only through the markers.
    """
    local = fs.local_disk
    roots = _roots(fs, folder)
    for n in range(_LIST_ATTEMPTS):
        if local:
            before = [_root_state(fs, r) for r in roots]
        else:
            before = [_root_state(fs, r) if _expect_generation(fs, r) else _UNREAD for r in roots]
        try:
            result = attempt()
        except ListingRaced:
            pass
        else:
            if local:
                if before[0] is None or not spans(result) or [_root_state(fs, r) for r in roots] == before:
                    return result
            else:
                after = [_root_state(fs, r) for r in roots]
                for r, state in zip(roots, after):
                    _note_generation(fs, r, state != _ABSENT)
                if all(a in (_ABSENT, b) for a, b in zip(after, before)):
                    return result
        undo()
        time.sleep(0.001 * (1 << n))        # let the write's roll-forward finish
    raise ParquetError(f"{fs.display(folder)!r} changed while it was listed, {_LIST_ATTEMPTS} "
                       "times in a row (writes kept committing to it); read it again")


_UNREAD = ("unread", None)
_ABSENT = ("generation", None)
#: (protocol, root) -> whether a store root had a generation object when last listed.  Only
#: a guess of whether to read it before a listing: a wrong one costs a GET or a listing
#: taken again, never a wrong answer.  Cleared when it reaches :data:`_SEEN_MAX` roots.
_GENERATIONS_SEEN: dict[tuple[str, str], bool] = {}
_SEEN_MAX = 4096


def _expect_generation(fs: FileSystem, folder: str) -> bool:
    """Whether to read *folder*'s generation object before listing it (yes unless this
    process found none there last time)."""
    return _GENERATIONS_SEEN.get((fs.protocol, folder), True)


def _note_generation(fs: FileSystem, folder: str, present: bool) -> None:
    if len(_GENERATIONS_SEEN) >= _SEEN_MAX:
        _GENERATIONS_SEEN.clear()
    _GENERATIONS_SEEN[(fs.protocol, folder)] = present


#: A listed data file: ``(path, size, folders below the listed folder, modification time in
#: ns or None)``; the files of one local folder share their folders' list.
Listed: TypeAlias = "tuple[str, int, list[str], int | None]"


def _walk(fs: FileSystem, folder: str, prefixes: tuple[str, ...],
          summary: dict[str, tuple[str, int | None]] | None = None,
          markers: list[tuple[str, list[str]]] | None = None, times: bool = True) -> list[Listed]:
    """Every data file below *folder* (:data:`Listed`), litter left out; ``_metadata`` /
    ``_common_metadata`` directly in *folder* go into *summary* (name -> ``(path, time)``)
    when it is given, commit markers into *markers* (``(path, folders below)``).  Unsorted.
    Without *times*, a store is listed without asking for times (the local walk has them
    from its stat anyway)."""
    if isinstance(fs, LocalFileSystem):
        return _walk_local(folder, prefixes, summary, markers)
    return _walk_store(fs, folder, prefixes, summary, markers, times)


def _walk_store(fs: FileSystem, folder: str, prefixes: tuple[str, ...],
                summary: dict[str, tuple[str, int | None]] | None,
                markers: list[tuple[str, list[str]]] | None, times: bool = True) -> list[Listed]:
    """:func:`_walk` in a store: one ``find``, each key's folders split from its path, and
    (with *times*) the modification times the listing gives, summary files' too."""
    listing = fs.find_times(folder) if times else [(p, s, None) for p, s in fs.find(folder)]
    out: list[Listed] = []
    for p, size, when in listing:
        below = _rel_parts(fs, folder, p)
        name = posixpath.basename(p)
        if summary is not None and not below and name in _SUMMARY_NAMES:
            summary[name] = (p, when)
            continue
        if name[:1] in "._" and is_internal(name):
            if markers is not None and is_marker(name) and not any(is_hidden(b, prefixes) for b in below):
                markers.append((p, below))
            continue
        if is_hidden(name, prefixes) or any(is_hidden(b, prefixes) for b in below):
            continue
        out.append((p, size, below, when))
    return out


_SUMMARY_NAMES = frozenset(("_metadata", "_common_metadata"))


#: Folders a local listing lists on one thread first, timing each, before it decides whether
#: the rest is listed on threads (see :func:`_walk_local`).
PROBE_FOLDERS = 32
#: The time per entry (seconds; the median over the probed folders of a folder's listing time
#: divided by its entries plus one) from which a local listing is waiting on its file system
#: (a cold cache, a network mount) and the rest is listed on threads.  A warm local listing
#: takes 1-4 µs per entry (the system calls and the entry's Python objects).
SLOW_ENTRY_SECONDS = 25e-6
#: Threads a slow local listing uses at most (the calling thread and three others).
LISTING_THREADS = 4


def _walk_local(folder: str, prefixes: tuple[str, ...], summary: dict[str, tuple[str, int | None]] | None,
                markers: list[tuple[str, list[str]]] | None) -> list[Listed]:
    """:func:`_walk` on the local disk with ``os.scandir``: litter folders are not entered,
    and each file's folders below *folder* come from the walk (no path splitting per file).
    Follows links to folders and skips what vanishes or cannot be read, as ``os.walk(...,
    followlinks=True)`` with ``os.path.getsize`` did.

    This is most of the cost of planning a dataset whose ``_metadata`` is up to date, so the
    loop over a folder's entries is kept short: a name whose first character cannot start an
    ignored prefix or ``.``/``_`` and whose last is not ``_`` (every data file and partition
    folder) takes two character tests; the rest takes the full rules (:func:`_skipped`).

    Threads only when they pay: the first :data:`PROBE_FOLDERS` folders are listed on the
    calling thread, each timed; when a folder takes :data:`SLOW_ENTRY_SECONDS` per entry or
    more (the median: a preemption on a loaded machine lengthens one folder, not half of
    them), the system calls are waiting on the file system and the folders left are shared
    between the calling thread and up to three others (the waits overlap).  On a warm local
    disk a system call takes about a microsecond and the GIL is taken back after each one,
    so threads hand it over per entry and cost CPU and wall time (1,000 partition folders:
    +1 ms CPU, +6 ms median wall on two cores): it is listed on one thread.  The result is
    the same set either way (unsorted; commit markers sorted by path)."""
    out: list[Listed] = []
    stack: list[tuple[str, list[str]]] = [(folder, [])]
    marks: list[tuple[float, int]] = []
    _list_folders(stack, out, prefixes, summary, markers, PROBE_FOLDERS, marks)
    if len(stack) >= 2 and _slow(marks):
        _list_on_threads(stack, out, prefixes, markers)
    else:
        _list_folders(stack, out, prefixes, None, markers, None)
    if markers is not None and len(markers) > 1:
        markers.sort(key=_path_of)
    return out


def _slow(marks: list[tuple[float, int]]) -> bool:
    """Whether the probed folders (*marks*: the clock and the count of entries found, at the
    start of each folder and at the end) took :data:`SLOW_ENTRY_SECONDS` per entry or more,
    the median over the folders.  (Between two marks the count grows by the folder's entries
    less one, the folder itself taken off the stack: ``+ 2`` is its entries plus one.)"""
    per_entry = sorted([(t1 - t0) / (n1 - n0 + 2) for (t0, n0), (t1, n1) in zip(marks, marks[1:])])
    return bool(per_entry) and per_entry[len(per_entry) // 2] >= SLOW_ENTRY_SECONDS


def _list_on_threads(stack: list[tuple[str, list[str]]], out: list[Listed], prefixes: tuple[str, ...],
                     markers: list[tuple[str, list[str]]] | None) -> None:
    """List the folders on *stack* and below them, shared between the calling thread and up
    to ``LISTING_THREADS - 1`` others; every thread is joined before this returns or raises
    (an error of any thread is raised here, in the calling thread, naming its folder)."""
    from concurrent.futures import ThreadPoolExecutor

    n = min(LISTING_THREADS, len(stack))
    parts = [stack[i::n] for i in range(n)]
    outs: list[list[Listed]] = [[] for _ in parts]
    with ThreadPoolExecutor(n - 1, thread_name_prefix="parquet_core-list") as pool:
        done = [pool.submit(_list_folders, part, o, prefixes, None, markers, None)
                for part, o in zip(parts[1:], outs[1:])]
        try:
            _list_folders(parts[0], outs[0], prefixes, None, markers, None)
        except BaseException:
            for d in done:
                d.cancel()          # not started yet: not listed (the pool joins the others)
            raise
        for d in done:
            d.result()              # a thread's error, raised here (the pool joins the others)
    for o in outs:
        out.extend(o)


class _EveryChar:
    """Holds every character: the quick test of :func:`_list_folders` when an empty
    ignored prefix makes every name a candidate (the full rules then decide each one)."""

    def __contains__(self, char: object) -> bool:
        return True


def _first_chars(prefixes: tuple[str, ...]) -> str | _EveryChar:
    """The characters a name the listing may leave out can start with (``.``, ``_``, the
    ignored prefixes' first); every character when an empty prefix makes every name a
    candidate."""
    if any(not p for p in prefixes):
        return _EveryChar()
    return "".join(sorted({p[0] for p in prefixes} | {".", "_"}))


def _list_folders(stack: list[tuple[str, list[str]]], out: list[Listed], prefixes: tuple[str, ...],
                  summary: dict[str, tuple[str, int | None]] | None,
                  markers: list[tuple[str, list[str]]] | None, limit: int | None,
                  marks: list[tuple[float, int]] | None = None) -> None:
    """List the folders on *stack* (``(path, folders below the root)``) and, depth first, the
    folders below them, adding each data file to *out*; with *limit*, stop after that many
    folders (the folders found and not listed are left on *stack*).  With *marks* (and a
    *limit*), the clock and the count of entries found (files and folders) are noted at the
    start of each folder and at the end (see :func:`_slow`).  An error other than an
    ``OSError`` (which skips the folder, as ``os.walk`` does) is raised with a note naming
    the folder.

    The loop is most of a plan's time above its system calls, so it does per folder and
    per entry only what the listing needs: without *limit* (every folder after the first
    :data:`PROBE_FOLDERS`) one test per folder for the limit and the clock together."""
    add = out.append
    push = stack.append
    pop = stack.pop
    firsts = _first_chars(prefixes)
    scandir = os.scandir
    listed = 0
    clock = time.perf_counter if marks is not None else None
    while stack:
        if limit is not None:
            if listed >= limit:
                break
            listed += 1
            if clock is not None:
                marks.append((clock(), len(out) + len(stack)))     # type: ignore[union-attr]
        d, below = pop()
        try:
            it = scandir(d)
        except OSError:
            continue    # not a folder, removed, or not readable
        except BaseException as exc:
            _name_folder(exc, d)
            raise
        # no ``with``: the iterator closes its folder when it is exhausted, and is closed
        # below when reading it fails; the two calls of a ``with`` per folder cost ~1 ms
        # over 1,000 folders
        try:
            for e in it:
                name = e.name
                # maybe litter: a first character that can start an ignored prefix (or
                # "." / "_"), or a last "_" ("._COPYING_"); the full rules decide
                if (name[0] in firsts or name[-1] == "_") and \
                        _skipped(e, name, below, prefixes, summary, markers):
                    continue
                try:
                    if e.is_dir():
                        push((e.path, below + [name]))
                        continue
                    st = e.stat()
                except OSError:
                    continue    # removed while listing, or a broken link
                add((e.path, st.st_size, below, st.st_mtime_ns))
        except OSError:
            it.close()
            continue    # the folder went away while it was read
        except BaseException as exc:
            it.close()
            _name_folder(exc, d)
            raise
    if clock is not None:
        marks.append((clock(), len(out) + len(stack)))         # type: ignore[union-attr]


#: How a listing error's note names its folder (``in the listing of the folder '/data/x'``).
_LISTING_NOTE = "the listing of the folder"


def _name_folder(exc: BaseException, folder: str) -> None:
    """Note on *exc* the folder whose listing raised it (once: the innermost folder)."""
    if not has_note(exc, "in " + _LISTING_NOTE):
        add_context(exc, part=f"{_LISTING_NOTE} {quoted(folder)}")


def _skipped(e: os.DirEntry[str], name: str, below: list[str], prefixes: tuple[str, ...],
             summary: dict[str, tuple[str, int | None]] | None,
             markers: list[tuple[str, list[str]]] | None) -> bool:
    """Whether :func:`_walk_local` leaves out an entry whose name may be litter: noting a
    summary file or a commit marker on the way.  False for a name the rules keep (with
    *prefixes* that leave some ``.``/``_`` names visible, or a name merely ending in ``_``):
    a data file or folder after all."""
    if not (name.startswith((".", "_", *prefixes)) or name.endswith("._COPYING_")):
        return False    # the quick test's false alarm: kept, as the rules below would keep it
    try:
        is_dir = e.is_dir()
    except OSError:
        return True
    if summary is not None and not below and not is_dir and name in _SUMMARY_NAMES:
        summary[name] = (e.path, None)
        return True
    if name[:1] in "._" and is_internal(name):
        if markers is not None and not is_dir and is_marker(name):
            markers.append((e.path, below))
        return True
    return is_hidden(name, prefixes)


def _split(fs: FileSystem, path: str) -> list[str]:
    if isinstance(fs, LocalFileSystem):
        return [p for p in os.path.normpath(path).split(os.sep) if p]
    return [p for p in path.split("/") if p]


def _rel_parts(fs: FileSystem, root: str | None, path: str) -> list[str]:
    """The folder names between *root* and the file *path* (string slicing: this runs per file)."""
    if root is None:
        return []
    local = isinstance(fs, LocalFileSystem)
    sep = os.sep if local else "/"
    d = os.path.dirname(path) if local else posixpath.dirname(path)
    r = root.rstrip(sep) if root not in (sep, "") else root
    if d == r:
        return []
    if r in ("", sep):
        rest = d.lstrip(sep)
    elif d.startswith(r + sep):
        rest = d[len(r) + 1:]
    elif local:
        rel = os.path.relpath(d, root)
        return [] if rel == "." else rel.split(os.sep)
    else:
        return []
    return rest.split(sep) if rest else []


def _has_magic(path: str) -> bool:
    return any(c in path for c in _GLOB_CHARS)


def _glob_root(fs: FileSystem, pattern: str) -> str:
    parts = pattern.split(fs.sep if isinstance(fs, LocalFileSystem) else "/")
    fixed = []
    for p in parts:
        if _has_magic(p):
            break
        fixed.append(p)
    # ds/k=a/*.parquet: the k=a folder is a partition of the dataset at ds, not its root
    while len(fixed) > 1 and "=" in fixed[-1]:
        fixed.pop()
    joined = (os.sep if isinstance(fs, LocalFileSystem) else "/").join(fixed)
    return joined or ("." if isinstance(fs, LocalFileSystem) else "")


def discover(fs: FileSystem, paths: Sequence[str], ignore_prefixes: Sequence[str] = DEFAULT_IGNORE_PREFIXES,
             use_summary: bool = True) -> Discovery:
    """List the data files *paths* mean.

    The folder is always listed.  When one folder is given and *use_summary*, its
    ``_metadata`` / ``_common_metadata`` (directly in it) are noted as well, for the
    dataset to take footers from (``metadata_path``, ``common_metadata_path``).

    Raises
    ------
    FileNotFoundError
        A path that does not exist (and matches nothing as a glob).
    """
    listing = _Listing(fs, tuple(ignore_prefixes))
    for raw in paths:
        listing.add(raw)
    return listing.result(single=len(paths) == 1 and use_summary)


class _Listing:
    """The files of several paths (folders, files, globs), their roots and summary files."""

    def __init__(self, fs: FileSystem, prefixes: tuple[str, ...]) -> None:
        self.fs = fs
        self.local = isinstance(fs, LocalFileSystem)
        self.prefixes = prefixes
        self.files: list[tuple[str, int]] = []     # in reading order, duplicates kept
        self.folders: list[list[str]] = []         # each file's folders below its root
        self.times: list[int | None] = []          # each file's modification time, if listed
        self.roots: list[str] = []
        self.summary: dict[str, tuple[str, int | None]] = {}

    def _file(self, path: str, size: int, below: list[str], when: int | None = None) -> None:
        self.files.append((path, size))
        self.folders.append(below)
        self.times.append(when)

    def add(self, raw: str) -> None:
        fs = self.fs
        path = os.path.abspath(raw) if self.local and not _has_magic(raw) else raw
        kind = fs.kind(path)
        if kind == "directory":
            self.roots.append(path)
            summary = dict(self.summary)
            n = len(self.files)

            def undo() -> None:
                del self.files[n:], self.folders[n:], self.times[n:]
                self.summary.clear()
                self.summary.update(summary)

            def spans(_: Any) -> bool:
                return len({tuple(below) for below in self.folders[n:]}) > 1

            _listed_whole(fs, path, lambda: self._add_tree(path, path, self.summary), undo, spans)
        elif kind == "file":
            self.roots.append(os.path.dirname(path) if self.local else posixpath.dirname(path))
            self._file(path, _size_of(fs, path), [])
        elif _has_magic(raw):
            self._add_glob(raw)
        else:
            raise FileNotFoundError(f"no such file or folder: {fs.display(raw)!r}")

    def _add_tree(self, folder: str, root: str, summary: dict[str, tuple[str, int | None]] | None = None) -> None:
        """The files below *folder*, with their folders below *root* (above or at *folder*)."""
        above = [] if folder == root else _rel_parts(self.fs, root, folder) + [self._name(folder)]
        markers: list[tuple[str, list[str]]] = []
        walked = _walk(self.fs, folder, self.prefixes, summary, markers)
        if markers:
            found = {p: size for p, size, _, _ in walked}
            rels = {p: above + below for p, _, below, _ in walked}
            times = {p: when for p, _, _, when in walked}
            apply_markers(self.fs, [(m, above + below) for m, below in markers], found, rels)
            for p, size in sorted(found.items()):
                self._file(p, size, rels[p], times.get(p))
            return
        walked.sort(key=_path_of)
        self.files.extend([(p, size) for p, size, _, _ in walked])
        if above:
            self.folders.extend([above + below for _, _, below, _ in walked])
        else:
            self.folders.extend(map(_folders_of, walked))
        self.times.extend(map(_time_of, walked))

    def _add_glob(self, raw: str) -> None:
        fs = self.fs
        root = _glob_root(fs, raw)
        if self.local:
            root = os.path.abspath(root)
        matches = fs.glob(os.path.abspath(raw) if self.local and not os.path.isabs(raw) else raw)
        if not matches:
            raise FileNotFoundError(f"no file matches {fs.display(raw)!r}")
        self.roots.append(root)
        for m in sorted(matches):
            below = _rel_parts(fs, root, m)
            name = self._name(m)
            if is_internal(name) or is_hidden(name, self.prefixes) or \
                    any(is_hidden(b, self.prefixes) for b in below):
                continue
            if fs.kind(m) == "directory":
                self._add_tree(m, root)
            else:
                self._file(m, _size_of(fs, m), below)

    def _name(self, path: str) -> str:
        return os.path.basename(path) if self.local else posixpath.basename(path)

    def result(self, single: bool) -> Discovery:
        """The files in reading order; the root (the one root, or the roots' common folder, the files'
        folders then counted from it); summary files only for one folder read whole."""
        root = None
        if len(self.roots) == 1:
            root = self.roots[0]
        elif self.roots:
            root = _common_folder(self.fs, self.roots)
            self.folders = [_rel_parts(self.fs, root, p) for p, _ in self.files]
        meta, meta_time = self.summary.get("_metadata", (None, None)) if single else (None, None)
        common = self.summary.get("_common_metadata", (None, None))[0] if single else None
        return Discovery(self.files, root, meta, common, self.folders, self.times, meta_time)


_path_of = itemgetter(0)
_folders_of = itemgetter(2)
_time_of = itemgetter(3)


def _size_of(fs: FileSystem, path: str) -> int:
    if isinstance(fs, LocalFileSystem):
        return os.path.getsize(path)
    return int(fs.fs.size(path))  # type: ignore[attr-defined]


def _common_folder(fs: FileSystem, roots: list[str]) -> str | None:
    if isinstance(fs, LocalFileSystem):
        try:
            return os.path.commonpath(roots)
        except ValueError:
            return None
    split = [r.rstrip("/").split("/") for r in roots]
    common: list[str] = []
    for parts in zip(*split):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


def relative_parts(fs: Any, root: str | None, path: str) -> list[str]:
    """Public form of the folder split (used by the Spark adapter)."""
    return _rel_parts(fs, root, path)
