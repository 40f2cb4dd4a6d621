"""Old bots and new RPCs, through the real ``hearts`` command and real gRPC bot processes.

A bot written before Turbo Hearts (generated code that leaves ChargeCards out, so gRPC answers
UNIMPLEMENTED; a handshake of protocol 1 naming no presets) plays a turbo match without a fault: it
charges nothing, and the match says so in one note, which ``hearts replay`` shows; ``hearts validate``
checks it on what protocol 1 knew, as its handshake claims, not on every preset played today.

``hearts validate`` resolves the bot's server reflection as grpcurl does: a reflection that lists
hearts.v1.BotService but answers NOT_FOUND for its symbol, or serves a file whose import it cannot
serve, fails the reflection check; the SDK's reflection resolves. And a bot slow to start gets one
verdict, whatever stage of its start the validation meets: driven by the connections it has seen, not by
a clock.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from cli_procs import BOTS_DIR, SAMPLE, hearts, query
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from clients.bots import make_bot
from clients.sdk import start_in_thread
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc, codec
from ladder.bots.launcher import free_port
from referee.rules import Rules

sys.path.insert(0, str(BOTS_DIR.parents[1] / "referee"))
from referee_bots import FirstLegal  # noqa: E402  # the path above first

pytestmark = pytest.mark.slow  # whole processes and servers

BEFORE_TURBO = f"python {BOTS_DIR / 'before_turbo.py'} {{port}}"


def test_a_bot_written_before_turbo_plays_a_turbo_match_without_a_fault_and_one_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ChargeCards UNIMPLEMENTED was an error_status fault every hand, and three of them forfeited
    the match. Now it charges nothing each hand: 0 faults, no substitute, no forfeit, one note."""
    monkeypatch.setenv("COLUMNS", "240")  # the tables unwrapped
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    played = hearts(
        tmp_path,
        "match",
        "--seat",
        f"old={BEFORE_TURBO}",
        *("--seat", "random", "--seat", "lowest", "--seat", "heuristic"),
        *("--bots", "bots.toml", "--rules", "turbo,target=40", "--seed", "3", "--db", str(db)),
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Faults" not in played.stdout and "Notes (1)" in played.stdout
    [(match_id,)] = query(db, "SELECT id FROM matches")
    shown = hearts(tmp_path, "replay", match_id, "--db", str(db))
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "Notes (1)" in shown.stdout and "does not implement ChargeCards: charged nothing" in shown.stdout
    record = json.loads(hearts(tmp_path, "replay", match_id, "--db", str(db), "--json").stdout)
    old = record["seats"][0]
    assert (old["bot"], old["faults"], old["forfeit"]) == ("old", 0, False) and record["faults"] == []
    [note] = record["notes"]
    assert (note["hand"], note["seat"], note["kind"]) == (0, 0, "unimplemented")
    charges = [c for h in record["hands"] for c in h["charges"] if c["seat"] == 0]
    assert len(charges) == len(record["hands"]) > 1
    assert all(c["cards"] == [] and not c["substituted"] for c in charges)


def test_validate_checks_a_protocol_1_bot_naming_no_presets_on_protocol_1s_rulesets_alone(tmp_path: Path) -> None:
    """Before: a handshake naming no presets claimed every preset, so the bot written before Turbo Hearts was
    checked on turbo, booster-nines, partnership and cancellation too. Now it claims protocol 1's presets
    and options: those it was written for. It passes them."""
    result = hearts(tmp_path, "validate", "--command", BEFORE_TURBO, "--json")
    report = json.loads(result.stdout)
    checked = [Rules.parse(r) for r in report["rules"]]
    assert {str(r).split(",")[0] for r in checked} == set(codec.presets_of(1)) == set(codec.VERSIONS[0].presets)
    assert not any(r.turbo_charging or r.booster_nines or r.packs > 1 or r.partnership != "none" for r in checked)
    assert result.returncode == 0 and report["ok"], result.stdout[-3000:] + result.stderr
    presets = next(c for c in report["checks"] if c["name"] == "presets")
    assert presets["detail"].startswith("none listed: those of protocol 1, standard, omnibus")


# -- reflection, resolved as grpcurl resolves it ---------------------------------------------------------

REFLECTION = (
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
)


def _bot_proto(*imports: str) -> bytes:
    """bot.proto's file descriptor as the bot serves it, with ``imports`` added."""
    proto = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(proto)
    proto.dependency.extend(imports)
    return proto.SerializeToString()


def _symbol_not_found(request: Any) -> Any:
    """Lists the service, and knows none of its symbols (as the Go bot's reflection did)."""
    if request.HasField("list_services"):
        return rpb.ServerReflectionResponse(
            list_services_response=rpb.ListServiceResponse(service=[rpb.ServiceResponse(name="hearts.v1.BotService")])
        )
    return rpb.ServerReflectionResponse(
        error_response=rpb.ErrorResponse(
            error_code=grpc.StatusCode.NOT_FOUND.value[0], error_message="Symbol not found"
        )
    )


def _import_not_served(request: Any) -> Any:
    """Lists and finds the service, in a file importing one it never serves."""
    if request.HasField("file_containing_symbol"):
        return rpb.ServerReflectionResponse(
            file_descriptor_response=rpb.FileDescriptorResponse(
                file_descriptor_proto=[_bot_proto("hearts/v1/extra.proto")]
            )
        )
    return _symbol_not_found(request)


@contextmanager
def _reflecting(answer: Callable[[Any], Any]) -> Iterator[str]:
    """A good bot (real grpcio server on loopback, port 0) with health, whose reflection answers ``answer``."""

    def info(requests: Iterator[Any], context: Any) -> Iterator[Any]:
        for request in requests:
            yield answer(request)

    handler = grpc.stream_stream_rpc_method_handler(
        info,
        request_deserializer=rpb.ServerReflectionRequest.FromString,
        response_serializer=lambda m: m.SerializeToString(),
    )

    class Reflection(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            return handler if details.method in REFLECTION else None

    status = health.HealthServicer()
    status.set("", health_pb2.HealthCheckResponse.SERVING)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(FirstLegal(), server)
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    server.add_generic_rpc_handlers((Reflection(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def _reflection_check(tmp_path: Path, address: str) -> tuple[dict[str, Any], dict[str, Any]]:
    result = hearts(tmp_path, "validate", address, "--rules", "standard", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == (0 if report["ok"] else 1)
    return report, next(c for c in report["checks"] if c["kind"] == "reflection")


@pytest.mark.parametrize(
    "answer, why",
    [
        (_symbol_not_found, "file_containing_symbol answered NOT_FOUND: Symbol not found"),
        (
            _import_not_served,
            "file_by_filename hearts/v1/extra.proto (imported by hearts/v1/bot.proto) answered NOT_FOUND",
        ),
    ],
    ids=["symbol-not-found", "import-not-served"],
)
def test_a_reflection_that_lists_the_service_but_cannot_resolve_it_fails(
    tmp_path: Path, answer: Callable[[Any], Any], why: str
) -> None:
    """Before: listing hearts.v1.BotService passed, though grpcurl describe said 'Symbol not found'. Now the
    service is resolved as grpcurl does, and a reflection that cannot resolve it fails with what it answered."""
    with _reflecting(answer) as address:
        report, check = _reflection_check(tmp_path, address)
    assert check["outcome"] == "fail" and not report["ok"]
    assert (
        check["detail"].startswith("lists hearts.v1.BotService but cannot resolve it (v1): ") and why in check["detail"]
    )
    assert [c["name"] for c in report["checks"] if c["outcome"] == "fail"] == ["reflection"]  # the bot plays well


def test_the_sdks_reflection_resolves_the_service_and_every_message_type(tmp_path: Path) -> None:
    server = start_in_thread(make_bot("lowest"))
    try:
        report, check = _reflection_check(tmp_path, server.address)
    finally:
        server.stop()
    assert check["outcome"] == "pass" and report["ok"]
    assert check["detail"] == "resolves hearts.v1.BotService (v1alpha): 8 methods, the 23 message types they use"


# -- a slow start: one verdict for one behaviour ------------------------------------------------------------


@contextmanager
def _slow_bot(silent: int) -> Iterator[str]:
    """The slow-starting bot (tests/ladder/bots/slow_start.py), listening already: it serves once it has
    held ``silent`` connections without a word (never, if negative). Its address."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(BOTS_DIR / "slow_start.py"), str(port), str(silent)],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "bound"  # it listens: no clock
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


def _verdict(report: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    """Every check's kind, name, outcome and fault (the latency's figures left out: they are the clock's)."""
    return [(c["kind"], c["name"], c["outcome"], c["fault"]) for c in report["checks"] if c["kind"] != "latency"]


def test_a_slow_starting_bot_gets_one_verdict_whatever_stage_of_its_start_the_validation_meets(tmp_path: Path) -> None:
    """Before: the checks began at once, and each called the unfinished start its own way: a health check
    that met a listener not yet speaking gRPC timed out (3 s, a failure), the referee's own channel gave up
    connecting after 100 ms and called the same silence 'bot unreachable (is it running?)', and a check that
    came later passed. Now the validation waits for SERVING as the launcher does, and the referee's seat
    gives a connection until the call's deadline: the same bot, met 0 to 3 connections into its start,
    gets the same verdict, which is a pass."""
    verdicts = {}
    for silent in (0, 1, 2, 3):
        with _slow_bot(silent) as address:
            result = hearts(tmp_path, "validate", address, "--rules", "standard", "--json")
        report = json.loads(result.stdout)
        verdicts[silent] = (result.returncode, report["ok"], _verdict(report))
    assert verdicts[0][:2] == (0, True), verdicts[0]
    assert all(v == verdicts[0] for v in verdicts.values()), verdicts


def test_a_bot_that_never_answers_gets_the_same_failure_every_time(tmp_path: Path) -> None:
    """A bot that accepts connections and never answers them: one failure saying so (a timeout, as a match
    would record its calls), after the startup timeout, and nothing more asked; the same on every run."""
    reports = []
    for _ in range(2):
        with _slow_bot(-1) as address:
            result = hearts(tmp_path, "validate", address, "--startup-timeout", "2", "--json")
        assert result.returncode == 1
        reports.append(json.loads(result.stdout))
    expected = [("health", "health", "fail", "timeout"), ("stopped", "the checks left", "skip", None)]
    assert [_verdict(r) for r in reports] == [expected, expected]
    assert reports[0]["checks"][0]["detail"] == (
        "the bot could not be reached within 2 s (the startup timeout): it accepts connections but does not answer them"
    )


class _ClaimsUnreachable(health.HealthServicer):
    """A health service that answers every Check with the status a dead bot would leave: its own words."""

    def Check(self, request: Any, context: Any) -> Any:
        context.abort(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; Connection refused")


def test_a_health_status_that_claims_unreachable_is_the_bots_own_answer(tmp_path: Path) -> None:
    """The connection, not the status, says whether the bot was reached: a bot answering UNAVAILABLE on a
    connection that is up fails the health check as its own answer, and every other check still runs (before,
    it read as unreachable and nothing more was asked)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(FirstLegal(), server)
    health_pb2_grpc.add_HealthServicer_to_server(_ClaimsUnreachable(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        result = hearts(tmp_path, "validate", f"127.0.0.1:{port}", "--rules", "standard", "--json")
    finally:
        server.stop(0)
    report = json.loads(result.stdout)
    health_check, handshake = report["checks"][0], next(c for c in report["checks"] if c["name"] == "handshake")
    assert (health_check["outcome"], health_check["fault"]) == ("fail", None)
    assert health_check["detail"] == "grpc.health.v1 Check failed: the launcher seats only a bot that reports SERVING"
    assert handshake["outcome"] == "pass" and not any(c["kind"] == "stopped" for c in report["checks"])
