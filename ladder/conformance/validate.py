"""``hearts validate``: does a bot conform? A suite of checks, run against a bot's address.

``await validate(address)`` returns a ``Report``: each ``Check`` with its outcome (pass, warn,
fail, or skip for what could not run), a one-line detail, and for a bad answer the evidence: the
request sent (a line of text, and in full as the proto3 JSON of the message), what came back,
the fault kind the referee would record and the rule sentence the position exercises. The bot
passes when no check fails (a warning is fine). ``Report.to_dict()`` is the JSON of
``hearts validate --json`` (schema ``hearts-arena/validate``, ``version`` 1).

The checks, in order: the health service reports SERVING (a bot still starting waited for, up to
the startup timeout, as the launcher waits); server reflection (a warning without it, a failure when
it lists the service but cannot resolve it as grpcurl does); the handshake and its fields; for
every ruleset the bot claims (or those asked for), each position of ``ladder.conformance.positions`` that the
ruleset can ask, one request each; statelessness (one
view asked twice, the views of two matches interleaved); the concurrency the handshake claims
(that many requests at once); calls cancelled mid-flight do not break the next one; one complete
short match against stand-ins; the latency of every decision against the budget.

Every call goes through the referee's own ``GrpcSeat``, and every answer is judged by the
referee's own code (``referee.match.DECISIONS``: the decoding, then the engine's check as the
answer is applied), so a timeout, an unreachable bot, an error status, a malformed or oversized
reply and each illegal answer are classified exactly as a match records them: a bot that passes
validate plays its matches without faults on these positions. A validation keeps one clock, as
a match does (``budget + bank left + grace`` a decision). A bot that cannot be reached is asked
nothing more (a match forfeits it at once), nor one that timed out three times (a match forfeits
it after three faults): the checks left are reported as one skipped row.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT
from ladder.conformance.positions import Position, play_positions, positions
from ladder.conformance.report import BotInfo, Check, Latency, Outcome, Report
from ladder.conformance.session import Guise, Session, Stop, asked_check, shown
from ladder.sandbox import Isolation
from referee.faults import fault_from_error
from referee.match import DECISIONS, NAME_LIMIT, Clock, MatchSettings, play_match
from referee.record import FaultKind, utc_now
from referee.report import latencies
from referee.rules import PRESETS, Match, MoonChoice, Observation, Phase, Rules, SeededRandom
from referee.rules.options import OPTION_NAMES
from referee.seats import REFEREE_NAME, Ask, InProcessSeat, Seat

HANDSHAKE_S = 5.0  # the referee's handshake deadline (MatchSettings.handshake_ms)
PROBE_S = 3.0  # reflection: answered at once by any gRPC library that serves it
STARTUP_PROBE_S = 0.5  # one health probe while the bot starts (the launcher's)
STARTUP_POLL_S = 0.05  # between two health probes while the bot starts (the launcher's pace)
UNLIMITED_CONCURRENCY = 8  # requests sent at once to a bot that declares no limit (0)
MAX_CONCURRENCY = 32  # the most requests sent at once, whatever a bot declares
CANCEL_AFTER_MS = (0.0, 1.0, 3.0)  # when each cancelled call is cancelled, after it was sent
SHORT_TARGET = 26  # the target of the complete match: a hand or a few
MATCH_SEED = 1
CLOSE = 0.5  # a p99 above this share of the budget is close to it (a warning)

VARIANTS: tuple[tuple[str, ...], ...] = (
    ("standard,players=3",),
    ("standard,players=5,pass_cycle=five-player", "standard,players=5"),
    ("standard,pass_cycle=scatter mix call",),
    ("standard,pass_on=true",),
    ("standard,kitty=first-trick,hand_size=12,kitty_discard=true",),
    ("standard,moon=shooter-chooses",),
    ("standard,queen_at_first_safe_chance=true",),
    ("standard,first_lead=left-of-dealer",),
    ("standard,turbo_charging=true,turbo_charges=any,charged_singleton=may-slough",),
    ("cancellation,players=10,pass_cycle=left-right-hold",),
)
"""Rulesets beyond the presets that ask what the presets do not (3 and 5 players, every pass
direction, passing on, the kitty's discard, the moon's choice, several turbo-charges, other legal-move rules); each is
checked when the bot claims it. Among alternatives, the first the bot claims."""


# -- the checks ------------------------------------------------------------------------------------


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


async def _health(s: Session) -> None:
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


async def _reflection(s: Session) -> None:
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


async def _handshake(s: Session) -> BotInfo | None:
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


def _rulesets(s: Session, bot: BotInfo | None, asked: Sequence[Rules] | None) -> list[Rules]:
    """The rules asked for, else every preset and variant the handshake claims (all without one)."""
    if asked:
        for rules in asked:
            if bot is not None and not bot.claims(rules):
                s.add(
                    Check(
                        "claims",
                        "claims the rules",
                        Outcome.WARN,
                        "the handshake does not claim these rules (its presets and options): checked as asked",
                        str(rules),
                    )
                )
        return list(dict.fromkeys(asked))
    claimed = bot or BotInfo("", "", "", "", codec.PROTOCOL_VERSION, (), (), 0, False)
    out = [rules for rules in PRESETS.values() if claimed.claims(rules)]
    for alternatives in VARIANTS:
        for text in alternatives:
            rules = Rules.parse(text)
            if claimed.claims(rules):
                out.append(rules)
                break
    if not out:
        s.add(
            Check(
                "claims",
                "claims the rules",
                Outcome.WARN,
                f"the handshake claims no ruleset this harness plays (presets {list(claimed.claimed_presets)}, "
                f"options {list(claimed.claimed_options)}): standard is checked; give --rules to check others",
            )
        )
        out.append(Rules())
    return out


async def _positions(s: Session, rules: Rules, index: int) -> None:
    built, missing = positions(rules, s.seed(0))
    for n, position in enumerate(built):
        asked = await s.ask(position, f"validate-{index}-{n}")
        s.add(asked_check("position", position.name, position, asked, f"{shown(asked)}: legal"))
    if missing:
        s.add(
            Check(
                "position",
                "positions not built",
                Outcome.SKIP,
                "no such position under these rules (none dealt, or none in seeded play): "
                + "; ".join(name for name, _ in missing),
                str(rules),
            )
        )


async def _statelessness(s: Session, rules: Rules) -> None:
    """One view asked twice; then two matches' decisions interleaved, each answered from its own view."""
    built, _ = positions(rules, s.seed(0))
    plays = [p for p in built if p.phase is Phase.PLAY and len(p.observation().legal) > 1] or built
    if not plays:
        s.add(Check("stateless", "the same view twice", Outcome.SKIP, "no position under these rules", str(rules)))
        return
    position = plays[0]
    first = await s.ask(position, "validate-same")
    second = await s.ask(position, "validate-same") if first.fault is None else first
    bad = first if first.fault is not None else second
    detail = f"{shown(first)} then {shown(second)}"
    if first.fault is None and second.fault is None and shown(first) != shown(second):
        detail += " (different answers: fine for a bot that draws at random)"
    s.add(asked_check("stateless", "the same view twice", position, bad, detail + ": both legal"))

    tables = [Match(rules, s.seed(101)), Match(rules, s.seed(102))]
    ids = ["validate-interleaved-a", "validate-interleaved-b"]
    asked_count = 0
    for _ in range(20):
        for m, match_id in zip(tables, ids):
            if m.over:
                continue
            seat = m.to_move[0]
            position = Position("two matches interleaved", rules, m, seat)
            asked = await s.ask(position, match_id)
            asked_count += 1
            if asked.fault is not None:
                s.add(asked_check("stateless", "two matches interleaved", position, asked, ""))
                return
            asked.decision.apply(m, seat, asked.value)  # the bot's own answer moves its match on
    s.add(
        Check(
            "stateless",
            "two matches interleaved",
            Outcome.PASS,
            f"{asked_count} decisions of two matches, asked in turn: all legal",
            str(rules),
        )
    )


async def _concurrency(s: Session, rules: Rules, bot: BotInfo | None) -> None:
    """As many requests at once as the handshake claims to serve, each of another match: all answered
    legally within budget + grace (the deadline once a bot's bank is spent)."""
    declared = bot.max_concurrent_games if bot is not None else 0
    n = min(declared or UNLIMITED_CONCURRENCY, MAX_CONCURRENCY)
    plays = play_positions(rules, n, s.seed(0))
    settings = s.settings
    clocks = [Clock(MatchSettings(settings.budget_ms, 0.0, settings.grace_ms)) for _ in plays]
    asked = await asyncio.gather(
        *(s.ask(p, f"validate-many-{i}", clock=c) for i, (p, c) in enumerate(zip(plays, clocks)))
    )
    why = "as many as its handshake's max_concurrent_games" if declared else f"{n}: it declares no limit"
    slowest = max(a.latency_ms for a in asked)
    for position, a in zip(plays, asked):
        if a.fault is not None:
            late = sum(1 for x in asked if x.fault is not None and x.fault.kind is FaultKind.TIMEOUT)
            check = asked_check("concurrency", f"{n} requests at once", position, a, "")
            if late:
                hint = f"{late} of {n} requests at once were not answered within the budget: " + (
                    f"declare max_concurrent_games = {max(1, n - late)} or fewer"
                    if declared
                    else "declare max_concurrent_games (1 for a bot that answers one request at a time)"
                )
                check = replace(check, detail=hint)
            s.add(check)
            return
    s.add(
        Check(
            "concurrency",
            f"{n} requests at once",
            Outcome.PASS,
            f"{n} plays of {n} matches at once ({why}): all legal within the budget, the slowest in {slowest:.1f} ms",
            str(rules),
        )
    )


async def _cancellation(s: Session, rules: Rules) -> None:
    """Calls cancelled by the referee's side mid-flight (a match cancelled, a tournament stopped) must not
    break the bot: the next call is answered legally."""
    plays = play_positions(rules, len(CANCEL_AFTER_MS) + 1, s.seed(0))
    answered_first = 0
    for i, (position, after_ms) in enumerate(zip(plays, CANCEL_AFTER_MS)):
        decision = DECISIONS[position.phase]
        obs = position.observation()
        match_id, names = s.table(f"validate-cancel-{i}", rules.players, position.seat)
        ask = Ask(obs, codec.ViewEncoder(match_id, names, s.budget_ms), 0, decision.rest(obs))
        task = asyncio.ensure_future(getattr(s.seat, decision.method)(ask, s.clock.deadline()))
        await asyncio.sleep(after_ms / 1000)
        if task.done():
            answered_first += 1
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    position = plays[-1]
    asked = await s.ask(position, "validate-after-cancel")
    cancelled = len(CANCEL_AFTER_MS) - answered_first
    when = ", ".join(f"{ms:g}" for ms in CANCEL_AFTER_MS)
    s.add(
        asked_check(
            "cancel",
            "cancelled calls, then the next",
            position,
            asked,
            f"{len(CANCEL_AFTER_MS)} calls cancelled {when} ms after they were sent ({cancelled} before their "
            f"answer came); the next answered {shown(asked)}: legal",
        )
    )


class _StandIn:
    """The other seats of the complete match: the lowest legal card, the first cards of the hand."""

    def pass_cards(self, obs: Observation) -> Sequence[Any]:
        return obs.hand.cards[: obs.rules.pass_count]

    def play_card(self, obs: Observation) -> Any:
        return obs.legal.cards[0]

    def discard_cards(self, obs: Observation) -> Sequence[Any]:
        return obs.hand.cards[: len(obs.kitty)]

    def call_pass(self, obs: Observation) -> str:
        return "left"

    def charge_cards(self, obs: Observation) -> Sequence[Any]:
        return ()

    def choose_moon(self, obs: Observation) -> MoonChoice:
        return MoonChoice.ADD_TO_OTHERS


def _short(rules: Rules) -> Rules:
    try:
        return rules.replace(target=min(rules.target, SHORT_TARGET))
    except ValueError:  # a target the other options need (an exact-target reset): the full match
        return rules


async def _match(s: Session, rules: Rules) -> None:
    """A real match (``referee.match.play_match``): the bot in seat 0, stand-ins in the others, as a
    tournament seats it (one seat, one request at a time); zero faults expected. Under a guise, the
    whole match of the rules, the bot in a seat its seed draws, every seat named as ``table`` names it."""
    short = _short(rules) if s.guise is None else rules
    n = short.players
    seed = s.seed(MATCH_SEED)
    k = 0 if s.guise is None else SeededRandom(seed, "seat").below(n)
    name = (s.bot.name if s.bot is not None else "") or "bot"
    seats: list[Seat] = [InProcessSeat(_StandIn(), f"stand-in {i}") for i in range(n)]
    seats[k] = s.seat
    names = [f"stand-in-{i}" for i in range(n)]
    names[k] = name[:NAME_LIMIT]
    match_id = None
    if s.guise is not None:
        match_id, names = s.table("validate-match", n, k)
    record = await play_match(seats, short, seed, settings=s.settings, match_id=match_id, names=names)
    s.latencies.extend(latencies(record, k))
    faults = [f for f in record.faults if f.seat == k]
    notes = [x for x in record.notes if x.seat == k]
    me = record.seats[k]
    where = f"{len(record.hands)} hands of {short} (seed {seed}), the bot in seat {k} against {n - 1} stand-ins"
    if not faults:
        noted = "".join(f"; noted: {n.detail}" for n in notes)
        outcome = Outcome.WARN if notes else Outcome.PASS
        s.add(Check("match", "a complete match", outcome, f"{where}: no faults; place {me.place}{noted}", str(short)))
        return
    first = faults[0]
    kinds = ", ".join(dict.fromkeys(f.kind.value for f in faults))
    at = (
        f"hand {first.hand}" + (f" trick {first.trick}" if first.trick is not None else "")
        if first.hand is not None
        else "the handshake"
    )
    forfeit = "; it forfeited" if me.forfeit else ""
    s.add(
        Check(
            "match",
            "a complete match",
            Outcome.FAIL,
            f"{where}: {len(faults)} faults ({kinds}){forfeit}; the first at {at}: {first.detail}",
            str(short),
            fault=first.kind,
            request=first.sent,
            received=first.received,
        )
    )


def _latency(s: Session) -> Check:
    lat = Latency.of(s.latencies)
    budget, grace = s.settings.budget_ms, s.settings.grace_ms
    if lat.decisions == 0 or lat.p50_ms is None or lat.p99_ms is None or lat.max_ms is None:
        return Check("latency", "latency", Outcome.SKIP, "no decision was answered")
    figures = (
        f"p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms, max {lat.max_ms:.1f} ms over {lat.decisions} decisions; "
        f"budget {budget:g} ms"
    )
    if lat.p99_ms > budget + grace:
        return Check(
            "latency",
            "latency",
            Outcome.FAIL,
            f"{figures}: more than 1 in 100 decisions over the budget drains the time bank, then times out",
            fault=FaultKind.TIMEOUT,
        )
    if lat.max_ms > budget + grace:
        return Check("latency", "latency", Outcome.WARN, f"{figures}: the slowest drew on the time bank")
    if lat.p99_ms > CLOSE * budget:
        return Check("latency", "latency", Outcome.WARN, f"{figures}: close to the budget")
    return Check("latency", "latency", Outcome.PASS, figures)


async def validate(
    address: str,
    *,
    rules: Sequence[Rules] | None = None,
    budget_ms: float = 1000.0,
    bank_ms: float = 10000.0,
    grace_ms: float = 50.0,
    match: bool = True,
    command: str | None = None,
    on_check: Callable[[Check], None] | None = None,
    diagnose: Callable[[], Awaitable[str | None]] | None = None,
    vouch: Callable[[], Awaitable[str | None]] | None = None,
    isolation: Isolation | None = None,
    guise: Guise | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
) -> Report:
    """Validate the bot served at ``address``: every check, in order; ``on_check`` sees each as it
    is made. ``rules``: the rulesets to check (default: every one the handshake claims). The time
    control is a match's (``MatchSettings``): each decision may take ``budget + bank left + grace``.
    ``match``: play the complete short match too. ``command`` is only recorded in the report.
    ``diagnose`` says why an unreachable bot is gone when its sandbox knows (a limit it hit: a
    ``resource_limit`` fault), as a match's seat asks its launcher; ``vouch`` what its launcher saw
    serving the address when that was not the bot it started (an ``impersonation`` fault).
    ``isolation``: what guards the bot, from whoever started it (its launcher), kept in the report
    and in its match's record. ``guise``: what the bot is told, to look like a tournament's matches
    (``Guise``). ``startup_timeout``: how long a bot that is still starting may take to report
    SERVING, as the launcher allows. Never raises for anything the bot does."""
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms)
    s = Session(address, settings, on_check, diagnose, vouch, isolation, guise=guise, startup_s=startup_timeout)
    started = utc_now()
    checked: list[Rules] = []
    try:
        await _health(s)
        if guise is None:
            await _reflection(s)
        else:
            s.add(Check("reflection", "reflection", Outcome.SKIP, "not asked: no match asks it"))
        bot = await _handshake(s)
        checked = _rulesets(s, bot, rules)
        for i, r in enumerate(checked):
            await _positions(s, r, i)
        await _statelessness(s, checked[0])
        await _concurrency(s, checked[0], bot)
        await _cancellation(s, checked[0])
        if match:
            await _match(s, checked[0])
    except Stop as stop:
        s.checks.append(Check("stopped", "the checks left", Outcome.SKIP, str(stop)))
    finally:
        await s.seat.close()
    s.checks.append(_latency(s))
    if on_check is not None:
        on_check(s.checks[-1])
    return Report(
        address=address,
        command=command,
        bot=s.bot,
        rules=tuple(str(r) for r in checked),
        budget_ms=budget_ms,
        bank_ms=bank_ms,
        grace_ms=grace_ms,
        checks=tuple(s.checks),
        latency=Latency.of(s.latencies),
        started_at=started,
        finished_at=utc_now(),
        isolation=isolation,
    )
