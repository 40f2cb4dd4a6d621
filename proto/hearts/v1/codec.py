"""The codec of hearts.v1, both directions: engine values to messages and back.

The referee encodes every request here from a seat's ``Observation`` alone (so a bot can never see
what its seat may not know), and decodes the bots' answers; the Python SDK decodes the same
requests into the bot's ``View`` and encodes its answers. It lives beside the generated code it
wraps because both sides import it: the referee, and bots, which may import the engine and the
protocol but never the referee.

Cards go on the wire as enum values (index + 1), which protobuf packs as varints: far cheaper to
build than nested messages. The fast encoder writes bytes directly; every field tag it writes is
computed from the generated descriptors, so an edit of bot.proto cannot silently desynchronise it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from hearts.v1 import bot_pb2 as pb
from referee.rules import OPTIONS, Card, CardSet, HandResult, MoonChoice, Observation, Rules, Trick
from referee.rules.cards import DECK, FULL_MASK, PACK_BITS, card_set

PROTOCOL_VERSION = 2
"""The newest version of hearts.v1, spoken here: the referee sends it; a bot answers the version it was
written for, any from 1 to this one (0, left unset, is 1). Every version reads the same bytes: a later
one only adds presets, rule options and RPCs (``VERSIONS``)."""


@dataclass(frozen=True)
class ProtocolVersion:
    """What one version of hearts.v1 added: its presets, rule options and RPCs. A bot of that version
    was written knowing them and those of the versions before, and nothing later."""

    number: int
    presets: tuple[str, ...]
    options: tuple[str, ...]
    rpcs: tuple[str, ...]


VERSIONS: tuple[ProtocolVersion, ...] = (
    # As first published: the seven RPCs, the presets and options of 001 and 004 and the first of 002.
    ProtocolVersion(
        1,
        ("standard", "omnibus", "spot", "black-maria", "no-passing", "nasty"),
        (
            "players",
            "removed_cards",
            "kitty",
            "kitty_discard",
            "hand_size",
            "pass_cycle",
            "pass_count",
            "pass_on",
            "first_lead",
            "hearts_lead",
            "queen_breaks_hearts",
            "lead_hearts_with_queen",
            "points_on_first_trick",
            "queen_at_first_safe_chance",
            "points",
            "bonus_card",
            "bonus_points",
            "moon",
            "sun_points",
            "no_tricks_bonus",
            "exact_target_reset",
            "target",
            "tied_lowest",
        ),
        ("Handshake", "PassCards", "PlayCard", "ChooseMoon", "CallPass", "DiscardCards", "Notify"),
    ),
    # The variants of 002 that need fields or an RPC a version 1 bot never reads: Booster Nines
    # (Trick.boosted), Turbo Hearts (ChargeCards), Partnership Hearts (GameView.partner), Cancellation
    # Hearts (Rules.packs), and a reset's own total (Rules.exact_reset_at).
    ProtocolVersion(
        2,
        ("booster-nines", "turbo", "partnership", "partnership-individual", "cancellation"),
        (
            "booster_nines",
            "ten_of_clubs_doubles",
            "turbo_charging",
            "turbo_charges",
            "charged_singleton",
            "exact_reset_at",
            "partnership",
            "packs",
        ),
        ("ChargeCards",),
    ),
)
"""Every version of hearts.v1, oldest first; the last is ``PROTOCOL_VERSION``. A preset or option added
later must go into a new version (with a bump of ``PROTOCOL_VERSION``): a bot of an earlier version
that names no presets claims only what its version knew (tested)."""


def version_spoken(version: int) -> int:
    """The version a handshake's ``protocol_version`` stands for: 0 (unset) is 1; one beyond ours is read
    as ours (the referee records it as malformed, and speaks its own)."""
    return min(max(version, 1), PROTOCOL_VERSION)


def presets_of(version: int) -> tuple[str, ...]:
    """The presets a bot of protocol ``version`` knows: what a handshake naming none claims."""
    n = version_spoken(version)
    return tuple(p for v in VERSIONS if v.number <= n for p in v.presets)


def options_of(version: int) -> tuple[str, ...]:
    """The rule options a bot of protocol ``version`` knows: what a handshake naming none claims."""
    n = version_spoken(version)
    return tuple(o for v in VERSIONS if v.number <= n for o in v.options)


PASS_DIRECTIONS: dict[str, pb.PassDirection] = {
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
"""The engine's pass directions and their enum values."""

DIRECTIONS_FROM_WIRE: dict[int, str] = {v: k for k, v in PASS_DIRECTIONS.items()}


def handshake_request(referee: str) -> pb.HandshakeRequest:
    """The referee's greeting: its protocol version and name."""
    return pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION, referee=referee)


def card_to_wire(card: Card) -> pb.Card:
    return cast("pb.Card", card.index + 1)


def card_values(cards: Iterable[Card]) -> list[pb.Card]:
    """Cards as their enum values (index + 1)."""
    return cast("list[pb.Card]", [c.index + 1 for c in cards])


def card_from_wire(value: int) -> Card:
    """A Card enum value to a card; ``ValueError`` for CARD_UNSPECIFIED or an unknown value."""
    if not 1 <= value <= 52:
        raise ValueError(f"not a card: enum value {value} (expected 1..52; 0 is CARD_UNSPECIFIED)")
    return DECK[value - 1]


# How each rule option crosses the wire, where it is not a field of the same name holding the same
# value: (the field, engine value to wire value, message to engine value). Every option of
# ``referee.rules.OPTIONS`` reaches bots through this loop: a new option needs its field in bot.proto
# (of the same name) and, only if its value is not a plain one, an entry here.
_OPTION_FIELDS: dict[str, tuple[str, Callable[[Rules], Any], Callable[[pb.Rules], Any]]] = {
    "removed_cards": (
        "removed_cards",
        lambda r: card_values(r.removed),
        lambda m: tuple(card_from_wire(v) for v in m.removed_cards),
    ),
    "hand_size": ("cards_per_player", lambda r: r.cards_per_player, lambda m: m.cards_per_player or None),
    "pass_cycle": (
        "pass_cycle",
        lambda r: [PASS_DIRECTIONS[d] for d in r.pass_cycle or ()],
        lambda m: tuple(DIRECTIONS_FROM_WIRE[d] for d in m.pass_cycle),
    ),
    "kitty": ("kitty", lambda r: r.kitty, lambda m: m.kitty or "none"),
    "bonus_card": (
        "bonus_card",
        lambda r: r.bonus_card.index + 1 if r.bonus_card else 0,
        lambda m: card_from_wire(m.bonus_card) if m.bonus_card else None,
    ),
    "exact_target_reset": (
        "exact_target_reset",
        lambda r: r.exact_target_reset,
        lambda m: m.exact_target_reset if m.HasField("exact_target_reset") else None,
    ),
    # Sent only with two packs (002 Cancellation Hearts): one-pack rulesets carry no new field.
    "packs": ("packs", lambda r: r.packs if r.packs > 1 else 0, lambda m: m.packs or 1),
    # Sent only where a reset is played, so the rulesets without one carry no new field.
    "exact_reset_at": (
        "exact_reset_at",
        lambda r: r.exact_reset_at if r.exact_target_reset is not None else None,
        lambda m: m.exact_reset_at if m.HasField("exact_reset_at") else 100,
    ),
    # Sent only with turbo_charging (unset strings read as the defaults), likewise.
    "turbo_charges": (
        "turbo_charges",
        lambda r: r.turbo_charges if r.turbo_charging else None,
        lambda m: m.turbo_charges or "one",
    ),
    "charged_singleton": (
        "charged_singleton",
        lambda r: r.charged_singleton if r.turbo_charging else None,
        lambda m: m.charged_singleton or "must-play",
    ),
    # Sent only with partners: the rulesets without any carry no new field.
    "partnership": (
        "partnership",
        lambda r: r.partnership if r.partnership != "none" else None,
        lambda m: m.partnership or "none",
    ),
}
DERIVED_RULES_FIELDS: dict[str, Callable[[Rules], Any]] = {
    "preset": lambda r: r.name,
    "kitty_size": lambda r: r.kitty_size,
    "card_points": lambda r: list(r.card_points),
    "moon_points": lambda r: r.moon_total,
}
"""Fields of the Rules message that no option sets: what the options imply, sent so bots need not derive it."""


def _plain(name: str) -> tuple[str, Callable[[Rules], Any], Callable[[pb.Rules], Any]]:
    return name, lambda r: getattr(r, name), lambda m: getattr(m, name)


OPTION_FIELDS: dict[str, tuple[str, Callable[[Rules], Any], Callable[[pb.Rules], Any]]] = {
    o.name: _OPTION_FIELDS.get(o.name) or _plain(o.name) for o in OPTIONS
}
"""Each rule option's wire field and its conversions both ways, in the order of the option table."""

_RULES_CACHE: dict[Rules, pb.Rules] = {}


def rules_to_wire(rules: Rules) -> pb.Rules:
    """The rules message (cached: a match sends the same rules in every request)."""
    msg = _RULES_CACHE.get(rules)
    if msg is None:
        fields = {name: derive(rules) for name, derive in DERIVED_RULES_FIELDS.items()}
        for wire_name, to_wire, _ in OPTION_FIELDS.values():
            value = to_wire(rules)
            if value is not None:  # an optional field left unset
                fields[wire_name] = value
        msg = _RULES_CACHE[rules] = pb.Rules(**fields)
    return msg


def trick_to_wire(trick: Trick, out: pb.Trick | None = None, players: int = 0, boosted: bool = False) -> pb.Trick:
    """The Trick message; ``boosted`` (booster_nines) is set when given, or when the trick holds more
    than ``players`` cards (a completed boosted trick)."""
    t = out if out is not None else pb.Trick()
    t.leader = trick.leader
    t.cards.extend(card_values(trick.cards))
    if trick.winner is not None:
        t.winner = trick.winner
    if boosted or 0 < players < len(trick.cards):
        t.boosted = True
    if players > 5 and len(trick.cards) == players:  # two packs (packs 2 needs 6 to 10 seats): a completed trick
        t.cancelled.extend(card_values(cancelled_cards(trick.cards)))
        t.no_winner = trick.winner is None
    return t


def cancelled_cards(cards: Sequence[Card]) -> list[Card]:
    """002 Cancellation Hearts: the cards played twice to a trick, once each, in the order of their second copy."""
    seen: set[Card] = set()
    twice = []
    for c in cards:
        if c in seen:
            twice.append(c)
        seen.add(c)
    return twice


def _trick_body(leader: int, cards: Sequence[Card], winner: int | None, boosted: bool = False) -> bytes:
    """A Trick message's bytes, as protobuf writes them (leader has no presence, winner has; boosted is
    written only when true, so tricks without booster_nines are the bytes they always were)."""
    body = _TRICK_LEADER + _varint(leader) if leader else b""
    if cards:
        b = bytes([c.index + 1 for c in cards])
        body += _TRICK_CARDS + _BYTE[len(b)] + b
    if winner is not None:
        body += _TRICK_WINNER + _varint(winner)
    if boosted:
        body += _TRICK_BOOSTED
    return body


def _two_pack_trick_fields(cards: Sequence[Card], winner: int | None) -> bytes:
    """Trick fields 5 and 6 of a completed two-pack trick (packs 2): its cancelled cards, and no_winner."""
    twice = bytes([c.index + 1 for c in cancelled_cards(cards)])
    body = _TRICK_CANCELLED + _BYTE[len(twice)] + twice if twice else b""
    return body + _TRICK_NO_WINNER if winner is None else body


def _trick_bytes(trick: Trick, players: int) -> bytes:
    # A completed trick as GameView field 11, written once per match by ViewEncoder._tricks_of:
    # every later request of the hand holds it, joined as bytes. Longer than a round: boosted.
    body = _trick_body(trick.leader, trick.cards, trick.winner, len(trick.cards) > players)
    if players > 5:
        body += _two_pack_trick_fields(trick.cards, trick.winner)
    return _VIEW_TRICKS + _BYTE[len(body)] + body


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


def field_tag(message: Any, name: str) -> bytes:
    """The key protobuf writes before field ``name`` of ``message`` (its number and wire type, as a
    varint), read from the generated descriptor: the encoder's bytes follow bot.proto as it stands."""
    f = message.DESCRIPTOR.fields_by_name[name]
    length_delimited = f.type in (f.TYPE_STRING, f.TYPE_BYTES, f.TYPE_MESSAGE) or f.is_packed
    if f.is_repeated and not length_delimited:
        raise ValueError(f"{message.DESCRIPTOR.name}.{name} is an unpacked repeated field: the encoder writes packed")
    return _varint(f.number << 3 | (2 if length_delimited else 0))


_TRICK_LEADER, _TRICK_CARDS, _TRICK_WINNER = (field_tag(pb.Trick, n) for n in ("leader", "cards", "winner"))
_TRICK_BOOSTED = field_tag(pb.Trick, "boosted") + b"\x01"
_TRICK_CANCELLED = field_tag(pb.Trick, "cancelled")
_TRICK_NO_WINNER = field_tag(pb.Trick, "no_winner") + b"\x01"
_VIEW_TABLE = field_tag(pb.GameView, "table")
(
    _VIEW_HAND,
    _VIEW_PASSED,
    _VIEW_RECEIVED,
    _VIEW_TRICKS,
    _VIEW_CURRENT_TRICK,
    _VIEW_LEGAL,
    _VIEW_BUDGET,
    _VIEW_TIME_BANK,
    _VIEW_DEALER,
    _VIEW_KITTY_TAKER,
    _VIEW_KITTY,
    _VIEW_DISCARDED,
    _VIEW_PASS_OFFSETS,
) = (
    field_tag(pb.GameView, n)
    for n in (
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
    )
)
_VIEW_HEARTS_BROKEN = field_tag(pb.GameView, "hearts_broken") + b"\x01"
_VIEW_CHARGES = field_tag(pb.GameView, "charges")
_CHARGE_SEAT, _CHARGE_CARD = field_tag(pb.Charge, "seat"), field_tag(pb.Charge, "card")


def _charges_bytes(charges: Sequence[tuple[int, Card]]) -> bytes:
    """GameView field 22, one Charge message per charged card (seat 0 left unset, as protobuf does)."""
    out = []
    for seat, card in charges:
        body = (_CHARGE_SEAT + _varint(seat) if seat else b"") + _CHARGE_CARD + _BYTE[card.index + 1]
        out.append(_VIEW_CHARGES + _BYTE[len(body)] + body)
    return b"".join(out)


_REQUESTS_WITH_A_VIEW = (
    pb.PassCardsRequest,
    pb.PlayCardRequest,
    pb.DiscardCardsRequest,
    pb.ChooseMoonRequest,
    pb.CallPassRequest,
    pb.ChargeCardsRequest,
)
_REQUEST_VIEW = field_tag(pb.PlayCardRequest, "view")
if any(field_tag(r, "view") != _REQUEST_VIEW for r in _REQUESTS_WITH_A_VIEW):  # request_bytes writes one tag
    raise ImportError("bot.proto: every decision request must keep its GameView in the same field number")


def _cards_field(tag: bytes, mask: int) -> bytes:
    """A packed field of the cards of a 52-bit mask: four look-ups, one per suit. A two-pack mask (a card
    held twice: see ``referee.rules.cards.multiset_add``) lists such a card twice."""
    if mask > FULL_MASK:
        b = bytes([c.index + 1 for c in card_set(mask)])
        return tag + _varint(len(b)) + b
    t = _SUIT_BYTES
    b = t[0][mask & 0x1FFF] + t[1][mask >> 13 & 0x1FFF] + t[2][mask >> 26 & 0x1FFF] + t[3][mask >> 39 & 0x1FFF]
    return tag + _BYTE[len(b)] + b


_EMPTY_CURRENT_TRICK = _VIEW_CURRENT_TRICK + b"\x00"  # present and empty


class ViewEncoder:
    """Builds one match's GameViews as wire bytes, from each seat's observation alone.

    What a seat's view keeps for a whole hand (match id, names, rules, seat, hand number, dealer,
    pass direction, totals) is serialised once per seat and hand, keyed by exactly those
    observation fields; the completed tricks are serialised once each and joined incrementally;
    the rest (cards, current trick, time bank) is encoded directly: cards are enum values 1..52,
    one byte each as packed varints. Fields come in field-number order, as protobuf writes them:
    the bytes equal ``view_to_wire_reference(...).SerializeToString()`` (tested).
    """

    __slots__ = (
        "_bank",
        "_budget",
        "_heads",
        "_names",
        "_tricks",
        "_tricks_bytes",
        "budget_ms",
        "match_id",
        "player_names",
    )

    def __init__(self, match_id: str, player_names: Sequence[str], budget_ms: int) -> None:
        self.match_id = match_id
        self._names = tuple(player_names)
        self.player_names: tuple[str, ...] = self._names  # every view of this match carries them, in seat order
        self.budget_ms = budget_ms
        self._budget = _VIEW_BUDGET + _varint(budget_ms) if budget_ms else b""
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
        v = pb.GameView(
            match_id=self.match_id,
            hand_number=obs.hand_number,
            seat=obs.seat,
            player_names=self._names,
            scores=obs.scores,
            pass_direction=PASS_DIRECTIONS[obs.pass_direction],
        )
        v.rules.CopyFrom(rules_to_wire(obs.rules))
        entry = self._heads[key] = (
            obs.rules,
            v.SerializeToString(),
            _VIEW_DEALER + _varint(obs.dealer) if obs.dealer else b"",
        )
        return entry

    def _tricks_of(self, tricks: tuple[Trick, ...], players: int) -> bytes:
        done = self._tricks
        if tricks == done:  # identical tricks compare by identity: cheap
            return self._tricks_bytes
        n = len(done)
        if n and len(tricks) > n and tricks[:n] == done:
            b = self._tricks_bytes + b"".join([_trick_bytes(t, players) for t in tricks[n:]])
        else:
            b = b"".join([_trick_bytes(t, players) for t in tricks])
        self._tricks, self._tricks_bytes = tricks, b
        return b

    def encode(self, obs: Observation, time_bank_ms: int) -> bytes:
        """The serialised GameView of ``obs``'s seat."""
        head = self._head(obs)
        parts = [head[1]]
        m = obs.hand.mask
        if m:
            parts.append(_cards_field(_VIEW_HAND, m))
        if obs.passed:
            b = bytes([c.index + 1 for c in obs.passed])
            parts += (_VIEW_PASSED, _BYTE[len(b)], b)
        m = obs.received.mask
        if m:
            parts.append(_cards_field(_VIEW_RECEIVED, m))
        if obs.tricks:
            parts.append(self._tricks_of(obs.tricks, obs.rules.players))
        ct = obs.current_trick
        if ct.cards or ct.leader or ct.winner is not None:
            c = _trick_body(ct.leader, ct.cards, ct.winner, obs.boosted)
            parts += (_VIEW_CURRENT_TRICK, _BYTE[len(c)], c)
        else:
            parts.append(_EMPTY_CURRENT_TRICK)
        if obs.hearts_broken:
            parts.append(_VIEW_HEARTS_BROKEN)
        m = obs.legal.mask
        if m:
            parts.append(_cards_field(_VIEW_LEGAL, m))
        parts.append(self._budget)
        if time_bank_ms:
            bank = self._bank
            if bank[0] != time_bank_ms:
                self._bank = bank = (time_bank_ms, _VIEW_TIME_BANK + _varint(time_bank_ms))
            parts.append(bank[1])
        parts.append(head[2])
        if obs.kitty_taker is not None:
            parts += (_VIEW_KITTY_TAKER, _varint(obs.kitty_taker))
            m = obs.kitty.mask
            if m:
                parts.append(_cards_field(_VIEW_KITTY, m))
        if obs.discarded:
            b = bytes([c.index + 1 for c in obs.discarded])
            parts += (_VIEW_DISCARDED, _BYTE[len(b)], b)
        if obs.pass_offsets:
            b = bytes(obs.pass_offsets)  # offsets < 5: one byte each
            parts += (_VIEW_PASS_OFFSETS, _BYTE[len(b)], b)
        if obs.charges:
            parts.append(_charges_bytes(obs.charges))
        if obs.rules.partnership != "none":
            parts.append(_partnership_view_fields(obs))
        m = obs.table.mask
        if m:
            parts.append(_cards_field(_VIEW_TABLE, m))
        return b"".join(parts)

    def build(self, obs: Observation, time_bank_ms: int, out: pb.GameView | None = None) -> pb.GameView:
        """The GameView of ``obs``'s seat, merged into ``out`` when given (e.g. ``request.view``)."""
        v = out if out is not None else pb.GameView()
        v.MergeFromString(self.encode(obs, time_bank_ms))
        return v


def _partnership_view_fields(obs: Observation) -> bytes:
    """GameView fields 24 and 25 (partner, team_scores), the last numbers of the message: written by
    protobuf itself (negative totals are ten-byte varints), only under rules.partnership."""
    return pb.GameView(partner=obs.partner, team_scores=obs.team_scores).SerializeToString()


def request_bytes(view: bytes, rest: bytes = b"") -> bytes:
    """A serialised request whose field 1 is the serialised GameView ``view`` (PassCardsRequest,
    PlayCardRequest, DiscardCardsRequest, ChooseMoonRequest), followed by its other fields ``rest``,
    already serialised."""
    return _REQUEST_VIEW + _varint(len(view)) + view + rest


def _suit_bytes(suit: int) -> tuple[bytes, ...]:
    """The wire values of the cards of each 13-bit pattern of one suit, lowest rank first, as packed
    varint bytes (every value fits one byte). Each pattern is the one without its highest card plus
    that card: every process that imports the codec builds these, so cheaply."""
    out = [b""] * (1 << 13)
    for pattern in range(1, 1 << 13):
        top = pattern.bit_length() - 1
        out[pattern] = out[pattern ^ (1 << top)] + _BYTE[suit * 13 + top + 1]
    return tuple(out)


# A card set's bytes are four look-ups in these, one per suit.
_SUIT_BYTES: tuple[tuple[bytes, ...], ...] = tuple(_suit_bytes(s) for s in range(4))


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
        pass_direction=PASS_DIRECTIONS[obs.pass_direction],
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
        trick_to_wire(t, v.tricks.add(), players=obs.rules.players)
    trick_to_wire(obs.current_trick, v.current_trick, boosted=obs.boosted)
    if obs.kitty_taker is not None:
        v.kitty_taker = obs.kitty_taker
        v.kitty.extend(card_values(obs.kitty))
    v.discarded.extend(card_values(obs.discarded))
    v.pass_offsets.extend(obs.pass_offsets)
    for seat, card in obs.charges:
        v.charges.add(seat=seat, card=card_to_wire(card))
    if obs.partner is not None:
        v.partner = obs.partner
        v.team_scores.extend(obs.team_scores)
    v.table.extend(card_values(obs.table))
    return v


def charges_from_wire(v: pb.GameView) -> tuple[tuple[int, Card], ...]:
    """The charged cards of a view (turbo_charging) as (seat, card); an unknown card value raises."""
    return tuple((c.seat, card_from_wire(c.card)) for c in v.charges)


def moon_choice_from_wire(value: int) -> MoonChoice:
    if value == pb.MOON_CHOICE_ADD_TO_OTHERS:
        return MoonChoice.ADD_TO_OTHERS
    if value == pb.MOON_CHOICE_SUBTRACT_FROM_SHOOTER:
        return MoonChoice.SUBTRACT_FROM_SHOOTER
    raise ValueError(f"not a moon choice: enum value {value} (expected 1 ADD_TO_OTHERS or 2 SUBTRACT_FROM_SHOOTER)")


def hand_scored_to_wire(result: HandResult, rules: Rules | None = None) -> pb.HandScored:
    """The HandScored message; with ``rules`` under partnership, the teams' hand scores and totals too."""
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
    if rules is not None and rules.partnership != "none":
        msg.team_hand_score.extend(rules.team_totals(result.score))
        msg.team_totals.extend(rules.team_totals(result.totals))
    return msg


def match_over_to_wire(
    rules: Rules, totals: Sequence[int], places: Sequence[int], forfeited: Sequence[int]
) -> pb.MatchOver:
    """The MatchOver message; under partnership, each seat's team and the teams' totals too."""
    msg = pb.MatchOver(totals=totals, places=places, forfeited=forfeited)
    if rules.partnership != "none":
        msg.teams.extend(s % 2 for s in range(rules.players))
        msg.team_totals.extend(rules.team_totals(totals))
    return msg


# -- decoding: messages to engine values ----------------------------------------------------------


def cards_from_wire(values: Iterable[int]) -> CardSet:
    """Card enum values to a card set (values are 1..52: the referee sends no other). A value listed twice
    (two packs: rules.packs 2) is a card held twice: the set is then a ``CardMultiset``."""
    m = 0
    for v in values:
        b = 1 << (v - 1)
        if m & b:
            m |= b << PACK_BITS
        m |= b
    return card_set(m) if m > FULL_MASK else CardSet(m)


_RULES_FROM_WIRE: dict[bytes, Rules] = {}


def rules_from_wire(msg: pb.Rules) -> Rules:
    """The rules a message carries (cached: a match sends the same rules in every request)."""
    key = msg.SerializeToString(deterministic=True)
    rules = _RULES_FROM_WIRE.get(key)
    if rules is None:
        rules = _RULES_FROM_WIRE[key] = Rules(
            **{name: from_wire(msg) for name, (_, _, from_wire) in OPTION_FIELDS.items()}
        )
    return rules


def trick_from_wire(t: pb.Trick) -> Trick:
    return Trick(t.leader, tuple(DECK[v - 1] for v in t.cards), t.winner if t.HasField("winner") else None)
