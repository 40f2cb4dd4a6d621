"""Cards: parsing, printing, ordering and card sets (referee/rules/cards.py).

cards.py: 'A card is a small frozen value with a parse/str round trip (QS, 10H/TH, Q♠).'
001: 'Aces are high, so within each suit the order from strongest to weakest is A, K, Q, J, 10 … 2.'
"""

from __future__ import annotations

import copy
import pickle

import pytest

from referee.rules import DECK, QUEEN_OF_SPADES, TWO_OF_CLUBS, Card, CardSet, Suit, cards_of, mask_of, parse_cards

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
LETTERS = "CDSH"
SYMBOLS = "♣♦♠♥"
HOLLOW = "♧♢♤♡"


def forms(rank: str, s: int) -> list[str]:
    out = []
    for r in {rank, "T" if rank == "10" else rank, rank.lower(), ("t" if rank == "10" else rank.lower())}:
        for suit in (LETTERS[s], LETTERS[s].lower(), SYMBOLS[s], HOLLOW[s]):
            out.append(r + suit)
    return out


def test_deck_is_52_distinct_cards_in_order():
    """001: 'The whole 52-card deck is dealt out' — the deck holds each of 4 suits × 13 ranks once."""
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert [c.index for c in DECK] == list(range(52))
    assert [(c.suit, c.rank) for c in DECK] == [(Suit(s), r) for s in range(4) for r in range(2, 15)]


@pytest.mark.parametrize("card", DECK, ids=str)
def test_parse_and_str_round_trip_in_every_form(card):
    """cards.py: 'Parse QS, 10H, TH, 2c, Q♠, 10♥. Raises ValueError naming the text.'"""
    rank = RANKS[card.rank - 2]
    text = rank + LETTERS[card.suit]
    assert str(card) == text
    assert card.symbol == rank + SYMBOLS[card.suit]
    assert Card.parse(str(card)) is card
    assert Card.parse(card.symbol) is card
    for f in forms(rank, card.suit):
        assert Card.parse(f) is card, f
        assert Card.parse(f"  {f} ") is card
    assert Card(card.suit, card.rank) is card


@pytest.mark.parametrize("card", DECK, ids=str)
def test_repr_evaluates_back_to_the_card(card):
    """cards.py: 'Card.parse("10h"), str(Card.parse("TH")), Card.parse("Q♠").symbol ->
    (Card.parse('10H'), '10H', 'Q♠')' — repr is Python that rebuilds the card."""
    assert eval(repr(card), {"Card": Card}) == card
    assert eval(repr(card), {"Card": Card}) is card
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy(card) is card


def test_named_examples():
    """cards.py: 'Card.parse("10h"), str(Card.parse("TH")), Card.parse("Q♠").symbol'"""
    assert repr(Card.parse("10h")) == "Card.parse('10H')"
    assert str(Card.parse("TH")) == "10H"
    assert Card.parse("Q♠").symbol == "Q♠"
    assert Card.parse("QS") is QUEEN_OF_SPADES
    assert Card.parse("2c") is TWO_OF_CLUBS
    assert Card.parse("10♥") is Card.parse("TH") is Card(Suit.HEARTS, 10)


def test_ordering_aces_high_within_a_suit():
    """001: 'Aces are high, so within each suit the order from strongest to weakest is A, K, Q, J, 10 … 2.'"""
    for s in LETTERS:
        suit = [Card.parse(r + s) for r in RANKS]
        assert sorted(suit) == suit
        assert [c.rank for c in suit] == list(range(2, 15))
        assert suit[-1] > suit[-2] > suit[-5] > suit[7]  # A > K > 10 > 9 (10 is not sorted as text)
        assert Card.parse("10" + s) > Card.parse("9" + s) and Card.parse("10" + s) < Card.parse("J" + s)
    # sorting a hand: by suit (♣ ♦ ♠ ♥), then rank
    hand = parse_cards("AH 2C QS 10D 9D KC")
    assert [str(c) for c in sorted(hand)] == ["2C", "KC", "9D", "10D", "QS", "AH"]
    a, b = Card.parse("3C"), Card.parse("AC")
    assert a < b and a <= b and b > a and b >= a and a <= a and a >= a and not a < a
    assert a != b and a == Card.parse("3c") and hash(a) == hash(Card.parse("3♣"))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        " ",
        "Q",
        "1H",
        "11H",
        "0S",
        "QX",
        "ZS",
        "10",
        "QSS",
        "Q♠♠",
        "1OH",
        "KK",
        "H2",
        "AHH",
        "T",
        "♠Q",
        "10 H",
        "Queen",
    ],
)
def test_bad_input_raises_value_error_naming_the_input(bad):
    """cards.py: 'Raises ValueError naming the text.'"""
    with pytest.raises(ValueError) as e:
        Card.parse(bad)
    assert repr(bad) in str(e.value)


def test_bad_card_in_a_list_names_it():
    """cards.py: 'Parse "QS 10H 2C" (spaces or commas)' — a bad card in the list is named."""
    assert parse_cards("QS 10H, 2C") == (Card.parse("QS"), Card.parse("10H"), Card.parse("2C"))
    assert parse_cards(["QS", Card.parse("2C")]) == (Card.parse("QS"), Card.parse("2C"))
    with pytest.raises(ValueError) as e:
        parse_cards("QS XX 2C")
    assert "'XX'" in str(e.value)
    for suit, rank in ((0, 1), (0, 15), (3, 0)):
        with pytest.raises(ValueError) as e2:
            Card(suit, rank)
        assert str(rank) in str(e2.value)


def test_cards_are_immutable():
    """cards.py: 'A card is a small frozen value'"""
    with pytest.raises(AttributeError):
        QUEEN_OF_SPADES.rank = 13
    with pytest.raises(AttributeError):
        QUEEN_OF_SPADES.extra = 1
    assert QUEEN_OF_SPADES.rank == 12


def test_cardset_behaviour_and_repr_round_trip():
    """cards.py: 'An immutable, sorted view of a set of cards (a hand, a legal set). ... str gives "2C 7D QS".'"""
    cs = CardSet(parse_cards("QS 7D 2C"))
    assert str(cs) == "2C 7D QS"
    assert len(cs) == 3 and bool(cs) and not CardSet()
    assert Card.parse("7D") in cs and Card.parse("7H") not in cs and "7D" not in cs
    assert list(cs) == [Card.parse("2C"), Card.parse("7D"), QUEEN_OF_SPADES] and cs[2] is QUEEN_OF_SPADES
    assert cs == CardSet(cs.mask) == {Card.parse("2C"), Card.parse("7D"), QUEEN_OF_SPADES}
    assert eval(repr(cs), {"CardSet": CardSet, "parse_cards": parse_cards}) == cs
    assert eval(repr(CardSet()), {"CardSet": CardSet, "parse_cards": parse_cards}) == CardSet()
    assert cs.of_suit(Suit.SPADES) == CardSet([QUEEN_OF_SPADES])
    assert hash(cs) == hash(CardSet(cs.mask))
    full = CardSet((1 << 52) - 1)
    assert full.cards == DECK and cards_of(mask_of(DECK)) == DECK
    assert str(CardSet(parse_cards("AH 10H 2H"))) == "2H 10H AH"


def test_a_two_pack_multiset_holds_a_card_twice():
    """002 Cancellation Hearts: 'two 52-card packs shuffled together' — a hand may hold a card twice: it
    lists it twice, counts both, and survives repr, pickling and the multiset sums the engine uses."""
    from referee.rules.cards import CardMultiset, card_set, multiset_add, multiset_of, multiset_remove

    five = Card.parse("5H")
    m = CardMultiset(parse_cards("5H 2C 5H"))
    assert [str(c) for c in m] == ["2C", "5H", "5H"] and len(m) == 3 and m.count(five) == 2 and five in m
    assert eval(repr(m), {"CardMultiset": CardMultiset, "parse_cards": parse_cards}) == m
    assert pickle.loads(pickle.dumps(m)) == m and [str(c) for c in m.of_suit(Suit.HEARTS)] == ["5H", "5H"]
    assert CardSet(parse_cards("2C")).count(five) == 0 and CardSet(parse_cards("5H")).count(five) == 1
    assert card_set(multiset_of(parse_cards("5H 2C"))) == CardSet(parse_cards("5H 2C"))  # no repeat: a CardSet
    a, b = multiset_of(parse_cards("5H 2C")), multiset_of(parse_cards("5H 3D"))
    assert multiset_add(a, b) == m.mask | Card.parse("3D").mask
    assert multiset_remove(multiset_add(a, b), a) == b
    with pytest.raises(ValueError, match="three times"):
        multiset_of(parse_cards("5H 5H 5H"))
