"""The bot's view: a hearts.v1 GameView turned into plain Python values on the engine's types.

Bots never touch protobuf: they receive a ``View`` (an engine ``Observation`` plus the match id,
the players' names and the clock) and answer with engine ``Card`` values.
"""

from __future__ import annotations

from dataclasses import dataclass

from hearts.v1 import bot_pb2 as pb
from referee.rules import Card, CardSet, Observation, Phase, Rules, Suit, Trick
from referee.rules.cards import DECK

_DIRECTIONS = {
    pb.PASS_DIRECTION_LEFT: "left",
    pb.PASS_DIRECTION_RIGHT: "right",
    pb.PASS_DIRECTION_ACROSS: "across",
    pb.PASS_DIRECTION_HOLD: "hold",
    pb.PASS_DIRECTION_SCATTER: "scatter",
    pb.PASS_DIRECTION_MIX: "mix",
    pb.PASS_DIRECTION_LEFT_TWO: "left2",
    pb.PASS_DIRECTION_RIGHT_TWO: "right2",
    pb.PASS_DIRECTION_CALL: "call",
    pb.PASS_DIRECTION_SPLIT: "split",
}


@dataclass(frozen=True)
class View(Observation):
    """What the bot's seat may know at a decision, with the match context and its clock."""

    match_id: str = ""
    player_names: tuple[str, ...] = ()
    budget_ms: int = 0
    time_bank_ms: int = 0

    # Observation's own properties, restated: compiled by mypyc (make engine), they check that
    # ``self`` is exactly an Observation and raise TypeError on a View, so a bot must never reach them.
    @property
    def trick_number(self) -> int:
        """How many tricks of this hand are complete (0 during the first)."""
        return len(self.tricks)

    @property
    def is_leading(self) -> bool:
        """Whether the trick in progress has no card yet (this seat leads it, when asked to play)."""
        return not self.current_trick.cards

    @property
    def led_suit(self) -> Suit | None:
        """The suit of the trick in progress, None before its first card."""
        cards = self.current_trick.cards
        return cards[0].suit if cards else None

    @property
    def players(self) -> int:
        """The number of seats at the table."""
        return self.rules.players


def _cards(values: object) -> CardSet:
    m = 0
    for v in values:  # type: ignore[attr-defined]
        m |= 1 << (v - 1)
    return CardSet(m)


def card_to_wire(card: Card) -> int:
    return card.index + 1


def card_from_wire(value: int) -> Card:
    if not 1 <= value <= 52:
        raise ValueError(f"not a card: enum value {value} (expected 1..52)")
    return DECK[value - 1]


_RULES_CACHE: dict[bytes, Rules] = {}


def rules_from_wire(msg: pb.Rules) -> Rules:
    key = msg.SerializeToString(deterministic=True)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = Rules(
            players=msg.players,
            removed_cards=tuple(card_from_wire(v) for v in msg.removed_cards),
            kitty=msg.kitty or "none",
            hand_size=msg.cards_per_player or None,
            pass_cycle=tuple(_DIRECTIONS[d] for d in msg.pass_cycle),
            pass_count=msg.pass_count,
            pass_on=msg.pass_on,
            kitty_discard=msg.kitty_discard,
            first_lead=msg.first_lead,
            hearts_lead=msg.hearts_lead,
            queen_breaks_hearts=msg.queen_breaks_hearts,
            lead_hearts_with_queen=msg.lead_hearts_with_queen,
            points_on_first_trick=msg.points_on_first_trick,
            queen_at_first_safe_chance=msg.queen_at_first_safe_chance,
            points=msg.points,
            bonus_card=card_from_wire(msg.bonus_card) if msg.bonus_card else None,
            bonus_points=msg.bonus_points,
            moon=msg.moon,
            sun_points=msg.sun_points,
            no_tricks_bonus=msg.no_tricks_bonus,
            exact_target_reset=msg.exact_target_reset if msg.HasField("exact_target_reset") else None,
            target=msg.target,
            tied_lowest=msg.tied_lowest,
        )
        _RULES_CACHE[key] = rules
    return rules


def trick_from_wire(t: pb.Trick) -> Trick:
    return Trick(t.leader, tuple(DECK[v - 1] for v in t.cards), t.winner if t.HasField("winner") else None)


def view_from_wire(v: pb.GameView, phase: Phase, moon_points: int = 0) -> View:
    """Build the bot's View from a request's GameView (``phase`` says which decision is asked)."""
    return View(
        seat=v.seat,
        rules=rules_from_wire(v.rules),
        hand_number=v.hand_number,
        dealer=v.dealer,
        phase=phase,
        scores=tuple(v.scores),
        pass_direction=_DIRECTIONS.get(v.pass_direction, "hold"),
        hand=_cards(v.hand),
        passed=tuple(DECK[c - 1] for c in v.passed_cards),
        received=_cards(v.received_cards),
        tricks=tuple(trick_from_wire(t) for t in v.tricks),
        current_trick=trick_from_wire(v.current_trick),
        hearts_broken=v.hearts_broken,
        legal=_cards(v.legal_cards),
        to_move=(v.seat,),
        kitty_taker=v.kitty_taker if v.HasField("kitty_taker") else None,
        kitty=_cards(v.kitty),
        moon_points=moon_points,
        discarded=tuple(DECK[c - 1] for c in v.discarded),
        pass_offsets=tuple(v.pass_offsets),
        match_id=v.match_id,
        player_names=tuple(v.player_names),
        budget_ms=v.budget_ms,
        time_bank_ms=v.time_bank_ms,
    )
