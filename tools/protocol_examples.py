"""Write proto/hearts/v1/examples/<RPC>.json, one sample request of each hearts.v1.BotService RPC
(shipped in the package: `hearts proto --examples` prints the folder).

Each is what the referee would send at a real position of an engine match (hearts.v1.codec from
``referee.rules.Match``), in the proto3 JSON mapping, so that any bot can be tried by hand:

    grpcurl -plaintext -d @ localhost:50051 hearts.v1.BotService/PlayCard < "$(hearts proto --examples)/PlayCard.json"

    python tools/protocol_examples.py [--check]

``--check`` writes nothing and exits 1 if a committed file differs from what this generates
(tests/test_protocol_examples.py checks the same, so the samples cannot go stale).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from google.protobuf import json_format
from google.protobuf.message import Message

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.rules import TURBO_CARDS, Card, Match, MoonChoice, Phase, Rules

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "proto" / "hearts" / "v1" / "examples"
NAMES = [f"p{s}" for s in range(4)]


def _view(match: Match, seat: int, match_id: str) -> pb.GameView:
    return codec.view_to_wire(
        match.observation(seat), match_id=match_id, player_names=NAMES, budget_ms=1000, time_bank_ms=10_000
    )


def _lowest(match: Match) -> Card:
    return min(match.legal_plays(), key=lambda c: (c.index % 13, c.index))


def _highest(match: Match) -> Card:
    return max(match.legal_plays(), key=lambda c: (c.index % 13, c.index))


def _pass_highest(match: Match) -> None:
    for seat in match.to_move:
        hand = sorted(match.observation(seat).hand, key=lambda c: (c.index % 13, c.index))
        match.pass_cards(seat, hand[-match.rules.pass_count :])


def _until(match: Match, done: Callable[[Match], bool], play: Callable[[Match], Card] = _lowest) -> Match:
    """Play on (highest cards passed, lowest legal card played) until ``done``."""
    while not done(match):
        if match.phase is Phase.PASS:
            _pass_highest(match)
        elif match.phase is Phase.PLAY:
            match.play(play(match))
        else:
            raise AssertionError(f"unexpected phase {match.phase}")
    return match


def _moon_match() -> Match:
    """The first match (by seed) in which a seat shoots the moon in hand 0, without passing, when one
    seat plays its highest legal card and the others their lowest."""
    for seed in range(1000):
        for high in range(4):
            match = Match(Rules(moon="shooter-chooses", pass_cycle=("hold",)), seed=seed)
            _until(
                match,
                lambda m: m.phase in (Phase.MOON, Phase.OVER) or m.hand_number > 0,
                lambda m, high=high: _highest(m) if m.turn == high else _lowest(m),
            )
            if match.phase is Phase.MOON:
                return match
    raise AssertionError("no seed below 1000 gives a moon")


def examples() -> dict[str, Message]:
    """The request of each RPC, by RPC name (the order of bot.proto's service)."""
    out: dict[str, Message] = {"Handshake": codec.handshake_request("hearts-arena")}

    standard = Match(Rules(), seed=1)
    out["PassCards"] = pb.PassCardsRequest(view=_view(standard, 0, "example-pass"))
    # Hand 0 after the pass: three tricks played and two cards of the fourth.
    _until(standard, lambda m: m.phase is Phase.PLAY and len(m.observation(m.turn).tricks) == 3)
    _until(standard, lambda m: len(m.observation(m.turn).current_trick.cards) == 2)
    out["PlayCard"] = pb.PlayCardRequest(view=_view(standard, standard.turn, "example-play"))

    moon = _moon_match()
    shooter = moon.to_move[0]
    out["ChooseMoon"] = pb.ChooseMoonRequest(
        view=_view(moon, shooter, "example-moon"), moon_points=moon.observation(shooter).moon_points, sun=False
    )

    called = Match(Rules(pass_cycle=("call",)), seed=1)
    assert called.phase is Phase.CALL
    dealer = called.to_move[0]
    out["CallPass"] = pb.CallPassRequest(view=_view(called, dealer, "example-call"))

    kitty = Match(Rules(kitty="first-points", kitty_discard=True, hand_size=12, target=60), seed=1)
    _until(kitty, lambda m: m.phase is Phase.DISCARD)
    taker = kitty.to_move[0]
    out["DiscardCards"] = pb.DiscardCardsRequest(
        view=_view(kitty, taker, "example-discard"), count=len(kitty.observation(taker).kitty)
    )

    # Turbo Hearts: after the pass, the charge; the seat asked holds a card it may charge.
    turbo = Match(Rules.preset("turbo"), seed=1)
    _pass_highest(turbo)
    assert turbo.phase is Phase.CHARGE
    charger = next(s for s in turbo.to_move if any(c in turbo.observation(s).hand for c in TURBO_CARDS))
    out["ChargeCards"] = pb.ChargeCardsRequest(view=_view(turbo, charger, "example-charge"))

    moon.choose_moon(shooter, MoonChoice.ADD_TO_OTHERS)
    out["Notify"] = pb.NotifyRequest(
        match_id="example-moon", seat=(shooter + 1) % 4, hand_scored=codec.hand_scored_to_wire(moon.results[0])
    )
    return out


def render(message: Message) -> str:
    """The proto3 JSON mapping (lowerCamelCase names, enum names), as grpcurl and json_format read it."""
    return json_format.MessageToJson(message, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed sample is stale; write nothing")
    args = parser.parse_args(argv)
    stale = []
    for rpc, message in examples().items():
        path, text = OUT / f"{rpc}.json", render(message)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for path in stale:
        print(f"stale: {path} (run python tools/protocol_examples.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
