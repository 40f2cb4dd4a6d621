"""Compile the engine (referee/rules/cards.py and state.py) with mypyc: ``make engine``.

The extension modules go to referee/rules/_compiled/ (git-ignored), never beside the sources, with a
manifest.json of the SHA-256 of every engine source as compiled; referee/rules/_loader.py uses the
build only while those hashes still match (see there). options.py stays interpreted (Rules is a
frozen dataclass read off the hot path) but is hashed too: any engine edit voids the build.

    python tools/build_engine.py [--clean]

Exits non-zero when the build fails (no C compiler, no mypy, a mypyc error); the engine then
simply runs as pure Python. Needs mypy (``pip install -e '.[compile]'``) and a C compiler.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "referee" / "rules"

# The loader's own file, not the package: importing referee.rules would load (and judge) the engine.
_spec = importlib.util.spec_from_file_location("_hearts_engine_loader", ENGINE / "_loader.py")
assert _spec is not None and _spec.loader is not None
_loader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_loader)
COMPILED = ("cards.py", "state.py")
WORK = ROOT / "build" / "engine"


def build() -> Path:
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    before = _loader.source_digests(ENGINE)
    shutil.rmtree(WORK, ignore_errors=True)
    os.chdir(ROOT)  # mypyc names modules by their path from here
    paths = ["--cache-dir", str(WORK / "mypy_cache"), *(f"referee/rules/{f}" for f in COMPILED)]
    extensions = mypycify(
        paths, opt_level="3", debug_level="0", target_dir=str(WORK / "c"), group_name="referee.rules._engine"
    )
    dist = Distribution({"name": "hearts-engine", "ext_modules": extensions})
    cmd = build_ext(dist)
    cmd.build_lib = str(WORK / "lib")
    cmd.build_temp = str(WORK / "tmp")
    cmd.ensure_finalized()
    cmd.run()
    if _loader.source_digests(ENGINE) != before:
        raise SystemExit("the engine sources changed during the build: run it again")
    # Stage the new build beside the old one, then swap: the loader sees one whole build or none.
    staged = ENGINE / (_loader.BUILD_DIR + ".new")
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    modules = {}
    suffix = _loader.extension_suffix()
    for so in sorted((WORK / "lib").rglob(f"*{suffix}")):
        name = ".".join(so.relative_to(WORK / "lib").parts)[: -len(suffix)]
        shutil.copy2(so, staged / so.name)
        modules[name] = so.name
    expected = {f"{_loader.PACKAGE}.{f[:-3]}" for f in COMPILED}
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
    (staged / _loader.MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    final = ENGINE / _loader.BUILD_DIR
    shutil.rmtree(final, ignore_errors=True)
    staged.rename(final)
    return final


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clean", action="store_true", help="remove the compiled engine and stop")
    args = ap.parse_args()
    if args.clean:
        shutil.rmtree(ENGINE / _loader.BUILD_DIR, ignore_errors=True)
        shutil.rmtree(WORK, ignore_errors=True)
        print("compiled engine removed: the engine runs as pure Python")
        return 0
    start = time.perf_counter()
    try:
        final = build()
    except (Exception, SystemExit) as e:  # the caller decides whether a failed build is fatal
        # A failed build leaves no build: never an older one that a later source change could match.
        shutil.rmtree(ENGINE / _loader.BUILD_DIR, ignore_errors=True)
        print(
            f"compiled engine NOT built ({type(e).__name__}: {e}); the engine will run as pure Python", file=sys.stderr
        )
        return 1
    print(f"compiled engine built in {time.perf_counter() - start:.1f}s: {final.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
