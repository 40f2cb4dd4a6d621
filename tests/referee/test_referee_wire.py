"""The fast request builders equal the plain one, field for field and byte for byte.

``view_to_wire`` builds the message; ``ViewEncoder`` (what gRPC seats are sent) writes its bytes
directly, so a change of the .proto that it does not follow fails here.
"""

from __future__ import annotations

import random

import pytest

from hearts.v1 import codec
from referee.rules import TURBO_CARDS, Match, Phase, Rules

SPECS = [
    "standard",
    "omnibus,moon=shooter-chooses,sun_points=52",
    "standard,kitty=first-trick,hand_size=12",
    "standard,players=3",
    "standard,players=5",
    "standard,pass_cycle=mix",
    "standard,pass_cycle=scatter",
    "booster-nines",  # boosted tricks: Trick.boosted on the trick in progress and on completed ones
    "booster-nines,players=3,moon=shooter-chooses",
    "turbo",  # GameView.charges: the seat's own during the charge, every seat's after
    "turbo,turbo_charges=any,charged_singleton=may-slough,players=5",
    "partnership",  # GameView.partner and team_scores (negative team totals after a slam subtracted)
    "partnership-individual,pass_cycle=across",
    "cancellation",  # two packs: hands listing a card twice, cancelled cards, winnerless tricks, the table
    "cancellation,players=10,pass_cycle=left-right-hold",
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.slow
def test_view_to_wire_equals_the_reference_builder_in_every_state(spec: str) -> None:
    rules = Rules.parse(spec)
    names = [f"bot{i}" for i in range(rules.players)]
    checked = 0
    for seed in range(2):
        m, rng = Match(rules, seed), random.Random(seed)
        encoder = codec.ViewEncoder(f"m{seed}", names, 100)
        while not m.over:
            for s in range(rules.players):
                o = m.observation(s)
                args = {"match_id": f"m{seed}", "player_names": names, "budget_ms": 100, "time_bank_ms": seed}
                a, b = codec.view_to_wire_reference(o, **args), codec.view_to_wire(o, **args)
                assert a == b
                assert a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)
                assert encoder.encode(o, seed) == a.SerializeToString(deterministic=True)
                bank = rng.choice([0, 1, 300, 10_000, 2**20])  # one-, two- and three-byte varints
                args["time_bank_ms"] = bank
                assert encoder.encode(o, bank) == codec.view_to_wire_reference(o, **args).SerializeToString()
                checked += 1
            if m.phase is Phase.PASS:
                for s in m.to_move:
                    m.pass_cards(s, rng.sample(m.observation(s).hand.cards, rules.pass_count))
            elif m.phase is Phase.MOON:
                m.choose_moon(m.turn, rng.choice(["add-to-others", "subtract-from-shooter"]))
            elif m.phase is Phase.CHARGE:  # turbo_charging: a seat at a time, so a view shows one charge
                s = m.to_move[0]
                held = [c for c in m.observation(s).hand if c in TURBO_CARDS]
                m.charge(s, held if rules.turbo_charges == "any" else held[:1])
            else:
                m.play(rng.choice(m.legal_plays().cards))
    assert checked > 300
