"""A person's seat (referee/human.py) in real matches against real gRPC bots on loopback: the person
is shown the very requests a bot in that seat is sent; a card the referee would refuse is handed back
with its rule and the person plays on; hostile answers are refused, never taken; one who leaves is
substituted as a silent bot is, never forfeited, and plays on when back; a clock per decision, or
none; the deal held between hands until the person deals again."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import json_format
from referee_bots import FirstLegal

from hearts.v1 import bot_pb2 as pb
from referee.human import AnswerRefused, HumanSeat
from referee.match import MatchSettings, play_match
from referee.record import FaultKind, MatchRecord
from referee.rules import Rules
from referee.seats import GrpcSeat

SHORT = Rules.parse("standard,target=30")
SETTINGS = MatchSettings(budget_ms=60_000, bank_ms=0)


class Recording(FirstLegal):
    """FirstLegal that keeps every decision request it is sent, as the person's page reads one."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def _keep(self, rpc: str, request: Any) -> None:
        with self.lock:
            self.requests.append((rpc, json_format.MessageToDict(request, preserving_proto_field_name=True)))

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        self._keep("PassCards", request)
        return super().PassCards(request, context)

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        self._keep("PlayCard", request)
        return super().PlayCard(request, context)


def first_legal(event: dict[str, Any]) -> dict[str, Any]:
    """What FirstLegal answers, read off the person's page: the hand's first cards, the first legal card."""
    view = event["request"]["view"]
    if event["rpc"] == "PassCards":
        return {"cards": view["hand"][: view["rules"]["pass_count"]]}
    if event["rpc"] == "PlayCard":
        return {"card": view["legal_cards"][0]}
    if event["rpc"] == "ChooseMoon":
        return {"choice": "MOON_CHOICE_ADD_TO_OTHERS"}
    raise AssertionError(f"not asked in these rules: {event['rpc']}")


Person = Callable[[HumanSeat, dict[str, Any]], Any]


def as_first_legal(seat: HumanSeat, event: dict[str, Any]) -> dict[str, Any]:
    return first_legal(event)


async def sit(seat: HumanSeat, decide: Person, *, join: bool = True) -> None:
    """A person at the table: every decision asked is answered by ``decide`` (None: left unanswered);
    the deal, once held, is asked for again at once."""
    if join:
        seat.join()
    seen = 0
    while True:
        for event in await seat.next_events(seen):
            seen = event["seq"]
            if event["type"] == "ask":
                if any(e["type"] == "done" and e["id"] == event["id"] for e in seat.events):
                    continue  # over while the person was away from the table
                answer = await decide(seat, event) if asyncio.iscoroutinefunction(decide) else decide(seat, event)
                if answer is not None:
                    seat.answer(event["id"], answer)
            elif event["type"] == "hold":
                seat.deal_again()
            elif event["type"] == "notify" and "match_over" in event["notify"]:
                return


def play(seat: HumanSeat, others: list[str], decide: Person, *, seed: int = 3, rules: Rules = SHORT) -> MatchRecord:
    async def go() -> MatchRecord:
        seats = [seat, *(GrpcSeat(a, "first-legal") for a in others)]
        person = asyncio.create_task(sit(seat, decide))
        match = asyncio.create_task(
            play_match(seats, rules, seed, settings=SETTINGS, match_id="m1", names=["first-legal"] * 4)
        )
        try:
            await asyncio.wait({person, match}, return_when=asyncio.FIRST_EXCEPTION)
            if person.done() and person.exception() is not None:
                raise person.exception()  # type: ignore[misc]  # the person's own check failed: say so
            record = await match
            await asyncio.wait_for(person, 10)
            return record
        finally:
            person.cancel()
            match.cancel()
            for s in seats:
                await s.close()

    return asyncio.run(go())


def test_a_person_is_shown_the_very_requests_a_bot_in_the_seat_is_sent(serve: Callable[..., str]) -> None:
    """Two matches of one seed: a bot in seat 0, then a person playing as that bot plays. Every request
    the person is shown equals the bot's, field for field (the same view, redacted the same way), and
    the two records hold the same decisions: the person's answers were judged as the bot's were."""
    bot = Recording()
    others = [serve(FirstLegal()) for _ in range(3)]

    async def with_bot() -> MatchRecord:
        seats = [GrpcSeat(serve(bot), "first-legal"), *(GrpcSeat(a, "first-legal") for a in others)]
        try:
            return await play_match(seats, SHORT, 3, settings=SETTINGS, match_id="m1", names=["first-legal"] * 4)
        finally:
            for s in seats:
                await s.close()

    by_bot = asyncio.run(with_bot())
    person = HumanSeat("first-legal", time_control=SETTINGS)
    by_person = play(person, others, as_first_legal)
    shown = [(e["rpc"], e["request"]) for e in person.events if e["type"] == "ask"]
    assert len(shown) == len(bot.requests) > 20
    assert shown == bot.requests
    assert by_person.decisions()["hands"] == by_bot.decisions()["hands"]
    assert by_person.decisions()["plays"] == by_bot.decisions()["plays"]
    assert [s.kind for s in by_person.seats] == ["human", "bot", "bot", "bot"]
    assert [s.kind for s in by_bot.seats] == ["bot"] * 4
    assert not by_person.faults
    # What else the person was sent is the bots' own notifications, and the seat's own events.
    kinds = {e["type"] for e in person.events}
    assert kinds == {"ask", "done", "notify", "hold", "dealt"}


def test_a_card_the_referee_would_refuse_is_handed_back_with_its_rule(serve: Callable[..., str]) -> None:
    """Before each play the person tries every dimmed card: each is refused with the rule the engine
    names for it, the decision stays open, and nothing of it reaches the record (no fault, no
    substitute). Hostile answers are refused the same way, never taken."""
    others = [serve(FirstLegal()) for _ in range(3)]
    tried: list[tuple[str, str]] = []

    def stubborn(seat: HumanSeat, event: dict[str, Any]) -> dict[str, Any]:
        if event["rpc"] == "PlayCard":
            view = event["request"]["view"]
            for card, rule in event["refusals"].items():
                with pytest.raises(AnswerRefused) as e:
                    seat.answer(event["id"], {"card": card})
                assert e.value.rule == rule and rule in e.value.reason
                tried.append((card, rule))
            assert set(event["refusals"]) == set(view["hand"]) - set(view["legal_cards"])
            for hostile in ({"card": "CARD_NOPE"}, {"card": 5}, {"card": None}, {"cards": ["CARD_TWO_OF_CLUBS"]}):
                with pytest.raises(AnswerRefused, match="no card"):
                    seat.answer(event["id"], hostile)
            with pytest.raises(AnswerRefused, match="that decision is over"):
                seat.answer(event["id"] - 1, {"card": view["legal_cards"][0]})
            with pytest.raises(AnswerRefused, match="an answer is an object"):
                seat.answer(event["id"], ["CARD_TWO_OF_CLUBS"])
            held = set(view["hand"])
            absent = next(pb.Card.Name(v) for v in range(1, 53) if pb.Card.Name(v) not in held)
            with pytest.raises(AnswerRefused, match="does not hold it"):
                seat.answer(event["id"], {"card": absent})
        elif event["rpc"] == "PassCards":
            hand = event["request"]["view"]["hand"]
            with pytest.raises(AnswerRefused, match="exactly 3 cards, not 2"):
                seat.answer(event["id"], {"cards": hand[:2]})
            with pytest.raises(AnswerRefused, match="twice"):
                seat.answer(event["id"], {"cards": [hand[0], hand[0], hand[1]]})
            with pytest.raises(AnswerRefused, match="65 cards: no hand holds that many"):
                seat.answer(event["id"], {"cards": hand * 5})
        return first_legal(event)

    person = HumanSeat("first-legal", time_control=SETTINGS)
    record = play(person, others, stubborn)
    rules = {rule for _, rule in tried}
    assert any(r.startswith("must follow suit") for r in rules)
    assert "2♣ must lead the first trick" in rules
    assert not record.faults and not any(p.substituted for p in record.plays if p.seat == 0)


def test_a_person_who_leaves_is_substituted_never_forfeited_and_plays_on_when_back(
    serve: Callable[..., str],
) -> None:
    """The person leaves the table after a few plays: each decision meanwhile is a timeout fault
    ("nobody at the table") and the seeded substitute plays it, as for a silent bot, past the fault
    limit with no forfeit; back at the table, the person's own answers are played again."""
    others = [serve(FirstLegal()) for _ in range(3)]
    asked = 0
    away: list[int] = []  # the decisions the substitute played while the person was away

    async def wanders(seat: HumanSeat, event: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal asked
        asked += 1
        if asked == 6:
            seat.leave()  # the page closes with the decision open
            seen = event["seq"]
            while len(away) < 5:  # the referee goes on without the person
                for e in await seat.next_events(seen):
                    seen = e["seq"]
                    if e["type"] == "done" and e["how"] == "away":
                        away.append(e["id"])
                    if e["type"] == "hold":
                        seat.deal_again()  # nobody there: held for no one (the seat lets it go itself)
            seat.join()
            return None  # this decision was the substitute's too; the next ones are answered
        return first_legal(event)

    person = HumanSeat("first-legal", time_control=SETTINGS, away_s=0)
    record = play(person, others, wanders)
    mine = [f for f in record.faults if f.seat == 0]
    assert len(mine) >= 5 > SETTINGS.max_faults
    assert all(f.kind is FaultKind.TIMEOUT and "nobody at the table" in f.detail for f in mine)
    seat = record.seats[0]
    assert not seat.forfeit and seat.faults == len(mine) and seat.kind == "human"
    substituted = [p for p in record.plays if p.seat == 0 and p.substituted]
    played = [p for p in record.plays if p.seat == 0 and not p.substituted]
    assert substituted and played and record.plays.index(played[-1]) > record.plays.index(substituted[-1])


@pytest.mark.slow
def test_a_clock_per_decision_is_the_persons_own_and_their_views_say_it(serve: Callable[..., str]) -> None:
    """With a clock of 200 ms a decision and no bank, a decision left unanswered is a timeout fault and
    the substitute plays it; the person's views carry their own budget, the bots keep the match's.
    Untimed, the view says a day."""
    others = [serve(FirstLegal()) for _ in range(3)]
    first = True

    def slow_once(seat: HumanSeat, event: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal first
        if first:
            first = False
            return None
        return first_legal(event)

    person = HumanSeat("first-legal", time_control=MatchSettings(budget_ms=200, bank_ms=0, grace_ms=0))
    record = play(person, others, slow_once)
    assert [f.kind for f in record.faults] == [FaultKind.TIMEOUT]
    assert record.faults[0].seat == 0 and record.hands[0].passes[0].substituted
    budgets = {e["request"]["view"]["budget_ms"] for e in person.events if e["type"] == "ask"}
    assert budgets == {200}
    assert {e["deadline_ms"] for e in person.events if e["type"] == "ask"} == {200}
    untimed = HumanSeat("first-legal")
    play(untimed, others, as_first_legal)
    assert {e["request"]["view"]["budget_ms"] for e in untimed.events if e["type"] == "ask"} == {24 * 3600 * 1000}


def test_the_next_deal_waits_for_the_person(serve: Callable[..., str]) -> None:
    """After each hand the referee holds the next deal until the person asks for it: no decision of the
    next hand is asked of anyone before, and the person's next decision comes after it."""
    others = [serve(FirstLegal()) for _ in range(3)]
    person = HumanSeat("first-legal", time_control=SETTINGS)

    async def go() -> list[dict[str, Any]]:
        seats = [person, *(GrpcSeat(a, "first-legal") for a in others)]
        person.join()
        held: list[int] = []
        seen = 0

        async def at_table() -> None:
            nonlocal seen
            while True:
                for event in await person.next_events(seen):
                    seen = event["seq"]
                    if event["type"] == "ask":
                        person.answer(event["id"], first_legal(event))
                    elif event["type"] == "hold":
                        # Held: the referee asks nothing of anyone until the person deals again.
                        for _ in range(20):
                            await asyncio.sleep(0)
                        assert person.events[-1]["type"] == "hold"
                        held.append(event["hand"])
                        assert person.deal_again() and not person.deal_again()
                    elif event["type"] == "notify" and "match_over" in event["notify"]:
                        return

        task = asyncio.create_task(at_table())
        try:
            record = await play_match(seats, SHORT, 3, settings=SETTINGS, names=["first-legal"] * 4)
            await asyncio.wait_for(task, 10)
        finally:
            task.cancel()
            for s in seats:
                await s.close()
        assert held == [h.hand for h in record.hands[1:]]
        return person.events

    events = asyncio.run(go())
    order = [(e["type"], e.get("hand")) for e in events if e["type"] in ("hold", "dealt")]
    assert order == [(t, h) for h in range(1, len(order) // 2 + 1) for t in ("hold", "dealt")]
    for i, e in enumerate(events):
        if e["type"] == "hold":
            nxt = next(x for x in events[i + 1 :] if x["type"] in ("ask", "dealt"))
            assert nxt["type"] == "dealt"  # the next hand's first question comes after the deal
