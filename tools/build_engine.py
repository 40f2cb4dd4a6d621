"""Compile the engine with mypyc: ``make engine`` (``referee.rules.build`` does the work).

    python tools/build_engine.py [--clean]

Exits non-zero when the build fails (no C compiler, no mypy, a mypyc error); the engine then
simply runs as pure Python. Needs mypy (``pip install -e '.[compile]'``) and a C compiler.
"""

from __future__ import annotations

import argparse
import os
import sys

# The build compiles the sources: the engine it imports on the way need not be the compiled one
# (nor say that it is not).
os.environ["HEARTS_PURE_PYTHON"] = "1"

from referee.rules.build import build_or_say, clean  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clean", action="store_true", help="remove the compiled engine and stop")
    args = ap.parse_args()
    if args.clean:
        clean()
        print("compiled engine removed: the engine runs as pure Python")
        return 0
    built, said = build_or_say()
    print(said, file=sys.stdout if built else sys.stderr)
    return 0 if built else 1


if __name__ == "__main__":
    sys.exit(main())
