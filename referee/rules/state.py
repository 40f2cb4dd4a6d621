"""Hand and match state: deal, pass, legal moves, tricks, scoring, the end of the match.

A ``Match`` is the whole game among ``rules.players`` seats (numbered clockwise from 0). Chance
is in the history: every deal (and every mix redeal) is drawn from the match seed and the hand
number by a portable generator, and recorded, so that ``Match.replay`` rebuilds any state from
the seed and the players' decisions alone, on every machine and Python version.

Seat ``s + 1`` is to the left of seat ``s`` (play goes clockwise, to the left).
"""

from __future__ import annotations

import copy
import enum
import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .cards import (
    COMPILED,
    DECK,
    FULL_MASK,
    HEARTS_MASK,
    PACK_BITS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    Card,
    CardMultiset,
    CardSet,
    Suit,
    card_set,
    cards_of,
    cardset_of_mask,
    lowest_bit,
    multiset_add,
    multiset_cards,
    multiset_of,
)
from .options import Rules, pass_call

_QS: Final = QUEEN_OF_SPADES.mask
_new_object: Final = object.__new__
_SPADES: Final = SUIT_MASKS[Suit.SPADES]
_HIGH_SPADES: Final = Card(Suit.SPADES, 13).mask | Card(Suit.SPADES, 14).mask
_CLUBS: Final = SUIT_MASKS[Suit.CLUBS]
_NOT_HEARTS: Final = FULL_MASK & ~HEARTS_MASK
_MASK64: Final = (1 << 64) - 1
# Per card index: the mask of its suit (a plain tuple look-up on the hot path).
_SUIT_MASK_OF: Final[tuple[int, ...]] = tuple(SUIT_MASKS[i // 13] for i in range(52))
_NINES: Final = sum(1 << (13 * s + 7) for s in range(4))  # 9♣ 9♦ 9♠ 9♥ (index 13 · suit + 9 − 2)
_TEN_OF_CLUBS: Final = 1 << 8  # 10♣ (index 10 − 2)
_ACE_OF_HEARTS: Final = Card(Suit.HEARTS, 14).mask
_JACK_OF_DIAMONDS: Final = Card(Suit.DIAMONDS, 11).mask
# 002 Turbo Hearts: 'ace of hearts, queen of spades, jack of diamonds, or ten of clubs' may be charged.
_CHARGEABLE: Final = _ACE_OF_HEARTS | _QS | _JACK_OF_DIAMONDS | _TEN_OF_CLUBS
_VALUE_CHARGES: Final = _ACE_OF_HEARTS | _QS | _JACK_OF_DIAMONDS  # the charges that change card values


class Phase(enum.Enum):
    CALL = "call"  # the dealer calls the hand's pass (pass_cycle call, 002 Da Nasty Fix)
    PASS = "pass"
    CHARGE = "charge"  # every seat at once may turbo-charge cards before the first lead (turbo_charging)
    PLAY = "play"
    DISCARD = "discard"  # the kitty's taker discards into its tricks (kitty_discard)
    MOON = "moon"  # the shooter chooses how the moon scores (moon=shooter-chooses)
    OVER = "over"  # the match has ended


# Module globals: a global load is cheaper than an enum class attribute on the hot path.
_PASS: Final = Phase.PASS
_CHARGE: Final = Phase.CHARGE
_PLAY: Final = Phase.PLAY
_MOON: Final = Phase.MOON
_OVER: Final = Phase.OVER


class MoonChoice(enum.Enum):
    ADD_TO_OTHERS = "add-to-others"
    SUBTRACT_FROM_SHOOTER = "subtract-from-shooter"


class IllegalPlayError(ValueError):
    """A decision the rules do not allow. Names the seat, what was tried and what was legal.

    Each rejection raises the subclass that says why, so a caller (the referee judging a bot's
    answer) learns the kind from the engine's own check instead of repeating it.
    """

    def __init__(self, message: str, *, seat: int, tried: object = None, legal: object = None, rule: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.tried = tried
        self.legal = legal
        self.rule = rule  # a CardNotLegalError's rule in a few words (what a person is told); else empty


class NotYourTurnError(IllegalPlayError):
    """The seat owes no such decision now: another phase, another seat's turn, or the match is over."""


class CardNotHeldError(IllegalPlayError):
    """A card the seat does not hold."""


class CardNotLegalError(IllegalPlayError):
    """A card the seat holds but the rules forbid now; ``rule`` names the rule that rules it out
    (follow suit, the opening lead, no points on trick one, unbroken hearts, a charged card, Q♠ first)."""


# The rules that rule a held card out, as ``CardNotLegalError.rule`` names them. A rule whose words
# depend on the hand (the suit led, the opening card) is a format string.
RULE_FOLLOW_SUIT: Final = "must follow suit: {suit} led"
RULE_OPENING_LEAD: Final = "{card} must lead the first trick"
RULE_FIRST_TRICK: Final = "no points on the first trick: no penalty card unless the hand holds nothing else"
RULE_HEARTS_UNBROKEN: Final = "hearts are not broken: no heart may be led until one has been played"
RULE_HEARTS_OR_QUEEN_UNBROKEN: Final = "hearts are not broken: no heart may be led until a heart or Q♠ has been played"
RULE_CHARGED: Final = "a turbo-charged card may not be played the first time its suit is led"
RULE_QUEEN_FIRST_SAFE: Final = "Q♠ must be played at the first safe chance"
_SUIT_WORDS: Final = ("clubs", "diamonds", "spades", "hearts")


class WrongCountError(IllegalPlayError):
    """Not as many cards as the decision takes (a pass, a discard)."""


class RepeatedCardError(IllegalPlayError):
    """The same card twice in one pass or discard."""


class WrongCallError(IllegalPlayError):
    """The dealer's call of the pass names no pass (see ``pass_call``)."""


# -- history -----------------------------------------------------------------------------------


class Deal(NamedTuple):
    """Chance: the cards dealt for one hand (drawn from the match seed and hand number)."""

    hand_number: int
    hands: tuple[CardSet, ...]
    kitty: CardSet


class PassCards(NamedTuple):
    seat: int
    cards: tuple[Card, ...]


class MixRedeal(NamedTuple):
    """Chance: in a mix pass, the cards each seat received from the shuffled pile."""

    hand_number: int
    received: tuple[CardSet, ...]
    kitty: CardSet


class Play(NamedTuple):
    seat: int
    card: Card


class CallPass(NamedTuple):
    """The dealer's call of the hand's pass: a direction, or offsets per card passed (pass_call)."""

    seat: int
    direction: str
    offsets: tuple[int, ...]


class Discard(NamedTuple):
    """The kitty's taker discards as many cards into its tricks (kitty_discard)."""

    seat: int
    cards: tuple[Card, ...]


class ChargeCards(NamedTuple):
    """A seat's turbo-charge (turbo_charging): the cards it places face up, none or more."""

    seat: int
    cards: tuple[Card, ...]


class ChooseMoon(NamedTuple):
    seat: int
    choice: MoonChoice


Event = Deal | CallPass | PassCards | MixRedeal | ChargeCards | Play | Discard | ChooseMoon


class Trick(NamedTuple):
    """A trick: who led, the cards in play order (the leader's first), and who won it."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None = None

    def seat_of(self, i: int, players: int) -> int:
        return (self.leader + i) % players

    def __str__(self) -> str:
        return " ".join(c.symbol for c in self.cards)


# Builds a Trick from a ready (leader, cards, winner) tuple without the generated keyword
# ``__new__`` (a third of the cost, once per trick).
_new_tuple: Final = tuple.__new__


@mypyc_attr(native_class=False)  # compiled or not, a plain frozen dataclass (it has a __dict__)
@dataclass(frozen=True)
class HandResult:
    """The scoring of one hand."""

    hand_number: int
    pass_direction: str
    points_taken: tuple[int, ...]  # points of the cards each seat captured (kitty included)
    tricks_won: tuple[int, ...]
    score: tuple[int, ...]  # what the hand added to each total (after moon, sun and bonuses)
    totals: tuple[int, ...]  # match totals after the hand (after any exact-target reset)
    moon: int | None = None  # the seat that shot the moon
    sun: int | None = None  # the seat that shot the sun
    moon_choice: MoonChoice | None = None
    charges: tuple[tuple[int, Card], ...] = ()  # turbo_charging: (seat, card) of each charged card


# -- chance ------------------------------------------------------------------------------------


class SeededRandom:
    """splitmix64 seeded by SHA-256 of (seed, stream): the same numbers on every platform."""

    __slots__ = ("_state",)

    def __init__(self, seed: int, *stream: int | str) -> None:
        key = ":".join(str(x) for x in (seed, *stream)).encode()
        self._state = int.from_bytes(hashlib.sha256(key).digest()[:8], "little")

    def next64(self) -> int:
        self._state = s = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in 0..n-1 (rejection sampling: no modulo bias)."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[Any]) -> Any:
        return items[self.below(len(items))]

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_seeded_random_at, (self._state,))


def _seeded_random_at(state: int) -> SeededRandom:
    """A generator in this state (copy and pickle: compiled, a native class needs its __init__)."""
    r = SeededRandom(0)
    r._state = state
    return r


def shuffled(items: list[Any], seed: int, *stream: int | str) -> list[Any]:
    """Fisher–Yates shuffle driven by SHAKE-256 of (seed, stream): portable and fast.

    Each draw is a 64-bit word reduced modulo i + 1; for at most 52 items the modulo bias is
    below 2**-57, far beneath anything a tournament could measure.
    """
    key = ":".join(map(str, (seed, *stream))).encode()
    n = len(items)
    words = struct.unpack(f"<{n}Q", hashlib.shake_256(key).digest(8 * n))
    for i in range(n - 1, 0, -1):
        j = words[i] % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


_DECK_BITS: Final[dict[int, tuple[int, ...]]] = {}  # deck mask -> the bit of each card in it, once per ruleset


def deal(rules: Rules, seed: int, hand_number: int) -> Deal:
    """The deal of hand ``hand_number`` of the match seeded ``seed``."""
    if rules.packs == 2:
        return _deal_two_packs(rules, seed, hand_number)
    deck = _DECK_BITS.get(rules.deck_mask)
    if deck is None:
        deck = _DECK_BITS[rules.deck_mask] = tuple(1 << i for i in range(52) if rules.deck_mask >> i & 1)
    # Shuffling the cards' bits (the permutation depends only on the count and the seed) makes
    # each hand's mask the plain sum of a slice: the bits are distinct.
    cards = shuffled(list(deck), seed, "deal", hand_number)
    per = rules.cards_per_player
    n = rules.players
    hands = tuple([cardset_of_mask(sum(cards[s * per : (s + 1) * per])) for s in range(n)])
    return Deal(hand_number, hands, cardset_of_mask(sum(cards[n * per :])))


def _deal_two_packs(rules: Rules, seed: int, hand_number: int) -> Deal:
    """002 Cancellation Hearts: 'two 52-card packs shuffled together', 'dealt out as far as they will
    go, any left-over cards being placed in a face-down kitty'. Copy i + 52 is the second of card i."""
    order = shuffled(list(range(2 * 52)), seed, "deal", hand_number)
    per = rules.cards_per_player
    n = rules.players
    hands = tuple([CardMultiset(multiset_of([DECK[i % 52] for i in order[s * per : (s + 1) * per]])) for s in range(n)])
    return Deal(hand_number, hands, CardMultiset(multiset_of([DECK[i % 52] for i in order[n * per :]])))


_OFFSETS: Final = {"left": 1, "right": -1, "across": 2, "left2": 2, "right2": -2}
_EMPTY_SET: Final = CardSet(0)
_BLANK_DEALS: Final[dict[int, Deal]] = {}  # players -> an empty deal (Hand.copy builds through __init__)


# -- one hand ----------------------------------------------------------------------------------


class Hand:
    """The state of one hand: hands, passes, tricks, captured cards. Scoring is the match's."""

    def __init__(self, rules: Rules, d: Deal, direction: str, dealer: int) -> None:
        n = rules.players
        self.rules = rules
        self.number = d.hand_number
        self.players = n
        self.direction = direction
        self.dealer = dealer
        self.dealt: tuple[int, ...] = tuple([h.mask for h in d.hands])
        self.hands: list[int] = list(self.dealt)
        self.kitty: int = d.kitty.mask
        self.passed: list[tuple[Card, ...] | None] = [None] * n
        self.received: list[int] = [0] * n
        self.captured: list[int] = [0] * n
        self.tricks_won: list[int] = [0] * n
        self.tricks: list[Trick] = []
        self.trick_cards: list[Card] = []
        self.trick_mask = 0
        self.trick_size = n  # cards the trick in progress takes: 2 n once a nine boosts it (booster_nines)
        self.hearts_broken = False
        self.kitty_taker: int | None = None
        self.discarded: tuple[Card, ...] = ()  # what the kitty's taker discarded (kitty_discard)
        self.leader = 0
        self.turn = 0
        self.opening = 0
        self._legal = -1  # the legal set of the seat to play, computed once per decision
        self.refusal = ""  # the rule that ruled out the card ``_compute_legal`` was asked about
        self._breakers = HEARTS_MASK | (_QS if rules.queen_breaks_hearts else 0)
        # The rule options the legal-move code reads, as plain attributes (read on every decision).
        self._hearts_wait = rules.hearts_lead == "broken"
        self._lead_with_queen = rules.lead_hearts_with_queen
        self._first_trick_safe = not rules.points_on_first_trick
        self._not_penalty = FULL_MASK & ~rules.penalty_mask
        self._queen_first_safe = rules.queen_at_first_safe_chance
        self._nines = _NINES if rules.booster_nines else 0  # 0: the play paths skip the boost test at once
        self.offsets: tuple[int, ...] = ()  # a called split pass: seats to the left, per card passed
        # turbo_charging: each seat's charge (None until it has charged), and once all have, the charged
        # cards, public, and those whose suit has not been led yet (they may not be played on that lead).
        self.charges: list[tuple[Card, ...] | None] = [None] * n
        self.charged = 0
        self.shown_charges: tuple[tuple[int, Card], ...] = ()
        self._restricted = 0  # 0 without charges: the legal-move code skips the restriction at once
        self._may_slough = rules.charged_singleton == "may-slough"
        # Two packs (002 Cancellation Hearts): ``hands`` holds each seat's card values (52 bits, so the
        # legal-move and play paths are the one-pack ones) and ``doubles`` the values it holds twice.
        # Playing one of two copies clears the ``hands`` bit only; each trick's end restores the bit
        # (a seat plays once a trick). ``table``: the cards (a multiset mask) of winnerless tricks, lying
        # on the table for the next trick's winner, and ``table_tricks`` how many tricks they are.
        self._two = rules.packs == 2
        self.doubles: list[int] = [0] * n
        self.table = 0
        self.table_tricks = 0
        if self._two:
            self.hands = [m & FULL_MASK for m in self.dealt]
            self.doubles = [m >> PACK_BITS for m in self.dealt]
        self.phase = Phase.CALL if direction == "call" else Phase.PASS if direction != "hold" else Phase.PLAY
        if self.phase is Phase.PLAY:
            self._after_pass()

    def _after_pass(self) -> None:
        """002 Turbo Hearts: 'After the pass but before the first lead' the seats may charge; else play."""
        if self.rules.turbo_charging:
            self.phase = Phase.CHARGE
        else:
            self._start_play()

    # The opening: the holder of the lowest club in play leads it, or left of the dealer leads.
    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        if self.rules.first_lead == "lowest-club":
            clubs = self.rules.deck_mask & _CLUBS & ~self.kitty
            self.opening = 1 << lowest_bit(clubs)
            self.leader = next(s for s in range(self.players) if self.hands[s] & self.opening)
        else:
            self.opening = 0
            self.leader = (self.dealer + 1) % self.players
        self.turn = self.leader
        self._legal = -1

    def copy(self) -> Hand:
        """A cheap copy to play on (rollouts): the lists copied, everything immutable shared.

        Built through ``__init__`` from an empty deal (the only way to build a native class compiled),
        then overwritten; a test checks every attribute of the copy equals the original's.
        """
        n = self.players
        blank = _BLANK_DEALS.get(n)
        if blank is None:
            blank = _BLANK_DEALS[n] = Deal(0, tuple([_EMPTY_SET] * n), _EMPTY_SET)
        h = Hand(self.rules, blank, "left", self.dealer)
        h.number = self.number
        h.direction = self.direction
        h.dealt = self.dealt
        h.hands = list(self.hands)
        h.kitty = self.kitty
        h.passed = list(self.passed)
        h.received = list(self.received)
        h.captured = list(self.captured)
        h.tricks_won = list(self.tricks_won)
        h.tricks = list(self.tricks)
        h.trick_cards = list(self.trick_cards)
        h.trick_mask = self.trick_mask
        h.trick_size = self.trick_size
        h.hearts_broken = self.hearts_broken
        h.kitty_taker = self.kitty_taker
        h.discarded = self.discarded
        h.leader = self.leader
        h.turn = self.turn
        h.opening = self.opening
        h._legal = self._legal
        h.refusal = self.refusal
        h.offsets = self.offsets
        h.charges = list(self.charges)
        h.charged = self.charged
        h.shown_charges = self.shown_charges
        h._restricted = self._restricted
        h.doubles = list(self.doubles)
        h.table = self.table
        h.table_tricks = self.table_tricks
        h.phase = self.phase
        return h

    @property
    def first_trick(self) -> bool:
        return not self.tricks

    def legal_mask(self, seat: int) -> int:
        """The legal cards for ``seat`` now, as a bitmask (0 when it is not that seat's turn)."""
        if seat != self.turn or self.phase is not _PLAY:
            return 0
        if self._legal >= 0:
            return self._legal
        self._legal = legal = self._compute_legal(seat)
        return legal

    def _compute_legal(self, seat: int, tried: int = 0) -> int:
        """The legal cards of ``seat``, as a bitmask. With ``tried`` (a held card's mask), the rule that
        rules that card out is left in ``refusal`` (the last stage that removed it; "" if none did)."""
        h = self.hands[seat]
        cards = self.trick_cards
        first = not self.tricks
        if cards:
            legal = h & _SUIT_MASK_OF[cards[0].index] or h  # follow suit if able
            if tried and not legal & tried:
                self.refusal = RULE_FOLLOW_SUIT.format(suit=_SUIT_WORDS[cards[0].index // 13])
        elif first and self.opening:
            if tried and not self.opening & tried:
                self.refusal = RULE_OPENING_LEAD.format(card=DECK[lowest_bit(self.opening)].symbol)
            return self.opening  # 001: the holder of 2♣ must lead it
        else:
            legal = h
            if self._hearts_wait and not self.hearts_broken:
                others = h & _NOT_HEARTS
                # 001: a hand of nothing but hearts may lead one; 002 option: hearts and Q♠ only.
                if others and not (self._lead_with_queen and others == _QS):
                    legal = others
                    if tried and not legal & tried:
                        self.refusal = RULE_HEARTS_OR_QUEEN_UNBROKEN if self._breakers & _QS else RULE_HEARTS_UNBROKEN
        if self._restricted:
            allowed = legal
            legal = self._unrestricted(h, legal)
            if tried and allowed & tried and not legal & tried:
                self.refusal = RULE_CHARGED
        if first and self._first_trick_safe:
            safe = legal & self._not_penalty
            if safe:  # 001: only a hand of nothing but penalty cards may throw one on trick one
                if tried and legal & tried and not safe & tried:
                    self.refusal = RULE_FIRST_TRICK
                legal = safe
        if self._queen_first_safe and legal & _QS and cards:
            if cards[0].suit is not Suit.SPADES or self.trick_mask & _HIGH_SPADES:
                if tried and legal & tried and tried != _QS:
                    self.refusal = RULE_QUEEN_FIRST_SAFE
                legal = _QS
        return legal

    def refused(self, seat: int, card: Card) -> IllegalPlayError | None:
        """The error ``play(seat, card)`` would raise, without playing: None when it would be played."""
        if self.phase is not _PLAY:
            return NotYourTurnError(
                f"seat {seat} cannot play {card}: the hand is in the {self.phase.value} phase", seat=seat, tried=card
            )
        if seat != self.turn:
            return NotYourTurnError(
                f"seat {seat} cannot play {card}: it is seat {self.turn}'s turn", seat=seat, tried=card
            )
        legal = self._legal
        if legal < 0:
            self._legal = legal = self._compute_legal(seat)  # this decision's legal set, as legal_mask keeps it
        m = card.mask
        if legal & m:
            return None
        if not self.hands[seat] & m:
            return CardNotHeldError(
                f"seat {seat} cannot play {card} (does not hold it); legal: {CardSet(legal)}",
                seat=seat,
                tried=card,
                legal=CardSet(legal),
            )
        self.refusal = ""
        self._compute_legal(seat, m)
        rule = self.refusal or "the rules forbid it now"
        return CardNotLegalError(
            f"seat {seat} cannot play {card} ({rule}); legal: {CardSet(legal)}",
            seat=seat,
            tried=card,
            legal=CardSet(legal),
            rule=rule,
        )

    def _unrestricted(self, h: int, legal: int) -> int:
        """002 Turbo Hearts: 'A player may not play a turbo-charged card the first time a card of that suit
        is led'; leading it would be that first time. The restriction never leaves a seat without a legal
        card: when every card the other rules allow is restricted, it gives way (charged_singleton=
        must-play), or, following a suit whose every held card is charged, the seat plays as if void
        (may-slough: following 'if possible' is not possible)."""
        cards = self.trick_cards
        r = self._restricted
        if cards:
            r &= _SUIT_MASK_OF[cards[0].index]  # a charged card of another suit may be sloughed
        if not legal & r:
            return legal
        rest = legal & ~r
        if rest:
            return rest
        if cards and self._may_slough and h & ~r:
            return h & ~r
        return legal

    def play(self, seat: int, card: Card) -> Trick | None:
        """Play ``card`` for ``seat`` (checked). Returns the trick when this card completed it."""
        m = card.mask
        legal = self._legal
        if legal < 0 or not legal & m or seat != self.turn or self.phase is not _PLAY:
            error = self.refused(seat, card)
            if error is not None:
                raise error
        # Match.play repeats these lines inline (its hot path); a property test plays both ways at every play.
        self._legal = -1
        self.hands[seat] ^= m
        cards = self.trick_cards
        cards.append(card)
        self.trick_mask |= m
        if m & self._breakers:
            self.hearts_broken = True  # 001: only a heart breaks hearts (option: Q♠ too)
        if m & self._nines:
            self._boost(seat, m)
        if len(cards) < self.trick_size:
            self.turn = (seat + 1) % self.players
            return None
        return self._finish_trick()

    def _boost(self, seat: int, nine: int) -> None:
        """002 Booster Nines: a nine 'led to a trick or played while following suit' adds 'one more round
        ... in the same suit'; not a sloughed nine, nor one 'played in the last trick' (the seat's last card)."""
        if nine & _SUIT_MASK_OF[self.trick_cards[0].index] and self.hands[seat] and self.trick_size == self.players:
            self.trick_size = 2 * self.players

    def held(self, seat: int) -> int:
        """The cards ``seat`` holds as a multiset mask (two packs: bit 52 + i, card i held twice)."""
        h = self.hands[seat]
        d = self.doubles[seat]
        return h | d | (h & d) << PACK_BITS

    def _finish_trick(self) -> Trick:
        if self._two:
            return self._finish_cancelling_trick()
        cards = self.trick_cards
        taken = self.trick_mask
        # The winner holds the highest card of the led suit: the top bit of the trick in that suit.
        best = DECK[(taken & _SUIT_MASK_OF[cards[0].index]).bit_length() - 1]
        leader = self.leader
        winner = (leader + cards.index(best)) % self.players
        trick = _new_tuple(Trick, (leader, tuple(cards), winner))
        self.tricks.append(trick)
        self.captured[winner] |= taken
        self.tricks_won[winner] += 1
        if self._restricted:  # its suit has now been led: its charged cards play freely from here on
            self._restricted &= ~_SUIT_MASK_OF[cards[0].index]
        if self.kitty and self.kitty_taker is None:
            kind = self.rules.kitty
            if kind == "first-trick" or (kind == "first-points" and taken & self.rules.penalty_mask):
                self.kitty_taker = winner
                if self.rules.kitty_discard:
                    # 002 method 2: into the hand; the taker discards as many before the next lead.
                    self.hands[winner] |= self.kitty
                    self.phase = Phase.DISCARD
                else:
                    self.captured[winner] |= self.kitty
        self.trick_cards = []
        self.trick_mask = 0
        self.trick_size = self.players
        self._legal = -1
        self.leader = self.turn = winner
        if not self.hands[winner]:
            self.phase = _OVER  # the match decides what comes next (scoring or a moon choice)
        return trick

    def _finish_cancelling_trick(self) -> Trick:
        """002 Cancellation Hearts: 'When two identical cards are played to a trick, they cancel each other
        out in terms of trick-taking power (but still carry penalty points if they are penalty cards). The
        trick is taken by the highest card of the suit led which is not duplicated. If all the cards played
        of the suit led are in cancelling pairs, the trick remains on the table, the same player leads
        again, and the cards go to the winner of the next trick. If the very last trick has no winner, its
        cards go to the winner of the previous trick.'"""
        cards = self.trick_cards
        n = self.players
        once = 0
        twice = 0
        for c in cards:
            b = c.mask
            if once & b:
                twice |= b
            else:
                once |= b
        taken = once | twice << PACK_BITS
        standing = once & ~twice & _SUIT_MASK_OF[cards[0].index]
        leader = self.leader
        for s in range(n):  # a seat that played one of its two copies holds the other: restore its bit
            d = self.doubles[s]
            missing = d & ~self.hands[s]
            if missing:
                self.hands[s] |= missing
                self.doubles[s] = d ^ missing
        self.trick_cards = []
        self.trick_mask = 0
        self._legal = -1
        if standing:
            best = DECK[standing.bit_length() - 1]
            winner = (leader + cards.index(best)) % n
            trick = _new_tuple(Trick, (leader, tuple(cards), winner))
            self.tricks.append(trick)
            self._take(winner, multiset_add(taken, self.table), 1 + self.table_tricks)
            self.table = 0
            self.table_tricks = 0
            self.leader = self.turn = winner
        else:
            # 'the trick remains on the table, the same player leads again'
            trick = _new_tuple(Trick, (leader, tuple(cards), None))
            self.tricks.append(trick)
            self.table = multiset_add(self.table, taken)
            self.table_tricks += 1
            self.turn = leader
        if not self.hands[self.leader]:
            if self.table:
                # 'If the very last trick has no winner, its cards go to the winner of the previous trick':
                # of the last trick that had one, when several at the end had none. No trick of the hand
                # had a winner: nobody takes them (nor the kitty), and they score for nobody.
                taker = next((t.winner for t in reversed(self.tricks) if t.winner is not None), None)
                if taker is not None:
                    self._take(taker, self.table, self.table_tricks)
            self.phase = _OVER
        return trick

    def _take(self, seat: int, cards: int, tricks: int) -> None:
        """Two packs: ``seat`` takes ``cards`` (a multiset mask) as ``tricks`` tricks, and the kitty with the
        first trick's cards (002: 'a face-down kitty which is taken by the winner of the first trick')."""
        self.captured[seat] = multiset_add(self.captured[seat], cards)
        self.tricks_won[seat] += tricks
        if self.kitty and self.kitty_taker is None:
            kind = self.rules.kitty
            if kind == "first-trick" or (kind == "first-points" and cards & self.rules.penalty_mask):
                self.kitty_taker = seat
                self.captured[seat] = multiset_add(self.captured[seat], self.kitty)

    def discard(self, seat: int, cards: Sequence[Card]) -> None:
        """The kitty's taker discards ``cards`` face down into its tricks (checked; kitty_discard)."""
        cards = tuple(cards)
        if self.phase is not Phase.DISCARD or seat != self.kitty_taker:
            why = (
                f"the hand is in the {self.phase.value} phase"
                if self.phase is not Phase.DISCARD
                else f"seat {self.kitty_taker} took the kitty"
            )
            raise NotYourTurnError(f"seat {seat} cannot discard: {why}", seat=seat, tried=cards)
        need = self.kitty.bit_count()
        held = self.hands[seat]
        m = 0
        for c in cards:
            if m & c.mask:
                raise RepeatedCardError(f"seat {seat} discarded {c} twice", seat=seat, tried=cards)
            m |= c.mask
        if len(cards) != need:
            raise WrongCountError(
                f"seat {seat} must discard exactly {need} cards (as many as the kitty), not {len(cards)}",
                seat=seat,
                tried=cards,
                legal=CardSet(held),
            )
        if m & ~held:
            raise CardNotHeldError(
                f"seat {seat} cannot discard {CardSet(m & ~held)}: not in its hand {CardSet(held)}",
                seat=seat,
                tried=cards,
                legal=CardSet(held),
            )
        self.hands[seat] = held & ~m
        self.captured[seat] |= m  # 002: 'face down into their tricks': they score for the taker
        self.discarded = cards
        self._legal = -1
        self.phase = _PLAY if self.hands[seat] else _OVER

    def call(self, seat: int, direction: str, offsets: tuple[int, ...]) -> None:
        """The dealer calls the pass (checked; ``direction`` and ``offsets`` as ``pass_call`` gives them)."""
        if self.phase is not Phase.CALL or seat != self.dealer:
            why = (
                f"the hand is in the {self.phase.value} phase"
                if self.phase is not Phase.CALL
                else f"seat {self.dealer} deals this hand"
            )
            raise NotYourTurnError(f"seat {seat} cannot call the pass: {why}", seat=seat, tried=direction)
        self.direction = direction
        self.offsets = offsets if direction == "split" else ()
        self.phase = Phase.PASS

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> None:
        """Record ``seat``'s pass (checked); when every seat has passed, exchange the cards."""
        rules = self.rules
        if self.phase is not Phase.PASS:
            raise NotYourTurnError(
                f"seat {seat} cannot pass: the hand is in the {self.phase.value} phase", seat=seat, tried=tuple(cards)
            )
        already = self.passed[seat]
        if already is not None:
            raise NotYourTurnError(
                f"seat {seat} has already passed {' '.join(map(str, already))}", seat=seat, tried=tuple(cards)
            )
        cards = tuple(cards)
        if not cards and rules.may_pass_on(self.direction):
            self.passed[seat] = cards  # 002: it will pass on, unseen, the cards passed to it
            return
        if len(cards) != rules.pass_count:
            may = " (or none, to pass on the cards passed to it)" if rules.may_pass_on(self.direction) else ""
            raise WrongCountError(
                f"seat {seat} must pass exactly {rules.pass_count} cards{may}, not {len(cards)} "
                f"({' '.join(map(str, cards)) or 'none'})",
                seat=seat,
                tried=cards,
            )
        if self._two:
            self._check_pass_two_packs(seat, cards)
            self.passed[seat] = cards
            return
        m = 0
        for c in cards:
            if m & c.mask:
                raise RepeatedCardError(f"seat {seat} passed {c} twice", seat=seat, tried=cards)
            m |= c.mask
        if m & ~self.hands[seat]:
            missing = CardSet(m & ~self.hands[seat])
            raise CardNotHeldError(
                f"seat {seat} cannot pass {missing}: not in its hand {CardSet(self.hands[seat])}",
                seat=seat,
                tried=cards,
                legal=CardSet(self.hands[seat]),
            )
        self.passed[seat] = cards

    def _check_pass_two_packs(self, seat: int, cards: tuple[Card, ...]) -> None:
        """Two packs: a seat holding a card twice may pass both copies, never more than it holds (a card
        named twice but held once is a repeated card, as with one pack)."""
        held = self.held(seat)
        try:
            m = multiset_of(cards)
        except ValueError:
            raise RepeatedCardError(f"seat {seat} passed a card three times", seat=seat, tried=cards) from None
        missing = m & ~held & FULL_MASK
        if missing:
            raise CardNotHeldError(
                f"seat {seat} cannot pass {CardSet(missing)}: not in its hand {card_set(held)}",
                seat=seat,
                tried=cards,
                legal=card_set(held),
            )
        again = m >> PACK_BITS & ~(held >> PACK_BITS)
        if again:
            raise RepeatedCardError(
                f"seat {seat} passed {CardSet(again)} twice, holding one copy", seat=seat, tried=cards
            )

    def _exchange_two_packs(self) -> None:
        """Two packs: the pass as ``exchange`` moves it, card by card (a seat may give or get a card twice)."""
        n = self.players
        passed = [p or () for p in self.passed]
        for s in range(n):
            for c in passed[s]:
                m = c.mask
                if self.doubles[s] & m:
                    self.doubles[s] ^= m
                else:
                    self.hands[s] ^= m
        received = [0] * n
        for s in range(n):
            for k, c in enumerate(passed[s]):
                if self.direction == "scatter":
                    to = (s + 1 + k % (n - 1)) % n
                else:
                    off = _OFFSETS[self.direction]
                    to = (s + off) % n
                    while not passed[to]:  # pass_on, as in exchange
                        to = (to + off) % n
                received[to] = multiset_add(received[to], c.mask)
        for s in range(n):
            for c in multiset_cards(received[s]):
                m = c.mask
                if self.hands[s] & m:
                    self.doubles[s] |= m
                else:
                    self.hands[s] |= m
        self.received = received
        self._start_play()

    @property
    def all_passed(self) -> bool:
        return None not in self.passed

    def exchange(self, mix: MixRedeal | None = None) -> None:
        """Move the passed cards (all seats have passed). A mix pass needs its chance redeal."""
        if self._two:
            self._exchange_two_packs()
            return
        n = self.players
        passed = [p or () for p in self.passed]
        for s in range(n):
            for c in passed[s]:
                self.hands[s] ^= c.mask
        if self.direction == "mix":
            assert mix is not None
            self.received = [r.mask for r in mix.received]
            self.kitty = mix.kitty.mask
        elif self.direction == "split":
            # 002 Da Nasty Fix: a called split, e.g. 'two to the left, one to the right'.
            for s in range(n):
                for k, c in enumerate(passed[s]):
                    self.received[(s + self.offsets[k]) % n] |= c.mask
        elif self.direction == "scatter":
            # The k-th card passed goes to the player k mod (n-1) + 1 seats to the left.
            for s in range(n):
                for k, c in enumerate(passed[s]):
                    self.received[(s + 1 + k % (n - 1)) % n] |= c.mask
        else:
            off = _OFFSETS[self.direction]
            for s in range(n):
                if not passed[s]:
                    continue
                to = (s + off) % n
                while not passed[to]:  # 002 pass_on: a seat passing on sends on, unseen, what reaches it
                    to = (to + off) % n  # ends at a seat that passed cards: at worst s, which gets its own back
                for c in passed[s]:
                    self.received[to] |= c.mask
        for s in range(n):
            self.hands[s] |= self.received[s]
        self._after_pass()

    def charge(self, seat: int, cards: Sequence[Card]) -> None:
        """Record ``seat``'s turbo-charge (checked; none is legal); once every seat has charged, the
        charges are shown and the first lead follows."""
        cards = tuple(cards)
        if self.phase is not _CHARGE:
            raise NotYourTurnError(
                f"seat {seat} cannot charge: the hand is in the {self.phase.value} phase", seat=seat, tried=cards
            )
        if self.charges[seat] is not None:
            raise NotYourTurnError(f"seat {seat} has already charged", seat=seat, tried=cards)
        held = self.hands[seat]
        chargeable = CardSet(held & _CHARGEABLE)
        if len(cards) > 1 and self.rules.turbo_charges == "one":
            raise WrongCountError(
                f"seat {seat} may charge one card or none, not {len(cards)} ({' '.join(map(str, cards))})",
                seat=seat,
                tried=cards,
                legal=chargeable,
            )
        m = 0
        for c in cards:
            if m & c.mask:
                raise RepeatedCardError(f"seat {seat} charged {c} twice", seat=seat, tried=cards)
            m |= c.mask
        if m & ~held:
            raise CardNotHeldError(
                f"seat {seat} cannot charge {CardSet(m & ~held)}: not in its hand",
                seat=seat,
                tried=cards,
                legal=chargeable,
            )
        if m & ~_CHARGEABLE:
            raise CardNotLegalError(
                f"seat {seat} cannot charge {CardSet(m & ~_CHARGEABLE)}: only A♥ Q♠ J♦ 10♣ may be charged",
                seat=seat,
                tried=cards,
                legal=chargeable,
            )
        self.charges[seat] = tuple(sorted(cards, key=_card_index))
        if None in self.charges:
            return
        charged = 0
        shown: list[tuple[int, Card]] = []
        for s, ch in enumerate(self.charges):
            for c in ch or ():
                charged |= c.mask
                shown.append((s, c))
        self.charged = self._restricted = charged
        self.shown_charges = tuple(shown)
        self._start_play()


# -- the match ---------------------------------------------------------------------------------


def _doubled(rules: Rules, captured: Sequence[int], score: list[int], charged: int = 0) -> list[int]:
    """002 Turbo Hearts: 'Whoever captures the ten of clubs doubles their score for that hand'
    (ten_of_clubs_doubles), and 'A turbo-charged ten of clubs quadruples the score for that hand of the
    player who captures it' (quadruples, not doubles twice); ``score`` itself when neither applies."""
    quadruple = charged & _TEN_OF_CLUBS
    if not rules.ten_of_clubs_doubles and not quadruple:
        return score
    out = list(score)
    for s, cap in enumerate(captured):
        if cap & _TEN_OF_CLUBS:
            out[s] *= 4 if quadruple else 2
    return out


def _card_index(card: Card) -> int:
    return card.index


_CHARGED_TABLES: Final[dict[tuple[Rules, int], tuple[tuple[int, ...], tuple[tuple[int, int], ...], int]]] = {}


def charged_points(rules: Rules, charged: int) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...], int]:
    """The hand's card values, point groups and moon total under these charged cards (turbo_charging):
    002 'A turbo-charged queen of spades or jack of diamonds doubles the value of that card', 'A
    turbo-charged ace of hearts doubles the value of all hearts'. The penalty cards stay the same, so a
    moon is still every one of them, worth what they are worth this hand."""
    key = (rules, charged & _VALUE_CHARGES)
    table = _CHARGED_TABLES.get(key)
    if table is not None:
        return table
    points = list(rules.card_points)
    if charged & _ACE_OF_HEARTS:
        for i in range(52):
            if HEARTS_MASK >> i & 1:
                points[i] *= 2
    for mask in (_QS, _JACK_OF_DIAMONDS):
        if charged & mask:
            points[mask.bit_length() - 1] *= 2
    groups: dict[int, int] = {}
    for i in range(52):
        if points[i]:
            groups[points[i]] = groups.get(points[i], 0) | 1 << i
    moon = sum([points[i] for i in range(52) if rules.penalty_mask >> i & 1])
    table = _CHARGED_TABLES[key] = (tuple(points), tuple(groups.items()), moon)
    return table


def _team_sums(per_seat: Sequence[int]) -> list[int]:
    """Per seat, its team's: the partners' (seats s and s + 2 of four) captured cards or tricks together."""
    return [per_seat[s] + per_seat[(s + 2) % 4] for s in range(4)]


def _slam_seat(captured: Sequence[int], penalty: int, points: Sequence[int], team_seat: int = -1) -> int | None:
    """partnership=team: the seat that speaks for a team that took every penalty card (``team_seat``: or
    every trick), None when no team did: the partner who took Q♠ (one seat, seen by all in the play, and
    the card a slam turns on), else the partner whose tricks hold more penalty points (the lower seat on a tie)."""
    for s in (0, 1) if team_seat < 0 else (team_seat % 2,):
        p = s + 2
        if team_seat < 0 and (captured[s] | captured[p]) & penalty != penalty:
            continue
        if penalty & _QS:
            return s if captured[s] & _QS else p
        ps = sum([points[i] for i in range(52) if (captured[s] & penalty) >> i & 1])
        pp = sum([points[i] for i in range(52) if (captured[p] & penalty) >> i & 1])
        return s if ps >= pp else p
    return None


def places_of(totals: Sequence[int], first: int | None = None) -> tuple[int, ...]:
    """Competition ranking, lower total first: (1, 2, 2, 4). ``first``, a seat whose shot won the match
    (moon=wins-match), places 1 alone whatever its total; the others rank behind it."""
    if first is None:
        return tuple(1 + sum(1 for u in totals if u < t) for t in totals)
    return tuple(
        1 if s == first else 2 + sum(1 for o, u in enumerate(totals) if o != first and u < t)
        for s, t in enumerate(totals)
    )


# Compiled or not, a plain frozen dataclass: Match.observation fills its __dict__ directly (the fast
# path, see there), which a mypyc native class, having no __dict__, would not allow.
@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Observation:
    """What one seat may know: its own cards and the public play, never another hand."""

    seat: int
    rules: Rules
    hand_number: int
    dealer: int
    phase: Phase
    scores: tuple[int, ...]  # match totals before this hand
    pass_direction: str
    hand: CardSet
    passed: tuple[Card, ...]  # what this seat passed (empty before it passes, or on a hold hand)
    received: CardSet  # what it received (empty until the exchange)
    tricks: tuple[Trick, ...]  # the completed tricks of this hand
    current_trick: Trick  # the trick in progress (winner None)
    hearts_broken: bool
    legal: CardSet  # the legal plays when this seat must play; else empty
    to_move: tuple[int, ...]  # seats that owe a decision now
    kitty_taker: int | None = None
    kitty: CardSet = CardSet()  # the kitty's cards: shown to the seat that took it only
    moon_points: int = 0  # in the moon phase: the points the shooter's choice concerns
    discarded: tuple[Card, ...] = ()  # kitty_discard: what this seat discarded, shown to it only
    pass_offsets: tuple[int, ...] = ()  # a called split pass: seats to the left, per card passed
    boosted: bool = False  # booster_nines: a nine boosted the trick in progress (it takes 2 × players cards)
    charges: tuple[tuple[int, Card], ...] = ()  # turbo_charging: (seat, card) of every charged card, public
    table: CardSet = CardSet()  # packs=2: the cards of winnerless tricks, for the next trick's winner

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    @property
    def is_leading(self) -> bool:
        return not self.current_trick.cards

    @property
    def led_suit(self) -> Suit | None:
        c = self.current_trick.cards
        return c[0].suit if c else None

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def trick_size(self) -> int:
        """The cards the trick in progress takes: players, or twice as many once boosted (booster_nines)."""
        return 2 * self.rules.players if self.boosted else self.rules.players

    @property
    def partner(self) -> int | None:
        """Under partnership, the seat opposite (002 'partners sitting opposite each other'); else None."""
        return self.rules.partner(self.seat)

    @property
    def team_scores(self) -> tuple[int, ...]:
        """Under partnership, the teams' totals before this hand (team 0: seats 0 and 2); else empty."""
        return self.rules.team_totals(self.scores)

    @property
    def team(self) -> int | None:
        """Under partnership, this seat's team: 0 (seats 0 and 2) or 1 (seats 1 and 3); else None."""
        return self.seat % 2 if self.rules.partnership != "none" else None


_NO_CARDS: Final = CardSet()  # one shared empty set: card sets are immutable


def _own_charges(hand: Hand, seat: int) -> tuple[tuple[int, Card], ...]:
    """In the charge phase, a seat sees its own charge only (the others are placed at the same time)."""
    return tuple([(seat, c) for c in hand.charges[seat] or ()])


def _attrs(obj: object) -> dict[str, object]:
    """An instance's attributes: its __dict__, or, compiled, those mypyc lists for its native class."""
    if COMPILED:
        # getattr: the attribute exists only on mypyc's native classes, which no type declares.
        return {name: getattr(obj, name) for name in getattr(type(obj), "__mypyc_attrs__")}  # noqa: B009
    return dict(obj.__dict__)


def _match_from_attrs(rules: Rules, seed: int, match: dict[str, object], hand: dict[str, object]) -> Match:
    """A match with these attributes (``_attrs`` of a match and of its hand): a throwaway match of the
    same rules and seed, built the ordinary way (the only way to build a native class), overwritten."""
    m = Match(rules, seed)
    h = m.hand
    for name, value in match.items():
        setattr(m, name, value)
    for name, value in hand.items():
        setattr(h, name, value)
    m.hand = h
    return m


class Match:
    """A match of Hearts among ``rules.players`` seats, from a seed.

    >>> m = Match(Rules(), seed=7)
    >>> m.phase
    <Phase.PASS: 'pass'>
    """

    def __init__(self, rules: Rules | None = None, seed: int = 0) -> None:
        self.rules = rules if rules is not None else Rules()
        self.seed = seed
        self.scores: list[int] = [0] * self.rules.players
        self.results: list[HandResult] = []
        # Plays are logged as plain (seat, card) tuples (the hot path); ``history`` builds Events.
        self._log: list[Any] = []  # events; a play as a bare (seat, card) tuple (see history)
        self.winners: tuple[int, ...] = ()
        self.over = False
        self.shot_winner: int | None = None  # moon=wins-match: the seat whose shot ended the match
        self._moon_shooter: int | None = None
        # observation's cache: the hand it is for, then per seat the fields fixed through its play
        self._play_views: list[Any] = [None]
        self._new_hand(0)

    # -- the flow ---------------------------------------------------------------------------

    def _new_hand(self, number: int) -> None:
        d = deal(self.rules, self.seed, number)
        self._log.append(d)
        self.hand = Hand(self.rules, d, self.rules.pass_direction(number), number % self.rules.players)

    @property
    def hand_number(self) -> int:
        return self.hand.number

    @property
    def phase(self) -> Phase:
        if self.over:
            return _OVER
        if self._moon_shooter is not None:
            return _MOON
        return self.hand.phase

    @property
    def to_move(self) -> tuple[int, ...]:
        """The seats that owe a decision now (all who have not passed, in the pass phase)."""
        p = self.phase
        if p is _PASS:
            passed = self.hand.passed
            return tuple([s for s in range(self.rules.players) if passed[s] is None])
        if p is _PLAY:
            return (self.hand.turn,)
        if p is _MOON:
            return (self._moon_shooter,)  # type: ignore[return-value]  # set in the moon phase
        if p is Phase.DISCARD:
            return (self.hand.turn,)  # the kitty's taker, who leads next
        if p is Phase.CALL:
            return (self.hand.dealer,)
        if p is _CHARGE:
            charges = self.hand.charges
            return tuple([s for s in range(self.rules.players) if charges[s] is None])
        return ()

    @property
    def turn(self) -> int:
        """The seat to play (or to choose the moon's scoring)."""
        return self._moon_shooter if self._moon_shooter is not None else self.hand.turn

    def legal_plays(self, seat: int | None = None) -> CardSet:
        """The cards the seat to play (or ``seat``) may play now; empty when it is not its turn."""
        hand = self.hand
        if self._moon_shooter is not None:
            return CardSet(0)
        turn = hand.turn
        if seat is None or seat == turn:
            legal = hand._legal
            if legal < 0:  # not yet computed for this decision: legal_mask inlined (the hot path)
                if hand.phase is not _PLAY:
                    return CardSet(0)
                legal = hand._legal = hand._compute_legal(turn)
            return cardset_of_mask(legal)
        return CardSet(hand.legal_mask(seat))

    def pass_cards(self, seat: int, cards: Iterable[Card | str]) -> None:
        """Record a pass (checked). The exchange happens when the last seat has passed."""
        given = tuple(cards)
        cs: tuple[Card, ...] = given  # type: ignore[assignment]  # checked just below
        for c in given:
            if type(c) is not Card:  # text: parse the lot (rare; the engine's callers pass cards)
                cs = tuple(c if isinstance(c, Card) else Card.parse(c) for c in given)
                break
        self._check_seat(seat)
        hand = self.hand
        hand.pass_cards(seat, cs)
        self._log.append(_new_tuple(PassCards, (seat, cs)))
        if None not in hand.passed:  # every seat has passed
            mix = self._mix_redeal() if hand.direction == "mix" else None
            if mix is not None:
                self._log.append(mix)
            hand.exchange(mix)

    def _mix_redeal(self) -> MixRedeal:
        # 002 mix: the passed cards (and the kitty) are shuffled and dealt back out.
        hand = self.hand
        pool = sorted(c.index for p in hand.passed for c in (p or ()))
        pool += [c.index for c in cards_of(hand.kitty)]
        shuffled(pool, self.seed, "mix", hand.number)
        k = self.rules.pass_count
        received = tuple(CardSet(sum(1 << i for i in pool[s * k : (s + 1) * k])) for s in range(self.rules.players))
        kitty = CardSet(sum(1 << i for i in pool[self.rules.players * k :]))
        return MixRedeal(hand.number, received, kitty)

    def play(self, card: Card | str, seat: int | None = None) -> Trick | None:
        """Play a card for the seat to move (checked). Returns the trick if the card completed one."""
        c = card if type(card) is Card else Card.parse(card)  # type: ignore[arg-type]  # text when not a Card
        hand = self.hand
        s = hand.turn
        m = c.mask
        legal = hand._legal
        trick: Trick | None
        # Hot path: the legal set of this decision is already known (legal_plays or an observation
        # computed it), which implies the play phase, no pending moon choice and a live match, and
        # the card is in it. These lines repeat Hand.play's (a property test checks they agree); everything
        # else, errors included, goes through Hand.play.
        if legal > 0 and legal & m and (seat is None or seat == s):
            hand._legal = -1
            hand.hands[s] ^= m
            cards = hand.trick_cards
            cards.append(c)
            hand.trick_mask |= m
            if m & hand._breakers:
                hand.hearts_broken = True  # 001: only a heart breaks hearts (option: Q♠ too)
            if m & hand._nines:
                hand._boost(s, m)
            self._log.append((s, c))
            if len(cards) < hand.trick_size:
                hand.turn = (s + 1) % hand.players
                return None
            trick = hand._finish_trick()
        else:
            if seat is not None:
                s = seat
            if self.over or self._moon_shooter is not None:
                why = "the match is over" if self.over else f"seat {self._moon_shooter} must choose how the moon scores"
                raise NotYourTurnError(f"seat {s} cannot play {c}: {why}", seat=s, tried=c)
            trick = hand.play(s, c)
            self._log.append((s, c))
            if trick is None:
                return None
        if hand.phase is _OVER:
            self._end_of_hand()
        return trick

    def call_pass(self, seat: int, call: str | Sequence[int]) -> None:
        """The dealer calls this hand's pass (pass_cycle call; checked): ``"mix"``, a direction, or one
        offset per card passed (seats to the left), e.g. ``(1, 1, 3)``: see ``pass_call``."""
        self._check_seat(seat)
        try:
            direction, offsets = pass_call(self.rules.players, self.rules.pass_count, call)
        except ValueError as e:
            raise WrongCallError(f"seat {seat}: {e}", seat=seat, tried=call) from None
        self.hand.call(seat, direction, offsets)
        self._log.append(CallPass(seat, direction, offsets))

    def charge(self, seat: int, cards: Iterable[Card | str]) -> None:
        """A seat's turbo-charge (turbo_charging; checked): the cards it places face up, none or more."""
        cs = tuple(c if isinstance(c, Card) else Card.parse(c) for c in cards)
        self._check_seat(seat)
        self.hand.charge(seat, cs)
        self._log.append(ChargeCards(seat, cs))

    def discard(self, seat: int, cards: Iterable[Card | str]) -> None:
        """The kitty's taker discards as many cards as the kitty held into its tricks (kitty_discard; checked)."""
        cs = tuple(c if isinstance(c, Card) else Card.parse(c) for c in cards)
        self._check_seat(seat)
        hand = self.hand
        hand.discard(seat, cs)
        self._log.append(Discard(seat, cs))
        if hand.phase is _OVER:  # the kitty came with the last trick: the hand is done
            self._end_of_hand()

    @property
    def history(self) -> list[Event]:
        """Every event so far, chance included, in order: enough to replay the match."""
        return [Play(*e) if type(e) is tuple else e for e in self._log]

    def choose_moon(self, seat: int, choice: MoonChoice | str) -> None:
        ch = MoonChoice(choice)
        if self._moon_shooter is None or seat != self._moon_shooter:
            raise NotYourTurnError(f"seat {seat} has no moon choice to make", seat=seat, tried=ch)
        self._log.append(ChooseMoon(seat, ch))
        self._moon_shooter = None
        self._score_hand(ch)

    def apply(self, event: Event) -> None:
        """Apply one decision from a history (chance events are checked against the seed)."""
        if isinstance(event, PassCards):
            self.pass_cards(event.seat, event.cards)
        elif isinstance(event, Play):
            self.play(event.card, event.seat)
        elif isinstance(event, Discard):
            self.discard(event.seat, event.cards)
        elif isinstance(event, ChargeCards):
            self.charge(event.seat, event.cards)
        elif isinstance(event, CallPass):
            self.call_pass(event.seat, event.offsets or event.direction)
        elif isinstance(event, ChooseMoon):
            self.choose_moon(event.seat, event.choice)
        elif isinstance(event, (Deal, MixRedeal)):
            if event not in self._log:
                raise ValueError(f"chance event {event!r} does not follow from seed {self.seed}")
        else:
            raise TypeError(f"not a history event: {event!r}")

    @classmethod
    def replay(cls, rules: Rules, seed: int, history: Iterable[Event]) -> Match:
        """Rebuild a match from its seed and history (decisions are re-checked)."""
        m = cls(rules, seed)
        for e in history:
            m.apply(e)
        return m

    def rollout(self, policy: int = 0, seed: int = 0) -> list[int]:
        """Play a copy of this hand to its end with a built-in policy; the hand's points per seat.

        ``policy`` is ``ROLLOUT_RANDOM`` (a uniformly random legal card) or ``ROLLOUT_RULES`` (a cheap
        rule of thumb); ``seed`` drives the random choices. The match itself is not changed. From the
        pass phase each seat still to pass passes its highest cards first (not for a mix pass).
        Points as ``hand_points`` scores them.
        """
        if self.over or self._moon_shooter is not None:
            return hand_points(self.hand)
        return rollout(self.hand.copy(), policy, seed)

    def clone(self) -> Match:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, object]) -> Match:
        # Cards, card sets, rules and history events are immutable: share them, copy the lists.
        if COMPILED:
            # Native classes have no __dict__ and object.__new__ refuses them: see _match_from_attrs.
            m = _match_from_attrs(self.rules, self.seed, _attrs(self), _attrs(self.hand))
            h = m.hand
        else:
            m = _new_object(Match)
            m.__dict__.update(self.__dict__)
            h = _new_object(Hand)
            h.__dict__.update(self.hand.__dict__)
        m.scores = list(self.scores)
        m.results = list(self.results)
        m._log = list(self._log)
        m._play_views = [None]  # a copy's play may diverge: never its original's cache
        for name in (
            "hands",
            "passed",
            "received",
            "captured",
            "tricks_won",
            "tricks",
            "trick_cards",
            "charges",
            "doubles",
        ):
            setattr(h, name, list(getattr(self.hand, name)))
        m.hand = h
        return m

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickle the attributes, rebuilt the way __deepcopy__ rebuilds them compiled (where the
        # default pickling, through object.__new__, cannot build a native class).
        attrs = {name: value for name, value in _attrs(self).items() if name not in ("hand", "_play_views")}
        return (_match_from_attrs, (self.rules, self.seed, attrs, _attrs(self.hand)))

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.rules.players:
            raise NotYourTurnError(f"no seat {seat}: seats are 0..{self.rules.players - 1}", seat=seat)
        if self.over:
            raise NotYourTurnError(f"seat {seat} cannot act: the match is over", seat=seat)

    # -- scoring ----------------------------------------------------------------------------

    def _end_of_hand(self) -> None:
        rules = self.rules
        shooter = self._shooter(rules.penalty_mask)
        if shooter is not None and rules.moon == "shooter-chooses":
            self._moon_shooter = shooter  # 002: the shooter chooses; ask that seat
            return
        self._score_hand(None)

    def _shooter(self, penalty: int) -> int | None:
        if self.rules.partnership == "team":
            return _slam_seat(self.hand.captured, penalty, self.rules.card_points)
        for s, cap in enumerate(self.hand.captured):
            if cap & penalty == penalty:
                return s
        return None

    def _score_hand(self, choice: MoonChoice | None) -> None:
        rules = self.rules
        hand = self.hand
        n = rules.players
        pts = rules.card_points
        # Points by groups of cards of equal value: a few bit counts per seat, not a loop over cards.
        groups = rules.point_groups
        moon_total = rules.moon_total
        charged = hand.charged
        if charged & _VALUE_CHARGES:  # 002 Turbo Hearts: a charged A♥, Q♠ or J♦ doubles values this hand
            pts, groups, moon_total = charged_points(rules, charged)
        pen = rules.penalty_mask
        taken = [sum([v * (cap & g).bit_count() for v, g in groups]) for cap in hand.captured]
        # What scores: each seat's own tricks, or (002 'Partners keep their tricks together') its team's,
        # so that both partners score, and carry, the team's total.
        captured, tricks_won = hand.captured, hand.tricks_won
        team = rules.partnership == "team"
        if team:
            captured, tricks_won = _team_sums(captured), _team_sums(tricks_won)
        # Without a bonus card every card that scores is a penalty card: the same sums.
        penalty = (
            [sum([v * (cap & pen & g).bit_count() for v, g in groups]) for cap in captured]
            if team
            else taken
            if rules.bonus_card is None
            else [sum([v * (cap & pen & g).bit_count() for v, g in groups]) for cap in captured]
        )
        # Bonuses stand apart from the moon: 004 "a shooter who also captures the jack keeps the minus 10".
        extra = [0] * n
        if rules.bonus_card is not None:
            for s in range(n):
                if captured[s] & rules.bonus_card.mask:
                    extra[s] += pts[rules.bonus_card.index]
        if rules.no_tricks_bonus:
            for s in range(n):
                if not tricks_won[s]:
                    extra[s] += rules.no_tricks_bonus
        score = [p + e for p, e in zip(penalty, extra)]
        sun = None
        if rules.sun_points and hand.tricks_won.count(len(hand.tricks)) == 1:
            sun = hand.tricks_won.index(len(hand.tricks))
        elif team and rules.sun_points and len(hand.tricks) in tricks_won:  # a team took every trick
            sun = _slam_seat(hand.captured, rules.penalty_mask, pts, tricks_won.index(len(hand.tricks)))
        moon = self._shooter(rules.penalty_mask) if sun is None else None
        shooter = sun if sun is not None else moon
        if shooter is not None:
            total = rules.sun_points if sun is not None else moon_total
            # A team's slam gives the opponents the points, or takes them off both partners' (the team's) total.
            side = (shooter, (shooter + 2) % 4) if team else (shooter,)
            added = [(0 if s in side else total) + extra[s] for s in range(n)]
            if choice is None:
                choice = MoonChoice.ADD_TO_OTHERS
                if rules.moon == "subtract-from-shooter":
                    choice = MoonChoice.SUBTRACT_FROM_SHOOTER
                elif rules.moon == "add-unless-win":
                    # 002: add to the others 'unless this would cause one of them to win': a share
                    # of the win (tied_lowest=share) is a win too.
                    ends, winners = self._ends(self._totals_after(_doubled(rules, captured, added, charged)))
                    # With partners, 'one of them' is a player of the other team: the shooter's partner
                    # winning is the shooter's own win (individual: the partner still gets the points).
                    ours = (shooter, (shooter + 2) % 4) if rules.partnership != "none" else side
                    if ends and any(w not in ours for w in winners):
                        choice = MoonChoice.SUBTRACT_FROM_SHOOTER
            if rules.moon == "wins-match":
                # 002 Da Nasty Fix: 'If you successfully shoot ... you win the game': the hand adds only
                # its bonuses, and the match ends with the shooter alone on top.
                score, choice = extra, None
            elif choice is MoonChoice.ADD_TO_OTHERS:
                score = added
            else:
                score = [(-total if s in side else 0) + extra[s] for s in range(n)]
        else:
            choice = None
        score = _doubled(rules, captured, score, charged)
        totals = self._totals_after(score)
        self.scores = totals
        self.results.append(
            HandResult(
                hand.number,
                hand.direction,
                tuple(taken),
                tuple(hand.tricks_won),
                tuple(score),
                tuple(totals),
                moon=moon,
                sun=sun,
                moon_choice=choice,
                charges=hand.shown_charges,
            )
        )
        if shooter is not None and rules.moon == "wins-match":
            self.over, self.winners, self.shot_winner = True, (shooter,), shooter
            return
        ends, winners = self._ends(totals)
        if ends:
            self.over = True
            self.winners = winners
        else:
            self._new_hand(hand.number + 1)

    def _totals_after(self, score: Sequence[int]) -> list[int]:
        """The match totals once a hand's score is added (002: 'exactly 100 points ... is reduced to 50')."""
        totals = [t + d for t, d in zip(self.scores, score)]
        reset = self.rules.exact_target_reset
        if reset is not None:
            at = self.rules.exact_reset_at
            totals = [reset if t == at else t for t in totals]
        return totals

    def _ends(self, totals: Sequence[int]) -> tuple[bool, tuple[int, ...]]:
        """Whether these totals end the match (checked only between hands), and who wins."""
        if max(totals) < self.rules.target:
            return False, ()
        if self.rules.partnership != "none":
            return self._team_ends(totals)
        low = min(totals)
        winners = tuple(s for s, t in enumerate(totals) if t == low)
        if len(winners) > 1 and self.rules.tied_lowest == "play-on":
            return False, ()  # 001: a tie for lowest keeps dealing until one player is alone at the bottom
        return True, winners

    def _team_ends(self, totals: Sequence[int]) -> tuple[bool, tuple[int, ...]]:
        """002 Partnership Hearts: a total at the target (a team's, or one player's: 'until an individual
        player's score reaches 100 or more') ends the match; 'the partnership with fewer points wins'.
        Equal team totals follow tied_lowest: play on, or all four share the win."""
        a, b = self.rules.team_totals(totals)
        if a == b:
            return (False, ()) if self.rules.tied_lowest == "play-on" else (True, (0, 1, 2, 3))
        return True, (0, 2) if a < b else (1, 3)

    def place_totals(self) -> list[int]:
        """The totals the seats are placed by: their own, or with partners their team's (both partners
        place alike: winners 1 and 1, losers 3 and 3, a tie of the teams 1 for all)."""
        if self.rules.partnership == "none":
            return list(self.scores)
        teams = self.rules.team_totals(self.scores)
        return [teams[s % 2] for s in range(4)]

    def places(self) -> tuple[int, ...]:
        """Competition ranking by total, lower first: (1, 2, 2, 4); with partners, by team total."""
        if self.rules.partnership != "none":
            return places_of(self.place_totals())
        return places_of(self.scores, self.shot_winner)

    # -- what a seat may know ---------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        hand = self.hand
        phase = self.phase
        # Built without the frozen dataclass's __init__, whose per-field object.__setattr__ is a fifth of
        # the referee's own time per decision; a test checks it equals Observation(**same fields).
        obs = _new_object(Observation)
        fields: dict[str, object] = obs.__dict__
        if phase is _PLAY:
            # What a seat knows of its hand before the first lead holds through the play: built once per
            # seat and hand (a play asks for ~13 observations of each seat), then copied.
            cache = self._play_views
            if cache[0] is not hand:
                cache = self._play_views = [hand] + [None] * hand.players
            fixed = cache[seat + 1]
            if fixed is None:
                fixed = cache[seat + 1] = self._fixed_fields(seat, hand, phase)
            fields.update(fixed)
        else:
            fields.update(self._fixed_fields(seat, hand, phase))
        legal = hand.legal_mask(seat) if phase is _PLAY else 0
        # 002 Da Nasty Fix: the dealer calls the pass 'before the start of the deal': nobody holds a
        # card yet (the deal is drawn from the seed already, but no seat may see it).
        fields["hand"] = cardset_of_mask(hand.hands[seat]) if phase is not Phase.CALL else _NO_CARDS
        fields["tricks"] = tuple(hand.tricks)
        fields["current_trick"] = _new_tuple(Trick, (hand.leader, tuple(hand.trick_cards), None))
        fields["hearts_broken"] = hand.hearts_broken
        fields["legal"] = cardset_of_mask(legal) if legal else _NO_CARDS
        fields["to_move"] = self.to_move
        fields["kitty_taker"] = hand.kitty_taker
        fields["kitty"] = cardset_of_mask(hand.kitty) if hand.kitty_taker == seat and hand.kitty else _NO_CARDS
        fields["discarded"] = hand.discarded if hand.kitty_taker == seat else ()
        fields["boosted"] = hand.trick_size > hand.players
        if hand._two:
            self._two_pack_view(obs, seat)
        return obs

    def _fixed_fields(self, seat: int, hand: Hand, phase: Phase) -> dict[str, object]:
        """The observation's fields that stay the same from the first lead to the hand's end (the
        others are ``observation``'s): a field that can change during the play belongs there."""
        exchanged = hand.direction != "hold" and hand.phase is not Phase.PASS
        received = hand.received[seat] if exchanged else 0
        return {
            "seat": seat,
            "rules": self.rules,
            "hand_number": hand.number,
            "dealer": hand.dealer,
            "phase": phase,
            "scores": tuple(self.scores),  # totals before this hand (final totals once over)
            "pass_direction": hand.direction,
            "passed": hand.passed[seat] or (),
            "received": cardset_of_mask(received) if received else _NO_CARDS,
            "moon_points": (self.rules.sun_points if self._sun_pending() else self._moon_total())
            if phase is Phase.MOON
            else 0,
            "pass_offsets": hand.offsets,
            # turbo_charging: every charge is public once all seats have charged (they charge at once, as
            # they pass: until then a seat sees its own only).
            "charges": hand.shown_charges if hand.shown_charges or phase is not _CHARGE else _own_charges(hand, seat),
            "table": _NO_CARDS,  # packs=2: the cards on the table, set by _two_pack_view at every call
        }

    def _moon_total(self) -> int:
        """What a moon is worth this hand: the penalty cards' points, charged values included."""
        charged = self.hand.charged
        return charged_points(self.rules, charged)[2] if charged & _VALUE_CHARGES else self.rules.moon_total

    def _two_pack_view(self, obs: Observation, seat: int) -> None:
        """Two packs: the seat's cards as multisets (a card held twice listed twice), and the table."""
        hand = self.hand
        fields = obs.__dict__
        if obs.phase is not Phase.CALL:
            fields["hand"] = card_set(hand.held(seat))
        if obs.received:
            fields["received"] = card_set(hand.received[seat])
        if obs.kitty:
            fields["kitty"] = card_set(hand.kitty)
        fields["table"] = card_set(hand.table) if hand.table else _NO_CARDS

    def _sun_pending(self) -> bool:
        h = self.hand
        if self.rules.partnership == "team":
            return bool(self.rules.sun_points) and len(h.tricks) in _team_sums(h.tricks_won)
        return bool(self.rules.sun_points) and h.tricks_won.count(len(h.tricks)) == 1


# -- rollouts ------------------------------------------------------------------------------------
# Fast play to the end of a hand for search (Monte Carlo bots): no checks beyond the legal set, no
# history, no match flow. Compiled by mypyc with the rest of this module (``make engine``).

ROLLOUT_RANDOM: Final = 0  # a uniformly random legal card
ROLLOUT_RULES: Final = 1  # a rule of thumb: duck under the winner, dump Q♠ and hearts when void, lead low
_M32: Final = 0xFFFFFFFF


def _top_rank_bit(mask: int) -> int:
    """The bit of the highest-ranked card in ``mask`` (the higher suit on a tie); 0 for no card."""
    best = 0
    best_rank = -1
    for s in range(4):
        m = mask >> (13 * s) & 0x1FFF
        if m:
            r = m.bit_length() - 1
            if r >= best_rank:
                best_rank = r
                best = 1 << (13 * s + r)
    return best


def _low_rank_bit(mask: int) -> int:
    """The bit of the lowest-ranked card in ``mask`` (the lower suit on a tie); 0 for no card."""
    best = 0
    best_rank = 99
    for s in range(4):
        m = mask >> (13 * s) & 0x1FFF
        if m:
            r = (m & -m).bit_length() - 1
            if r < best_rank:
                best_rank = r
                best = 1 << (13 * s + r)
    return best


def _rule_of_thumb(hand: Hand, legal: int) -> int:
    """The card (as its bit) the rule-of-thumb policy plays from ``legal``."""
    cards = hand.trick_cards
    if not cards:
        return _low_rank_bit(legal)
    suit = _SUIT_MASK_OF[cards[0].index]
    if legal & suit:  # following suit: duck under the winner, else win high and cheaply
        top = (hand.trick_mask & suit).bit_length() - 1
        below = legal & ((1 << top) - 1)
        if below:
            return 1 << (below.bit_length() - 1)
        safe = legal & ~hand.rules.penalty_mask
        return 1 << ((safe or legal).bit_length() - 1)
    if legal & _QS:  # void: Q♠ first, then the highest penalty card, then the highest card
        return _QS
    pen = legal & hand.rules.penalty_mask
    return _top_rank_bit(pen or legal)


def _popcount(m: int) -> int:
    """The cards in a one-pack mask: compiled, ``int.bit_count`` is a Python method call, these shifts and
    masks are C (every step stays below 2 ** 56, a native small int)."""
    m -= m >> 1 & 0x5555555555555
    m = (m & 0x3333333333333) + (m >> 2 & 0x3333333333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F
    m += m >> 8
    m += m >> 16
    m += m >> 32
    return m & 0x7F


def _fast_path(hand: Hand) -> bool:
    """Whether ``_rollout_four`` can play ``hand`` on: four seats, one pack, in play, no kitty still to
    take, no booster nines, no charged card still restricted (what its locals do not model)."""
    return (
        hand.phase is _PLAY
        and hand.players == 4
        and not hand._two
        and not hand._nines
        and not hand._restricted
        and (not hand.kitty or hand.kitty_taker is not None)
    )


def _rollout_four(hand: Hand, policy: int, x: int) -> None:
    """The rollout loop for the common case (see ``_fast_path``), in local ints: each seat's cards and
    captures, the trick's cards and its winner so far; no list item or card touched per play (compiled,
    a list holds boxed ints: each store of a mask allocates). The same legal sets, the same random draws
    and the same tricks as the general loop ``_rollout_loop`` (a test compares them)."""
    hands = hand.hands
    h0 = hands[0]
    h1 = hands[1]
    h2 = hands[2]
    h3 = hands[3]
    captured = hand.captured
    c0 = captured[0]
    c1 = captured[1]
    c2 = captured[2]
    c3 = captured[3]
    won = hand.tricks_won
    w0 = won[0]
    w1 = won[1]
    w2 = won[2]
    w3 = won[3]
    tricks = hand.tricks
    first = not tricks
    opening = hand.opening
    broken = hand.hearts_broken
    breakers = hand._breakers
    hearts_wait = hand._hearts_wait
    lead_with_queen = hand._lead_with_queen
    first_safe = hand._first_trick_safe
    not_penalty = hand._not_penalty
    queen_first_safe = hand._queen_first_safe
    pen = hand.rules.penalty_mask
    leader = hand.leader
    seat = hand.turn
    # The trick in progress: its cards in play order (p0, p1, p2; the fourth ends it), their mask, the
    # led suit, the best card of that suit so far and its seat.
    on_table = hand.trick_cards
    k = len(on_table)
    p0 = on_table[0].mask if k > 0 else 0
    p1 = on_table[1].mask if k > 1 else 0
    p2 = on_table[2].mask if k > 2 else 0
    tmask = hand.trick_mask
    suit = _SUIT_MASK_OF[on_table[0].index] if k else 0
    best = 1 << ((tmask & suit).bit_length() - 1) if k else 0
    win = (leader + (0 if best == p0 else 1 if best == p1 else 2)) & 3 if k else leader
    while True:
        h = h0 if seat == 0 else h1 if seat == 1 else h2 if seat == 2 else h3
        # The legal set, as Hand._compute_legal computes it without charges.
        if k:
            legal = h & suit or h
            if first and first_safe and legal & not_penalty:
                legal &= not_penalty
            if queen_first_safe and legal & _QS and (suit != _SPADES or tmask & _HIGH_SPADES):
                legal = _QS
        elif first and opening:
            legal = opening
        else:
            legal = h
            if hearts_wait and not broken:
                others = h & _NOT_HEARTS
                if others and not (lead_with_queen and others == _QS):
                    legal = others
            if first and first_safe and legal & not_penalty:
                legal &= not_penalty
        if policy == ROLLOUT_RANDOM:
            n = _popcount(legal) if COMPILED else legal.bit_count()  # each the faster where it runs
            if n > 1:
                x ^= (x << 13) & _M32
                x ^= x >> 17
                x ^= (x << 5) & _M32
                for _ in range((x * n) >> 32):
                    legal &= legal - 1
            bit = legal & -legal
        elif not k:  # _rule_of_thumb, on the locals
            bit = _low_rank_bit(legal)
        elif legal & suit:
            below = legal & (best - 1)
            if below:
                bit = 1 << (below.bit_length() - 1)
            else:
                safe = legal & ~pen
                bit = 1 << ((safe or legal).bit_length() - 1)
        elif legal & _QS:
            bit = _QS
        else:
            bit = _top_rank_bit(legal & pen or legal)
        if seat == 0:
            h0 ^= bit
        elif seat == 1:
            h1 ^= bit
        elif seat == 2:
            h2 ^= bit
        else:
            h3 ^= bit
        if bit & breakers:
            broken = True
        tmask |= bit
        if k == 0:
            suit = _SUIT_MASK_OF[bit.bit_length() - 1]
            best = bit
            win = seat
            p0 = bit
        else:
            if bit & suit and bit > best:  # the same suit: a higher bit is a higher rank
                best = bit
                win = seat
            if k == 1:
                p1 = bit
            elif k == 2:
                p2 = bit
        if k < 3:
            k += 1
            seat = (seat + 1) & 3
            continue
        cards = (
            DECK[p0.bit_length() - 1],
            DECK[p1.bit_length() - 1],
            DECK[p2.bit_length() - 1],
            DECK[bit.bit_length() - 1],
        )
        tricks.append(_new_tuple(Trick, (leader, cards, win)))
        if win == 0:
            c0 |= tmask
            w0 += 1
        elif win == 1:
            c1 |= tmask
            w1 += 1
        elif win == 2:
            c2 |= tmask
            w2 += 1
        else:
            c3 |= tmask
            w3 += 1
        first = False
        leader = seat = win
        k = 0
        tmask = 0
        if not (h0 if win == 0 else h1 if win == 1 else h2 if win == 2 else h3):
            break
    hands[0] = h0
    hands[1] = h1
    hands[2] = h2
    hands[3] = h3
    captured[0] = c0
    captured[1] = c1
    captured[2] = c2
    captured[3] = c3
    won[0] = w0
    won[1] = w1
    won[2] = w2
    won[3] = w3
    if on_table:
        hand.trick_cards = []
    hand.trick_mask = 0
    hand._legal = -1
    hand.hearts_broken = broken
    hand.leader = hand.turn = leader
    hand.phase = _OVER


def rollout(hand: Hand, policy: int = ROLLOUT_RANDOM, seed: int = 0) -> list[int]:
    """Play ``hand`` (changed in place: pass ``hand.copy()``) to its end; its points per seat.

    From the pass phase (not a mix pass) each seat still to pass passes its highest cards first; a
    kitty's taker discards its highest cards. See ``Match.rollout`` and ``hand_points``.
    """
    x = (seed * 0x9E3779B1 + 0x7F4A7C15) & _M32 or 1  # xorshift32 state: never 0
    phase = hand.phase
    if phase is _PASS:
        if hand.direction == "mix":
            raise ValueError("a rollout cannot start before a mix pass (its redeal is chance)")
        k = hand.rules.pass_count
        for s in range(hand.players):
            if hand.passed[s] is None:
                chosen: list[Card] = []
                m = hand.hands[s]
                for _ in range(k):
                    b = _top_rank_bit(m)
                    m ^= b
                    chosen.append(DECK[b.bit_length() - 1])
                hand.pass_cards(s, chosen)
        hand.exchange(None)
        phase = hand.phase
    elif phase is not _PLAY and phase is not Phase.DISCARD and phase is not _OVER and phase is not _CHARGE:
        raise ValueError(f"a rollout cannot start in the {phase.value} phase")
    if phase is _CHARGE:  # turbo_charging: each seat still to charge charges nothing
        for s in range(hand.players):
            if hand.charges[s] is None:
                hand.charge(s, ())
        phase = hand.phase
    if _fast_path(hand):
        _rollout_four(hand, policy, x)
    else:
        _rollout_loop(hand, policy, x)
    return hand_points(hand)


def _rollout_loop(hand: Hand, policy: int, x: int) -> None:
    """The rollout loop for every ruleset, from the play or the discard phase (``x``: the xorshift32
    state), through the Hand's own legal-move, boost and trick code."""
    phase = hand.phase
    players = hand.players
    breakers = hand._breakers
    hands = hand.hands
    while True:
        if phase is _PLAY:
            seat = hand.turn
            legal = hand._legal
            if legal < 0:
                legal = hand._compute_legal(seat)
            if policy == ROLLOUT_RANDOM:
                n = legal.bit_count()
                if n > 1:
                    x ^= (x << 13) & _M32
                    x ^= x >> 17
                    x ^= (x << 5) & _M32
                    for _ in range((x * n) >> 32):
                        legal &= legal - 1
                bit = legal & -legal
            else:
                bit = _rule_of_thumb(hand, legal)
            hand._legal = -1
            hands[seat] ^= bit
            cards = hand.trick_cards
            cards.append(DECK[bit.bit_length() - 1])
            hand.trick_mask |= bit
            if bit & breakers:
                hand.hearts_broken = True
            if bit & hand._nines:
                hand._boost(seat, bit)
            if len(cards) < hand.trick_size:
                hand.turn = (seat + 1) % players
            else:
                hand._finish_trick()
                hands = hand.hands
                phase = hand.phase
        elif phase is Phase.DISCARD:
            seat = hand.turn
            need = hand.kitty.bit_count()
            m = hands[seat]
            out: list[Card] = []
            for _ in range(need):
                b = _top_rank_bit(m)
                m ^= b
                out.append(DECK[b.bit_length() - 1])
            hand.discard(seat, out)
            phase = hand.phase
        else:
            break


def hand_points(hand: Hand) -> list[int]:
    """What a finished hand adds to each seat's total, the moon and the sun included, as the match
    scores it, except where that depends on the match: ``moon=shooter-chooses`` and ``add-unless-win``
    count as adding to the others, and ``wins-match`` too (a stand-in for 'the shooter wins').
    ``partnership=team``: each seat gets its team's score (partners keep their tricks together)."""
    rules = hand.rules
    n = hand.players
    groups = rules.point_groups
    card_points = rules.card_points
    moon_total = rules.moon_total
    charged = hand.charged
    if charged & _VALUE_CHARGES:
        card_points, groups, moon_total = charged_points(rules, charged)
    pen = rules.penalty_mask
    captured = hand.captured
    tricks_won = hand.tricks_won
    team = rules.partnership == "team"
    if team:
        captured, tricks_won = _team_sums(captured), _team_sums(tricks_won)
    score = [0] * n
    extra = [0] * n
    bonus = rules.bonus_card
    no_tricks_bonus = rules.no_tricks_bonus  # read once: a rules attribute is a Python lookup, compiled too
    for s in range(n):
        cap = captured[s]
        total = 0
        for v, g in groups:
            total += v * (cap & pen & g).bit_count()
        score[s] = total
        if bonus is not None and cap & bonus.mask:
            extra[s] += card_points[bonus.index]
        if no_tricks_bonus and not tricks_won[s]:
            extra[s] += no_tricks_bonus
    shooter = -1
    shot = 0
    ntricks = len(hand.tricks)
    if rules.sun_points and tricks_won.count(ntricks) == (2 if team else 1):
        shooter = tricks_won.index(ntricks)
        shot = rules.sun_points
    else:
        for s in range(n):
            if captured[s] & pen == pen:
                shooter = s
                shot = moon_total
    if shooter >= 0:
        side = (shooter, (shooter + 2) % 4) if team else (shooter,)
        if rules.moon == "subtract-from-shooter":
            score = [-shot if s in side else 0 for s in range(n)]
        else:
            score = [0 if s in side else shot for s in range(n)]
    return _doubled(rules, captured, [score[s] + extra[s] for s in range(n)], charged)
