"""Which engine runs: the mypyc-compiled modules or the pure-Python source, never a stale build.

``make engine`` (tools/build_engine.py) compiles cards.py and state.py with mypyc into the
``_compiled/`` folder beside this file, never beside the sources, so plain Python can never pick
up a compiled module by itself. Its ``manifest.json`` records the SHA-256 of every engine source
(cards.py, options.py, state.py) as they were compiled. At import, ``referee.rules`` calls
``load_engine``, which hashes the current sources and loads the compiled modules only when

- ``HEARTS_PURE_PYTHON`` is unset (or ``0``),
- the manifest exists, was built for this Python (same extension suffix), and every source hash
  matches it, and every compiled file it lists exists,
- and the compiled modules import without error.

Otherwise the engine runs from the ``.py`` files, loaded explicitly by path (so even a stray
extension module left beside the sources by a manual ``mypyc`` run is never used), and a one-line
warning says why and how to rebuild, except when ``HEARTS_PURE_PYTHON`` asked for pure Python.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
BUILD_DIR = "_compiled"
MANIFEST = "manifest.json"
PACKAGE = "referee.rules"
SOURCES = ("cards.py", "options.py", "state.py")  # every engine module: an edit to any one voids the build
MODULES = ("cards", "options", "state")  # imported in this order (each imports only those before it)
PURE_ENV = "HEARTS_PURE_PYTHON"
REBUILD = "make engine"


def source_digests(folder: Path = HERE) -> dict[str, str]:
    return {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in SOURCES}


def extension_suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def check_build(folder: Path = HERE) -> tuple[dict[str, Path] | None, str]:
    """The compiled files (module name -> path) if the build in ``folder`` matches its sources, else
    None; and why, in a few words."""
    path = folder / BUILD_DIR / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        return None, "no compiled build"
    except (OSError, ValueError) as e:
        return None, f"unreadable {BUILD_DIR}/{MANIFEST} ({e})"
    if manifest.get("extension_suffix") != extension_suffix():
        return None, f"the build is for another Python ({manifest.get('extension_suffix')})"
    current = source_digests(folder)
    built = manifest.get("sources", {})
    changed = [name for name in SOURCES if built.get(name) != current[name]]
    if changed:
        return None, f"{', '.join(changed)} changed since the build"
    files = {name: folder / BUILD_DIR / file for name, file in manifest.get("modules", {}).items()}
    missing = [p.name for p in files.values() if not p.is_file()]
    if not files or missing:
        return None, f"the build is incomplete (missing {', '.join(missing) or 'every module'})"
    return files, "compiled build matches the sources"


class _EngineFinder(importlib.abc.MetaPathFinder):
    """Resolves the engine's modules to exactly the files chosen: compiled ones or the sources."""

    def __init__(self, compiled: dict[str, Path] | None) -> None:
        self.compiled = compiled

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.compiled.get(name) if self.compiled is not None else None
        if file is not None:
            loader: importlib.abc.Loader = importlib.machinery.ExtensionFileLoader(name, str(file))
            return importlib.util.spec_from_file_location(name, file, loader=loader)
        # Any other engine module (all of them in pure mode, options.py always): its source, by path.
        package, _, short = name.rpartition(".")
        if package != PACKAGE or short not in MODULES:
            return None
        source = HERE / f"{short}.py"
        return importlib.util.spec_from_file_location(
            name, source, loader=importlib.machinery.SourceFileLoader(name, str(source))
        )


def _warn(message: str) -> None:
    try:
        warnings.warn(message, RuntimeWarning, stacklevel=4)
    except Warning:  # warnings turned into errors (-W error): still say it, but do not fail the import
        print(f"RuntimeWarning: {message}", file=sys.stderr)


def _install(compiled: dict[str, Path] | None) -> None:
    for f in list(sys.meta_path):
        if isinstance(f, _EngineFinder):
            sys.meta_path.remove(f)
    sys.meta_path.insert(0, _EngineFinder(compiled))


def _import_all() -> None:
    for short in MODULES:
        importlib.import_module(f"{PACKAGE}.{short}")


def _forget_modules(compiled: dict[str, Path] | None) -> None:
    for name in [f"{PACKAGE}.{m}" for m in MODULES] + list(compiled or ()):
        sys.modules.pop(name, None)


def load_engine() -> tuple[str, str]:
    """Import the engine modules, compiled when that is safe; returns ("compiled" | "pure", why)."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        compiled, why = None, f"{PURE_ENV} is set"
        quiet = True
    else:
        compiled, why = check_build()
        quiet = False
    if compiled is not None:
        _install(compiled)
        try:
            _import_all()
            return "compiled", why
        except Exception as e:  # a build that does not load (a broken file, a missing symbol): run the source
            _forget_modules(compiled)
            compiled, why = None, f"the compiled build failed to load ({type(e).__name__}: {e})"
    _install(None)
    _import_all()
    stray = sorted(p.name for p in HERE.glob(f"*{extension_suffix()}"))
    # No build at all is a plain pure-Python install (no compiler, pip install .): nothing to warn of.
    # A build or a compiled file that is not used is: someone expects speed they do not get.
    quiet = quiet or (why == "no compiled build" and not stray)
    if stray:
        why += f"; ignoring stray compiled files beside the sources ({', '.join(stray)})"
    if not quiet:
        _warn(
            f"hearts engine: running pure Python ({why}); `{REBUILD}` compiles it "
            f"(or set {PURE_ENV}=1 to choose pure Python)"
        )
    return "pure", why
