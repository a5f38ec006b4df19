"""MkDocs hooks of the docs site (``hooks:`` in mkdocs.yml; excluded from the pages).

* The API reference pages are generated at build time from the public names
  (``__all__``) of ``parquet_core``, ``spark_adapter`` and the integrations, so a
  public name can never miss its page; each entry points mkdocstrings at the module
  that defines the object, and one that cannot be found fails the strict build.
* Pages other helpers contribute (``OPTIONAL_PAGES``) keep their nav entry only when
  the file is there, so the site builds before and after they land.
* ``<!-- rules:start -->`` ... ``<!-- rules:end -->`` must hold the table
  ``parquet_core.validation.rules_table()`` makes: a stale table is a warning, which
  fails ``mkdocs build --strict``.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import sys
from pathlib import Path

from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.parquet_core")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:          # build from the checkout, not an installed copy
    sys.path.insert(0, str(ROOT))

#: Pages written elsewhere: listed in the nav, dropped from it while absent.
OPTIONAL_PAGES = {"compat.md", "pandas.md", "robustness-campaign.md", "spark-deployment.md"}

#: (page, title, packages whose __all__ it documents, intro)
API_PAGES = [
    ("api/parquet_core.md", "parquet_core", ["parquet_core"],
     "The engine's public names, `import parquet_core as pc`. Every name here is in "
     "`parquet_core.__all__`; the facade imports each from the module shown under its heading."),
    ("api/predicate.md", "parquet_core.predicate", ["parquet_core.predicate"],
     "The public filter subpackage: expression nodes, `filter_mask` and `may_match`."),
    ("api/spark_adapter.md", "spark_adapter", ["spark_adapter"],
     "The PySpark data sources and helpers (`import spark_adapter`); pyspark is imported "
     "only when a source is used."),
    ("api/kartothek.md", "Kartothek", ["parquet_core_integrations.kartothek"],
     "Kartothek (metadata v4) datasets on the engine: `import parquet_core_integrations.kartothek as ktk`."),
    ("api/xskipper.md", "xskipper", ["parquet_core_integrations.xskipper"],
     "xskipper data-skipping metadata stores: `from parquet_core_integrations.xskipper import Xskipper`."),
]


def _defining_path(package: str, name: str) -> str:
    """The dotted path mkdocstrings should load for ``package.name``."""
    obj = getattr(importlib.import_module(package), name)
    if inspect.ismodule(obj):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if module and qualname and "<" not in qualname and (inspect.isclass(obj) or inspect.isfunction(obj)):
        return f"{module}.{qualname}"
    return f"{package}.{name}"        # a constant or an instance: found by griffe through the package


def api_page(title: str, packages: list[str], intro: str) -> str:
    lines = [f"# {title}", "", intro, ""]
    for package in packages:
        for name in sorted(importlib.import_module(package).__all__, key=str.lower):
            lines += [f"::: {package}.{name}", ""]
    return "\n".join(lines)


def _prune(nav: list, present: set[str]) -> list:
    kept = []
    for item in nav:
        if isinstance(item, dict):
            (title, target), = item.items()
            if isinstance(target, list):
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
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    start, end = "<!-- rules:start -->", "<!-- rules:end -->"
    if start in markdown:
        from parquet_core.validation import rules_table
        table = markdown[markdown.index(start) + len(start):markdown.index(end)].strip()
        if table != rules_table():
            log.warning("%s: the rule table is stale; regenerate it with "
                        "`python docs/regen_rules.py` (or `pqc check --list-rules`)", page.file.src_path)
    return markdown
