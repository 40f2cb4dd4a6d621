"""The contract as a bot author outside Python gets it.

- hearts/v1/examples/<RPC>.json, the sample request of each RPC (for `grpcurl -d @`), are what
  tools/protocol_examples.py generates from engine positions, parse into their request messages and
  get valid answers from a real SDK bot, sent by the method paths of the descriptors;
- `hearts proto` prints the path of the packaged bot.proto (and its text), and a built wheel holds it;
- bot.proto's codegen options work with protoc (Java, C#) and buf (lint, generate), where installed;
- docs/protocol.md counts the RPCs right and shows the commands.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread
from hearts.v1 import bot_pb2 as pb
from hearts.v1.codec import PROTOCOL_VERSION
from referee.rules import TURBO_CARDS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "proto" / "hearts" / "v1" / "examples"
PROTO = ROOT / "proto" / "hearts" / "v1" / "bot.proto"
SERVICE = pb.DESCRIPTOR.services_by_name["BotService"]
RPCS = [m.name for m in SERVICE.methods]
WORDS = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("protocol_examples", ROOT / "tools" / "protocol_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_is_one_sample_per_rpc_and_each_is_what_the_generator_writes() -> None:
    gen = _generator()
    examples = gen.examples()
    assert list(examples) == RPCS and sorted(p.stem for p in EXAMPLES.glob("*.json")) == sorted(RPCS)
    for rpc, message in examples.items():
        committed = (EXAMPLES / f"{rpc}.json").read_text()
        assert committed == gen.render(message), f"{rpc}.json is stale: run python tools/protocol_examples.py"
    assert gen.main(["--check"]) == 0


@pytest.fixture(scope="module")
def sdk_bot() -> Iterator[ThreadedBotServer]:
    server = start_in_thread(make_bot("heuristic", seed=1))
    try:
        yield server
    finally:
        server.stop()


def _request(rpc: str) -> Message:
    """The sample, parsed with json_format into the input message the descriptor names."""
    method = SERVICE.methods_by_name[rpc]
    cls = getattr(pb, method.input_type.name)
    return json_format.Parse((EXAMPLES / f"{rpc}.json").read_text(), cls())


@pytest.mark.parametrize("rpc", RPCS)
def test_each_sample_gets_a_valid_answer_from_an_sdk_bot(rpc: str, sdk_bot: ThreadedBotServer) -> None:
    request = _request(rpc)
    method = SERVICE.methods_by_name[rpc]
    reply_cls = getattr(pb, method.output_type.name)
    with grpc.insecure_channel(sdk_bot.address) as channel:
        call = channel.unary_unary(
            f"/{SERVICE.full_name}/{method.name}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=reply_cls.FromString,
        )
        reply = call(request, timeout=5)
    view = getattr(request, "view", None)
    if rpc == "Handshake":
        assert reply.protocol_version == PROTOCOL_VERSION and reply.name
    elif rpc == "PassCards":
        assert len(set(reply.cards)) == view.rules.pass_count and set(reply.cards) <= set(view.hand)
    elif rpc == "PlayCard":
        assert view.current_trick.cards and view.tricks  # a position in the middle of a hand
        assert reply.card in view.legal_cards
    elif rpc == "CallPass":
        assert view.pass_direction == pb.PASS_DIRECTION_CALL and not view.hand
        assert reply.mix or (len(reply.offsets) == view.rules.pass_count and set(reply.offsets) <= {1, 2, 3})
    elif rpc == "DiscardCards":
        assert request.count == len(view.kitty) > 0
        assert len(set(reply.cards)) == request.count and set(reply.cards) <= set(view.hand)
    elif rpc == "ChargeCards":  # 002 Turbo: none, or one held card of A♥ Q♠ J♦ 10♣
        assert view.rules.turbo_charging and view.rules.turbo_charges == "one" and not view.legal_cards
        chargeable = {c.index + 1 for c in TURBO_CARDS}
        assert len(reply.cards) <= 1 and set(reply.cards) <= set(view.hand) & chargeable
        assert set(view.hand) & chargeable
    elif rpc == "ChooseMoon":
        assert request.moon_points == 26 and view.rules.moon == "shooter-chooses"
        assert reply.choice != pb.MOON_CHOICE_UNSPECIFIED
    else:
        assert rpc == "Notify" and request.WhichOneof("event") == "hand_scored"
        assert isinstance(reply, pb.NotifyResponse)


def _hearts(*args: str) -> str:
    hearts = Path(sys.executable).with_name("hearts")
    if not hearts.exists():
        pytest.skip(f"no hearts script beside {sys.executable}: pip install -e .")
    return subprocess.run([str(hearts), *args], capture_output=True, text=True, check=True, timeout=60).stdout


@pytest.mark.slow
def test_hearts_proto_prints_the_path_of_the_packaged_bot_proto_and_its_text() -> None:
    path = Path(_hearts("proto").strip())
    assert path.name == "bot.proto" and path.parent.parts[-2:] == ("hearts", "v1") and path.is_file()
    assert path.read_text() == PROTO.read_text()
    assert _hearts("proto", "--text") == PROTO.read_text()


@pytest.mark.slow
def test_a_built_wheel_ships_bot_proto(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    # Built from a copy, so that setuptools' build/ and egg-info never land in the work tree.
    src = tmp_path / "src"
    skip = shutil.ignore_patterns("node_modules", "__pycache__", "_compiled*", "*.so", "gen")
    for part in ("referee", "clients", "ladder", "proto"):
        shutil.copytree(ROOT / part, src / part, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), "."],
        cwd=src,
        check=True,
        timeout=240,
    )
    (wheel,) = tmp_path.glob("hearts_arena-*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert z.read("hearts/v1/bot.proto").decode() == PROTO.read_text()


def test_bot_proto_has_the_options_stock_codegen_needs() -> None:
    options = pb.DESCRIPTOR.GetOptions()
    assert options.go_package.endswith(";heartsv1") and options.java_multiple_files
    assert options.java_package and options.csharp_namespace


@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc is not installed")
def test_stock_protoc_generates_java_and_csharp(tmp_path: Path) -> None:
    (tmp_path / "java").mkdir()
    (tmp_path / "cs").mkdir()
    subprocess.run(
        [
            "protoc",
            "-Iproto",
            f"--java_out={tmp_path / 'java'}",
            f"--csharp_out={tmp_path / 'cs'}",
            "proto/hearts/v1/bot.proto",
        ],
        cwd=ROOT,
        check=True,
    )
    java = tmp_path / "java" / Path(*pb.DESCRIPTOR.GetOptions().java_package.split("."))
    assert (java / "PlayCardRequest.java").is_file() and (java / "BotProto.java").is_file()
    assert "namespace HeartsArena.V1" in (tmp_path / "cs" / "Bot.cs").read_text()


@pytest.mark.skipif(shutil.which("buf") is None or shutil.which("protoc") is None, reason="buf or protoc missing")
def test_buf_lints_and_generates(tmp_path: Path) -> None:
    subprocess.run(["buf", "lint"], cwd=ROOT / "proto", check=True, timeout=120)
    subprocess.run(["buf", "generate", "-o", str(tmp_path)], cwd=ROOT / "proto", check=True, timeout=120)
    assert (tmp_path / "gen/python/hearts/v1/bot_pb2.py").is_file()
    assert (tmp_path / "gen/csharp/Bot.cs").is_file() and (tmp_path / "gen/java/org/heartsarena/v1").is_dir()


def test_the_protocol_docs_count_the_rpcs_and_show_the_codegen_commands() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    assert f"the {WORDS[len(RPCS)]} rpcs" in text.lower()
    assert not any(f"the {w} rpcs" in text.lower() for n, w in WORDS.items() if n != len(RPCS))
    for needle in ("--go_out", "--java_out", "--csharp_out", "buf generate", "grpcurl", "hearts proto"):
        assert needle in text, needle
    assert "hearts proto --examples" in text
