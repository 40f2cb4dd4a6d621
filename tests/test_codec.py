"""The codec of hearts.v1 follows bot.proto and the option table as they stand.

Every field tag the fast encoder writes is read from the generated descriptors and checked here
against what protobuf itself writes; every rule option reaches the wire from its one declaration;
the declared defaults are the engine's.
"""

from __future__ import annotations

import dataclasses

import pytest

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.rules import OPTIONS, PRESETS, Rules

VIEW_FIELDS = (
    "hand",
    "passed_cards",
    "received_cards",
    "tricks",
    "current_trick",
    "legal_cards",
    "budget_ms",
    "time_bank_ms",
    "dealer",
    "kitty_taker",
    "kitty",
    "discarded",
    "pass_offsets",
    "hearts_broken",
    "table",
)


@pytest.mark.parametrize(
    "message, name",
    [(pb.GameView, n) for n in VIEW_FIELDS]
    + [(pb.Trick, n) for n in ("leader", "cards", "winner", "boosted", "cancelled", "no_winner")]
    + [
        (r, "view")
        for r in (
            pb.PassCardsRequest,
            pb.PlayCardRequest,
            pb.DiscardCardsRequest,
            pb.ChooseMoonRequest,
            pb.CallPassRequest,
        )
    ],
)
def test_each_tag_the_encoder_writes_is_the_one_protobuf_writes(message: type, name: str) -> None:
    f = message.DESCRIPTOR.fields_by_name[name]
    m = message()
    if f.type == f.TYPE_MESSAGE and f.is_repeated:
        getattr(m, name).add()
    elif f.type == f.TYPE_MESSAGE:
        getattr(m, name).SetInParent()
    elif f.is_repeated:
        getattr(m, name).append(1)
    elif f.type == f.TYPE_BOOL:
        setattr(m, name, True)
    else:
        setattr(m, name, 1)
    assert m.SerializeToString().startswith(codec.field_tag(message, name))


def test_every_option_has_its_wire_field_and_every_field_is_an_options_or_derived() -> None:
    rules_fields = set(pb.Rules.DESCRIPTOR.fields_by_name)
    option_fields = {wire for wire, _, _ in codec.OPTION_FIELDS.values()}
    assert list(codec.OPTION_FIELDS) == [o.name for o in OPTIONS]
    assert option_fields <= rules_fields, option_fields - rules_fields
    assert rules_fields == option_fields | set(codec.DERIVED_RULES_FIELDS), rules_fields ^ (
        option_fields | set(codec.DERIVED_RULES_FIELDS)
    )


def test_each_options_declared_default_is_the_engines() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(Rules)}
    for o in OPTIONS:
        assert o.default == fields[o.name], o.name


@pytest.mark.parametrize(
    "text",
    [
        *PRESETS,
        "standard,players=3",
        "standard,players=5,pass_cycle=five-player",
        "standard,kitty=first-trick,hand_size=12,kitty_discard=true",
        "omnibus,exact_target_reset=50",
        "standard,bonus_card=TD,bonus_points=-5",
        "standard,pass_cycle=call",
        "standard,exact_target_reset=0",
        "spot,exact_target_reset=250,exact_reset_at=500",
        "booster-nines",
        "booster-nines,players=5",
        "omnibus,ten_of_clubs_doubles=true",
        "cancellation,players=10",
        "cancellation,players=7,pass_cycle=left-right-hold,kitty=first-points",
    ],
)
def test_rules_cross_the_wire_and_back_unchanged(text: str) -> None:
    rules = Rules.parse(text)
    msg = codec.rules_to_wire(rules)
    again = pb.Rules.FromString(msg.SerializeToString())
    assert codec.rules_from_wire(again) == rules
    assert again.preset == rules.name and again.moon_points == rules.moon_total


def test_only_boosted_tricks_carry_the_boosted_field() -> None:
    """A rule set without booster_nines sends the bytes it always did: Trick.boosted is written only for
    a trick a nine boosted (002 Booster Nines), in progress or completed."""
    from referee.rules import Card, Match, Trick
    from referee.rules.state import Observation

    trick = Trick(1, tuple(Card.parse(c) for c in "9D 3D 5D 6D KD 4D AD 7D".split()), 3)
    assert codec.trick_to_wire(trick, players=4).boosted
    assert not codec.trick_to_wire(trick._replace(cards=trick.cards[:4]), players=4).boosted
    assert b"\x20" not in codec.trick_to_wire(trick._replace(cards=trick.cards[:4]), players=4).SerializeToString()
    m = Match(Rules.preset("booster-nines"), 0)
    obs: Observation = m.observation(0)
    assert not obs.boosted
    wire = codec.view_to_wire(obs, match_id="m", player_names=["a", "b", "c", "d"], budget_ms=1, time_bank_ms=0)
    assert wire.rules.booster_nines and not wire.current_trick.boosted
    assert not codec.rules_to_wire(Rules()).booster_nines


def test_two_packs_cross_the_wire_a_card_held_twice_listed_twice() -> None:
    """002 Cancellation Hearts: 'two 52-card packs shuffled together': a hand holding a card twice lists it
    twice (the fast encoder too), a completed trick names its cancelled cards and, when no card of the suit
    led stood alone, says it has no winner; its cards are on the table until the next trick is won. One-pack
    rulesets carry none of these fields."""
    from clients.view import view_from_wire
    from referee.rules import Match, Phase
    from referee.rules.cards import CardMultiset, parse_cards
    from referee.rules.state import Deal, Hand

    rules = Rules.preset("cancellation")
    hands = ("7S 4D 4D", "7S 5D 3C", "9S 6D 4C", "9S 7D 5C", "2D 8D 6C", "2H 9D 7C")
    m = Match(rules, 0)
    m.hand = Hand(rules, Deal(0, tuple(CardMultiset(parse_cards(h)) for h in hands), CardMultiset()), "hold", 5)
    names = [f"b{i}" for i in range(6)]
    encoder = codec.ViewEncoder("m", names, 100)
    for card in "7S 7S 9S 9S 2D 2H 4D".split():
        obs = m.observation(m.turn)
        ref = codec.view_to_wire_reference(obs, match_id="m", player_names=names, budget_ms=100, time_bank_ms=0)
        assert encoder.encode(obs, 0) == ref.SerializeToString()
        view = view_from_wire(pb.GameView.FromString(encoder.encode(obs, 0)), Phase.PLAY)
        assert list(view.hand) == list(obs.hand) and view.table == obs.table and view.legal == obs.legal
        m.play(card)
    obs = m.observation(0)
    wire = codec.view_to_wire(obs, match_id="m", player_names=names, budget_ms=100, time_bank_ms=0)
    assert [codec.card_from_wire(v).__str__() for v in wire.hand] == ["4D"]
    (t,) = wire.tricks
    assert t.no_winner and not t.HasField("winner")
    assert [str(codec.card_from_wire(v)) for v in t.cancelled] == ["7S", "9S"]
    assert sorted(str(codec.card_from_wire(v)) for v in wire.table) == sorted("7S 7S 9S 9S 2D 2H".split())
    first = codec.view_to_wire(m.observation(1), match_id="m", player_names=names, budget_ms=1, time_bank_ms=0)
    assert first.rules.packs == 2
    obs = Match(Rules(), 0).observation(0)
    one = codec.view_to_wire(obs, match_id="m", player_names=names[:4], budget_ms=1, time_bank_ms=0)
    assert one.rules.packs == 0 and not one.table
    done = codec.trick_to_wire(m.hand.tricks[0], players=4)
    assert not done.cancelled and not done.no_winner  # one pack: never set
    assert codec.cards_from_wire([5, 5, 9]) == CardMultiset(parse_cards("6C 6C 10C"))
