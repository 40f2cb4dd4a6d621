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


def _comment_of(field: str) -> str:
    """The comment lines right above ``field``'s declaration in the Rules message of bot.proto."""
    lines = (ROOT / "proto/hearts/v1/bot.proto").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("message Rules"))
    at = next(i for i in range(start, len(lines)) if re.match(rf"\s+\S+ {field} = \d+;", lines[i]))
    comment = []
    for ln in reversed(lines[start:at]):
        if not ln.strip().startswith("//"):
            break
        comment.append(ln.strip()[2:])
    return " ".join(reversed(comment))


def test_bot_proto_names_every_value_of_each_named_option() -> None:
    """A bot author reads the contract, not the engine: every preset and every value of a named rule
    option that the engine plays is written in the comment of its field."""
    from referee.rules import PRESETS
    from referee.rules.options import (
        FIRST_LEADS,
        KITTY_TAKERS,
        MOON_SCORING,
        PARTNERSHIPS,
        POINT_SCHEMES,
        TIED_LOWEST,
    )

    for field, values in (
        ("preset", [*PRESETS, "custom"]),
        ("kitty", KITTY_TAKERS),
        ("first_lead", FIRST_LEADS),
        ("hearts_lead", ("broken", "any-time")),
        ("points", POINT_SCHEMES),
        ("moon", MOON_SCORING),
        ("tied_lowest", TIED_LOWEST),
        ("partnership", [p for p in PARTNERSHIPS if p != "none"]),  # "none" is sent as the empty string
    ):
        comment = _comment_of(field)
        missing = [v for v in values if f'"{v}"' not in comment]
        assert not missing, f"bot.proto's comment on Rules.{field} does not name {missing}"


def test_the_protocol_docs_name_every_value_of_each_named_option() -> None:
    """docs/protocol.md's Rules table names what bot.proto's comments do: every preset and value."""
    from referee.rules import PRESETS
    from referee.rules.options import FIRST_LEADS, KITTY_TAKERS, MOON_SCORING, POINT_SCHEMES, TIED_LOWEST

    text = (ROOT / "docs" / "protocol.md").read_text()
    table = text[text.index("### Rules") : text.index("### Cards")]
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines() if line.startswith("| `")}
    for field, values in (
        ("preset", [*PRESETS, "custom"]),
        ("kitty", KITTY_TAKERS),
        ("first_lead", FIRST_LEADS),
        ("hearts_lead", ("broken", "any-time")),
        ("points", POINT_SCHEMES),
        ("moon", MOON_SCORING),
        ("tied_lowest", TIED_LOWEST),
        ("partnership", ("team", "individual")),
    ):
        missing = [v for v in values if f'`"{v}"`' not in rows[field]]
        assert not missing, f"docs/protocol.md's Rules table does not name {missing} for {field}"


def test_every_preset_option_and_rpc_belongs_to_one_protocol_version() -> None:
    """hearts.v1.codec.VERSIONS says which version added each preset, rule option and RPC: all of them, once
    each, the last version being the one the referee speaks. A preset added without a version fails here."""
    from hearts.v1 import bot_pb2 as pb
    from hearts.v1 import codec
    from referee.rules import PRESETS
    from referee.rules.options import OPTION_NAMES

    assert [v.number for v in codec.VERSIONS] == list(range(1, codec.PROTOCOL_VERSION + 1))
    for what, every in (
        ("presets", list(PRESETS)),
        ("options", list(OPTION_NAMES)),
        ("rpcs", [m.name for m in pb.DESCRIPTOR.services_by_name["BotService"].methods]),
    ):
        listed = [x for v in codec.VERSIONS for x in getattr(v, what)]
        assert sorted(listed) == sorted(every), f"{what}: {sorted(set(every) ^ set(listed))}"
        assert len(listed) == len(set(listed)), what
    assert codec.presets_of(0) == codec.presets_of(1) == codec.VERSIONS[0].presets
    assert set(codec.presets_of(codec.PROTOCOL_VERSION)) == set(PRESETS) == set(codec.presets_of(99))


def test_the_protocol_docs_table_of_versions_is_the_codecs() -> None:
    """docs/protocol.md's table of protocol versions lists exactly what each version added."""
    from hearts.v1 import codec

    text = (ROOT / "docs" / "protocol.md").read_text()
    table = text[text.index("### Protocol versions") : text.index("### Trying a bot by hand")]
    rows = [line.split("|")[1:-1] for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
    assert [int(r[0]) for r in rows] == [v.number for v in codec.VERSIONS]
    for row, version in zip(rows, codec.VERSIONS, strict=True):
        for cell, names in zip(row[1:], (version.presets, version.options, version.rpcs), strict=True):
            assert re.findall(r"`([^`]+)`", cell) == list(names), f"version {version.number}: {cell}"
