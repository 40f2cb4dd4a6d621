"""The match runner: clocks, moon choices, determinism, and that no request leaks a hidden card."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from referee_bots import FirstLegal, Unspecified

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from referee.match import Clock, MatchSettings, play_match
from referee.record import FaultKind, MatchRecord, NoteKind
from referee.rules import Match, Observation, Phase, Rules
from referee.seats import Ask, GrpcSeat, InProcessSeat, Seat


def run(seats: Sequence[Seat], rules: Rules, seed: int, settings: MatchSettings | None = None) -> MatchRecord:
    async def go() -> MatchRecord:
        try:
            return await play_match(seats, rules, seed, settings=settings)
        finally:
            for s in seats:
                await s.close()

    return asyncio.run(go())


class First:
    def pass_cards(self, obs: Observation) -> Any:
        return obs.hand.cards[: obs.rules.pass_count]

    def play_card(self, obs: Observation) -> Any:
        return obs.legal[0]


class High(First):
    """Plays its highest legal card: with seed 8 it shoots the moon from seat 0 in hand 3."""

    def __init__(self, moon: Any = "subtract-from-shooter") -> None:
        self.moon = moon

    def play_card(self, obs: Observation) -> Any:
        return obs.legal[-1]

    def choose_moon(self, obs: Observation) -> Any:
        assert obs.phase is Phase.MOON and obs.moon_points == 26
        return self.moon


class Randomly:
    """A deterministic random bot (its own seeded generator)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pass_cards(self, obs: Observation) -> Any:
        if obs.rules.may_pass_on(obs.pass_direction) and self.rng.random() < 0.3:
            return []  # 002 pass_on: send on, unseen, what is passed to this seat
        return self.rng.sample(obs.hand.cards, obs.rules.pass_count)

    def play_card(self, obs: Observation) -> Any:
        return self.rng.choice(obs.legal.cards)

    def choose_moon(self, obs: Observation) -> Any:
        return self.rng.choice(["add-to-others", "subtract-from-shooter"])

    def discard_cards(self, obs: Observation) -> Any:
        return self.rng.sample(obs.hand.cards, len(obs.kitty))

    def call_pass(self, obs: Observation) -> Any:
        n = obs.rules.players
        return self.rng.choice(["left", "mix", [self.rng.randrange(1, n) for _ in range(obs.rules.pass_count)]])


# -- clocks --------------------------------------------------------------------------------------


def test_the_clock_draws_on_the_bank_only_beyond_budget_and_grace() -> None:
    c = Clock(MatchSettings(budget_ms=100, bank_ms=1000, grace_ms=50))
    assert c.deadline() == pytest.approx(1.15)
    assert c.charge(0.149) and c.bank == pytest.approx(1.0)  # within budget + grace: free
    assert c.charge(0.350) and c.bank == pytest.approx(0.8)  # 200 ms over: drawn from the bank
    assert c.deadline() == pytest.approx(0.95)
    assert not c.charge(0.951) and c.bank == 0  # beyond budget + bank + grace: a timeout
    assert c.deadline() == pytest.approx(0.15)


def test_an_in_process_bot_that_runs_long_is_timed_out_by_the_same_clock() -> None:
    class Slow(First):
        async def play_card(self, obs: Observation) -> Any:
            await asyncio.sleep(1)

    rec = run(
        [InProcessSeat(Slow(), "slow")] + [InProcessSeat(First(), f"f{i}") for i in range(3)],
        Rules.parse("standard,target=30"),
        1,
        MatchSettings(budget_ms=20, bank_ms=30, grace_ms=10),
    )
    assert [f.kind for f in rec.faults] == [FaultKind.TIMEOUT] * 3
    assert rec.seats[0].forfeit and rec.seats[0].place == 4


def test_latency_is_recorded_for_every_decision_asked() -> None:
    rec = run([InProcessSeat(First(), f"f{i}") for i in range(4)], Rules(), 3)
    assert all(p.latency_ms is not None and p.latency_ms >= 0 and not p.substituted for p in rec.plays)
    assert all(p.latency_ms is not None for h in rec.hands for p in h.passes)
    assert rec.faults == [] and sorted(s.place for s in rec.seats) in ([1, 2, 3, 4], [1, 2, 2, 4], [1, 2, 3, 3])


def test_the_wrong_number_of_seats_says_how_many_are_needed() -> None:
    with pytest.raises(ValueError, match="need 3 seats, not 4"):
        run([InProcessSeat(First(), f"f{i}") for i in range(4)], Rules.parse("standard,players=3"), 1)


# -- each seat's own clock ---------------------------------------------------------------------


class _Thinking:
    """The referee's time source: only a thinking bot moves it, so no answer is late by the machine's load."""

    now = 0.0

    def __call__(self) -> float:
        return self.now


class Thinker(First):
    """Takes ``think_s`` of the test's time over each decision, and keeps the budget and bank each view said."""

    def __init__(self, clock: _Thinking, think_s: float) -> None:
        self.clock, self.think_s = clock, think_s

    def pass_cards(self, obs: Observation) -> Any:
        self.clock.now += self.think_s
        return super().pass_cards(obs)

    def play_card(self, obs: Observation) -> Any:
        self.clock.now += self.think_s
        return super().play_card(obs)


class WireSeat(InProcessSeat):
    """An in-process seat that reads each play's wire request, as a bot over gRPC would: what its view says."""

    def __init__(self, bot: Any, name: str) -> None:
        super().__init__(bot, name)
        self.views: set[tuple[int, int]] = set()

    async def play_card(self, ask: Ask, timeout: float) -> int:
        view = pb.PlayCardRequest.FromString(ask.wire()).view
        self.views.add((view.budget_ms, view.time_bank_ms))
        return await super().play_card(ask, timeout)


def test_a_seat_with_its_own_clock_times_out_and_the_same_bot_on_the_matchs_clock_does_not() -> None:
    """The same bot thinks 30 ms a decision in two seats: under its own 5 ms budget, with no bank and no
    grace, every decision it is asked is a timeout until it forfeits; on the match's clock it never
    faults. Each seat's record says the clock it played under, and its views its own budget."""
    from referee.match import TimeControl

    thinking = _Thinking()
    seats = [WireSeat(Thinker(thinking, 0.03), "hasty"), WireSeat(Thinker(thinking, 0.03), "calm")]
    seats += [WireSeat(First(), f"f{i}") for i in (2, 3)]
    settings = MatchSettings(budget_ms=1000, bank_ms=10_000, grace_ms=50)
    own = TimeControl(budget_ms=5, bank_ms=0, grace_ms=0)
    rec = asyncio.run(
        play_match(
            seats,
            Rules.parse("standard,target=30"),
            4,
            settings=settings,
            time_source=thinking,
            time_controls=[own, None, None, None],
        )
    )
    assert rec.faults and {f.seat for f in rec.faults} == {0}
    assert [f.kind for f in rec.faults] == [FaultKind.TIMEOUT] * settings.max_faults
    assert rec.seats[0].forfeit and not any(s.forfeit for s in rec.seats[1:])
    clocks = [(s.budget_ms, s.bank_ms, s.grace_ms) for s in rec.seats]
    assert clocks == [(5.0, 0.0, 0.0)] + [(1000.0, 10_000.0, 50.0)] * 3
    assert rec.seats[0].time_bank_left_ms == 0.0 and rec.seats[1].time_bank_left_ms == 10_000.0
    assert seats[0].views == {(5, 0)}  # asked its plays before it forfeited, each under its own clock
    assert seats[1].views == {(1000, 10_000)}


def test_a_time_control_gives_what_it_says_and_the_match_the_rest() -> None:
    from referee.match import TimeControl

    seats = [InProcessSeat(First(), f"f{i}") for i in range(4)]
    settings = MatchSettings(budget_ms=300, bank_ms=2000, grace_ms=20)
    clocks = [TimeControl(budget_ms=100), None, TimeControl(bank_ms=0, grace_ms=5), None]
    rec = asyncio.run(play_match(seats, Rules.parse("standard,target=30"), 2, settings=settings, time_controls=clocks))
    assert [(s.budget_ms, s.bank_ms, s.grace_ms) for s in rec.seats] == [
        (100.0, 2000.0, 20.0),
        (300.0, 2000.0, 20.0),
        (300.0, 0.0, 5.0),
        (300.0, 2000.0, 20.0),
    ]
    assert (
        rec.decisions()
        == asyncio.run(
            play_match([InProcessSeat(First(), f"f{i}") for i in range(4)], Rules.parse("standard,target=30"), 2)
        ).decisions()
    )  # a clock is no decision: the same plays under any clock that is kept
    with pytest.raises(ValueError, match="2 time controls for 4 seats"):
        asyncio.run(play_match(seats, Rules(), 2, time_controls=clocks[:2]))


def test_the_callers_time_control_comes_before_a_seats_own() -> None:
    """A seat that keeps its own clock (``SeatHooks.time_control``, a person's) keeps it unless the caller gives
    that seat one for the match."""
    from referee.match import TimeControl
    from referee.seats import SeatHooks

    class Person(InProcessSeat, SeatHooks):
        time_control = MatchSettings(budget_ms=60_000, bank_ms=0)

    seats: list[Seat] = [Person(First(), "p0"), Person(First(), "p1")] + [
        InProcessSeat(First(), f"f{i}") for i in (2, 3)
    ]
    clocks = [TimeControl(budget_ms=700), None, None, None]
    rec = asyncio.run(play_match(seats, Rules.parse("standard,target=30"), 2, time_controls=clocks))
    assert [(s.budget_ms, s.bank_ms) for s in rec.seats] == [(700.0, 10_000.0), (60_000.0, 0.0)] + [
        (1000.0, 10_000.0)
    ] * 2


# -- moon choices --------------------------------------------------------------------------------


MOON = Rules.parse("standard,moon=shooter-chooses")


def test_the_shooter_is_asked_how_the_moon_scores() -> None:
    rec = run([InProcessSeat(High(), "high")] + [InProcessSeat(First(), f"f{i}") for i in range(3)], MOON, 8)
    hand = rec.hands[3]
    assert (hand.moon, hand.moon_choice, hand.moon_choice_substituted) == (0, "subtract-from-shooter", False)
    assert hand.score == (-26, 0, 0, 0) and hand.moon_choice_latency_ms is not None


class GrpcHigh(FirstLegal):
    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse(card=request.view.legal_cards[-1])

    def ChooseMoon(self, request: pb.ChooseMoonRequest, context: Any) -> pb.ChooseMoonResponse:
        assert request.moon_points == 26 and request.view.seat == 0
        return pb.ChooseMoonResponse(choice=7)  # no such choice


def test_a_malformed_moon_choice_is_a_fault_and_a_seeded_substitute_chooses(serve: Callable[..., str]) -> None:
    seats: list[Seat] = [GrpcSeat(serve(GrpcHigh()), "high")] + [InProcessSeat(First(), f"f{i}") for i in range(3)]
    rec = run(seats, MOON, 8)
    f = rec.faults[0]
    assert (f.kind, f.hand, f.trick, f.seat) == (FaultKind.MALFORMED, 3, None, 0)
    assert "moon" in f.detail and f.sent.startswith("ChooseMoon") and "substitute" in f.action
    assert rec.hands[3].moon_choice_substituted and rec.hands[3].moon_choice in (
        "add-to-others",
        "subtract-from-shooter",
    )


class Reckless(First):
    """High without choose_moon: a bot written for rules that never ask how a moon scores."""

    def play_card(self, obs: Observation) -> Any:
        return obs.legal[-1]


class GrpcReckless(FirstLegal):
    """GrpcHigh without ChooseMoon: UNIMPLEMENTED, as generated code answers."""

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse(card=request.view.legal_cards[-1])

    ChooseMoon = bot_pb2_grpc.BotServiceServicer.ChooseMoon


@pytest.mark.parametrize("over", ["in-process", "grpc"])
def test_a_shooter_that_cannot_choose_gets_the_usual_scoring_and_a_note(serve: Callable[..., str], over: str) -> None:
    """ChooseMoon is optional: a bot without it (no method in process, UNIMPLEMENTED over gRPC) scores its
    moon as the rules do when nobody chooses (add to the others), with no fault and one note."""
    shooter: Seat = (
        InProcessSeat(Reckless(), "high") if over == "in-process" else GrpcSeat(serve(GrpcReckless()), "high")
    )
    rec = run([shooter] + [InProcessSeat(First(), f"f{i}") for i in range(3)], MOON, 8)
    hand = rec.hands[3]
    assert (hand.moon, hand.moon_choice, hand.moon_choice_substituted) == (0, "add-to-others", False)
    assert hand.score == (0, 26, 26, 26) and not rec.faults
    assert [(n.hand, n.seat, n.kind) for n in rec.notes] == [(3, 0, NoteKind.UNIMPLEMENTED)]
    assert "does not implement ChooseMoon: the moon scored add-to-others" in rec.notes[0].detail


class Charging(First):
    def charge_cards(self, obs: Observation) -> Any:
        return [c for c in obs.hand if str(c) in ("AH", "QS", "JD", "10C")][:1]


def test_an_in_process_bot_without_charge_cards_charges_nothing_noted_once() -> None:
    """As a gRPC bot's UNIMPLEMENTED: an in-process bot without charge_cards charges nothing every hand, no
    fault, one note; the bots that charge are untouched."""
    seats = [InProcessSeat(First(), "old")] + [InProcessSeat(Charging(), f"c{i}") for i in range(3)]
    rec = run(seats, Rules.parse("turbo,target=60"), 3)
    assert not rec.faults and len(rec.hands) > 1
    assert [(n.hand, n.seat) for n in rec.notes] == [(0, 0)] and "ChargeCards" in rec.notes[0].detail
    assert all(c.cards == () and not c.substituted for h in rec.hands for c in h.charges if c.seat == 0)
    assert any(c.cards for h in rec.hands for c in h.charges if c.seat != 0)


def test_an_in_process_dealer_without_call_pass_is_faulted() -> None:
    """CallPass is required, in process as over gRPC: a dealer without call_pass is an error_status fault
    naming the RPC, and the seeded substitute calls."""
    rec = run(
        [InProcessSeat(First(), "old")] + [InProcessSeat(Feeder(), f"f{i}") for i in range(3)],
        Rules.parse("standard,pass_cycle=call,target=60"),
        3,
        MatchSettings(max_faults=100),
    )
    mine = [f for f in rec.faults if f.seat == 0]
    assert mine and all(f.kind is FaultKind.ERROR_STATUS and f.sent.startswith("CallPass") for f in mine)
    assert "does not implement CallPass, which pass_cycle=call needs" in mine[0].detail and not rec.notes
    assert all(h.pass_call_substituted == (h.dealer == 0) for h in rec.hands)


# -- determinism ---------------------------------------------------------------------------------


def test_the_same_seed_rules_and_bots_give_the_same_record(serve: Callable[..., str], good_address: str) -> None:
    bad = serve(Unspecified())
    rules = Rules.parse("standard,target=60")

    def once() -> MatchRecord:
        return run(
            [
                GrpcSeat(good_address, "a"),
                GrpcSeat(bad, "bad"),
                GrpcSeat(good_address, "c"),
                InProcessSeat(Randomly(5), "r"),
            ],
            rules,
            42,
            MatchSettings(budget_ms=200, bank_ms=500),
        )

    a, b = once(), once()
    assert a.faults and a.decisions() == b.decisions()
    assert a.match_id != b.match_id
    c = run([InProcessSeat(Randomly(5), f"r{i}") for i in range(4)], rules, 43)
    assert c.hands[0].deal != a.hands[0].deal


# -- no request holds another seat's unplayed card -----------------------------------------------


class Recording:
    """A seat that keeps every request it is sent, keyed by decision."""

    def __init__(self, inner: InProcessSeat) -> None:
        self.inner = inner
        self.name = inner.name
        self.address = None
        self.views: dict[tuple[Any, ...], pb.GameView] = {}

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        return await self.inner.handshake(request, timeout)

    # Each request as a bot would receive it: the very bytes a gRPC seat sends, parsed.
    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        self.views["pass", ask.observation.hand_number] = pb.PassCardsRequest.FromString(ask.wire()).view
        return await self.inner.pass_cards(ask, timeout)

    async def play_card(self, ask: Ask, timeout: float) -> int:
        v = pb.PlayCardRequest.FromString(ask.wire()).view
        # Keyed by the cards already in the trick too: in a boosted trick (booster_nines) a seat plays twice.
        self.views["play", v.hand_number, len(v.tricks), len(v.current_trick.cards)] = v
        return await self.inner.play_card(ask, timeout)

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        self.views["moon", ask.observation.hand_number] = pb.ChooseMoonRequest.FromString(ask.wire()).view
        return await self.inner.choose_moon(ask, timeout)

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        self.views["discard", ask.observation.hand_number] = pb.DiscardCardsRequest.FromString(ask.wire()).view
        return await self.inner.discard_cards(ask, timeout)

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        self.views["call", ask.observation.hand_number] = pb.CallPassRequest.FromString(ask.wire()).view
        return await self.inner.call_pass(ask, timeout)

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        return None

    async def close(self) -> None:
        return None


def _check_view(view: pb.GameView, m: Match, seat: int) -> int:
    """The view must hold the seat's true hand, and no card still in another seat's hand (except
    the cards this seat itself passed there). Returns the number of cards checked. The dealer's call
    of the pass comes 'before the start of the deal' (002): its view holds no card at all."""
    if m.phase is Phase.CALL:
        assert not view.hand and not view.legal_cards and view.pass_direction == pb.PASS_DIRECTION_CALL
        return 1
    mentioned = (
        set(view.hand) | set(view.received_cards) | set(view.legal_cards) | set(view.kitty) | set(view.discarded)
    )
    for t in list(view.tricks) + [view.current_trick]:
        mentioned |= set(t.cards)
    mentioned -= set(view.passed_cards)
    others = {c.index + 1 for o in range(m.rules.players) if o != seat for c in _cards(m.hand.hands[o])}
    assert not mentioned & others, f"seat {seat} was shown another seat's card: {mentioned & others}"
    assert set(view.hand) == {c.index + 1 for c in _cards(m.hand.hands[seat])}
    assert view.seat == seat
    return len(mentioned)


def _cards(mask: int) -> Any:
    from referee.rules import cards_of

    return cards_of(mask)


RULESETS = [
    "standard",
    "omnibus",
    "spot,target=200",
    "black-maria",
    "standard,players=3",
    "standard,players=5",
    "standard,pass_cycle=scatter",
    "standard,pass_cycle=mix",
    "standard,kitty=first-trick,hand_size=12",
    "standard,moon=shooter-chooses,sun_points=52",
    "standard,pass_on=true",
    "standard,kitty=first-points,hand_size=12,kitty_discard=true",
    "nasty,target=150",
    "booster-nines",
]


@pytest.mark.slow
def test_no_request_of_200_matches_holds_another_seats_unplayed_card() -> None:
    checked = 0
    requests = 0

    async def all_matches() -> list[tuple[MatchRecord, list[Recording]]]:
        out = []
        for i in range(200):
            rules = Rules.parse(
                RULESETS[i % len(RULESETS)] + ("" if "target" in RULESETS[i % len(RULESETS)] else ",target=50")
            )
            seats = [Recording(InProcessSeat(Randomly(i * 10 + s), f"r{s}")) for s in range(rules.players)]
            out.append((await play_match(seats, rules, seed=i), seats))
        return out

    for rec, seats in asyncio.run(all_matches()):
        rules = Rules.from_dict(rec.rules)
        m = Match(rules, rec.seed)
        plays = iter(rec.plays)
        for h in rec.hands:
            assert m.hand_number == h.hand
            if m.phase is Phase.CALL:
                s = m.to_move[0]
                checked += _check_view(seats[s].views["call", h.hand], m, s)
                requests += 1
                m.call_pass(s, h.pass_call)
            for p in h.passes:
                checked += _check_view(seats[p.seat].views["pass", h.hand], m, p.seat)
                requests += 1
            for p in h.passes:
                m.pass_cards(p.seat, p.cards)
            while m.hand_number == h.hand and not m.over:
                if m.phase is Phase.MOON:
                    s = m.turn
                    checked += _check_view(seats[s].views["moon", h.hand], m, s)
                    requests += 1
                    assert h.moon_choice is not None
                    m.choose_moon(s, h.moon_choice)
                    continue
                if m.phase is Phase.DISCARD:
                    s = m.turn
                    assert h.discard_seat == s
                    checked += _check_view(seats[s].views["discard", h.hand], m, s)
                    requests += 1
                    m.discard(s, h.discard)
                    continue
                p = next(plays)
                assert (p.hand, p.seat) == (h.hand, m.turn)
                view = seats[p.seat].views["play", p.hand, p.trick, len(m.hand.trick_cards)]
                checked += _check_view(view, m, p.seat)
                requests += 1
                m.play(p.card, p.seat)
        assert m.over and list(m.scores) == rec.scores
    assert requests > 50_000 and checked > requests


def test_in_process_answers_of_every_shape_are_judged_not_trusted() -> None:
    class Odd(First):
        def __init__(self) -> None:
            self.n = 0

        def play_card(self, obs: Observation) -> Any:
            self.n += 1
            return [None, "ZZ", 0, str(obs.legal[0]), obs.legal[0].index + 1][self.n % 5]

    rec = run(
        [InProcessSeat(Odd(), "odd")] + [InProcessSeat(First(), f"f{i}") for i in range(3)],
        Rules(),
        2,
        MatchSettings(max_faults=10_000),
    )
    assert {f.kind for f in rec.faults} == {FaultKind.MALFORMED}
    assert rec.seats[0].faults == len(rec.faults) and not rec.seats[0].forfeit


def test_a_servicer_base_class_bot_that_implements_nothing_forfeits(
    serve: Callable[..., str], good_address: str
) -> None:
    rec = run(
        [GrpcSeat(serve(bot_pb2_grpc.BotServiceServicer()), "empty")]
        + [GrpcSeat(good_address, f"g{i}") for i in range(3)],
        Rules.parse("standard,target=50"),
        4,
        MatchSettings(budget_ms=200, bank_ms=200),
    )
    assert rec.faults[0].kind is FaultKind.ERROR_STATUS and rec.faults[0].hand is None  # the handshake
    assert "UNIMPLEMENTED" in rec.faults[0].received
    assert rec.seats[0].forfeit and rec.seats[0].place == 4


class Counting(FirstLegal):
    def __init__(self) -> None:
        super().__init__()
        self.handshakes = 0

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        with self.lock:
            self.handshakes += 1
        return super().Handshake(request, context)


@pytest.mark.slow
def test_one_channel_per_bot_is_reused_across_matches_and_seats(serve: Callable[..., str]) -> None:
    bot = Counting()
    address = serve(bot)

    async def two_matches() -> list[MatchRecord]:
        seat = GrpcSeat(address, "self-play")
        try:
            first = await play_match([seat] * 4, Rules.parse("standard,target=30"), 1)
            channel = seat._channel
            second = await play_match([seat] * 4, Rules.parse("standard,target=30"), 2)
            assert seat._channel is channel
            return [first, second]
        finally:
            await seat.close()

    records = asyncio.run(two_matches())
    assert bot.handshakes == 1  # greeted once per channel, not once per seat or match
    assert all(r.faults == [] and r.bots == ["self-play"] * 4 for r in records)


# -- a shot that wins the match (moon=wins-match, the nasty preset) ------------------------------------


class Shooter:
    """Passes its lowest cards, plays its highest: with Feeders at the table it shoots now and then."""

    def pass_cards(self, obs: Observation) -> Any:
        return sorted(obs.hand.cards, key=lambda c: c.rank)[: obs.rules.pass_count]

    def call_pass(self, obs: Observation) -> Any:
        return "left"

    def play_card(self, obs: Observation) -> Any:
        return max(obs.legal.cards, key=lambda c: c.rank)


class Feeder:
    """Passes its highest cards, ducks when it can follow, and throws its costliest card when void."""

    def pass_cards(self, obs: Observation) -> Any:
        return sorted(obs.hand.cards, key=lambda c: -c.rank)[: obs.rules.pass_count]

    def call_pass(self, obs: Observation) -> Any:
        return "left"

    def play_card(self, obs: Observation) -> Any:
        cur, pts = obs.current_trick.cards, obs.rules.card_points
        if cur and any(c.suit is cur[0].suit for c in obs.legal.cards):
            return min(obs.legal.cards, key=lambda c: c.rank)
        return max(obs.legal.cards, key=lambda c: (pts[c.index], c.rank if cur else -c.rank))


class Broken(Feeder):
    def play_card(self, obs: Observation) -> Any:
        raise RuntimeError("broken")


def test_a_shot_that_wins_the_match_places_the_shooter_first_even_beside_a_forfeit() -> None:
    """002 Da Nasty Fix: 'If you successfully shoot ... you win the game': the shooter places 1 whatever its
    total (here the highest), the forfeiter last, the others by total between them."""
    seats = [
        InProcessSeat(Shooter(), "shooter"),
        InProcessSeat(Broken(), "broken"),
        InProcessSeat(Feeder(), "f2"),
        InProcessSeat(Feeder(), "f3"),
    ]
    rec = run(seats, Rules.preset("nasty"), 6)
    assert rec.hands[-1].moon == 0 and rec.winners == (0,) and rec.seats[1].forfeit
    scores = [s.final_score for s in rec.seats]
    assert scores[0] == max(scores)
    assert [s.place for s in rec.seats] == [1, 4, 2 if scores[2] < scores[3] else 3, 2 if scores[3] < scores[2] else 3]


def test_the_shot_that_wins_the_match_is_named_in_the_replay() -> None:
    """002 Da Nasty Fix: 'If you successfully shoot ... you win the game': the replay says so."""
    from rich.console import Console

    from referee.report import replay

    seats = [
        InProcessSeat(Shooter(), "shooter"),
        InProcessSeat(Feeder(), "f1"),
        InProcessSeat(Feeder(), "f2"),
        InProcessSeat(Feeder(), "f3"),
    ]
    rec = run(seats, Rules.preset("nasty"), 8)
    assert rec.hands[-1].moon == 0 and rec.winners == (0,)
    console = Console(record=True, width=240)
    console.print(replay(rec))
    assert "(shooter shot the moon and wins the match)" in console.export_text()


class OddDealer(Feeder):
    """Calls the pass with answers no dealer should give: None, then an object that cannot be read."""

    def __init__(self) -> None:
        self.n = 0

    def call_pass(self, obs: Observation) -> Any:
        self.n += 1

        class Unreadable:
            def __iter__(self) -> Any:
                raise RuntimeError("no")

            def __len__(self) -> int:
                raise RuntimeError("no")

        return None if self.n % 2 else Unreadable()


def test_a_dealer_answering_none_or_an_unreadable_call_is_faulted_not_trusted() -> None:
    """InProcessSeat: None is no call (a malformed answer, not a missing one), and an object that cannot be
    read is malformed too; the match goes on with the seeded substitute call."""
    seats = [InProcessSeat(OddDealer(), "odd")] + [InProcessSeat(Feeder(), f"f{i}") for i in range(3)]
    rec = run(seats, Rules.parse("standard,pass_cycle=call,target=60"), 3, MatchSettings(max_faults=100))
    odd = [f for f in rec.faults if f.seat == 0]
    assert odd and all(f.kind is FaultKind.MALFORMED and f.sent.startswith("CallPass") for f in odd)
    assert {f.detail.split(" (")[0] for f in odd} <= {"no call", "the call could not be read"}
    assert any(f.detail == "no call (neither offsets nor mix)" for f in odd)
    assert any(f.detail.startswith("the call could not be read") for f in odd)
    assert all(h.pass_call_substituted for h in rec.hands if h.dealer == 0)
    assert not any(h.pass_call_substituted for h in rec.hands if h.dealer != 0)


def test_decisions_waiting_on_their_bots_do_not_hold_the_referees_slots() -> None:
    """The in-flight bound limits the referee's own work: bots that think are all asked at once, not 16
    at a time (which would cap 200 ms bots at 80 decisions/s however many tables play)."""
    import asyncio

    from referee.in_flight import MAX_IN_FLIGHT
    from referee.match import play_match
    from referee.rules import Rules
    from referee.seats import InProcessSeat

    class Thinker:
        """Answers nothing until told: counts how many of its decisions wait at once."""

        def __init__(self, go: asyncio.Event) -> None:
            self.go, self.waiting, self.most = go, 0, 0

        async def pass_cards(self, obs: object) -> list[object]:
            self.waiting += 1
            self.most = max(self.most, self.waiting)
            await self.go.wait()
            self.waiting -= 1
            return list(obs.hand.cards)[:3]

        async def play_card(self, obs: object) -> object:
            return obs.legal.cards[0]

    async def go() -> int:
        release = asyncio.Event()
        bot = Thinker(release)
        seats = [InProcessSeat(bot, f"t{i}") for i in range(4)]
        tables = [
            asyncio.ensure_future(play_match(seats, Rules.parse("standard,target=1"), seed)) for seed in range(1, 13)
        ]
        for _ in range(200):  # until every table's four passes wait on the bot (bounded: ~2 s at most)
            await asyncio.sleep(0.01)
            if bot.waiting == 4 * len(tables):
                break
        release.set()
        await asyncio.gather(*tables)
        return bot.most

    assert asyncio.run(go()) == 48 > MAX_IN_FLIGHT


@pytest.mark.parametrize(
    "rules_text",
    [
        "standard,target=40",
        "omnibus,target=40,moon=shooter-chooses",
        "standard,players=3,target=40",
        "standard,kitty=first-trick,hand_size=12,kitty_discard=true,target=40",
        "standard,pass_cycle=call,target=40",
    ],
)
def test_the_written_out_play_path_agrees_with_the_general_pipeline(rules_text: str) -> None:
    """``_play`` is ``_decide(DECISIONS[Phase.PLAY])`` written out for speed: with bots that answer
    legally, illegally, with cards they do not hold, with no card, or by raising, both paths give the
    same record, decision for decision."""
    import random

    from referee.match import MatchSettings, _Referee

    class Erratic:
        def __init__(self, seed: int) -> None:
            self.rng = random.Random(seed)

        def pass_cards(self, obs: Observation) -> list[Any]:
            return list(obs.hand.cards)[: obs.rules.pass_count]

        def play_card(self, obs: Observation) -> Any:
            roll = self.rng.random()
            if roll < 0.7:
                return self.rng.choice(obs.legal.cards)
            if roll < 0.8:
                return self.rng.choice(obs.hand.cards)  # often not legal
            if roll < 0.88:
                return "AS" if "AS" not in {str(c) for c in obs.hand.cards} else "2C"
            if roll < 0.94:
                return None
            raise ValueError("erratic")

    rules = Rules.parse(rules_text)

    def play(fast: bool) -> dict[str, Any]:
        seats = [InProcessSeat(Erratic(s), f"e{s}") for s in range(rules.players)]
        # A clock nobody moves: no answer is late in one run and in time in the other, whatever the load.
        referee = _Referee(seats, rules, 17, MatchSettings(max_faults=1000), "m", None, None, lambda: 0.0)
        referee.fast_play = fast
        return asyncio.run(referee.run()).decisions()

    fast, general = play(True), play(False)
    assert fast["faults"] and fast == general


@pytest.mark.parametrize(
    "field, value",
    [
        ("budget_ms", float("nan")),
        ("bank_ms", float("inf")),
        ("grace_ms", 2**32),
        ("handshake_ms", -1),
        ("max_faults", 0),
    ],
)
def test_match_settings_refuse_clocks_that_cannot_be_timed_or_stored(field: str, value: float) -> None:
    """A NaN or infinite clock stored with a tournament would fail every later resume: the library refuses it,
    whoever calls it (the CLI says the same as a usage error first)."""
    from referee.match import MatchSettings

    with pytest.raises(ValueError, match=field):
        MatchSettings(**{field: value})


@pytest.mark.parametrize("preset", ["partnership", "partnership-individual"])
def test_partners_share_their_teams_place_and_a_forfeiter_places_last_alone(preset: str) -> None:
    """002 Partnership Hearts: 'the partnership with fewer points wins' — partners place alike (winners 1
    and 1, losers 3 and 3). A forfeiter places last alone whatever its substitutes scored; its partner keeps
    the team's total, ranked among the live seats (the forfeit is one bot's, not its partner's)."""
    rules = Rules.preset(preset)
    rec = run([InProcessSeat(Feeder(), f"f{i}") for i in range(4)], rules, 3)
    teams = rules.team_totals([s.final_score for s in rec.seats])
    win = 0 if teams[0] < teams[1] else 1
    assert teams[0] != teams[1] and rec.winners == (win, win + 2)
    assert [s.place for s in rec.seats] == [1 if s % 2 == win else 3 for s in range(4)]
    seats = [InProcessSeat(Feeder(), "f0"), InProcessSeat(Broken(), "broken")] + [
        InProcessSeat(Feeder(), f"f{i}") for i in (2, 3)
    ]
    rec = run(seats, rules, 3)
    assert rec.seats[1].forfeit
    teams = rules.team_totals([s.final_score for s in rec.seats])
    places = [s.place for s in rec.seats]
    assert places[1] == 4 and places[0] == places[2]
    assert places[3] == (1 if teams[1] < teams[0] else 2 if teams[1] > teams[0] else 1)
    assert places[0] == (1 if teams[0] <= teams[1] else 2)
    assert set(rec.winners) == {s for s in (0, 2, 3) if places[s] == 1}
