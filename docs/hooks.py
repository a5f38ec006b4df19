"""MkDocs hooks of the docs site (``hooks:`` in mkdocs.yml; excluded from the pages).

* The API reference pages are generated at build time from the public names
  (``__all__``) of ``parquet_core``, ``spark_adapter`` and the integrations, so a
  public name can never miss its page; an entry that mkdocstrings cannot find fails
  the strict build. ``parquet_core`` is split by area (``PC_AREAS``: a name goes to
  the area naming it, else to the one holding the module that defines it, else to
  "Other"), with an index of every name; its nav section is generated too.
* Pages other helpers contribute (``OPTIONAL_PAGES``) keep their nav entry only when
  the file is there, so the site builds before and after they land.
* ``<!-- rules:start -->`` ... ``<!-- rules:end -->`` must hold the table
  ``parquet_core.validation.rules_table()`` makes: a stale table is a warning, which
  fails ``mkdocs build --strict``; so are benchmark tables (``<!-- bench:NAME:start -->``)
  that differ from what ``python -m benchmarks.report`` makes of ``benchmarks/results/``.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import sys
from typing import NamedTuple
from pathlib import Path

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.parquet_core")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:          # build from the checkout, not an installed copy
    sys.path.insert(0, str(ROOT))

#: Pages written elsewhere: listed in the nav, dropped from it while absent.
OPTIONAL_PAGES = {"compat.md", "pandas.md", "robustness-campaign.md", "spark-deployment.md"}

class Area(NamedTuple):
    """One page of the ``parquet_core`` reference: the public names it holds are those listed in
    *names*, then those defined in a module under one of *modules* (first area wins, in
    ``PC_AREAS`` order); *packages* are subpackages documented whole on the page."""
    slug: str
    title: str
    intro: str
    modules: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()


PC_AREAS = [
    Area("reading", "Reading and metadata",
         "Opening files and reading them into tables; the footer's metadata and statistics.",
         modules=("parquet_core.file.reader", "parquet_core.metadata", "parquet_core.options.reader"),
         names=("ParquetFile", "read_table", "read_pandas", "read_metadata", "read_schema")),
    Area("writing", "Writing",
         "`write_table`, `ParquetWriter` and their options (the defaults come from the one options table).",
         modules=("parquet_core.file.writer", "parquet_core.options")),
    Area("datasets", "Datasets and filesystems",
         "Folders, Hive partitions, `_metadata` files and object stores.",
         modules=("parquet_core.dataset",), names=("ParquetDataset", "parse_hive_folder")),
    Area("tables", "Tables and arrays",
         "The in-memory `Table` and `Array`, building one from Python, pandas or Arrow data, and the "
         "Python values some types read as (nanosecond times, intervals, raw temporals).",
         modules=("parquet_core.table", "parquet_core.interop", "parquet_core.schema.nanos",
                  "parquet_core.schema.pyvalues", "parquet_core.schema.temporal")),
    Area("types", "Types and schema",
         "The type constructors (`pc.int64()`, `pc.timestamp()`, `pc.list_()`, ...), `Schema` and "
         "`Field`, and the Parquet enums.",
         modules=("parquet_core.schema", "parquet_core.constants")),
    Area("filters", "Predicates and filters",
         "`pc.col` expressions for `filters=`, and the `parquet_core.predicate` subpackage "
         "(expression nodes, `filter_mask`, `may_match`).",
         modules=("parquet_core.predicate",), packages=("parquet_core.predicate",)),
    Area("encryption", "Encryption and key tools",
         "Parquet modular encryption properties and the KMS key tools.",
         modules=("parquet_core.encryption",)),
    Area("check", "Check and validation",
         "`pc.check` and its report (the rules: the [pqc check](../../guide/check.md) page).",
         modules=("parquet_core.validation",)),
    Area("formats", "Variant, geospatial, FILE",
         "VARIANT values, the geospatial logical types and FILE references.",
         modules=("parquet_core.variant", "parquet_core.geo", "parquet_core.file.file_refs"),
         names=("variant", "geometry", "geography", "file_ref", "resolve_file_ref")),
    Area("errors", "Errors",
         "Every error derives from `ParquetError`; see the [Errors](../../guide/errors.md) guide.",
         modules=("parquet_core.errors",)),
    Area("cli", "Command line (parquet_core.cli)",
         "The functions behind `pqc` (`parquet_core.cli`); the commands: the [pqc](../../guide/cli.md) page.",
         packages=("parquet_core.cli",)),
    Area("other", "Other",
         "Public names no other page claims (a new name lands here until an area is given to it "
         "in `docs/hooks.py`)."),
]

#: (page, title, packages whose __all__ it documents, intro): the other packages' pages
API_PAGES = [
    ("api/spark_adapter.md", "spark_adapter", ["spark_adapter"],
     "The PySpark data sources and helpers (`import spark_adapter`); pyspark is imported "
     "only when a source is used."),
    ("api/kartothek.md", "Kartothek", ["parquet_core_integrations.kartothek"],
     "Kartothek (metadata v4) datasets on the engine: `import parquet_core_integrations.kartothek as ktk`."),
    ("api/xskipper.md", "xskipper", ["parquet_core_integrations.xskipper"],
     "xskipper data-skipping metadata stores: `from parquet_core_integrations.xskipper import Xskipper`."),
]
PC_INDEX = "api/parquet_core/index.md"


def _defining_module(package: str, name: str) -> str:
    obj = getattr(importlib.import_module(package), name)
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return getattr(obj, "__module__", None) or ""
    return ""                        # a constant or an instance: no module of its own


def pc_assignment() -> dict[str, Area]:
    """Every name of ``parquet_core.__all__`` -> the area page that documents it."""
    import parquet_core

    out = {}
    for name in parquet_core.__all__:
        area = next((a for a in PC_AREAS if name in a.names), None)
        if area is None:
            module = _defining_module("parquet_core", name)
            area = next((a for a in PC_AREAS for m in a.modules
                         if module == m or module.startswith(m + ".")), PC_AREAS[-1])
        out[name] = area
    return out


def api_page(title: str, packages: list[str], intro: str, names: dict[str, list[str]] | None = None) -> str:
    """A page of ``::: package.name`` entries: *names* per package, or the package's whole __all__."""
    lines = [f"# {title}", "", intro, ""]
    chosen = {p: (names or {}).get(p) for p in packages}
    chosen = {p: importlib.import_module(p).__all__ if n is None else n for p, n in chosen.items()}
    shown = [p for p in packages if chosen[p]]
    if not shown:
        lines += ["*No public names are on this page at present.*", ""]
    for package in shown:
        if package != packages[0]:
            lines += [f"## The `{package}` subpackage" if package.startswith(packages[0] + ".")
                      else f"## `{package}`", ""]
        for name in sorted(chosen[package], key=str.lower):
            lines += [f"::: {package}.{name}", ""]
    return "\n".join(lines)


def pc_pages() -> dict[str, str]:
    """The ``parquet_core`` reference: an index of every public name and one page per area."""
    assigned = pc_assignment()
    pages = {}
    for area in PC_AREAS:
        mine = [n for n, a in assigned.items() if a is area]
        pages[f"api/parquet_core/{area.slug}.md"] = api_page(
            area.title, ["parquet_core", *area.packages], area.intro, {"parquet_core": mine})
    rows = "\n".join(f"| [`{n}`]({assigned[n].slug}.md#parquet_core.{n}) | [{assigned[n].title}]({assigned[n].slug}.md) |"
                     for n in sorted(assigned, key=str.lower))
    areas = "\n".join(f"* [{a.title}]({a.slug}.md): {a.intro}" for a in PC_AREAS)
    pages[PC_INDEX] = (
        "# parquet_core\n\nThe engine's public names, `import parquet_core as pc`: every name of "
        "`parquet_core.__all__` is documented on one of these pages, under the module that defines "
        f"it.\n\n{areas}\n\n## Every public name\n\n| name | page |\n|---|---|\n{rows}\n")
    return pages


def api_nav() -> list:
    """The nav section of the parquet_core pages (replaces the entry pointing at PC_INDEX)."""
    return [{"Overview": PC_INDEX}] + [{a.title: f"api/parquet_core/{a.slug}.md"} for a in PC_AREAS]


def _prune(nav: list, present: set[str]) -> list:
    kept = []
    for item in nav:
        if isinstance(item, dict):
            (title, target), = item.items()
            if target == PC_INDEX:
                target = api_nav()
            elif isinstance(target, list):
                target = _prune(target, present)
                if not target:
                    continue
            elif isinstance(target, str) and target in OPTIONAL_PAGES and target not in present:
                log.info("nav: %s is not there (yet), left out", target)
                continue
            kept.append({title: target})
        elif isinstance(item, str) and item in OPTIONAL_PAGES and item not in present:
            continue
        else:
            kept.append(item)
    return kept


def on_config(config, **kwargs):
    import parquet_core
    # which version these pages describe: the checkout's own
    config["site_name"] = f"parquet-core {parquet_core.__version__}"
    docs = Path(config["docs_dir"])
    present = {p for p in OPTIONAL_PAGES if (docs / p).is_file()}
    if config["nav"]:
        config["nav"] = _prune(config["nav"], present)
    return config


def on_files(files, config, **kwargs):
    for path, title, packages, intro in API_PAGES:
        files.append(File.generated(config, path, content=api_page(title, packages, intro)))
    for path, content in pc_pages().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    if "<!-- bench:" in markdown:
        from benchmarks.report import ReportError, stale_sections
        try:
            stale = stale_sections(markdown)
        except ReportError as exc:
            log.warning("%s: %s", page.file.src_path, exc)
        else:
            if stale:
                log.warning("%s: the benchmark tables %s differ from benchmarks/results/*.json; regenerate "
                            "them with `python -m benchmarks.report --docs`", page.file.src_path, stale)
    start, end = "<!-- rules:start -->", "<!-- rules:end -->"
    if start in markdown:
        from parquet_core.validation import rules_table
        table = markdown[markdown.index(start) + len(start):markdown.index(end)].strip()
        if table != rules_table():
            log.warning("%s: the rule table is stale; regenerate it with "
                        "`python docs/regen_rules.py` (or `pqc check --list-rules`)", page.file.src_path)
    return markdown
