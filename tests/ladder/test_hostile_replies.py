"""A bot that floods every reply to the receive limit costs the referee linear time: the bots of the
other matches on the same event loop keep their pace (0 faults, latency within budget)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, run_tournament
from referee.match import MatchSettings
from referee.record import FaultKind
from referee.report import latencies

HERE = Path(__file__).parent
# Every decision the flooding bot can be asked: passes, the dealer's call, plays and a kitty discard.
RULES = "standard,kitty=first-trick,hand_size=12,kitty_discard=true,pass_cycle=call,target=30"
BUDGET_MS = 250


@pytest.mark.slow
def test_a_flooding_bot_costs_the_bots_of_other_matches_nothing(tmp_path: Path) -> None:
    bots = [
        BotEntry("flooding", command=f"{sys.executable} {HERE / 'bots' / 'flooding.py'} {{port}}"),
        *(
            BotEntry(name, command=f"python -m clients.bots.{module} --port {{port}}")
            for name, module in (
                ("random", "random"),
                ("lowest", "lowest"),
                ("heuristic", "heuristic"),
                ("lowest-2", "lowest"),
            )
        ),
    ]
    # A fault limit the flooding bot never reaches: it is asked, and floods, every decision of its matches.
    settings = MatchSettings(budget_ms=BUDGET_MS, bank_ms=2000, max_faults=10_000)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=RULES, seed=3, settings=settings))
        summary = run_tournament(store, tid, concurrency=4)
        assert summary.played == 20 and summary.remaining == 0
        records = [store.load_match(m.match_id) for m in store.list_matches(tournament_id=tid)]
    flooded = {
        FaultKind.WRONG_PASS_COUNT,
        FaultKind.WRONG_DISCARD,
        FaultKind.WRONG_CALL,
        FaultKind.CARD_NOT_HELD,
        FaultKind.ILLEGAL_CARD,
    }
    seen: set[FaultKind] = set()
    for rec in records:
        for f in rec.faults:
            assert rec.seats[f.seat].bot == "flooding", (rec.match_id, f)
            seen.add(f.kind)
        for s in rec.seats:
            if s.bot != "flooding":
                # No fault (above), and their typical answer as quick as ever: the median, not the
                # slowest, which a moment of the machine's own load can push past any bound.
                lat = sorted(latencies(rec, s.seat))
                assert lat and lat[len(lat) // 2] < BUDGET_MS / 10, (s.bot, lat[len(lat) // 2])
    # Each kind of flood was refused: a pass and a discard of too many cards, a call of too many offsets, and
    # plays of a card not held or not legal (5, the 6 of clubs, repeated ~32,000 times).
    assert {FaultKind.WRONG_PASS_COUNT, FaultKind.WRONG_DISCARD, FaultKind.WRONG_CALL} <= seen <= flooded


def test_each_flooded_reply_is_read_and_judged_once(tmp_path: Path) -> None:
    """The five decisions' largest replies, each through the referee's own seat and judge: the several-card
    answers are refused as too many before any card is read; a play or moon choice written 32,000 times is
    one value (protobuf keeps the last), judged like any other."""
    import asyncio
    from concurrent import futures

    import grpc

    sys.path.insert(0, str(HERE / "bots"))
    from flooding import REPLIES, Flooding

    from hearts.v1 import codec
    from referee.faults import Fault, call_of_answer, card_of_answer, cards_of_answer, moon_of_answer
    from referee.rules import Match, MoonChoice, Rules
    from referee.seats import Ask, GrpcSeat

    assert all(len(r) <= 64 * 1024 for r in REPLIES.values())
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((Flooding(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    obs = Match(Rules.parse(RULES.replace(",pass_cycle=call", "")), 1).observation(0)  # a hand of 12, dealt
    ask = Ask(obs, codec.ViewEncoder("m", ["a", "b", "c", "d"], 1000), 1000)

    async def go() -> None:
        seat = GrpcSeat(f"127.0.0.1:{port}", "flooding")
        try:
            for method, what, kind in (
                ("pass_cards", "pass", FaultKind.WRONG_PASS_COUNT),
                ("discard_cards", "discard", FaultKind.WRONG_DISCARD),
            ):
                answer = await getattr(seat, method)(ask, 5.0)
                assert len(answer) > 65_000
                try:
                    cards_of_answer(answer, what, obs, kind)
                except Fault as f:
                    assert f.kind is kind and f"{what} of {len(answer)} cards; the hand holds 12" in f.detail
                    assert len(f.received) < 200
                else:
                    raise AssertionError("a flood was taken as an answer")
            offsets = await seat.call_pass(ask, 5.0)
            try:
                call_of_answer(offsets, obs)
            except Fault as f:
                assert f.kind is FaultKind.WRONG_CALL and "a pass of 3 cards takes 3" in f.detail
            else:
                raise AssertionError("a flood was taken as a call")
            assert str(card_of_answer(await seat.play_card(ask, 5.0))) == "6C"
            assert moon_of_answer(await seat.choose_moon(ask, 5.0)) is MoonChoice.ADD_TO_OTHERS
        finally:
            await seat.close()

    try:
        asyncio.run(go())
    finally:
        server.stop(0)
