"""Every fault kind over real gRPC on loopback: the match completes, the fault is recorded with its
kind and detail, the faulty bot forfeits after 3 faults and places last, the others' results stand."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from referee_bots import (
    OVERSIZED_PLAY,
    UNDECODABLE_PLAY,
    BadCall,
    BrokenListener,
    DrivenClock,
    FirstLegal,
    HeldCounter,
    Illegal,
    Listener,
    NoCall,
    NoCharge,
    NoDiscard,
    NotHeld,
    OverCharge,
    OversizedPass,
    PassOn,
    Raiser,
    RepeatPass,
    SaysUnimplemented,
    ShortDiscard,
    ShortPass,
    Sleeper,
    SlowListener,
    SlowRaiser,
    UnknownEnum,
    Unspecified,
    raw_play_bot,
)

from referee.match import MatchSettings, play_match
from referee.record import FaultKind, MatchRecord, NoteKind
from referee.rules import Rules
from referee.seats import GrpcSeat, InProcessSeat, Seat

# The calls' deadlines are real time, and a loaded machine can hold a good bot's answer for most of a
# second: the bank keeps 1.7 s between any answer and its deadline (the driven clock charges nothing,
# so the bank stays full), and only a bot that never answers, or a test's own clock, reaches it.
FAST = MatchSettings(budget_ms=150, bank_ms=1500, grace_ms=50, handshake_ms=3000)
RULES = Rules.parse("standard,pass_cycle=left,target=60")  # a pass every hand, and short
FAULTY = 1  # the seat of the bot under test
ONE_HAND = Rules.parse("standard,pass_cycle=left,target=1")


def run(
    seats: Sequence[Seat],
    seed: int = 11,
    rules: Rules = RULES,
    settings: MatchSettings = FAST,
    time_source: Callable[[], float] | None = None,
) -> MatchRecord:
    """The match, its answers charged by ``time_source``: by default a clock nobody moves, so that the
    good bots are charged nothing however loaded the machine is, and only real deadlines time out."""

    async def go() -> MatchRecord:
        try:
            return await play_match(seats, rules, seed, settings=settings, time_source=time_source or DrivenClock())
        finally:
            for s in seats:
                await s.close()

    return asyncio.run(go())


def table(good: str, bad: str) -> list[Seat]:
    return [GrpcSeat(bad if s == FAULTY else good, f"bot{s}") for s in range(4)]


def assert_forfeit_and_standing(rec: MatchRecord, kind: FaultKind, faults: int = 3) -> None:
    rules = Rules.from_dict(rec.rules)
    assert rec.status.value == "finished"
    assert max(rec.hands[-1].totals) >= rules.target, "the match was played to its end"
    bad = rec.seats[FAULTY]
    assert (bad.faults, bad.forfeit) == (faults, True)
    assert [f.kind for f in rec.faults] == [kind] * faults
    for f in rec.faults:
        assert f.seat == FAULTY and f.detail and f.sent and f.received and "substitute" in f.action
    assert "forfeits" in rec.faults[-1].action
    assert bad.place == 4
    good = [s for s in rec.seats if s.seat != FAULTY]
    for s in good:
        assert (s.faults, s.forfeit) == (0, False)
        assert s.place == 1 + sum(1 for t in good if t.final_score < s.final_score)
    assert set(rec.winners) == {s.seat for s in good if s.place == 1}
    # After the forfeit, the bot is asked nothing more: substitutes play, with no latency.
    last = rec.faults[-1]
    later = [p for p in rec.plays if p.seat == FAULTY and (p.hand, p.trick) > (last.hand, last.trick or 0)]
    later += [p for h in rec.hands for p in h.passes if p.seat == FAULTY and p.hand > last.hand]
    assert later and all(p.substituted and p.latency_ms is None for p in later)


PLAY_FAULTS: list[tuple[Callable[[], Any], FaultKind, str]] = [
    (Sleeper, FaultKind.TIMEOUT, "deadline"),
    (Raiser, FaultKind.ERROR_STATUS, "UNKNOWN"),
    (Unspecified, FaultKind.MALFORMED, "CARD_UNSPECIFIED"),
    (UnknownEnum, FaultKind.MALFORMED, "99"),
    (Illegal, FaultKind.ILLEGAL_CARD, "legal"),
    (NotHeld, FaultKind.CARD_NOT_HELD, "does not hold"),
    (ShortPass, FaultKind.WRONG_PASS_COUNT, "exactly 3 cards, not 2"),
    (PassOn, FaultKind.WRONG_PASS_COUNT, "exactly 3 cards, not 0"),
    (RepeatPass, FaultKind.REPEATED_PASS_CARD, "twice"),
    (OversizedPass, FaultKind.OVERSIZED, "receive limit"),
    (lambda: raw_play_bot(OVERSIZED_PLAY), FaultKind.OVERSIZED, "receive limit"),
    (lambda: raw_play_bot(UNDECODABLE_PLAY), FaultKind.MALFORMED, "decoded"),
]


@pytest.mark.parametrize(
    "make_bot, kind, words", PLAY_FAULTS, ids=[f"{k.value}-{i}" for i, (_, k, _) in enumerate(PLAY_FAULTS)]
)
@pytest.mark.slow
def test_a_faulty_bot_forfeits_after_three_faults_and_the_match_completes(
    serve: Callable[..., str], good_address: str, make_bot: Callable[[], Any], kind: FaultKind, words: str
) -> None:
    rec = run(table(good_address, serve(make_bot())))
    assert_forfeit_and_standing(rec, kind)
    f = rec.faults[0]
    assert words in f.detail + f.received
    if kind in (FaultKind.WRONG_PASS_COUNT, FaultKind.REPEATED_PASS_CARD):
        assert f.trick is None and f.sent.startswith("PassCards") and "hand" in f.sent
    elif rec.faults[0].sent.startswith("PlayCard"):
        assert f.trick is not None and "legal" in f.sent


@pytest.mark.slow
def test_passing_no_cards_is_passing_on_when_the_rules_allow_it(serve: Callable[..., str], good_address: str) -> None:
    """002 pass_on: an empty pass is a decision, not a fault; the bot's neighbours' cards go on past it."""
    rules = Rules.parse("standard,pass_cycle=left,target=60,pass_on=true")
    rec = run(table(good_address, serve(PassOn())), rules=rules)
    assert not rec.faults and not rec.seats[FAULTY].forfeit
    mine = [p for h in rec.hands for p in h.passes if p.seat == FAULTY]
    assert mine and all(p.cards == () and not p.substituted and p.latency_ms is not None for p in mine)
    h = rec.hands[0]
    sent = {p.seat: p.cards for p in h.passes}
    # Seat 0 passes left to seat 1, which passes on: seat 0's cards reach seat 2.
    replayed = [p for p in rec.plays if p.hand == 0 and p.seat == 2]
    assert set(sent[0]) <= {p.card for p in replayed}


KITTY_DISCARD = Rules.parse("standard,kitty=first-trick,hand_size=12,kitty_discard=true,target=60")


def test_a_wrong_discard_is_a_fault_and_the_seeded_substitute_discards(
    serve: Callable[..., str], good_address: str
) -> None:
    """002 kitty_discard: the kitty's taker must discard as many cards as the kitty held; a bot that cannot
    is faulted like any other, and the match goes on with the substitute's discard."""
    rec = run(table(good_address, serve(ShortDiscard())), seed=5, rules=KITTY_DISCARD)
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert mine and all(f.kind is FaultKind.WRONG_DISCARD for f in mine)
    f = mine[0]
    assert "exactly 4 cards (as many as the kitty), not 3" in f.detail
    assert f.sent.startswith("DiscardCards hand") and "kitty" in f.sent
    assert "discarded the seeded substitute" in f.action
    faulted = {f.hand for f in mine}
    for h in rec.hands:
        assert h.discard_seat is not None and len(h.discard) == 4
        if h.discard_seat != FAULTY:
            assert not h.discard_substituted
        elif h.hand in faulted:
            assert h.discard_substituted
    assert not [f for f in rec.faults if f.seat != FAULTY] and not rec.notes
    assert max(rec.hands[-1].totals) >= 60


TURBO = Rules.parse("turbo,target=60")


@pytest.mark.slow
def test_a_wrong_charge_is_a_fault_and_the_substitute_charges_nothing(
    serve: Callable[..., str], good_address: str
) -> None:
    """002 Turbo Hearts: 'each player may turbo-charge one of the following cards': a bot charging too much
    is faulted, the substitute charges nothing (a charge is optional: 'may'), and the match goes on; under
    other rules ChargeCards is never asked."""
    rec = run(table(good_address, serve(OverCharge())), seed=3, rules=TURBO)
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert (
        mine and all(f.kind is FaultKind.WRONG_CHARGE for f in mine) and not [f for f in rec.faults if f.seat != FAULTY]
    )
    f = mine[0]
    assert "may charge one card or none, not 13" in f.detail + f.received
    assert f.sent.startswith("ChargeCards hand") and f.trick is None
    assert f.action.startswith("charged nothing (the seeded substitute)")
    for h in rec.hands:
        (charge,) = [c for c in h.charges if c.seat == FAULTY]
        assert charge.substituted and charge.cards == ()
        assert all(not c.substituted and c.cards == () for c in h.charges if c.seat != FAULTY)
    assert max(rec.hands[-1].totals) >= 60 and not rec.notes
    plain = run(table(good_address, serve(OverCharge())), seed=3, rules=RULES)
    assert not plain.faults and not any(h.charges for h in plain.hands)


@pytest.mark.parametrize(
    "make_bot, rules, rpc",
    [(NoCharge, TURBO, "ChargeCards"), (NoDiscard, KITTY_DISCARD, "DiscardCards")],
    ids=["charge", "discard"],
)
@pytest.mark.slow
def test_an_optional_rpc_left_unimplemented_is_its_do_nothing_answer_noted_once_not_a_fault(
    serve: Callable[..., str], good_address: str, make_bot: Callable[[], Any], rules: Rules, rpc: str
) -> None:
    """A bot written before a variant (generated code answers UNIMPLEMENTED for the RPC it leaves out) plays
    the variant's optional decision as doing nothing: it charges nothing (002 Turbo Hearts: 'may'), or
    discards the very cards the kitty brought (as if they had gone to its tricks unseen). No fault, no
    forfeit, no substitute: one note for the match, at the hand it was first asked."""
    rec = run(table(good_address, serve(make_bot())), seed=5, rules=rules)
    assert not rec.faults and not rec.seats[FAULTY].forfeit and rec.seats[FAULTY].faults == 0
    (note,) = rec.notes
    assert note.seat == FAULTY and note.kind is NoteKind.UNIMPLEMENTED
    assert note.detail.startswith(f"does not implement {rpc}: ") and "not a fault" in note.detail
    if rpc == "ChargeCards":
        assert note.hand == 0
        for h in rec.hands:
            (charge,) = [c for c in h.charges if c.seat == FAULTY]
            assert charge.cards == () and not charge.substituted and charge.latency_ms is not None
    else:
        taken = [h for h in rec.hands if h.discard_seat == FAULTY]
        assert taken and note.hand == taken[0].hand
        for h in taken:
            assert sorted(h.discard) == sorted(h.kitty) and not h.discard_substituted
    assert max(rec.hands[-1].totals) >= 60


@pytest.mark.parametrize(
    "make_bot, rules, rpc, words",
    [
        (NoCall, Rules.parse("standard,pass_cycle=call,target=60"), "CallPass", "which pass_cycle=call needs"),
        (SaysUnimplemented, TURBO, "ChargeCards", "the bot answered INTERNAL: UNIMPLEMENTED"),
    ],
    ids=["call-is-required", "a-message-is-no-status"],
)
def test_a_required_rpc_left_unimplemented_or_a_status_that_only_says_so_stays_a_fault(
    serve: Callable[..., str], good_address: str, make_bot: Callable[[], Any], rules: Rules, rpc: str, words: str
) -> None:
    """The dealer's call has no do-nothing answer (any pass the referee named would be a choice of the game):
    UNIMPLEMENTED is a fault, the seeded substitute calls. And only the status code UNIMPLEMENTED means
    unimplemented: another status whose message says so is the bot's error."""
    rec = run(table(good_address, serve(make_bot())), seed=2, rules=rules)
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert mine and all(f.kind is FaultKind.ERROR_STATUS and f.sent.startswith(rpc) for f in mine)
    assert words in mine[0].detail and not rec.notes


class SpeaksVersion(FirstLegal):
    """A good bot whose handshake says the protocol version it was made with."""

    def __init__(self, version: int) -> None:
        super().__init__()
        self.protocol_version = version


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_every_protocol_version_up_to_the_referees_is_read_and_a_later_one_is_malformed(
    serve: Callable[..., str], good_address: str, version: int
) -> None:
    """Versions of hearts.v1 only add: a bot of version 1 (or 0, unset) or 2 plays without a fault; one
    beyond the referee's is recorded malformed at the handshake and plays on."""
    rec = run(table(good_address, serve(SpeaksVersion(version))))
    if version <= 2:
        assert not rec.faults
        return
    (f,) = rec.faults
    assert (f.kind, f.hand, f.seat) == (FaultKind.MALFORMED, None, FAULTY) and not rec.seats[FAULTY].forfeit
    assert f.detail == "speaks protocol 3; the referee speaks 1 to 2" and f.received == "protocol_version=3"


def test_a_call_that_is_no_pass_is_a_fault_and_the_seeded_substitute_calls(
    serve: Callable[..., str], good_address: str
) -> None:
    """002 Da Nasty Fix: the dealer 'specifies how cards will be passed for that hand', 'as long as each player
    passes and receives three cards': a call of two cards is a fault, and a seeded substitute call stands."""
    rules = Rules.parse("standard,pass_cycle=call,target=60")
    rec = run(table(good_address, serve(BadCall())), seed=2, rules=rules)
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert mine and all(f.kind is FaultKind.WRONG_CALL for f in mine) and not rec.faults[len(mine) :]
    f = mine[0]
    assert "expected 3 offsets" in f.detail and f.sent.startswith("CallPass hand") and "(1, 1)" in f.received
    assert "called the seeded substitute" in f.action
    for h in rec.hands:
        assert h.pass_call is not None and h.pass_direction != "call"
        assert h.pass_call_substituted == (h.dealer == FAULTY)
        if h.dealer != FAULTY:
            assert h.pass_call == "left" and h.pass_direction == "left" and h.pass_call_latency_ms is not None


class _DeadlinesNoted(GrpcSeat):
    """A gRPC seat that notes the deadline of every play the referee asks of it."""

    def __init__(self, address: str, name: str) -> None:
        super().__init__(address, name)
        self.deadlines: list[float] = []

    async def play_card(self, ask: Any, timeout: float) -> int:
        self.deadlines.append(timeout)
        return await super().play_card(ask, timeout)


@pytest.mark.slow
def test_a_timeout_empties_the_bank_and_the_deadline_shrinks(serve: Callable[..., str], good_address: str) -> None:
    seats = table(good_address, "unused")
    seats[FAULTY] = noted = _DeadlinesNoted(serve(Sleeper()), f"bot{FAULTY}")
    rec = run(seats, time_source=time.perf_counter)
    # budget 150 + bank 1500 + grace 50 for the first, then the bank is gone: 150 + 50.
    assert [round(d, 3) for d in noted.deadlines] == [1.7, 0.2, 0.2]
    latencies = [p.latency_ms for p in rec.plays if p.seat == FAULTY and p.latency_ms is not None]
    assert latencies[0] >= 1680 and all(ms >= 180 for ms in latencies[1:3])  # never given up before its deadline
    assert rec.seats[FAULTY].time_bank_left_ms == 0


def test_a_failed_call_is_charged_to_the_bank(serve: Callable[..., str], good_address: str) -> None:
    clock = DrivenClock()
    rec = run(table(good_address, serve(SlowRaiser(clock))), time_source=clock)
    assert [f.kind for f in rec.faults] == [FaultKind.ERROR_STATUS] * 3
    # Three failures of 250 ms each, 50 over budget + grace (150 + 50): 150 ms of the 1500 ms bank.
    assert rec.seats[FAULTY].time_bank_left_ms == 1350


@pytest.mark.slow
def test_a_bot_that_dies_mid_match_forfeits_at_once(exit_bot: Callable[[int], str], good_address: str) -> None:
    rec = run(table(good_address, exit_bot(20)))
    bad = rec.seats[FAULTY]
    assert bad.forfeit and bad.place == 4 and bad.faults == 1
    assert "unreachable" in (bad.forfeit_reason or "")
    (f,) = rec.faults
    assert f.kind is FaultKind.TRANSPORT and f.hand is not None and f.trick is not None
    played = [p for p in rec.plays if p.seat == FAULTY and not p.substituted]
    assert len(played) == 20  # it answered exactly 20 plays, then the process was gone
    assert_forfeit_and_standing(rec, FaultKind.TRANSPORT, faults=1)


def test_an_address_where_nothing_listens_forfeits_at_the_handshake(good_address: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    rec = run(table(good_address, dead))
    (f,) = rec.faults
    assert f.kind is FaultKind.TRANSPORT and f.hand is None and f.sent.startswith("Handshake")
    assert all(p.substituted for p in rec.plays if p.seat == FAULTY)
    assert rec.seats[FAULTY].place == 4


@pytest.mark.slow
def test_a_bot_that_accepts_the_connection_but_never_answers_times_out_and_is_not_unreachable(
    good_address: str,
) -> None:
    """The kind follows what the bot did, not when the connection was made: a listener that accepts and
    never says a word times out, as the same silence on a connection already up does (the referee's
    channel used to give up connecting after 100 ms, and called it unreachable: a forfeit at once)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)  # never accepted: the kernel completes the connections, nobody speaks on them
        silent = f"127.0.0.1:{listener.getsockname()[1]}"
        rec = run(table(good_address, silent), settings=dataclasses.replace(FAST, handshake_ms=500))
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert [f.kind for f in mine] == [FaultKind.TIMEOUT] * 3 and mine[0].sent.startswith("Handshake")
    assert rec.seats[FAULTY].forfeit_reason == "faults" and len(mine) == len(rec.faults)


def test_notifications_are_sent_to_bots_that_ask_and_their_errors_are_never_faults(
    serve: Callable[..., str], good_address: str
) -> None:
    listener, broken = Listener(), BrokenListener()
    seats: list[Seat] = [
        GrpcSeat(serve(listener), "listener"),
        GrpcSeat(serve(broken), "broken"),
        GrpcSeat(good_address, "a"),
        InProcessSeat(_First(), "b"),
    ]
    rec = run(seats)
    assert rec.faults == []
    tricks = len(rec.plays) // 4
    # One per trick, one per hand, one at the end.
    assert listener.notified == tricks + len(rec.hands) + 1
    assert broken.notified == listener.notified


@pytest.mark.slow
def test_a_listener_that_never_answers_does_not_slow_the_match(serve: Callable[..., str], good_address: str) -> None:
    slow = SlowListener()
    seats: list[Seat] = [GrpcSeat(serve(slow), "slow")] + [GrpcSeat(good_address, f"g{i}") for i in range(3)]
    rec = run(seats, settings=dataclasses.replace(FAST, notify_ms=200))
    tricks = len(rec.plays) // 4
    assert rec.faults == [] and not rec.seats[0].forfeit
    # Awaited, a notification would hold the match until its deadline: no play could reach the
    # listener while it holds one. Queued, the match goes on beside it.
    assert slow.plays_while_holding > 0
    assert 0 < slow.notified <= tricks + len(rec.hands) + 1


class _First:
    def pass_cards(self, obs: Any) -> Any:
        return obs.hand.cards[: obs.rules.pass_count]

    def play_card(self, obs: Any) -> Any:
        return obs.legal[0]


@pytest.mark.slow
def test_slow_listeners_of_other_matches_do_not_slow_a_match_on_the_same_loop(serve: Callable[..., str]) -> None:
    """Notifications have their own bound: listeners slow to answer Notify in four matches hold every
    notification slot, and the decisions of a fifth match go on while they do."""
    from referee.in_flight import MAX_NOTIFY_IN_FLIGHT

    settings = MatchSettings(budget_ms=150, bank_ms=200, grace_ms=50, notify_ms=300)
    counter = HeldCounter()
    counted = serve(counter)

    async def go() -> None:
        quiet = [GrpcSeat(counted, f"q{i}") for i in range(4)]
        others = [[GrpcSeat(serve(SlowListener()), f"l{m}{i}") for i in range(4)] for m in range(4)]
        tasks = [asyncio.create_task(play_match(seats, RULES, 11, settings=settings)) for seats in others]
        while SlowListener.held_now < MAX_NOTIFY_IN_FLIGHT:  # every notification slot held
            await asyncio.sleep(0.005)
        await play_match(quiet, ONE_HAND, 11, settings=settings, time_source=DrivenClock())
        await asyncio.gather(*tasks)
        for s in quiet + [s for seats in others for s in seats]:
            await s.close()

    asyncio.run(asyncio.wait_for(go(), 120))
    # Sharing the decisions' slots, a play could be asked only as a notification gave its slot up.
    assert counter.held_seen.count(MAX_NOTIFY_IN_FLIGHT) >= len(counter.held_seen) / 2, counter.held_seen
