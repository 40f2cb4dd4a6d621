"""``hearts --help`` and each command's ``--help`` come at once: they import only the command line
(click, rich), never what a command runs (gRPC, the store, numpy, the web server, Dask). Checked
by what is imported, not by a clock: a loaded machine makes any time bound flip."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("grpc", "google.protobuf", "sqlite_utils", "numpy", "scipy", "starlette", "uvicorn", "distributed", "dask")

PROBE = """
import sys
from ladder.cli import main
try:
    main({args!r}, prog_name="hearts")
except SystemExit:
    pass
print(" ".join(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["tournament", "run", "--help"], ["match", "--help"], ["arena", "serve", "--help"]]
)
def test_help_imports_nothing_a_command_runs(args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)], capture_output=True, text=True, timeout=60
    )
    assert "Usage: hearts" in out.stdout, out.stderr
    assert out.stderr.strip() == "", f"hearts {' '.join(args)} imported {out.stderr.strip()}"
