"""Compile the engine (cards.py and state.py) with mypyc: ``make engine`` in a checkout, ``hearts engine
build`` in an installed package.

The extension modules go to the ``_compiled/`` folder, never beside the sources (where plain Python
would pick them up by itself), with a manifest.json of the SHA-256 of every engine source as
compiled; ``_loader`` uses the build only while those hashes still match. options.py stays
interpreted (Rules is a frozen dataclass read off the hot path) but is hashed too: any engine edit
voids the build.

Needs mypy (``pip install 'hearts-arena[compile]'``) and a C compiler; without them the build fails
with the reason and the engine simply runs as pure Python.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from referee.rules._loader import (
    BUILD_DIR,
    HERE,
    MANIFEST,
    PACKAGE,
    extension_suffix,
    source_digests,
)

__all__ = ["BuildFailed", "build", "build_or_say", "clean"]

ENGINE = HERE
ROOT = HERE.parents[1]  # the folder that holds the referee package: a checkout, or site-packages
COMPILED = ("cards.py", "state.py")


class BuildFailed(RuntimeError):
    """The engine could not be compiled: why, in a line."""


def _work_dir() -> Path:
    """Where mypyc writes its C and objects: build/engine in a checkout (git-ignored), else a temporary folder."""
    if (ROOT / "pyproject.toml").is_file():
        return ROOT / "build" / "engine"
    return Path(tempfile.gettempdir()) / f"hearts-engine-build-{os.getuid()}"


def build() -> Path:
    """Compile the engine into ``_compiled/`` (swapped in whole); its folder."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]

    before = source_digests(ENGINE)
    work = _work_dir()
    shutil.rmtree(work, ignore_errors=True)
    os.chdir(ROOT)  # mypyc names modules by their path from here
    paths = ["--cache-dir", str(work / "mypy_cache"), *(f"referee/rules/{f}" for f in COMPILED)]
    extensions = mypycify(
        paths, opt_level="3", debug_level="0", target_dir=str(work / "c"), group_name="referee.rules._engine"
    )
    dist = Distribution({"name": "hearts-engine", "ext_modules": extensions})
    cmd = build_ext(dist)
    cmd.build_lib = str(work / "lib")
    cmd.build_temp = str(work / "tmp")
    cmd.ensure_finalized()
    cmd.run()
    if source_digests(ENGINE) != before:
        raise SystemExit("the engine sources changed during the build: run it again")
    # Stage the new build beside the old one, then swap: the loader sees one whole build or none.
    staged = ENGINE / (BUILD_DIR + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    modules = {}
    suffix = extension_suffix()
    for so in sorted((work / "lib").rglob(f"*{suffix}")):
        name = ".".join(so.relative_to(work / "lib").parts)[: -len(suffix)]
        shutil.copy2(so, staged / so.name)
        modules[name] = so.name
    expected = {f"{PACKAGE}.{f[:-3]}" for f in COMPILED}
    if not expected <= modules.keys():
        raise SystemExit(f"mypyc built {sorted(modules)}, not the modules {sorted(expected)}")
    import mypy.version

    manifest = {
        "extension_suffix": suffix,
        "mypy": mypy.version.__version__,
        "python": sys.version.split()[0],
        "sources": before,
        "modules": modules,
    }
    (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    final = ENGINE / BUILD_DIR
    shutil.rmtree(final, ignore_errors=True)
    staged.rename(final)
    return final


def clean() -> None:
    """Remove the compiled engine (the engine runs as pure Python) and mypyc's work."""
    shutil.rmtree(ENGINE / BUILD_DIR, ignore_errors=True)
    shutil.rmtree(_work_dir(), ignore_errors=True)


def build_or_say() -> tuple[bool, str]:
    """Build, and a line for people: (built, what happened)."""
    start = time.perf_counter()
    try:
        final = build()
    except (Exception, SystemExit) as e:  # the caller decides whether a failed build is fatal
        # A failed build leaves no build: never an older one that a later source change could match.
        shutil.rmtree(ENGINE / BUILD_DIR, ignore_errors=True)
        why = f"{type(e).__name__}: {e}"
        if isinstance(e, ModuleNotFoundError) and e.name is not None and e.name.startswith("mypy"):
            why = "mypy is not installed: pip install 'hearts-arena[compile]' (and a C compiler)"
        return False, f"compiled engine NOT built ({why}); the engine will run as pure Python"
    where = final.relative_to(ROOT) if final.is_relative_to(ROOT) else final
    return True, f"compiled engine built in {time.perf_counter() - start:.1f}s: {where}"
