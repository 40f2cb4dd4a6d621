"""Every property and method of the bot's view that docs/sdk.md names works, with the right value,
on both engines (mypyc-compiled and pure Python).

The names come from docs/sdk.md itself (its view table, every ``view.x.y``, every ``card.x``), so
a name added to the docs that does not work, or that this file cannot check, fails here. Views are
the SDK's own: real engine positions, encoded by the referee's wire encoder, sent over loopback
gRPC to an SDK server whose bot keeps the View it was handed. Each value is compared with the
engine's own Observation of the seat, with the request's wire message (independent of the
engine's classes) and, for a few, with literal values.

The compiled engine's Observation properties type-check ``self``, so a View must work on either
engine: the checks run in this process and again, in a subprocess, on the other engine.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from bot_harness import TIMEOUT_S, Tally, play_match

import referee.rules
from clients.sdk import Bot, View, start_in_thread
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import DIRECTIONS_FROM_WIRE as _DIRECTIONS
from hearts.v1.codec import view_to_wire
from referee.rules import (
    DECK,
    QUEEN_OF_SPADES,
    TURBO_CARDS,
    Card,
    CardSet,
    Match,
    MoonChoice,
    Observation,
    Phase,
    Rules,
    Suit,
    Trick,
    _loader,
)
from referee.rules.cards import multiset_of

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "sdk.md").read_text()
OWNERS: dict[str, type] = {"View": View, "Rules": Rules, "CardSet": CardSet, "Trick": Trick, "Card": Card}
# What each documented view field holds, to resolve the names its table row lists (`pass_count` is a
# Rules attribute, `leader` a Trick's); a name no field's type has is the View's own (`is_leading`).
FIELD_OWNER = {
    "rules": "Rules",
    "hand": "CardSet",
    "legal": "CardSet",
    "received": "CardSet",
    "kitty": "CardSet",
    "tricks": "Trick",
    "current_trick": "Trick",
    "passed": "Card",
    "discarded": "Card",
}
OPERATORS = {"len": "__len__", "in": "__contains__"}  # the table's `len`, `in`
CONTEXT_FIELDS = ("match_id", "player_names", "budget_ms", "time_bank_ms")  # View's own fields


# -- the names docs/sdk.md gives -------------------------------------------------------------------


def _has(cls: type, attr: str) -> bool:
    """Whether instances of ``cls`` have ``attr`` (a dataclass field without a default is no class attribute)."""
    return hasattr(cls, attr) or (dataclasses.is_dataclass(cls) and attr in {f.name for f in dataclasses.fields(cls)})


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def view_table() -> list[tuple[list[str], list[str]]]:
    """The rows of the "The view" table: (the fields it names, the backticked names of its text)."""
    section = DOC.split("### The view", 1)[1]
    rows: list[tuple[list[str], list[str]]] = []
    for line in section.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        first, *rest = _cells(line)
        fields = re.findall(r"`([a-z_]+)`", first)
        if fields:
            rows.append((fields, re.findall(r"`([^`]+)`", " ".join(rest))))
    return rows


def documented_names() -> list[str]:
    """Every name docs/sdk.md gives a bot, as "Owner.attr": "View.is_leading", "Rules.may_pass_on" ..."""
    names: set[str] = set()
    for fields, tokens in view_table():
        names.update(f"View.{f}" for f in fields)
        owners = [FIELD_OWNER[f] for f in fields if f in FIELD_OWNER]
        for token in tokens:
            if m := re.fullmatch(r"card\.([a-z_]+)", token):
                names.add(f"Card.{m[1]}")
                continue
            m = re.fullmatch(r"\.?([a-z_][a-z0-9_]+)(\(.*\))?", token)
            if m is None:
                continue  # quoted values, types (`CardSet`), dotted module paths, a seat `s` in prose
            attr = OPERATORS.get(m[1], m[1])
            # The row's field types first, then the View; then Rules, for the options the text cites
            # ("under `kitty_discard`"). Nothing having it: a View name that does not exist, and fails.
            owner = next((o for o in (*owners, "View", "Rules") if _has(OWNERS[o], attr)), "View")
            names.add(f"{owner}.{attr}")
    for first, second in re.findall(r"(?<![\w/.])view\.([a-z_]+)(?:\.([a-z_]+))?", DOC):  # not clients/view.py
        names.add(f"View.{first}")
        if second:
            names.add(f"{FIELD_OWNER.get(first, 'View')}.{second}")
    names.update(f"Card.{a}" for a in re.findall(r"\b[cC]ard\.([a-z_]+)", DOC))
    if "str(card)" in DOC:
        names.add("Card.__str__")
    return sorted(names)


NAMES = documented_names()
VIEW_NAMES = [n.split(".", 1)[1] for n in NAMES if n.startswith("View.")]


# -- real views, from real positions, through the SDK ---------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    label: str
    obs: Observation  # the engine's own observation of the seat: the reference
    wire: pb.GameView  # the request's view, as the referee encoded it
    view: View  # what the SDK handed the bot
    context: dict[str, object]  # the match context encoded with it
    facts: dict[str, object]  # literal values of this position, by path from the view ("rules.target")


def _decide(match: Match) -> None:
    """One decision by a fixed policy: pass the lowest cards, seat 0 plays high and the others low (so
    seat 0 takes tricks, and sometimes every point), discard the first cards, call a split pass."""
    phase, rules = match.phase, match.rules
    if phase is Phase.PASS:
        for s in match.to_move:
            match.pass_cards(s, sorted(match.observation(s).hand, key=lambda c: c.rank)[: rules.pass_count])
    elif phase is Phase.PLAY:
        legal = match.legal_plays()
        match.play((max if match.turn == 0 else min)(legal, key=lambda c: c.rank))
    elif phase is Phase.DISCARD:
        s = match.to_move[0]
        match.discard(s, list(match.observation(s).hand)[: rules.kitty_size])
    elif phase is Phase.MOON:
        match.choose_moon(match.turn, MoonChoice.ADD_TO_OTHERS)
    elif phase is Phase.CALL:  # two cards one seat left, the last one to the right: a split
        match.call_pass(match.to_move[0], [1] * (rules.pass_count - 1) + [rules.players - 1])
    elif phase is Phase.CHARGE:  # turbo_charging: each seat charges the first chargeable card it holds
        for s in match.to_move:
            match.charge(s, [c for c in TURBO_CARDS if c in match.observation(s).hand][:1])
    else:
        raise AssertionError(f"no decision in phase {phase}")


def _reach(rules: Rules, seeds: range, want: Callable[[Match], bool], hands: int = 2) -> Match:
    """A match at the first position ``want`` accepts, within the first ``hands`` hands of some seed."""
    for seed in seeds:
        match = Match(rules, seed)
        while not match.over and match.hand_number < hands:
            if want(match):
                return match
            _decide(match)
    raise AssertionError(f"no position found under {rules.name} in seeds {seeds}")


def _trick_cards(match: Match) -> int:
    return len(match.observation(match.to_move[0]).current_trick.cards)


def _tricks(match: Match) -> int:
    return len(match.observation(match.to_move[0]).tricks)


def _playing(tricks: int, cards: int, hand: int = 0) -> Callable[[Match], bool]:
    return lambda m: (
        m.phase is Phase.PLAY and m.hand_number == hand and _tricks(m) == tricks and _trick_cards(m) == cards
    )


STANDARD = Rules.parse("standard")
KITTY = Rules(kitty="first-points", kitty_discard=True, hand_size=12)
NASTY = Rules.parse("nasty")
BOOSTER = Rules.parse("booster-nines")
TURBO = Rules.parse("turbo")


def _charged_play(m: Match) -> bool:
    """A play past trick one under turbo_charging with some card charged (the charges are public)."""
    return m.phase is Phase.PLAY and bool(m.hand.tricks) and bool(m.observation(m.turn).charges)


PARTNERS = Rules.parse("partnership-individual")


def _second_round(m: Match) -> bool:
    """The second round of a boosted trick, past trick one (booster_nines)."""
    if m.phase is not Phase.PLAY:
        return False
    o = m.observation(m.turn)
    return o.boosted and bool(o.tricks) and len(o.current_trick.cards) > 4


# label -> (rules, the position, the seat asked (None: the one to move), literal facts)
POSITIONS: dict[str, tuple[Rules, Callable[[Match], bool], int | None, dict[str, object]]] = {
    "pass": (
        STANDARD,
        lambda m: True,
        2,
        {
            "pass_direction": "left",
            "trick_number": 0,
            "is_leading": True,
            "led_suit": None,
            "players": 4,
            "hand_number": 0,
            "scores": (0, 0, 0, 0),
            "passed": (),
            "rules.pass_count": 3,
            "rules.target": 100,
            "rules.moon_total": 26,
        },
    ),
    "lead-the-first-trick": (
        STANDARD,
        _playing(0, 0),
        None,
        {"is_leading": True, "led_suit": None, "trick_number": 0, "players": 4, "hearts_broken": False},
    ),
    "follow-the-first-trick": (
        STANDARD,
        _playing(0, 2),
        None,
        {"is_leading": False, "led_suit": Suit.CLUBS, "trick_number": 0, "players": 4},
    ),
    "follow-trick-eight": (STANDARD, _playing(7, 1), None, {"is_leading": False, "trick_number": 7}),
    "lead-trick-twelve": (STANDARD, _playing(11, 0), None, {"is_leading": True, "led_suit": None, "trick_number": 11}),
    "second-hand": (
        STANDARD,
        _playing(3, 1, hand=1),
        None,
        {"hand_number": 1, "pass_direction": "right", "trick_number": 3},
    ),
    "three-players": (Rules(players=3), _playing(2, 1), None, {"players": 3, "trick_number": 2}),
    "discard-the-kitty": (KITTY, lambda m: m.phase is Phase.DISCARD, None, {}),
    "after-the-discard": (
        KITTY,
        lambda m: m.phase is Phase.PLAY and m.observation(m.turn).discarded != (),
        None,
        {"is_leading": True, "led_suit": None},
    ),  # the taker won the trick: it leads
    "choose-moon": (Rules(moon="shooter-chooses"), lambda m: m.phase is Phase.MOON, None, {"moon_points": 26}),
    "call-the-pass": (NASTY, lambda m: m.phase is Phase.CALL, None, {"pass_direction": "call", "hand": CardSet()}),
    "boosted-second-round": (BOOSTER, _second_round, None, {"boosted": True, "trick_size": 8, "is_leading": False}),
    "turbo-charge": (TURBO, lambda m: m.phase is Phase.CHARGE, None, {"charges": (), "legal": CardSet()}),
    "turbo-charged-play": (TURBO, _charged_play, None, {"rules.turbo_charging": True}),
    "partners-second-hand": (
        PARTNERS,
        lambda m: m.phase is Phase.PLAY and m.hand_number == 1 and _tricks(m) == 2 and m.turn == 1,
        None,
        {"partner": 3, "team": 1, "players": 4},
    ),
    "cancellation-on-the-table": (
        Rules.preset("cancellation"),
        lambda m: m.phase is Phase.PLAY and bool(m.observation(m.turn).table),
        None,
        {"players": 6, "is_leading": True},
    ),  # 002 Cancellation Hearts: a winnerless trick's cards wait on the table; its leader leads again
    "split-pass": (
        NASTY,
        lambda m: m.phase is Phase.PASS and m.hand.direction == "split",
        1,
        {"pass_direction": "split", "pass_offsets": (1, 1, 3)},
    ),
}


class Keeper(Bot):
    """Keeps the View of each request (by match id) and answers anything acceptable."""

    def __init__(self) -> None:
        self.views: dict[str, View] = {}

    def pass_cards(self, view: View) -> list[Card]:
        self.views[view.match_id] = view
        return list(view.hand)[: view.rules.pass_count]

    def play_card(self, view: View) -> Card:
        self.views[view.match_id] = view
        return view.legal.cards[0]

    def discard_cards(self, view: View) -> list[Card]:
        self.views[view.match_id] = view
        return list(view.hand)[: len(view.kitty)]

    def call_pass(self, view: View) -> str:
        self.views[view.match_id] = view
        return "left"

    def choose_moon(self, view: View) -> MoonChoice:
        self.views[view.match_id] = view
        return MoonChoice.ADD_TO_OTHERS

    def charge_cards(self, view: View) -> list[Card]:
        self.views[view.match_id] = view
        return []


def _ask(stub: bot_pb2_grpc.BotServiceStub, match: Match, seat: int, wire: pb.GameView) -> None:
    """The request the referee sends for this phase, so the SDK builds the View as for that call."""
    phase = match.phase
    if phase is Phase.PASS:
        stub.PassCards(pb.PassCardsRequest(view=wire), timeout=TIMEOUT_S)
    elif phase is Phase.PLAY:
        stub.PlayCard(pb.PlayCardRequest(view=wire), timeout=TIMEOUT_S)
    elif phase is Phase.DISCARD:
        stub.DiscardCards(pb.DiscardCardsRequest(view=wire, count=match.rules.kitty_size), timeout=TIMEOUT_S)
    elif phase is Phase.MOON:
        stub.ChooseMoon(
            pb.ChooseMoonRequest(view=wire, moon_points=match.observation(seat).moon_points), timeout=TIMEOUT_S
        )
    elif phase is Phase.CALL:
        stub.CallPass(pb.CallPassRequest(view=wire), timeout=TIMEOUT_S)
    elif phase is Phase.CHARGE:
        stub.ChargeCards(pb.ChargeCardsRequest(view=wire), timeout=TIMEOUT_S)
    else:
        raise AssertionError(f"no request in phase {phase}")


@pytest.fixture(scope="module")
def cases() -> Iterator[list[Case]]:
    keeper = Keeper()
    out: list[Case] = []
    with start_in_thread(keeper) as srv, grpc.insecure_channel(srv.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        for i, (label, (rules, want, seat, facts)) in enumerate(POSITIONS.items()):
            match = _reach(rules, range(1000), want)
            s = match.to_move[0] if seat is None else seat
            # Different per case, so that each context field is seen to come from its own request.
            context: dict[str, object] = {
                "match_id": label,
                "player_names": tuple(f"{label}-{p}" for p in range(rules.players)),
                "budget_ms": 100 + i,
                "time_bank_ms": 5000 + i,
            }
            obs = match.observation(s)
            wire = view_to_wire(
                obs,
                match_id=label,
                player_names=context["player_names"],
                budget_ms=100 + i,
                time_bank_ms=5000 + i,
            )
            _ask(stub, match, s, wire)
            out.append(Case(label, obs, wire, keeper.views[label], context, facts))
    yield out


# -- the checks, by documented name ---------------------------------------------------------------


def _path(view: View, path: str) -> object:
    value: object = view
    for part in path.split("."):
        value = getattr(value, part)
    return value


def _wire_cards(values: object) -> list[Card]:
    return sorted(DECK[v - 1] for v in values)


def _wire_sets(case: Case) -> list[tuple[str, CardSet, list[Card]]]:
    """Each CardSet of the view, with the cards of its wire field (read without the engine's CardSet)."""
    w, v = case.wire, case.view
    return [
        ("hand", v.hand, _wire_cards(w.hand)),
        ("legal", v.legal, _wire_cards(w.legal_cards)),
        ("received", v.received, _wire_cards(w.received_cards)),
        ("kitty", v.kitty, _wire_cards(w.kitty)),
    ]


def _wire_tricks(case: Case) -> list[tuple[Trick, pb.Trick]]:
    return [*zip(case.view.tricks, case.wire.tricks, strict=True), (case.view.current_trick, case.wire.current_trick)]


# The View's properties, worked out from the request's wire message alone.
FROM_WIRE: dict[str, Callable[[pb.GameView], object]] = {
    "trick_number": lambda w: len(w.tricks),
    "is_leading": lambda w: not w.current_trick.cards,
    "led_suit": lambda w: DECK[w.current_trick.cards[0] - 1].suit if w.current_trick.cards else None,
    "players": lambda w: w.rules.players,
    "boosted": lambda w: w.current_trick.boosted,
    "trick_size": lambda w: w.rules.players * (2 if w.current_trick.boosted else 1),
    "partner": lambda w: w.partner if w.HasField("partner") else None,
    "team_scores": lambda w: tuple(w.team_scores),
}


# The View's own methods (the SDK's, not the engine's): checked against the engine by what they give.
SDK_METHODS = {"sample_worlds"}


def _check_sample_worlds(case: Case) -> None:
    """Each world the view samples replays, in the engine, to this very seat's observation."""
    import random

    if case.obs.phase.value == "call":  # before the deal: no cards to sample, and it says so
        with pytest.raises(ValueError, match="call phase"):
            case.view.sample_worlds(3, random.Random(7))
        return
    if case.view.rules.packs == 2:  # the sampler deals one pack, and says so
        with pytest.raises(ValueError, match="two packs"):
            case.view.sample_worlds(3, random.Random(7))
        return
    worlds = case.view.sample_worlds(3, random.Random(7))
    assert len(worlds) == 3
    if case.obs.phase.value not in ("pass", "play", "discard", "charge"):
        return  # the moon's choice: every card is played, nothing left to simulate
    for w in worlds:
        got = w.to_match().observation(case.obs.seat)
        for f in (
            "hand",
            "tricks",
            "current_trick",
            "hearts_broken",
            "legal",
            "kitty_taker",
            "kitty",
            "discarded",
            "charges",
            "phase",
        ):
            assert getattr(got, f) == getattr(case.obs, f), f"View.sample_worlds: a world's {f} is not the view's"


def check_view_name(case: Case, name: str) -> None:
    if name in SDK_METHODS:
        _check_sample_worlds(case)
        return
    value = getattr(case.view, name)
    if name in CONTEXT_FIELDS:
        expected = case.context[name]
    elif name in {f.name for f in dataclasses.fields(Observation)} or hasattr(Observation, name):
        expected = getattr(case.obs, name)  # an exact Observation: its compiled properties work
    else:
        raise AssertionError(
            f"View.{name} is documented, but neither the engine's Observation nor the "
            f"match context has it to check it against"
        )
    assert value == expected, f"View.{name} is {value!r}, the engine says {expected!r}"
    if name in FROM_WIRE:
        assert value == FROM_WIRE[name](case.wire), f"View.{name} is {value!r}; the request says otherwise"
    if name == "is_leading":
        assert value is True or value is False


def check_rules_attr(case: Case, attr: str) -> None:
    assert not callable(getattr(Rules, attr, None)), f"Rules.{attr} is a method: give it a check in CHECKS"
    assert getattr(case.view.rules, attr) == getattr(case.obs.rules, attr), f"Rules.{attr}"


def check_may_pass_on(case: Case) -> None:
    for direction in (*_DIRECTIONS.values(), case.view.pass_direction):
        assert case.view.rules.may_pass_on(direction) == case.obs.rules.may_pass_on(direction), direction
    assert case.view.rules.may_pass_on(case.view.pass_direction) is (
        case.view.rules.pass_on and case.view.pass_direction in ("left", "right", "across", "left2", "right2")
    )


def check_len(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        assert len(cs) == len(cards), field


def check_contains(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        assert [c for c in DECK if c in cs] == list(dict.fromkeys(cards)), field  # two packs: a card twice
        assert "QS" not in cs and None not in cs  # only cards are members


def check_iter(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        assert list(cs) == cards, field


def check_of_suit(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        for suit in Suit:
            part = cs.of_suit(suit)
            assert isinstance(part, CardSet) and list(part) == [c for c in cards if c.suit is suit], (field, suit)


def check_cards(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        assert cs.cards == tuple(cards), field  # sorted: clubs to hearts, 2 to ace


def check_mask(case: Case) -> None:
    for field, cs, cards in _wire_sets(case):
        assert cs.mask == multiset_of(cards), field  # one pack: the bits of the cards; two: a card twice, bit 52 + i


def _winner(trick: pb.Trick, players: int) -> int | None:
    """Who takes the trick: the highest card of the suit led (Hearts has no trumps); with two packs (more
    than five seats) of those not played twice, none when every one was (002 Cancellation Hearts)."""
    cards = [DECK[v - 1] for v in trick.cards]
    led = [c for c in cards if c.suit is cards[0].suit and not (players > 5 and cards.count(c) > 1)]
    if not led:
        return None
    best = max(led, key=lambda c: c.rank)
    return (trick.leader + cards.index(best)) % players


def check_leader(case: Case) -> None:
    for t, w in _wire_tricks(case):
        assert t.leader == w.leader
    # the winner of a trick leads the next; after one with no winner (two packs), the same player again
    winners = [t.winner if t.winner is not None else t.leader for t in case.view.tricks]
    leaders = [t.leader for t in (*case.view.tricks, case.view.current_trick)]
    assert leaders[1:] == winners


def check_trick_cards(case: Case) -> None:
    for t, w in _wire_tricks(case):
        assert t.cards == tuple(DECK[v - 1] for v in w.cards)
        assert all(isinstance(c, Card) for c in t.cards)


def check_winner(case: Case) -> None:
    players = case.wire.rules.players
    for t, w in _wire_tricks(case)[:-1]:
        assert t.winner == (w.winner if w.HasField("winner") else None) == _winner(w, players)
        assert w.no_winner == (t.winner is None)
    assert case.view.current_trick.winner is None


RANKS = {"J": 11, "Q": 12, "K": 13, "A": 14}
SUITS = {"C": (Suit.CLUBS, "♣"), "D": (Suit.DIAMONDS, "♦"), "S": (Suit.SPADES, "♠"), "H": (Suit.HEARTS, "♥")}


def _case_cards(case: Case) -> list[Card]:
    return [*case.view.hand, *case.view.passed, *case.view.discarded, QUEEN_OF_SPADES]


def check_card_text(case: Case) -> None:
    for c in _case_cards(case):
        assert str(c) == str(DECK[c.index]) and str(c)[-1] in SUITS
    assert str(QUEEN_OF_SPADES) == "QS"


def check_card_suit(case: Case) -> None:
    for c in _case_cards(case):
        assert c.suit is SUITS[str(c)[-1]][0]
    assert QUEEN_OF_SPADES.suit is Suit.SPADES


def check_card_rank(case: Case) -> None:
    for c in _case_cards(case):
        text = str(c)[:-1]
        assert c.rank == RANKS.get(text) or c.rank == int(text)
        assert 2 <= c.rank <= 14
    assert QUEEN_OF_SPADES.rank == 12


def check_card_index(case: Case) -> None:
    wire_values = {*case.wire.hand, *case.wire.passed_cards}
    for c in case.view.hand:
        assert DECK[c.index] is c and c.index + 1 in wire_values
    assert case.view.rules.card_points[QUEEN_OF_SPADES.index] == case.obs.rules.points_of(QUEEN_OF_SPADES)


def check_card_symbol(case: Case) -> None:
    for c in _case_cards(case):
        assert c.symbol == str(c)[:-1] + SUITS[str(c)[-1]][1]
    assert QUEEN_OF_SPADES.symbol == "Q♠"


def check_card_parse(case: Case) -> None:
    for c in _case_cards(case):
        assert Card.parse(str(c)) is c
    assert Card.parse("QS") is QUEEN_OF_SPADES and Card.parse("10H") is DECK[-5]


CHECKS: dict[str, Callable[[Case], None]] = {
    "Rules.may_pass_on": check_may_pass_on,
    "CardSet.__len__": check_len,
    "CardSet.__contains__": check_contains,
    "CardSet.__iter__": check_iter,
    "CardSet.of_suit": check_of_suit,
    "CardSet.cards": check_cards,
    "CardSet.mask": check_mask,
    "Trick.leader": check_leader,
    "Trick.cards": check_trick_cards,
    "Trick.winner": check_winner,
    "Card.__str__": check_card_text,
    "Card.suit": check_card_suit,
    "Card.rank": check_card_rank,
    "Card.index": check_card_index,
    "Card.symbol": check_card_symbol,
    "Card.parse": check_card_parse,
}


def check(name: str) -> Callable[[Case], None] | None:
    """The check of a documented name; None if this file has none (a Rules method, a new CardSet name)."""
    owner, attr = name.split(".", 1)
    if name in CHECKS:
        return CHECKS[name]
    if owner == "View":
        return lambda case: check_view_name(case, attr)
    if owner == "Rules" and _has(Rules, attr) and not callable(getattr(Rules, attr, None)):
        return lambda case: check_rules_attr(case, attr)
    return None


# -- the tests -------------------------------------------------------------------------------------


def test_the_docs_are_read() -> None:
    """The parse finds the names a bot uses most (a changed table layout must not check nothing)."""
    expected = {
        "View.is_leading",
        "View.led_suit",
        "View.trick_number",
        "View.players",
        "View.hand",
        "View.legal",
        "View.tricks",
        "View.current_trick",
        "View.rules",
        "View.budget_ms",
        "View.pass_offsets",
        "Rules.pass_count",
        "Rules.may_pass_on",
        "CardSet.of_suit",
        "CardSet.__contains__",
        "Trick.winner",
        "Card.parse",
        "Card.symbol",
    }
    assert expected <= set(NAMES), expected - set(NAMES)


def test_every_documented_name_has_a_check() -> None:
    unchecked = [n for n in NAMES if check(n) is None]
    assert not unchecked, f"docs/sdk.md names {unchecked}: add a check of each to CHECKS in this file"


def test_the_documented_pass_directions_are_those_the_view_gives() -> None:
    row = next(tokens for fields, tokens in view_table() if fields == ["pass_direction"])
    documented = {t.strip('"') for t in row if t.startswith('"')}
    assert documented == set(_DIRECTIONS.values())


@pytest.mark.parametrize("name", NAMES)
def test_a_documented_name_works_on_every_view(name: str, cases: list[Case]) -> None:
    owner, attr = name.split(".", 1)
    assert _has(OWNERS[owner], attr), f"docs/sdk.md names {name}, which does not exist"
    run = check(name)
    assert run is not None, f"no check for {name}"
    for case in cases:
        try:
            run(case)
        except Exception as e:
            raise AssertionError(
                f"{name} on the {case.label!r} view ({referee.rules.ENGINE} engine): {type(e).__name__}: {e}"
            ) from e


def test_the_positions_state_the_facts(cases: list[Case]) -> None:
    for case in cases:
        for path, expected in case.facts.items():
            assert _path(case.view, path) == expected, (case.label, path)


@pytest.mark.parametrize("name", VIEW_NAMES)
def test_the_positions_show_each_view_name_taking_different_values(name: str, cases: list[Case]) -> None:
    """So no name is checked only at its default (an empty kitty, no moon points, no offsets)."""
    values = [getattr(c.view, name) for c in cases]
    assert any(v != values[0] for v in values), f"View.{name} is {values[0]!r} in every position"


def test_every_property_of_the_engines_observation_works_on_a_view(cases: list[Case]) -> None:
    """A View is an Observation: a property the engine adds there reaches bots too, documented or not
    (compiled, it raises on a View unless clients/view.py restates it)."""
    properties = [n for n, v in vars(Observation).items() if isinstance(v, property)]
    assert {"is_leading", "led_suit", "trick_number", "players"} <= set(properties)
    for case in cases:
        for name in properties:
            assert getattr(case.view, name) == getattr(case.obs, name), (case.label, name)


class FromTheDocs(Bot):
    """A newcomer's first bot: it reads every documented name of the view on every request."""

    def pass_cards(self, view: View) -> list[Card]:
        for name in VIEW_NAMES:
            getattr(view, name)
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    def play_card(self, view: View) -> Card:
        for name in VIEW_NAMES:
            getattr(view, name)
        assert view.trick_number == len(view.tricks) and view.players == view.rules.players
        if view.is_leading:
            return min(view.legal, key=lambda c: c.rank)
        follow = view.legal.of_suit(view.led_suit)
        return min(follow or view.legal, key=lambda c: c.rank)


def test_a_bot_written_from_the_docs_plays_whole_hands() -> None:
    """Over gRPC, as the referee asks: a View the compiled engine's properties refused would fault every play."""
    with start_in_thread(FromTheDocs()) as srv, grpc.insecure_channel(srv.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        tally = Tally()
        match = play_match(STANDARD, 5, [stub] * 4, tally, max_hands=2)
    assert match.hand_number == 2 and tally.requests["play"] == 104


def test_the_checks_run_on_the_engine_expected() -> None:
    """The subprocess below sets HEARTS_EXPECT_ENGINE (so does ``make test``): the engine must be that one."""
    expected = os.environ.get("HEARTS_EXPECT_ENGINE")
    if not expected:
        pytest.skip("HEARTS_EXPECT_ENGINE not set")
    assert referee.rules.ENGINE == expected, referee.rules.ENGINE_REASON


def _engine_env(engine: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (_loader.PURE_ENV, "HEARTS_EXPECT_ENGINE")}
    if engine == "pure":
        env[_loader.PURE_ENV] = "1"
    return env


@pytest.mark.slow
def test_every_check_passes_on_the_other_engine() -> None:
    """This file again in a subprocess on the engine this process does not run (a compiled build only
    when one can be loaded: after ``make engine``, and while it matches the sources)."""
    other = "pure" if referee.rules.ENGINE == "compiled" else "compiled"
    env = _engine_env(other)
    if other == "compiled":
        files, why = _loader.check_build()
        if files is None:
            pytest.skip(f"no compiled engine can be loaded ({why}): `make engine` builds it")
        probe = subprocess.run(
            [sys.executable, "-c", "import referee.rules as r; print(r.ENGINE, r.ENGINE_REASON)"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if not probe.stdout.startswith("compiled"):
            pytest.skip(f"the compiled engine does not load: {probe.stdout.strip()} {probe.stderr.strip()}")
    env["HEARTS_EXPECT_ENGINE"] = other
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k", "not other_engine"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, f"on the {other} engine:\n{out.stdout[-6000:]}\n{out.stderr[-2000:]}"
    assert " passed" in out.stdout and "skipped" not in out.stdout.splitlines()[-1], out.stdout[-2000:]
