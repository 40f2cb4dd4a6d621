"""The checks of the bot's gRPC service before any play: its health (waited for as the launcher waits
for a starting bot), its server reflection (resolved as grpcurl resolves it), its handshake."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from ladder.conformance.report import BotInfo, Check, Outcome
from ladder.conformance.session import Session, Stop
from referee.faults import fault_from_error
from referee.match import NAME_LIMIT
from referee.record import FaultKind
from referee.rules import PRESETS
from referee.rules.options import OPTION_NAMES
from referee.seats import REFEREE_NAME

HANDSHAKE_S = 5.0  # the referee's handshake deadline (MatchSettings.handshake_ms)
PROBE_S = 3.0  # reflection: answered at once by any gRPC library that serves it
STARTUP_PROBE_S = 0.5  # one health probe while the bot starts (the launcher's)
STARTUP_POLL_S = 0.05  # between two health probes while the bot starts (the launcher's pace)


@dataclass(frozen=True)
class _Probe:
    """One health probe of a starting bot: its answer (``status``, ``code``), and whether a later probe
    may be answered otherwise (``final`` False: nothing answered yet, or the bot said it is not ready)."""

    service: str
    status: str | None = None  # the ServingStatus name it answered
    code: grpc.StatusCode | None = None  # the status of a Check that failed
    details: str = ""
    connected: bool = False  # the probe's connection was up when its Check failed (the status is the bot's)
    final: bool = True

    @property
    def serving(self) -> bool:
        return self.status == "SERVING"

    @property
    def silent(self) -> bool:
        """Nothing answered: no connection (not listening, or dropped), or one on which nothing is said."""
        if self.code is grpc.StatusCode.UNAVAILABLE:
            return not self.connected
        return self.code is grpc.StatusCode.DEADLINE_EXCEEDED


async def _probe(address: str) -> _Probe:
    """One health probe on a channel of its own (a new connection each time, as the launcher's): the bot
    service's status, else the whole server's."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("hearts.v1.BotService", ""):
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=STARTUP_PROBE_S)
            except grpc.aio.AioRpcError as e:
                code = e.code()
                if code is grpc.StatusCode.NOT_FOUND and service:
                    continue  # a server that registers only its own status: ask that
                # The connection's state, not the status's text, tells a bot's own UNAVAILABLE (an answer)
                # from no connection at all; NOT_FOUND for both: a server with no status registered yet.
                connected = channel.get_state(try_to_connect=False) is grpc.ChannelConnectivity.READY
                probe = _Probe(service, code=code, details=(e.details() or "")[:300], connected=connected)
                return replace(probe, final=not (probe.silent or code is grpc.StatusCode.NOT_FOUND))
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            return _Probe(service, status=status, final=status == "SERVING")
    raise AssertionError("unreachable: the loop returns")


async def health(s: Session) -> None:
    """grpc.health.v1 SERVING for the bot service, or for the whole server, waited for as the launcher
    waits for every bot it seats: up to the startup timeout, while nothing answers (the bot is not
    listening yet, or not yet speaking gRPC) or it says it is not ready (NOT_SERVING, no status yet).
    The checks then meet the bot as a tournament would, so a slow start gets the same verdict whenever
    the validation began: what the bot did within the startup timeout, never how far it had got when
    the first call went out."""
    deadline = time.monotonic() + s.startup_s
    probe = await _probe(s.address)
    while not probe.final and time.monotonic() < deadline:
        await asyncio.sleep(STARTUP_POLL_S)
        probe = await _probe(s.address)
    request = f"grpc.health.v1.Health/Check service {probe.service!r}"
    if probe.status is not None:
        ok = probe.serving
        waited = "" if ok else f" after {s.startup_s:g} s (the startup timeout)"
        s.add(
            Check(
                "health",
                "health",
                Outcome.PASS if ok else Outcome.FAIL,
                (
                    f"{probe.status} for {probe.service}"
                    if probe.service
                    else f"{probe.status} (the server's: none for the bot service)"
                )
                if ok
                else f"{probe.status}{waited}: the launcher seats only a bot that reports SERVING",
                request=request,
                received=probe.status,
            )
        )
        return
    assert probe.code is not None
    received = f"status {probe.code.name}: {probe.details}"
    if probe.silent:
        unreachable = probe.code is grpc.StatusCode.UNAVAILABLE  # no connection kept, rather than silence on one
        what = (
            f"nothing listens at {s.address} (or it drops every connection)"
            if unreachable
            else "it accepts connections but does not answer them"
        )
        # Never up: a tournament's launcher would not seat it, and it is asked nothing more.
        s.add(
            Check(
                "health",
                "health",
                Outcome.FAIL,
                f"the bot could not be reached within {s.startup_s:g} s (the startup timeout): {what}",
                fault=FaultKind.TRANSPORT if unreachable else FaultKind.TIMEOUT,
                request=request,
                received=received,
            )
        )
        raise Stop(f"not run: the bot did not answer within {s.startup_s:g} s (a tournament would not seat it)")
    why = {
        grpc.StatusCode.UNIMPLEMENTED: "no grpc.health.v1 service",
        grpc.StatusCode.NOT_FOUND: f"no health status for the server nor the bot service after {s.startup_s:g} s",
    }.get(probe.code, "grpc.health.v1 Check failed")
    # The rest a match would not record (the launcher refuses such a bot before any match): no fault kind.
    s.add(
        Check(
            "health",
            "health",
            Outcome.FAIL,
            f"{why}: the launcher seats only a bot that reports SERVING",
            request=request,
            received=received,
        )
    )


_REFLECTION_METHODS = (
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
)
_SERVICE = pb.DESCRIPTOR.services_by_name["BotService"]
MAX_REFLECTED_FILES = 64
"""Files a bot's reflection may serve for hearts.v1.BotService and its imports (bot.proto has none)."""


class _Unresolved(Exception):
    """Reflection lists the service but cannot resolve it, or a type it uses; the message says where."""


_Reflect = Callable[..., Any]  # a ServerReflectionInfo stream-stream callable


async def _reflect(call: _Reflect, request: reflection_pb2.ServerReflectionRequest) -> Any:
    """One request on its own reflection stream, and its first reply: a bot that sends more is not read."""
    stream = call(iter([request]), timeout=PROBE_S)
    try:
        async for reply in stream:
            return reply
    finally:
        stream.cancel()
    raise _Unresolved("the stream ended without a reply")


async def _files(call: _Reflect, request: reflection_pb2.ServerReflectionRequest, what: str) -> list[Any]:
    """The file descriptors one request is answered with; ``_Unresolved`` for an error or none."""
    try:
        reply = await _reflect(call, request)
    except grpc.aio.AioRpcError as e:
        raise _Unresolved(f"{what} failed: {e.code().name}: {(e.details() or '')[:200]}") from None
    except _Unresolved as e:
        raise _Unresolved(f"{what}: {e}") from None
    if reply.HasField("error_response"):
        error = reply.error_response
        code = next((c.name for c in grpc.StatusCode if c.value[0] == error.error_code), str(error.error_code))
        raise _Unresolved(f"{what} answered {code}: {error.error_message[:200]}")
    protos = reply.file_descriptor_response.file_descriptor_proto
    if not protos:
        raise _Unresolved(f"{what} answered no file descriptor")
    try:
        return [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in protos[:MAX_REFLECTED_FILES]]
    except DecodeError:
        raise _Unresolved(f"{what} answered a file descriptor that does not decode") from None


async def _resolve(call: _Reflect) -> tuple[Any, int]:
    """hearts.v1.BotService as grpcurl resolves it: the file containing the symbol, then each file it
    imports by name, built into a descriptor pool of their own; then every message type its methods use,
    and the types of their fields, found in it. (the service's descriptor, how many message types)."""
    files: dict[str, Any] = {}
    for f in await _files(
        call,
        reflection_pb2.ServerReflectionRequest(file_containing_symbol=_SERVICE.full_name),
        "file_containing_symbol",
    ):
        files.setdefault(f.name, f)
    while missing := [(d, f.name) for f in list(files.values()) for d in f.dependency if d not in files]:
        if len(files) >= MAX_REFLECTED_FILES:
            raise _Unresolved(f"more than {MAX_REFLECTED_FILES} files for one service")
        name, importer = missing[0]
        what = f"file_by_filename {name} (imported by {importer})"
        for f in await _files(call, reflection_pb2.ServerReflectionRequest(file_by_filename=name), what):
            files.setdefault(f.name, f)
        if name not in files:
            raise _Unresolved(f"{what} answered other files")
    pool = descriptor_pool.DescriptorPool()
    built: set[str] = set()

    def build(name: str, importers: tuple[str, ...]) -> None:
        if name in built:
            return
        if name in importers:
            raise _Unresolved(f"{name} imports itself through {' -> '.join(importers)}")
        for dependency in files[name].dependency:
            build(dependency, (*importers, name))
        try:
            pool.Add(files[name])
        except (TypeError, ValueError) as e:
            raise _Unresolved(f"{name} does not build: {str(e)[:200]}") from None
        built.add(name)

    for name in list(files):
        build(name, ())
    try:
        service = pool.FindServiceByName(_SERVICE.full_name)
    except KeyError:
        raise _Unresolved(
            f"the files served for it ({', '.join(files)[:200]}) define no {_SERVICE.full_name}"
        ) from None
    seen: set[str] = set()
    todo = [t for m in service.methods for t in (m.input_type, m.output_type)]
    while todo:
        message = todo.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        try:
            pool.FindMessageTypeByName(message.full_name)
        except KeyError:
            raise _Unresolved(f"message type {message.full_name} is not in the files served") from None
        todo += [f.message_type for f in message.fields if f.message_type is not None]
    return service, len(seen)


async def reflection(s: Session) -> None:
    """Server reflection listing hearts.v1.BotService (v1 or v1alpha, whose messages are the same), and
    resolving it as grpcurl does (``_resolve``). A convenience for grpcurl, so its absence is a warning;
    a reflection that lists the service but cannot describe it misleads every tool that trusts it: a failure."""
    statuses = []
    async with grpc.aio.insecure_channel(s.address) as channel:
        for method in _REFLECTION_METHODS:
            call = channel.stream_stream(
                method,
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            try:
                reply = await _reflect(call, reflection_pb2.ServerReflectionRequest(list_services=""))
            except (grpc.aio.AioRpcError, _Unresolved) as e:
                why = e.code().name if isinstance(e, grpc.aio.AioRpcError) else str(e)
                statuses.append(f"{method.split('/')[1]}: {why}")
                continue
            version = method.split("/")[1].rsplit(".", 2)[1]
            services = [svc.name for svc in reply.list_services_response.service]
            listed = f"{method} list_services"
            if _SERVICE.full_name not in services:
                s.add(
                    Check(
                        "reflection",
                        "reflection",
                        Outcome.WARN,
                        "does not list hearts.v1.BotService (grpcurl then needs -proto)",
                        request=listed,
                        received=", ".join(services)[:300],
                    )
                )
                return
            s.add(await _resolved_check(call, version, listed))
            return
    s.add(
        Check(
            "reflection",
            "reflection",
            Outcome.WARN,
            "no server reflection: optional, but grpcurl then needs -import-path proto -proto hearts/v1/bot.proto",
            request="grpc.reflection ServerReflectionInfo list_services",
            received="; ".join(statuses),
        )
    )


async def _resolved_check(call: _Reflect, version: str, listed: str) -> Check:
    """The reflection check of a server that lists hearts.v1.BotService: does it resolve, and as bot.proto has it?"""
    request = f"{listed}, file_containing_symbol {_SERVICE.full_name}, its imports and message types"
    try:
        service, types = await _resolve(call)
    except _Unresolved as e:
        return Check(
            "reflection",
            "reflection",
            Outcome.FAIL,
            f"lists hearts.v1.BotService but cannot resolve it ({version}): {e}. grpcurl fails the same way "
            "('Symbol not found'); serve bot.proto's descriptors (the SDK and the Node bot do), or no reflection",
            request=request,
            received=str(e)[:300],
        )
    other = [
        m.name
        for m in service.methods
        if m.name in _SERVICE.methods_by_name
        and (m.input_type.full_name, m.output_type.full_name)
        != (
            _SERVICE.methods_by_name[m.name].input_type.full_name,
            _SERVICE.methods_by_name[m.name].output_type.full_name,
        )
    ]
    if other:
        return Check(
            "reflection",
            "reflection",
            Outcome.FAIL,
            f"resolves hearts.v1.BotService ({version}) with other message types than bot.proto's for "
            f"{', '.join(other)[:200]}: grpcurl would send requests of another shape",
            request=request,
        )
    missing = [m.name for m in _SERVICE.methods if m.name not in service.methods_by_name]
    found = (
        f"resolves hearts.v1.BotService ({version}): {len(service.methods)} methods, the {types} message types they use"
    )
    if missing:
        return Check(
            "reflection",
            "reflection",
            Outcome.WARN,
            f"{found}, but not {', '.join(missing)}: it describes an older bot.proto (grpcurl cannot call those)",
            request=request,
        )
    return Check("reflection", "reflection", Outcome.PASS, found, request=request)


async def handshake(s: Session) -> BotInfo | None:
    """The handshake as the referee sends it, within its deadline, then a check of each field that matters
    (protocol_version, name, presets, options, max_concurrent_games): the bot's answer, else None."""
    request = codec.handshake_request(REFEREE_NAME)
    sent = f"Handshake protocol {codec.PROTOCOL_VERSION}"
    try:
        hello = await s.seat.handshake(request, HANDSHAKE_S)
    except Exception as e:
        fault = fault_from_error(e)
        s.add(
            Check(
                "handshake",
                "handshake",
                Outcome.FAIL,
                fault.detail,
                fault=fault.kind,
                request=sent,
                request_json=json_format.MessageToDict(request),
                received=fault.received,
            )
        )
        return None
    bot = s.bot = BotInfo.of(hello)
    s.add(Check("handshake", "handshake", Outcome.PASS, "answered", request=sent, received=_hello_text(bot)))
    version = bot.protocol_version
    if version <= codec.PROTOCOL_VERSION:
        older = (
            f" (older than the referee's {codec.PROTOCOL_VERSION}: it is checked only on what protocol "
            f"{codec.version_spoken(version)} knew, unless its handshake names more)"
            if codec.version_spoken(version) < codec.PROTOCOL_VERSION
            else ""
        )
        s.add(
            Check(
                "handshake",
                "protocol_version",
                Outcome.PASS,
                f"{version}" + (" (unset: taken as 1)" if version == 0 else "") + older,
                received=f"protocol_version={version}",
            )
        )
    else:
        s.add(
            Check(
                "handshake",
                "protocol_version",
                Outcome.FAIL,
                f"speaks protocol {version}; the referee speaks 1 to {codec.PROTOCOL_VERSION}",
                fault=FaultKind.MALFORMED,
                request=sent,
                received=f"protocol_version={version}",
            )
        )
    if not bot.name.strip():
        name = Check("handshake", "name", Outcome.WARN, "empty: the bot is shown by its seat or bots file name")
    elif len(bot.name) > NAME_LIMIT:
        name = Check(
            "handshake", "name", Outcome.WARN, f"{len(bot.name)} characters: the referee keeps the first {NAME_LIMIT}"
        )
    else:
        name = Check("handshake", "name", Outcome.PASS, bot.name)
    s.add(name)
    unknown = [p for p in bot.presets if p not in PRESETS]
    s.add(
        Check(
            "handshake",
            "presets",
            Outcome.WARN if unknown else Outcome.PASS,
            f"unknown presets {', '.join(unknown)} (known: {', '.join(PRESETS)})"
            if unknown
            else (
                ", ".join(bot.presets)
                or f"none listed: those of protocol {codec.version_spoken(bot.protocol_version)}, "
                + ", ".join(bot.claimed_presets)
            ),
        )
    )
    unknown = [o for o in bot.options if o not in OPTION_NAMES]
    s.add(
        Check(
            "handshake",
            "options",
            Outcome.WARN if unknown else Outcome.PASS,
            f"unknown options {', '.join(unknown)} (see hearts rules)"
            if unknown
            else (
                ", ".join(bot.options)
                or f"none listed: every option of protocol {codec.version_spoken(bot.protocol_version)}"
                + (
                    ""
                    if codec.version_spoken(bot.protocol_version) == codec.PROTOCOL_VERSION
                    else f" (not {', '.join(o for o in OPTION_NAMES if o not in bot.claimed_options)})"
                )
            ),
        )
    )
    limit = bot.max_concurrent_games
    s.add(
        Check(
            "handshake",
            "max_concurrent_games",
            Outcome.PASS,
            f"{limit}" if limit else "0: no limit (a tournament may seat it in many matches at once)",
        )
    )
    return bot


def _hello_text(bot: BotInfo) -> str:
    return (
        f"name={bot.name!r} version={bot.version!r} author={bot.author!r} language={bot.language!r} "
        f"protocol_version={bot.protocol_version} presets={list(bot.presets)} options={list(bot.options)} "
        f"max_concurrent_games={bot.max_concurrent_games} wants_notifications={bot.wants_notifications}"
    )[:600]
