"""hearts ask: a recorded decision sent again to a bot.

The requests ``ladder.ask`` rebuilds from a record are the bytes the bots were sent: compared, step for
step, with what real bots received over gRPC in recorded matches (a bot that writes down the raw bytes
of every request), under three rulesets between them asking every kind of decision; and with what the
referee encoded for seats whose clocks ran down, timed out and forfeited, under every preset. An answer
is judged by the referee's judge on the engine at the step. Then the command itself: an in-process bot,
a bot at an address and a bot started by its command, one step, ``--all``, ``--list``, and the errors.
Latencies are printed, never asserted on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from cli_runner import ok, run
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from clients.bots import make_bot
from clients.bots.heuristic import HeuristicBot
from clients.bots.lowest import LowestBot
from clients.sdk import BotServicer, ThreadedBotServer
from clients.view import view_of
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from ladder.ask import ask, same_decision, step_at, steps
from ladder.bots.inprocess import SdkSeat
from ladder.store import Store
from referee.match import play_match
from referee.record import FaultKind, MatchRecord
from referee.rules import DECK, PRESETS, Card, Phase, Rules
from referee.seats import Ask, BotTimeout, GrpcSeat
from referee.settings import TimeControl

FAST = "standard,target=30"
# Three seats with a kitty the taker discards from, a pass the dealer calls and a moon its shooter
# scores: seed 24 shoots a moon with these bots (asserted below, so a change of engine or bot says so).
KITTY = "standard,players=3,kitty=first-trick,kitty_discard=true,pass_cycle=call,moon=shooter-chooses,target=30"
REQUESTS = {
    "Handshake": pb.HandshakeRequest,
    "PassCards": pb.PassCardsRequest,
    "PlayCard": pb.PlayCardRequest,
    "CallPass": pb.CallPassRequest,
    "DiscardCards": pb.DiscardCardsRequest,
    "ChargeCards": pb.ChargeCardsRequest,
    "ChooseMoon": pb.ChooseMoonRequest,
    "Notify": pb.NotifyRequest,
}


class SteppedClock:
    """A time source for the referee's clocks that moves 2^-6 s each time it is read: every latency,
    budget and bank is then exact in binary and to the microsecond, so the banks the record implies are
    the banks the referee had, to the bit (a real clock's would be as close as its microseconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 2.0**-6
        return self.now


# Seat 1's own clock: a budget under the clock's step (7.8125 ms against 15.625), so its every answer
# draws on its bank, which the request must say as it ran down.
SHORT = TimeControl(budget_ms=7.8125, grace_ms=0)


def _recorder(bot: Any, got: list[tuple[str, bytes]]) -> grpc.GenericRpcHandler:
    """A bot over gRPC that writes down the raw bytes of every request it is sent (no deserializer: the
    bytes as they came), then answers as the SDK's server of ``bot`` does."""
    servicer = BotServicer(bot)

    def method(name: str, message: Any) -> grpc.RpcMethodHandler:
        inner = getattr(servicer, name)

        async def served(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
            got.append((name, raw))
            return await inner(message.FromString(raw), context)

        return grpc.unary_unary_rpc_method_handler(served, response_serializer=lambda m: m.SerializeToString())

    return grpc.method_handlers_generic_handler(
        "hearts.v1.BotService", {name: method(name, message) for name, message in REQUESTS.items()}
    )


async def _play_recorded(
    rules: Rules, seed: int, bots: list[str], clocks: list[TimeControl | None] | None = None
) -> tuple[MatchRecord, list[list[tuple[str, bytes]]]]:
    """A match among recording bots over gRPC, each on its own server: its record, and each seat's requests."""
    got: list[list[tuple[str, bytes]]] = [[] for _ in bots]
    servers = []
    seats = []
    for i, name in enumerate(bots):
        server = grpc.aio.server()
        server.add_generic_rpc_handlers([_recorder(make_bot(name, seed=1), got[i])])
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        servers.append(server)
        seats.append(GrpcSeat(f"127.0.0.1:{port}", name))
    try:
        record = await play_match(
            seats,
            rules,
            seed,
            names=[f"{b}-{i}" for i, b in enumerate(bots)],
            match_id=f"ask-{seed}",
            time_source=SteppedClock(),
            time_controls=clocks,
        )
    finally:
        for seat in seats:
            await seat.close()
        for server in servers:
            await server.stop(None)
    return record, got


def _decisions(got: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    return [(m, b) for m, b in got if m not in ("Handshake", "Notify")]


def _rebuilt(record: MatchRecord, seat: int) -> list[tuple[str, bytes]]:
    return [(s.decision.rpc, s.request().wire()) for s in steps(record) if s.seat == seat and s.asked]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "seed", "bots", "kinds"),
    [
        (FAST, 7, ["lowest", "heuristic", "random", "lowest"], {"pass", "play"}),
        ("turbo,target=30", 3, ["heuristic", "lowest", "random", "heuristic"], {"pass", "charge", "play"}),
        (KITTY, 24, ["lowest", "heuristic", "random"], {"call", "pass", "discard", "play", "moon"}),
    ],
    ids=["standard", "turbo", "kitty-call-moon"],
)
def test_every_rebuilt_request_is_the_bytes_a_bot_received(
    ruleset: str, seed: int, bots: list[str], kinds: set[str]
) -> None:
    rules = Rules.parse(ruleset)
    clocks = [None, SHORT] + [None] * (len(bots) - 2) if ruleset == FAST else None
    record, got = asyncio.run(_play_recorded(rules, seed, bots, clocks))
    assert not record.faults
    every = list(steps(record))
    assert {s.what for s in every} == kinds
    for seat in range(len(bots)):
        received = _decisions(got[seat])
        assert received, f"seat {seat} was asked nothing"
        assert _rebuilt(record, seat) == received, f"seat {seat}: a rebuilt request is not the bytes it received"
    # Each view is the seat's own: its seat, its hand, the names it was told.
    for s in every:
        request = REQUESTS[s.decision.rpc].FromString(s.request().wire())
        assert request.view.seat == s.seat
        assert sorted(request.view.hand) == sorted(c.index + 1 for c in s.observation.hand)
        assert list(request.view.player_names) == record.bots
    if ruleset == FAST:  # seat 1's bank ran down answer by answer, as its requests said
        banks = [s.bank_ms for s in every if s.seat == 1]
        assert banks[0] == 10000 and banks[-1] < banks[0] and banks == sorted(banks, reverse=True)
        assert {pb.PlayCardRequest.FromString(b).view.budget_ms for m, b in got[1] if m == "PlayCard"} == {7}


class WireSeat:
    """A seat that keeps the bytes of every request the referee makes of it (what a gRPC seat sends:
    ``Ask.wire()``) and answers as an SDK bot in this process; its ``timeout_at``-th decision raises the
    timeout a gRPC seat raises when its deadline passes (the bytes were sent)."""

    address: str | None = None
    isolation = None

    def __init__(self, name: str, timeout_at: int | None = None) -> None:
        self.name = name
        self.inner = SdkSeat(LowestBot(), name)
        self.got: list[tuple[str, bytes]] = []
        self.timeout_at = timeout_at

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        return await self.inner.handshake(request, timeout)

    def _asked(self, rpc: str, ask: Ask) -> None:
        self.got.append((rpc, ask.wire()))
        if len(self.got) == self.timeout_at:
            raise BotTimeout("no answer before the deadline", "nothing")

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        self._asked("PassCards", ask)
        return await self.inner.pass_cards(ask, timeout)

    async def play_card(self, ask: Ask, timeout: float) -> int:
        self._asked("PlayCard", ask)
        return await self.inner.play_card(ask, timeout)

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        self._asked("DiscardCards", ask)
        return await self.inner.discard_cards(ask, timeout)

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        self._asked("CallPass", ask)
        return await self.inner.call_pass(ask, timeout)

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]:
        self._asked("ChargeCards", ask)
        return await self.inner.charge_cards(ask, timeout)

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        self._asked("ChooseMoon", ask)
        return await self.inner.choose_moon(ask, timeout)

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        return None

    async def close(self) -> None:
        return None


def test_the_banks_of_a_clock_run_out_a_timeout_and_a_forfeit_are_the_referees() -> None:
    """Seat 1 answers over its budget every time until its bank runs out, times out and forfeits; seat 2
    times out once (the referee empties its bank); every request asked is rebuilt to the byte."""
    seats = [WireSeat("a"), WireSeat("b"), WireSeat("c", timeout_at=6), WireSeat("d")]
    tight = TimeControl(budget_ms=7.8125, bank_ms=100, grace_ms=0)
    record = asyncio.run(
        play_match(seats, Rules.parse(FAST), 5, time_source=SteppedClock(), time_controls=[None, tight, None, None])
    )
    assert record.seats[1].forfeit and not record.seats[2].forfeit
    assert {f.kind for f in record.faults if f.seat == 2} == {FaultKind.TIMEOUT}
    every = list(steps(record))
    for seat, ws in enumerate(seats):
        assert _rebuilt(record, seat) == ws.got, f"seat {seat}"
    assert any(not s.asked for s in every if s.seat == 1)  # the forfeited seat's substitutes: nothing asked
    after = [s.bank_ms for s in every if s.seat == 2][6:]
    assert after and set(after) == {0}  # its bank emptied by the timeout, as the referee empties it


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_presets_requests_are_rebuilt_as_the_referee_encoded_them(preset: str) -> None:
    """Under every preset (booster nines, partners, two packs at six seats too), what the referee encoded
    for each seat, request after request, is what the record rebuilds."""
    rules = Rules.parse(f"{preset},target=30")
    seats = [WireSeat(f"s{i}") for i in range(rules.players)]
    record = asyncio.run(play_match(seats, rules, 11, time_source=SteppedClock()))
    for seat, ws in enumerate(seats):
        assert ws.got and _rebuilt(record, seat) == ws.got, f"seat {seat}"


# -- the command -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lowest_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MatchRecord]:
    """A match of four lowest bots in this process, recorded: (the database, its record)."""
    db = tmp_path_factory.mktemp("ask") / "a.db"
    seats = [x for i in range(4) for x in ("--seat", f"low{i}=clients.bots.lowest:LowestBot")]
    ok("match", *seats, "--rules", FAST, "--seed", "7", "--db", str(db))
    with Store(db, readonly=True) as store:
        (found,) = store.list_matches()
        record = store.load_match(found.match_id)
    return db, record


def _heuristic_answer(step: Any) -> Any:
    """What the heuristic bot answers the step's view, asked directly through the SDK (not through ask)."""
    o = step.observation
    view = view_of(o, step.match_id, step.names, int(step.settings.budget_ms), step.bank_ms)
    bot = HeuristicBot()
    if step.phase is Phase.PLAY:
        return bot.play_card(view)
    return tuple(bot.pass_cards(view))


def _differing(record: MatchRecord, seat: int) -> list[int]:
    out = []
    for s in steps(record):
        if s.seat == seat and not same_decision(s, _heuristic_answer(s)):
            out.append(s.number)
    return out


def _first_play(record: MatchRecord, differ: bool) -> Any:
    for s in steps(record):
        if s.phase is Phase.PLAY and same_decision(s, _heuristic_answer(s)) is not differ:
            return dataclasses.replace(s, match=s.match.clone())
    raise AssertionError("no such play")


def test_ask_names_the_difference_at_a_step_the_heuristic_plays_otherwise(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    step = _first_play(record, differ=True)
    answer = _heuristic_answer(step)
    out = ok("ask", record.match_id[:8], "--step", str(step.number), "--bot", "clients.bots.heuristic:HeuristicBot",
             "--db", str(db))  # fmt: skip
    assert f"step {step.number}: hand {step.hand}, trick {step.trick}, seat {step.seat} low{step.seat}: play" in out
    assert "  hand " in out and " ".join(c.symbol for c in step.observation.hand) in out
    assert f"differs   yes: recorded {step.recorded.symbol}, the bot {answer.symbol}" in out
    assert "judged    legal: the referee would have let it stand" in out
    assert re.search(r"answer    \S+ in \d+\.\d\d ms", out)  # its latency, never judged by its size
    assert "time bank 10000 ms" in out and "budget 1000 ms" in out


def test_ask_says_when_the_bot_answers_as_recorded(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    step = _first_play(record, differ=False)
    out = ok("ask", record.match_id, "--step", str(step.number), "--bot", "clients.bots.heuristic:HeuristicBot",
             "--db", str(db))  # fmt: skip
    assert "differs   no: the same play as recorded" in out


def test_ask_all_lists_every_step_where_the_answer_differs(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    expected = _differing(record, 2)
    asked = sum(1 for s in steps(record) if s.seat == 2)
    assert expected
    out = ok("ask", record.match_id, "--seat", "low2", "--all", "--bot", "clients.bots.heuristic:HeuristicBot",
             "--db", str(db))  # fmt: skip
    listed = [int(m) for m in re.findall(r"^│\s+(\d+) │", out, re.MULTILINE)]
    assert listed == expected
    assert f"{len(expected)} of {asked} decisions differ;" in out
    assert f"The {len(expected)} steps where the answer differs from the recorded one" in out
    # The same bot as recorded differs nowhere.
    same = ok("ask", record.match_id, "--seat", "2", "--all", "--bot", "clients.bots.lowest:LowestBot", "--db", str(db))
    assert f"0 of {asked} decisions differ;" in same and "│" not in same


def test_ask_list_numbers_every_step(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    count = len(list(steps(record)))
    out = ok("ask", record.match_id, "--list", "--db", str(db))
    assert f"{count} decisions (steps 0 to {count - 1})" in out
    numbers = [int(m) for m in re.findall(r"^\s+(\d+)\s+\d+\s", out, re.MULTILINE)]
    assert numbers == list(range(count))
    mine = ok("ask", record.match_id, "--list", "--seat", "3", "--db", str(db))
    assert [int(m) for m in re.findall(r"^\s+(\d+)\s+\d+\s", mine, re.MULTILINE)] == [
        s.number for s in steps(record) if s.seat == 3
    ]


def test_ask_a_bot_at_an_address(lowest_db: tuple[Path, MatchRecord], lowest_servers: list[ThreadedBotServer]) -> None:
    db, record = lowest_db
    out = ok("ask", record.match_id, "--step", "9", "--bot", lowest_servers[0].address, "--db", str(db))
    assert "its handshake: name lowest" in out and "differs   no" in out


@pytest.mark.slow
def test_ask_a_bot_started_by_its_command(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    out = ok("ask", record.match_id, "--step", "0", "--bot", "python -m clients.bots.lowest --port {port}",
             "--db", str(db))  # fmt: skip
    assert "step 0: hand 0, seat 0 low0: pass (PassCards)" in out
    assert "its handshake: name lowest" in out and "differs   no: the same pass as recorded" in out


@pytest.mark.slow
def test_a_bot_that_does_not_start_is_named(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    result = run("ask", record.match_id, "--step", "0", "--bot", "python -c pass", "--startup-timeout", "5",
                 "--db", str(db))  # fmt: skip
    assert result.exit_code == 1
    assert "--bot failed to start: the process exited with code 0 before serving" in result.output
    assert "Check that --bot 'python -c pass' starts a bot" in result.output


def _errors(db: Path, *args: str) -> tuple[int, str]:
    result = run("ask", *args, "--db", str(db))
    return result.exit_code, result.output


def test_the_errors_say_what_to_do(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    mid = record.match_id
    count = len(list(steps(record)))
    bot = "clients.bots.lowest:LowestBot"
    code, out = _errors(db, "zzz", "--step", "0", "--bot", bot)
    assert code == 1 and "no match 'zzz'" in out and "hearts matches --db" in out
    code, out = _errors(db, mid, "--step", str(count), "--bot", bot)
    assert code == 1 and f"has no step {count}: its steps are 0 to {count - 1}" in out and "--list" in out
    code, out = _errors(db, mid, "--step", "0", "--bot", "nosuch.module:Bot")
    assert code == 1 and "no module named 'nosuch'" in out
    code, out = _errors(db, mid, "--step", "0")
    assert code == 2 and "give --bot BOT" in out
    code, out = _errors(db, mid, "--all", "--bot", bot)
    assert code == 2 and "give --seat SEAT" in out
    code, out = _errors(db, mid, "--bot", bot)
    assert code == 2 and "give one of --step N" in out
    code, out = _errors(db, mid, "--step", "0", "--all", "--seat", "0", "--bot", bot)
    assert code == 2 and "--step and --all together" in out
    code, out = _errors(db, mid, "--list", "--seat", "9")
    assert code == 2 and "has seats 0 to 3" in out
    code, out = _errors(db, mid, "--list", "--seat", "nobody")
    assert code == 2 and "0 low0, 1 low1" in out


class Raiser(LowestBot):
    """Raises at every play: three faults, and it forfeits."""

    def play_card(self, view: Any) -> Card:
        raise RuntimeError("no")


def _saved(tmp_path: Path, record: MatchRecord) -> Path:
    db = tmp_path / "x.db"
    with Store(db) as store:
        store.save_match(record)
    return db


def test_a_step_no_bot_was_asked_is_refused(tmp_path: Path) -> None:
    seats = [SdkSeat(Raiser(), "raiser")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(1, 4)]
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 3))
    assert record.seats[0].forfeit
    db = _saved(tmp_path, record)
    every = list(steps(record))
    gone = next(s for s in every if s.seat == 0 and not s.asked)
    last = [s.number for s in every if s.seat == 0 and s.asked][-1]
    code, out = _errors(db, record.match_id, "--step", str(gone.number), "--bot", "clients.bots.lowest:LowestBot")
    assert code == 1 and "had forfeited the match" in out and f"its last step asked is {last}" in out
    # The steps it was asked still are, its faulty answers recorded as refused: the fixed bot's stand.
    faulted = next(s for s in every if s.seat == 0 and s.asked and s.substituted)
    out = ok("ask", record.match_id, "--step", str(faulted.number), "--bot", "clients.bots.lowest:LowestBot",
             "--db", str(db))  # fmt: skip
    assert "the seeded substitute: the bot's answer was refused: error_status" in out
    assert "judged    legal" in out
    listed = ok("ask", record.match_id, "--list", "--seat", "0", "--db", str(db))
    assert "[seat 0 (raiser) had forfeited the match]" in listed


def test_a_persons_step_is_refused(tmp_path: Path, lowest_db: tuple[Path, MatchRecord]) -> None:
    _, record = lowest_db
    person = dataclasses.replace(record, seats=[dataclasses.replace(record.seats[0], kind="human")] + record.seats[1:])
    db = _saved(tmp_path, person)
    code, out = _errors(db, record.match_id, "--step", "0", "--bot", "clients.bots.lowest:LowestBot")
    assert code == 1 and "is a person's seat: a person decided it" in out
    code, out = _errors(db, record.match_id, "--seat", "0", "--all", "--bot", "clients.bots.lowest:LowestBot")
    assert code == 1 and "no decision of seat 0 (low0) was asked of a bot" in out


class Plays(LowestBot):
    """Plays the one card it is made with, whatever the view."""

    def __init__(self, card: Card) -> None:
        self.card = card

    def play_card(self, view: Any) -> Card:
        return self.card


def test_ask_judges_an_answer_with_the_engine_at_the_step(lowest_db: tuple[Path, MatchRecord]) -> None:
    """A card not held, and one held but not legal: the judge's faults, and the seeded substitute."""
    _, record = lowest_db
    step = next(
        s for s in steps(record) if s.phase is Phase.PLAY and len(s.observation.legal) < len(s.observation.hand)
    )
    step = dataclasses.replace(step, match=step.match.clone())
    o = step.observation
    illegal = next(c for c in o.hand if c not in o.legal)
    elsewhere = next(c for c in DECK if c not in o.hand)
    for card, kind in ((illegal, FaultKind.ILLEGAL_CARD), (elsewhere, FaultKind.CARD_NOT_HELD)):
        asked = asyncio.run(ask(SdkSeat(Plays(card), "p"), step))
        assert not asked.stands and asked.substituted and asked.fault is not None and asked.fault.kind is kind
        assert asked.value in o.legal
    good = asyncio.run(ask(SdkSeat(LowestBot(), "p"), step))
    assert good.stands and same_decision(step, good.value)
    again, count = step_at(record, step.number)
    assert again is not None and again.request().wire() == step.request().wire() and count > step.number


class _NoHello(bot_pb2_grpc.BotServiceServicer):
    """A bot that serves, and reports SERVING, but refuses the handshake."""

    def Handshake(self, request: pb.HandshakeRequest, context: grpc.ServicerContext) -> pb.HandshakeResponse:
        context.abort(grpc.StatusCode.INTERNAL, "not today")
        raise AssertionError("unreachable")


def test_a_bot_that_refuses_the_handshake_is_named(lowest_db: tuple[Path, MatchRecord]) -> None:
    db, record = lowest_db
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServiceServicer_to_server(_NoHello(), server)
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    checks.set("", health_pb2.HealthCheckResponse.SERVING)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        code, out = _errors(db, record.match_id, "--step", "0", "--bot", f"127.0.0.1:{port}")
    finally:
        server.stop(0)
    assert code == 1 and "did not answer the handshake: the bot answered INTERNAL: not today" in out
    assert "hearts validate" in out
