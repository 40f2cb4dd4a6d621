"""Cards, suits and card sets.

A card is a small frozen value with a parse/str round trip (``QS``, ``10H``/``TH``, ``Q♠``).
Internally every card is an index 0..51 (``suit * 13 + rank - 2``) so that a set of cards is
one int bitmask: the engine's hot paths (legal moves, follow suit, scoring) are bit operations.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Final


class Suit(enum.IntEnum):
    """The four suits, in the order used for sorting and card indices."""

    CLUBS = 0
    DIAMONDS = 1
    SPADES = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "CDSH"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♠♥"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """``"H"``, ``"h"``, ``"♥"``, ``"♡"`` or ``"hearts"`` → ``Suit.HEARTS``."""
        key = text.strip()
        suit = _SUIT_NAMES.get(key) or _SUIT_NAMES.get(key.upper())
        if suit is None:
            raise ValueError(f"not a suit: {text!r} (expected one of C D S H or ♣ ♦ ♠ ♥)")
        return suit


_SUIT_NAMES: Final[dict[str, Suit]] = {}
for _s in Suit:
    for _k in (_s.letter, _s.symbol, _s.name, _s.name.lower(), _s.name[:-1]):
        _SUIT_NAMES[_k] = _s
_SUIT_NAMES.update({"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♤": Suit.SPADES, "♡": Suit.HEARTS})

RANK_LETTERS: Final = {11: "J", 12: "Q", 13: "K", 14: "A"}
_INTERNED: Final[list[Card]] = []  # the 52 cards, built once below; Card(suit, rank) returns one of them
_RANK_NAMES: Final[dict[str, int]] = {str(r): r for r in range(2, 11)}
_RANK_NAMES.update({"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14})


class Card:
    """A playing card. Instances are interned: ``Card.parse("QS") is QUEEN_OF_SPADES``.

    >>> Card.parse("10h"), str(Card.parse("TH")), Card.parse("Q♠").symbol
    (Card.parse('10H'), '10H', 'Q♠')
    """

    __slots__ = ("index", "suit", "rank", "mask", "_text")
    index: int
    suit: Suit
    rank: int
    mask: int
    _text: str

    def __new__(cls, suit: Suit | int, rank: int) -> Card:
        if not 2 <= rank <= 14:
            raise ValueError(f"not a rank: {rank!r} (expected 2..14, ace high)")
        index = int(suit) * 13 + rank - 2
        if len(_INTERNED) == 52:
            return _INTERNED[index]
        # Building the deck, once, at import (below). ``super().__new__`` rather than a separate
        # ``object.__new__(cls)`` factory: compiled with mypyc, a native class can only be
        # allocated from its own ``__new__``.
        card = super().__new__(cls)
        suit = Suit(index // 13)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "mask", 1 << index)
        object.__setattr__(card, "_text", RANK_LETTERS.get(rank, str(rank)) + suit.letter)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (card_from_index, (self.index,))

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``QS``, ``10H``, ``TH``, ``2c``, ``Q♠``, ``10♥``. Raises ``ValueError`` naming the text."""
        t = text.strip()
        if len(t) < 2:
            raise ValueError(f"not a card: {text!r} (expected rank then suit, like QS, 10H, TH or Q♠)")
        rank = _RANK_NAMES.get(t[:-1].upper())
        if rank is None:
            raise ValueError(f"not a card: {text!r} (rank {t[:-1]!r} is not one of 2..10, T, J, Q, K, A)")
        try:
            suit = Suit.parse(t[-1])
        except ValueError:
            raise ValueError(f"not a card: {text!r} (suit {t[-1]!r} is not one of C D S H ♣ ♦ ♠ ♥)") from None
        return _DECK[suit * 13 + rank - 2]

    @property
    def symbol(self) -> str:
        """The card with its suit symbol: ``Q♠``."""
        return self._text[:-1] + self.suit.symbol

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        return self.index >= other.index


_INTERNED.extend([Card(i // 13, i % 13 + 2) for i in range(52)])
_DECK: Final[tuple[Card, ...]] = tuple(_INTERNED)
DECK: Final = _DECK
"""All 52 cards, clubs 2..A, diamonds, spades, hearts."""
FULL_MASK: Final = (1 << 52) - 1
SUIT_MASKS: Final = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
HEARTS_MASK: Final = SUIT_MASKS[Suit.HEARTS]
QUEEN_OF_SPADES: Final = Card(Suit.SPADES, 12)
TWO_OF_CLUBS: Final = Card(Suit.CLUBS, 2)


def card_from_index(index: int) -> Card:
    return _DECK[index]


# For each 13-bit pattern of one suit, the cards it holds (lowest first): iterating a
# 52-bit mask is then four table look-ups instead of 52 bit tests.
_SUIT_TABLES: Final[tuple[tuple[tuple[Card, ...], ...], ...]] = tuple(
    tuple(tuple(_DECK[s * 13 + r] for r in range(13) if pattern >> r & 1) for pattern in range(1 << 13))
    for s in range(4)
)
# One global per suit: the hot paths index them directly (no tuple-of-tables indexing). Module
# globals are Final here and in state.py: compiled, a Final global is a C static, not a dict look-up.
_T0: Final = _SUIT_TABLES[0]
_T1: Final = _SUIT_TABLES[1]
_T2: Final = _SUIT_TABLES[2]
_T3: Final = _SUIT_TABLES[3]


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, sorted by suit (♣ ♦ ♠ ♥) then rank."""
    return _T0[mask & 0x1FFF] + _T1[mask >> 13 & 0x1FFF] + _T2[mask >> 26 & 0x1FFF] + _T3[mask >> 39 & 0x1FFF]


def mask_of(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= c.mask
    return m


def parse_cards(text: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse ``"QS 10H 2C"`` (spaces or commas) or an iterable of strings/cards."""
    if isinstance(text, str):
        parts: Iterable[str | Card] = text.replace(",", " ").split()
    else:
        parts = text
    return tuple(p if isinstance(p, Card) else Card.parse(p) for p in parts)


def lowest_bit(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


class CardSet:
    """An immutable, sorted view of a set of cards (a hand, a legal set).

    Cheap to build from a bitmask; supports ``in``, ``len``, iteration and equality with
    other card sets. ``str`` gives ``"2C 7D QS"``. Treat it as immutable: it is hashed.
    """

    # No __setattr__ guard: building one is on the engine's hot path, and a guard triples its cost.
    # ``cards`` is filled at construction (four table look-ups, inlined) rather than by a lazy
    # property: nearly every set built on the hot path (the legal plays) is read, and a plain slot
    # read is several times cheaper than a property call.
    __slots__ = ("mask", "cards")
    mask: int
    cards: tuple[Card, ...]

    def __init__(self, cards: Iterable[Card] | int = 0) -> None:
        m: int = cards if type(cards) is int else mask_of(cards)  # type: ignore[arg-type]  # narrowed by type() above
        self.mask = m
        self.cards = _T0[m & 0x1FFF] + _T1[m >> 13 & 0x1FFF] + _T2[m >> 26 & 0x1FFF] + _T3[m >> 39 & 0x1FFF]

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (CardSet, (self.mask,))  # the cards follow from the mask

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        return isinstance(card, Card) and bool(self.mask & card.mask)

    def __getitem__(self, i: int) -> Card:
        return self.cards[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        if isinstance(other, (set, frozenset)):
            return self.mask == mask_of(other) and len(other) == len(self)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def of_suit(self, suit: Suit) -> CardSet:
        return CardSet(self.mask & SUIT_MASKS[suit])

    def count(self, card: Card) -> int:
        """How many copies of ``card`` the set holds: 0 or 1 (2 in a two-pack ``CardMultiset``)."""
        return 1 if self.mask & card.mask else 0

    def __str__(self) -> str:
        return " ".join(map(str, self.cards))

    def __repr__(self) -> str:
        return f"CardSet(parse_cards({str(self)!r}))"


_new_object: Final = object.__new__
# True when this module runs compiled by mypyc (its functions are then built-ins, not Python
# functions). The two modes want different hot-path constructors, see cardset_of_mask.
COMPILED: Final = type(lowest_bit).__name__ != "function"


def cardset_of_mask(mask: int) -> CardSet:
    """``CardSet(mask)`` without the class call and type test: the engine's hot-path constructor."""
    if COMPILED:
        # A native class's constructor is a direct C call, and object.__new__ refuses native classes.
        return CardSet(mask)
    cs = _new_object(CardSet)
    cs.mask = mask
    cs.cards = _T0[mask & 0x1FFF] + _T1[mask >> 13 & 0x1FFF] + _T2[mask >> 26 & 0x1FFF] + _T3[mask >> 39 & 0x1FFF]
    return cs


# -- two packs (002 Cancellation Hearts) ------------------------------------------------------------
# With two packs shuffled together a hand may hold a card twice. A multiset of cards is then one int
# of 104 bits: bit i (i < 52) says the card of index i is held at least once, bit 52 + i that it is
# held twice. One-pack sets never set the high bits, so their masks stay under 63 bits (mypyc keeps
# such ints unboxed) and none of the one-pack paths changes.

PACK_BITS: Final = 52
"""The shift from a card's first copy to its second in a two-pack multiset mask."""


def multiset_add(a: int, b: int) -> int:
    """The union of two card multisets (masks as above) that together hold no card three times."""
    low = a & FULL_MASK
    other = b & FULL_MASK
    return low | other | ((a | b) >> PACK_BITS | (low & other)) << PACK_BITS


def multiset_remove(a: int, b: int) -> int:
    """Multiset ``a`` less the cards of multiset ``b`` (every one of them held by ``a``)."""
    for card in cards_of(b & FULL_MASK) + cards_of(b >> PACK_BITS):
        m = card.mask
        a ^= m << PACK_BITS if a >> PACK_BITS & m else m
    return a


def multiset_of(cards: Iterable[Card]) -> int:
    """The multiset mask of ``cards``; ``ValueError`` if one is listed three times (two packs hold two)."""
    m = 0
    for c in cards:
        b = c.mask
        if m & b:
            if m >> PACK_BITS & b:
                raise ValueError(f"{c} three times: two packs hold only two of each card")
            m |= b << PACK_BITS
        else:
            m |= b
    return m


def multiset_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a multiset mask, sorted, a card held twice listed twice (side by side)."""
    twice = mask >> PACK_BITS
    return tuple(sorted(cards_of(mask & FULL_MASK) + cards_of(twice)))


class CardMultiset(CardSet):
    """A card set that may hold a card twice (two packs: 002 Cancellation Hearts).

    ``mask`` is the 104-bit multiset mask (see ``multiset_add``); iteration lists a card held twice
    twice, ``len`` counts both copies, ``in`` and equality read as for a ``CardSet`` (a multiset
    without repeats equals the card set of the same cards). ``count`` says how many copies are held.
    """

    def __init__(self, cards: Iterable[Card] | int = 0) -> None:
        m: int = cards if type(cards) is int else multiset_of(cards)  # type: ignore[arg-type]  # narrowed by type()
        self.mask = m
        self.cards = multiset_cards(m)

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (CardMultiset, (self.mask,))

    def count(self, card: Card) -> int:
        """How many copies of ``card`` the set holds: 0, 1 or 2."""
        return (self.mask & card.mask != 0) + (self.mask >> PACK_BITS & card.mask != 0)

    def of_suit(self, suit: Suit) -> CardSet:
        s = SUIT_MASKS[suit]
        return CardMultiset(self.mask & (s | s << PACK_BITS))

    def __repr__(self) -> str:
        return f"CardMultiset(parse_cards({str(self)!r}))"


def card_set(mask: int) -> CardSet:
    """The card set of a mask, one pack or two: a ``CardMultiset`` when a card is held twice."""
    return CardMultiset(mask) if mask >> PACK_BITS else CardSet(mask)
