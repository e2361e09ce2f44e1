"""Real HTML for benchmarks: pydoc's HTML pages of standard-library modules.

pydoc renders every module with one shared template (title bar, index links, sections), the way
a documentation site does, and the pages range from a few KB to a few hundred KB -- real,
third-party-written HTML available on every machine that has Python.
"""

from __future__ import annotations

import contextlib
import io
import pkgutil
import pydoc
import sys
import warnings

SKIP = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "__main__", "pydoc_data"}


def stdlib_modules(limit: int) -> list[str]:
    """Importable top-level standard-library module names, sorted, at most ``limit``."""
    names = sorted(
        m.name for m in pkgutil.iter_modules()
        if m.name in sys.stdlib_module_names and not m.name.startswith("_") and m.name not in SKIP
    )
    return names[:limit]


def pydoc_pages(limit: int = 200) -> dict[str, bytes]:
    """``{"/<module>.html": utf-8 HTML}`` for up to ``limit`` modules; each page links the others."""
    names = stdlib_modules(limit)
    pages: dict[str, bytes] = {}
    warnings.simplefilter("ignore")
    for name in names:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                module = __import__(name)
                html = pydoc.html.page(pydoc.describe(module), pydoc.html.document(module, name))
        except BaseException:  # some modules refuse import on this platform; skip them
            continue
        pages[f"/{name}.html"] = html.encode("utf-8", "replace")
    index = "".join(f'<li><a href="{p}">{p[1:-5]}</a></li>' for p in pages)
    pages["/index.html"] = f"<html><body><h1>Modules</h1><ul>{index}</ul></body></html>".encode()
    return pages
