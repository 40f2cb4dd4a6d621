"""The one boundary between the engine and the wire: engine values to hearts.v1 messages.

Every request a bot receives is built here from that seat's ``Observation`` alone, so a bot can
never see what its seat may not know. Cards go on the wire as enum values (index + 1), which
protobuf packs as varints: far cheaper to build than nested messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hearts.v1 import bot_pb2 as pb

from referee.rules import Card, HandResult, MoonChoice, Observation, Rules, Trick
from referee.rules.cards import DECK

PROTOCOL_VERSION = 1

_DIRECTIONS = {
    "left": pb.PASS_DIRECTION_LEFT,
    "right": pb.PASS_DIRECTION_RIGHT,
    "across": pb.PASS_DIRECTION_ACROSS,
    "hold": pb.PASS_DIRECTION_HOLD,
    "scatter": pb.PASS_DIRECTION_SCATTER,
    "mix": pb.PASS_DIRECTION_MIX,
    "left2": pb.PASS_DIRECTION_LEFT_TWO,
    "right2": pb.PASS_DIRECTION_RIGHT_TWO,
}


def card_values(cards: Iterable[Card]) -> list[int]:
    return [c.index + 1 for c in cards]


def card_from_wire(value: int) -> Card:
    """A Card enum value to a card; ``ValueError`` for CARD_UNSPECIFIED or an unknown value."""
    if not 1 <= value <= 52:
        raise ValueError(f"not a card: enum value {value} (expected 1..52; 0 is CARD_UNSPECIFIED)")
    return DECK[value - 1]


def direction_to_wire(direction: str) -> int:
    return _DIRECTIONS[direction]


_RULES_CACHE: dict[Rules, pb.Rules] = {}


def rules_to_wire(rules: Rules) -> pb.Rules:
    """The rules message (cached: a match sends the same rules in every request)."""
    msg = _RULES_CACHE.get(rules)
    if msg is None:
        msg = pb.Rules(
            preset=rules.name,
            players=rules.players,
            removed_cards=card_values(rules.removed),
            kitty=rules.kitty,
            cards_per_player=rules.cards_per_player,
            kitty_size=rules.kitty_size,
            pass_cycle=[_DIRECTIONS[d] for d in rules.pass_cycle],
            pass_count=rules.pass_count,
            first_lead=rules.first_lead,
            hearts_lead=rules.hearts_lead,
            queen_breaks_hearts=rules.queen_breaks_hearts,
            lead_hearts_with_queen=rules.lead_hearts_with_queen,
            points_on_first_trick=rules.points_on_first_trick,
            queen_at_first_safe_chance=rules.queen_at_first_safe_chance,
            points=rules.points,
            card_points=list(rules.card_points),
            bonus_card=rules.bonus_card.index + 1 if rules.bonus_card else 0,
            bonus_points=rules.bonus_points,
            moon=rules.moon,
            moon_points=rules.moon_total,
            sun_points=rules.sun_points,
            no_tricks_bonus=rules.no_tricks_bonus,
            target=rules.target,
            tied_lowest=rules.tied_lowest,
        )
        if rules.exact_target_reset is not None:
            msg.exact_target_reset = rules.exact_target_reset
        _RULES_CACHE[rules] = msg
    return msg


def trick_to_wire(trick: Trick, out: pb.Trick | None = None) -> pb.Trick:
    t = out if out is not None else pb.Trick()
    t.leader = trick.leader
    t.cards.extend(c.index + 1 for c in trick.cards)
    if trick.winner is not None:
        t.winner = trick.winner
    return t


# Wire values of the cards of each 13-bit suit pattern: a card set's values are four look-ups.
_SUIT_VALUES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(s * 13 + r + 1 for r in range(13) if pattern >> r & 1) for pattern in range(1 << 13))
    for s in range(4)
)


def mask_values(mask: int) -> tuple[int, ...]:
    """The wire values of a card bitmask, lowest first."""
    t = _SUIT_VALUES
    return (t[0][mask & 0x1FFF] + t[1][mask >> 13 & 0x1FFF] + t[2][mask >> 26 & 0x1FFF]
            + t[3][mask >> 39 & 0x1FFF])


# Keyed by id() and checked by identity: hashing a trick hashes its cards, which costs more than
# the look-up saves. The cache holds the trick, so its id cannot be reused while it is cached.
_TRICK_BYTES: dict[int, tuple[Trick, bytes]] = {}
_RULES_BY_ID: dict[int, tuple[Rules, pb.Rules]] = {}


def _trick_bytes(trick: Trick) -> bytes:
    # A completed trick serialised once as GameView field 11: every later request of the hand holds
    # it, and merging bytes is far cheaper than building nested messages again.
    entry = _TRICK_BYTES.get(id(trick))
    if entry is not None and entry[0] is trick:
        return entry[1]
    if len(_TRICK_BYTES) > 100_000:  # a bound, not a policy: tricks of finished matches go
        _TRICK_BYTES.clear()
    v = pb.GameView()
    trick_to_wire(trick, v.tricks.add())
    b = v.SerializeToString()
    _TRICK_BYTES[id(trick)] = (trick, b)
    return b


def _rules_message(rules: Rules) -> pb.Rules:
    entry = _RULES_BY_ID.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if len(_RULES_BY_ID) > 1000:
        _RULES_BY_ID.clear()
    msg = rules_to_wire(rules)
    _RULES_BY_ID[id(rules)] = (rules, msg)
    return msg


def view_to_wire(
    obs: Observation,
    *,
    match_id: str,
    player_names: Sequence[str],
    budget_ms: int,
    time_bank_ms: int,
    out: pb.GameView | None = None,
) -> pb.GameView:
    """The GameView of one seat, from that seat's observation only.

    Built into ``out`` when given (e.g. ``request.view``, saving a copy). Equal, field for field, to
    ``view_to_wire_reference``; faster (cached rules and completed tricks, cards from bitmasks).
    """
    v = out if out is not None else pb.GameView()
    v.match_id = match_id
    v.hand_number = obs.hand_number
    v.seat = obs.seat
    v.player_names.extend(player_names)
    v.scores.extend(obs.scores)
    v.pass_direction = _DIRECTIONS[obs.pass_direction]
    v.hand.extend(mask_values(obs.hand.mask))
    if obs.passed:
        v.passed_cards.extend([c.index + 1 for c in obs.passed])
    if obs.received:
        v.received_cards.extend(mask_values(obs.received.mask))
    v.hearts_broken = obs.hearts_broken
    if obs.legal:
        v.legal_cards.extend(mask_values(obs.legal.mask))
    v.budget_ms = budget_ms
    v.time_bank_ms = time_bank_ms
    v.dealer = obs.dealer
    v.rules.CopyFrom(_rules_message(obs.rules))
    if obs.tricks:
        v.MergeFromString(b"".join([_trick_bytes(t) for t in obs.tricks]))
    ct = v.current_trick
    ct.leader = obs.current_trick.leader
    if obs.current_trick.cards:
        ct.cards.extend([c.index + 1 for c in obs.current_trick.cards])
    else:
        ct.SetInParent()  # present even when empty, as the reference builds it
    if obs.kitty_taker is not None:
        v.kitty_taker = obs.kitty_taker
        v.kitty.extend(mask_values(obs.kitty.mask))
    return v


def view_to_wire_reference(
    obs: Observation,
    *,
    match_id: str,
    player_names: Sequence[str],
    budget_ms: int,
    time_bank_ms: int,
) -> pb.GameView:
    """The plain version of ``view_to_wire``: what the fast one must equal, field for field (tested)."""
    v = pb.GameView(
        match_id=match_id,
        hand_number=obs.hand_number,
        seat=obs.seat,
        player_names=player_names,
        scores=obs.scores,
        pass_direction=_DIRECTIONS[obs.pass_direction],
        hand=card_values(obs.hand),
        passed_cards=card_values(obs.passed),
        received_cards=card_values(obs.received),
        hearts_broken=obs.hearts_broken,
        legal_cards=card_values(obs.legal),
        budget_ms=budget_ms,
        time_bank_ms=time_bank_ms,
        dealer=obs.dealer,
    )
    v.rules.CopyFrom(rules_to_wire(obs.rules))
    for t in obs.tricks:
        trick_to_wire(t, v.tricks.add())
    trick_to_wire(obs.current_trick, v.current_trick)
    if obs.kitty_taker is not None:
        v.kitty_taker = obs.kitty_taker
        v.kitty.extend(card_values(obs.kitty))
    return v


def moon_choice_from_wire(value: int) -> MoonChoice:
    if value == pb.MOON_CHOICE_ADD_TO_OTHERS:
        return MoonChoice.ADD_TO_OTHERS
    if value == pb.MOON_CHOICE_SUBTRACT_FROM_SHOOTER:
        return MoonChoice.SUBTRACT_FROM_SHOOTER
    raise ValueError(f"not a moon choice: enum value {value} (expected 1 ADD_TO_OTHERS or 2 SUBTRACT_FROM_SHOOTER)")


def hand_scored_to_wire(result: HandResult) -> pb.HandScored:
    msg = pb.HandScored(
        hand_number=result.hand_number,
        points_taken=result.points_taken,
        hand_score=result.score,
        totals=result.totals,
    )
    if result.moon is not None:
        msg.moon_shooter = result.moon
    if result.sun is not None:
        msg.sun_shooter = result.sun
    return msg
