"""The committed hearts.v1 code is exactly what `make proto` generates from bot.proto.

Runs grpc_tools.protoc (pinned in pyproject's test extra) with the Makefile's arguments into a
temporary directory and compares byte for byte, so an edit of bot.proto without `make proto`
(or a hand edit of the generated files) fails here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ("bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py")


def _makefile_protoc_args() -> list[str]:
    """The protoc arguments of the Makefile's `proto` target."""
    text = (ROOT / "Makefile").read_text()
    m = re.search(r"^proto:.*\n\t\$\(PY\) -m grpc_tools\.protoc (.+)$", text, re.M)
    assert m, "the Makefile's proto target no longer runs `$(PY) -m grpc_tools.protoc ...`"
    return m.group(1).split()


def test_regenerating_the_protocol_code_gives_the_committed_files(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is in the test extra: pip install -e '.[test]'")
    # Same flags, include path and inputs; only the output directories go to the temporary directory,
    # and the input glob is expanded here as make's shell would.
    args = []
    for a in _makefile_protoc_args():
        if "*" in a:
            args += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(a))
        else:
            args.append(re.sub(r"_out=proto$", f"_out={tmp_path}", a))
    assert any(a.endswith(".proto") for a in args) and all("_out=proto" not in a for a in args), args
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", *args], cwd=ROOT, check=True)
    assert sorted(p.name for p in (tmp_path / "hearts/v1").iterdir()) == sorted(GENERATED)
    for name in GENERATED:
        fresh = (tmp_path / "hearts/v1" / name).read_bytes()
        committed = (ROOT / "proto/hearts/v1" / name).read_bytes()
        assert fresh == committed, f"proto/hearts/v1/{name} differs from what `make proto` generates: run make proto"
