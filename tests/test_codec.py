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
    "charges",
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
            pb.ChargeCardsRequest,
        )
    ]
    + [(pb.Charge, n) for n in ("seat", "card")],
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
        "turbo",
        "turbo,turbo_charges=any,charged_singleton=may-slough",
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


def test_turbo_charging_crosses_the_wire_only_where_it_is_played() -> None:
    """002 Turbo Hearts: 'They do this by placing the card face up in front of them.' GameView.charges
    carries every charge both ways; the Rules fields of turbo-charging are unset without it."""
    from clients.view import view_from_wire
    from referee.rules import TURBO_CARDS, Card, Match, Phase

    plain = codec.rules_to_wire(Rules.preset("omnibus", ten_of_clubs_doubles=True))
    assert not plain.turbo_charging and not plain.turbo_charges and not plain.charged_singleton
    turbo = codec.rules_to_wire(Rules.preset("turbo", turbo_charges="any"))
    assert turbo.turbo_charging and turbo.turbo_charges == "any" and turbo.charged_singleton == "must-play"
    m = Match(Rules.preset("turbo", pass_cycle="hold", turbo_charges="any"), 4)
    charged = {}
    for s in range(4):
        held = [c for c in m.observation(s).hand if c in TURBO_CARDS]
        m.charge(s, held)
        charged.update({c: s for c in held})
    obs = m.observation(1)
    assert m.phase is Phase.PLAY and len(obs.charges) == len(charged) == 4
    wire = codec.view_to_wire(obs, match_id="m", player_names=["a", "b", "c", "d"], budget_ms=1, time_bank_ms=0)
    assert {(c.seat, c.card) for c in wire.charges} == {(s, c.index + 1) for c, s in charged.items()}
    assert codec.charges_from_wire(wire) == obs.charges
    assert view_from_wire(pb.GameView.FromString(wire.SerializeToString()), Phase.PLAY).charges == obs.charges
    with pytest.raises(ValueError):
        codec.charges_from_wire(pb.GameView(charges=[pb.Charge(seat=1, card=0)]))
    assert Card.parse("QS") in charged


@pytest.mark.parametrize("text", ["partnership", "partnership-individual", "partnership,pass_cycle=across"])
def test_partnership_rules_cross_the_wire_and_back(text: str) -> None:
    """Rules.partnership (field 34) names the form; rulesets without partners never write it."""
    rules = Rules.parse(text)
    msg = pb.Rules.FromString(codec.rules_to_wire(rules).SerializeToString())
    assert msg.partnership == rules.partnership and codec.rules_from_wire(msg) == rules
    assert not codec.rules_to_wire(Rules()).partnership
    assert b"\x92\x02" not in codec.rules_to_wire(Rules()).SerializeToString()  # field 34, length-delimited


def test_partnership_view_hand_and_match_fields_both_ways() -> None:
    """GameView.partner/team_scores (24, 25), HandScored.team_hand_score/team_totals (7, 8) and
    MatchOver.teams/team_totals (4, 5) carry the teams under partnership, decode into the SDK's View
    and Notification, and stay absent otherwise."""
    from clients.sdk import notification_from_wire
    from clients.view import view_from_wire
    from referee.rules import HandResult, Match, Phase

    for preset, teams in (("partnership", (-10, 40)), ("partnership-individual", (50, 40))):
        rules = Rules.preset(preset)
        m = Match(rules, 0)
        m.scores = [-10, 40, -10, 40] if preset == "partnership" else [20, 15, 30, 25]
        obs = m.observation(3)
        wire = codec.view_to_wire(obs, match_id="m", player_names=list("abcd"), budget_ms=1, time_bank_ms=0)
        again = pb.GameView.FromString(wire.SerializeToString())
        assert again.HasField("partner") and again.partner == 1 and tuple(again.team_scores) == teams
        view = view_from_wire(again, Phase.PASS)
        assert view.partner == 1 and view.team_scores == teams and view.team == 1
        result = HandResult(0, "left", (13, 0, 13, 0), (7, 0, 6, 0), (26, 0, 26, 0), (26, 0, 26, 0))
        if preset == "partnership-individual":
            result = HandResult(0, "left", (13, 0, 13, 0), (7, 0, 6, 0), (13, 0, 13, 0), (13, 0, 13, 0))
        scored = codec.hand_scored_to_wire(result, rules)
        n = notification_from_wire(pb.NotifyRequest(match_id="m", seat=0, hand_scored=scored))
        assert n.team_hand_score == (26, 0) and n.team_totals == (26, 0)
        over = codec.match_over_to_wire(rules, [105, 78, 34, 69], [1, 3, 1, 3], [])
        n = notification_from_wire(pb.NotifyRequest(match_id="m", seat=0, match_over=over))
        assert n.teams == (0, 1, 0, 1)
        assert n.team_totals == ((105, 78) if preset == "partnership" else (139, 147))
    m = Match(Rules(), 0)
    wire = codec.view_to_wire(m.observation(0), match_id="m", player_names=list("abcd"), budget_ms=1, time_bank_ms=0)
    assert not wire.HasField("partner") and not wire.team_scores
    result = HandResult(0, "left", (13, 0, 13, 0), (7, 0, 6, 0), (13, 0, 13, 0), (13, 0, 13, 0))
    assert not codec.hand_scored_to_wire(result, Rules()).team_totals
    assert not codec.match_over_to_wire(Rules(), [1, 2, 3, 4], [1, 2, 3, 4], []).teams


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
