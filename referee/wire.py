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
    "call": pb.PASS_DIRECTION_CALL,
    "split": pb.PASS_DIRECTION_SPLIT,
}


def card_values(cards: Iterable[Card]) -> list[int]:
    return [c.index + 1 for c in cards]


def card_from_wire(value: int) -> Card:
    """A Card enum value to a card; ``ValueError`` for CARD_UNSPECIFIED or an unknown value."""
    if not 1 <= value <= 52:
        raise ValueError(f"not a card: enum value {value} (expected 1..52; 0 is CARD_UNSPECIFIED)")
    return DECK[value - 1]


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
            pass_on=rules.pass_on,
            kitty_discard=rules.kitty_discard,
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


def _trick_body(leader: int, cards: Sequence[Card], winner: int | None) -> bytes:
    """A Trick message's bytes, as protobuf writes them (leader has no presence, winner has)."""
    body = b"\x08" + _varint(leader) if leader else b""
    if cards:
        b = bytes([c.index + 1 for c in cards])
        body += b"\x12" + _BYTE[len(b)] + b
    if winner is not None:
        body += b"\x18" + _varint(winner)
    return body


def _trick_bytes(trick: Trick) -> bytes:
    # A completed trick as GameView field 11, written once per match by ViewEncoder._tricks_of:
    # every later request of the hand holds it, joined as bytes.
    body = _trick_body(trick.leader, trick.cards, trick.winner)
    return b"\x5a" + _BYTE[len(body)] + body


def _varint(n: int) -> bytes:
    """A uint32 as a protobuf varint (the setter's range check kept: out of range is a ValueError)."""
    if n < 0x80:
        if n < 0:
            raise ValueError(f"Value out of range: {n}")
        return _BYTE[n]
    if n < 0x4000:  # two bytes: every request's length (a view is a few hundred bytes)
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n >= 1 << 32:
        raise ValueError(f"Value out of range: {n}")
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_BYTE = tuple(bytes((i,)) for i in range(256))
_EMPTY_CURRENT_TRICK = b"\x62\x00"  # field 12, present and empty


class ViewEncoder:
    """Builds one match's GameViews as wire bytes, from each seat's observation alone.

    What a seat's view keeps for a whole hand (match id, names, rules, seat, hand number, dealer,
    pass direction, totals) is serialised once per seat and hand, keyed by exactly those
    observation fields; the completed tricks are serialised once each and joined incrementally;
    the rest (cards, current trick, time bank) is encoded directly: cards are enum values 1..52,
    one byte each as packed varints. Fields come in field-number order, as protobuf writes them:
    the bytes equal ``view_to_wire_reference(...).SerializeToString()`` (tested).
    """

    __slots__ = ("_bank", "_budget", "_heads", "_names", "_tricks", "_tricks_bytes", "budget_ms", "match_id")

    def __init__(self, match_id: str, player_names: Sequence[str], budget_ms: int) -> None:
        self.match_id = match_id
        self._names = list(player_names)
        self.budget_ms = budget_ms
        self._budget = b"\x78" + _varint(budget_ms) if budget_ms else b""  # field 15
        self._heads: dict[tuple[object, ...], tuple[Rules, bytes, bytes]] = {}
        self._tricks: tuple[Trick, ...] = ()
        self._tricks_bytes = b""
        self._bank = (0, b"")  # the last time bank and its encoding: it changes only when a bot runs over budget

    def _head(self, obs: Observation) -> tuple[Rules, bytes, bytes]:
        """Fields 1-7 (match id .. pass direction) and field 17 (dealer) of this seat and hand."""
        key = (obs.seat, obs.hand_number, obs.dealer, obs.pass_direction, obs.scores)
        entry = self._heads.get(key)
        if entry is not None and entry[0] is obs.rules:
            return entry
        if len(self._heads) > 1000:  # a bound, not a policy: a match has a few dozen (seat, hand)
            self._heads.clear()
        v = pb.GameView(match_id=self.match_id, hand_number=obs.hand_number, seat=obs.seat,
                        player_names=self._names, scores=obs.scores,
                        pass_direction=_DIRECTIONS[obs.pass_direction])
        v.rules.CopyFrom(rules_to_wire(obs.rules))
        entry = self._heads[key] = (obs.rules, v.SerializeToString(),
                                    b"\x88\x01" + _varint(obs.dealer) if obs.dealer else b"")
        return entry

    def _tricks_of(self, tricks: tuple[Trick, ...]) -> bytes:
        done = self._tricks
        if tricks == done:  # identical tricks compare by identity: cheap
            return self._tricks_bytes
        n = len(done)
        if n and len(tricks) > n and tricks[:n] == done:
            b = self._tricks_bytes + b"".join([_trick_bytes(t) for t in tricks[n:]])
        else:
            b = b"".join([_trick_bytes(t) for t in tricks])
        self._tricks, self._tricks_bytes = tricks, b
        return b

    def encode(self, obs: Observation, time_bank_ms: int) -> bytes:
        """The serialised GameView of ``obs``'s seat."""
        head = self._head(obs)
        parts = [head[1]]
        t = _SUIT_BYTES
        m = obs.hand.mask
        if m:
            b = t[0][m & 0x1FFF] + t[1][m >> 13 & 0x1FFF] + t[2][m >> 26 & 0x1FFF] + t[3][m >> 39 & 0x1FFF]
            parts += (b"\x42", _BYTE[len(b)], b)
        if obs.passed:
            b = bytes([c.index + 1 for c in obs.passed])
            parts += (b"\x4a", _BYTE[len(b)], b)
        m = obs.received.mask
        if m:
            b = t[0][m & 0x1FFF] + t[1][m >> 13 & 0x1FFF] + t[2][m >> 26 & 0x1FFF] + t[3][m >> 39 & 0x1FFF]
            parts += (b"\x52", _BYTE[len(b)], b)
        if obs.tricks:
            parts.append(self._tricks_of(obs.tricks))
        ct = obs.current_trick
        if ct.cards or ct.leader or ct.winner is not None:
            c = _trick_body(ct.leader, ct.cards, ct.winner)
            parts += (b"\x62", _BYTE[len(c)], c)
        else:
            parts.append(_EMPTY_CURRENT_TRICK)
        if obs.hearts_broken:
            parts.append(b"\x68\x01")
        m = obs.legal.mask
        if m:
            b = t[0][m & 0x1FFF] + t[1][m >> 13 & 0x1FFF] + t[2][m >> 26 & 0x1FFF] + t[3][m >> 39 & 0x1FFF]
            parts += (b"\x72", _BYTE[len(b)], b)
        parts.append(self._budget)
        if time_bank_ms:
            bank = self._bank
            if bank[0] != time_bank_ms:
                self._bank = bank = (time_bank_ms, b"\x80\x01" + _varint(time_bank_ms))
            parts.append(bank[1])
        parts.append(head[2])
        if obs.kitty_taker is not None:
            parts += (b"\x90\x01", _varint(obs.kitty_taker))
            m = obs.kitty.mask
            if m:
                b = t[0][m & 0x1FFF] + t[1][m >> 13 & 0x1FFF] + t[2][m >> 26 & 0x1FFF] + t[3][m >> 39 & 0x1FFF]
                parts += (b"\x9a\x01", _BYTE[len(b)], b)
        if obs.discarded:
            b = bytes([c.index + 1 for c in obs.discarded])
            parts += (b"\xa2\x01", _BYTE[len(b)], b)  # field 20
        if obs.pass_offsets:
            b = bytes(obs.pass_offsets)  # offsets < 5: one byte each
            parts += (b"\xaa\x01", _BYTE[len(b)], b)  # field 21
        return b"".join(parts)

    def build(self, obs: Observation, time_bank_ms: int, out: pb.GameView | None = None) -> pb.GameView:
        """The GameView of ``obs``'s seat, merged into ``out`` when given (e.g. ``request.view``)."""
        v = out if out is not None else pb.GameView()
        v.MergeFromString(self.encode(obs, time_bank_ms))
        return v


def request_bytes(view: bytes, rest: bytes = b"") -> bytes:
    """A serialised request whose field 1 is the serialised GameView ``view`` (PassCardsRequest,
    PlayCardRequest, DiscardCardsRequest, ChooseMoonRequest), followed by its other fields ``rest``,
    already serialised."""
    return b"\x0a" + _varint(len(view)) + view + rest


# The packed varint bytes of the cards of each 13-bit suit pattern (every card value fits one byte).
_SUIT_BYTES: tuple[tuple[bytes, ...], ...] = tuple(tuple(bytes(v) for v in suit) for suit in _SUIT_VALUES)


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
    A match builds many views: ``ViewEncoder`` keeps what does not change between them.
    """
    return ViewEncoder(match_id, player_names, budget_ms).build(obs, time_bank_ms, out)


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
    v.discarded.extend(card_values(obs.discarded))
    v.pass_offsets.extend(obs.pass_offsets)
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
