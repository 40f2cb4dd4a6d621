"""The positions ``hearts validate`` asks (ladder/conformance/positions.py): each is the edge case it names, reached by
the engine's own moves, under every ruleset validate checks, and cites a sentence that stands in its source."""

from __future__ import annotations

import pytest
from rule_sources import CHECKED, SOURCES

from ladder.conformance.checks import VARIANTS
from ladder.conformance.positions import CITATIONS, catalogue, play_positions, positions
from referee.rules import PRESETS, QUEEN_OF_SPADES, Phase, Rules, Suit
from referee.rules.cards import SUIT_MASKS

RULESETS = [*PRESETS, *(text for alternatives in VARIANTS for text in alternatives)]
HEARTS = SUIT_MASKS[Suit.HEARTS]
SALT = 3_141_592_653_589_793  # as the arena's validation draws one: a deal a bot cannot know in advance


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").split()).lower()


@pytest.mark.parametrize("citation", CITATIONS if CHECKED else [], ids=lambda c: f"{c.source}:{c.quote[:30]}")
def test_each_cited_sentence_stands_in_its_source(citation: object) -> None:
    source, quote = citation.source, citation.quote  # type: ignore[attr-defined]
    files = list(SOURCES.glob(f"{source}_*.txt"))
    assert files, f"no rule source {source}_*.txt in {SOURCES}"
    assert _norm(quote) in _norm(files[0].read_text(encoding="utf-8")), f"{source} does not say: {quote!r}"


@pytest.mark.parametrize("text", RULESETS)
def test_every_position_cites_a_sentence_of_the_list(text: str) -> None:
    for name, cites, _ in catalogue(Rules.parse(text)):
        assert cites in CITATIONS, (name, cites)


@pytest.mark.parametrize("salt", [0, SALT])
@pytest.mark.parametrize("text", RULESETS)
def test_each_position_is_the_edge_case_it_names(text: str, salt: int) -> None:
    """Built under each ruleset validate checks, every position is a decision its seat owes now, of the
    phase its name says, and the play positions are exactly their rule's case (the legal cards show it);
    from a secret salt (the arena's validation) as well as from the fixed seeds."""
    rules = Rules.parse(text)
    built, missing = positions(rules, salt)
    assert built
    for p in built:
        o = p.observation()
        m = p.match
        assert p.seat in m.to_move, p.name
        expected = (
            Phase.CHARGE
            if p.name == "the turbo-charge"
            else Phase.PASS
            if p.name.startswith("pass")
            else Phase.CALL
            if "call" in p.name
            else Phase.DISCARD
            if "discard" in p.name
            else Phase.MOON
            if "moon" in p.name
            else Phase.PLAY
        )
        assert m.phase is expected, p.name
        hand, legal = o.hand.mask & ((1 << 52) - 1), o.legal.mask  # the values held (two packs: a card twice)
        led = o.current_trick.cards[0].suit if o.current_trick.cards else None
        penalty = rules.penalty_mask
        if p.name == "trick one, a hand of only penalty cards":
            assert not o.tricks and led is Suit.CLUBS and hand & ~penalty == 0 and legal == hand
        elif p.name == "trick one, void in clubs: a safe card":
            assert not o.tricks and led is Suit.CLUBS and not hand & SUIT_MASKS[Suit.CLUBS]
            assert hand & penalty and legal == hand & ~penalty
        elif p.name == "on lead, hearts unbroken, only hearts":
            assert o.tricks and o.is_leading and not o.hearts_broken and hand & ~HEARTS == 0 and legal == hand
        elif p.name == "on lead, hearts unbroken":
            assert o.is_leading and not o.hearts_broken and hand & HEARTS and not legal & HEARTS
        elif p.name == "Q♠ on lead at trick two, hearts unbroken":
            assert len(o.tricks) == 1 and o.is_leading and not o.hearts_broken and QUEEN_OF_SPADES in o.legal
        elif p.name == "void in the suit led":
            assert led is not None and not hand & SUIT_MASKS[led] and hand & penalty
            assert legal == hand or (rules.queen_at_first_safe_chance and legal == QUEEN_OF_SPADES.mask)
        elif p.name == "follow suit":
            assert led is not None and legal & ~SUIT_MASKS[led] == 0 and legal != hand
        elif p.name.startswith("opening lead (2♣)"):
            clubs = rules.deck_mask & SUIT_MASKS[Suit.CLUBS]
            assert not o.tricks and o.is_leading and legal == clubs & -clubs  # the lowest club in play
        elif p.name == "Q♠ at the first safe chance":
            assert legal == QUEEN_OF_SPADES.mask and len(o.hand) > 1
        elif p.name == "pass after a called split":
            assert o.pass_direction == "split" and len(o.pass_offsets) == rules.pass_count
        elif p.name.startswith("pass "):
            assert o.pass_direction == p.name.split()[1].rstrip(",")
            assert ("passing on" in p.name) == rules.may_pass_on(o.pass_direction)
        elif p.name == "the moon's choice":
            assert o.moon_points == rules.moon_total
        elif p.name == "a team's slam (moon): the partner who took Q♠ chooses":
            pen, cap = rules.penalty_mask, m.hand.captured
            mine, theirs = cap[p.seat] & pen, cap[(p.seat + 2) % 4] & pen
            assert mine & QUEEN_OF_SPADES.mask and theirs and mine | theirs == pen and o.moon_points == rules.moon_total
        elif p.name == "void in the suit led, the partner winning the trick":
            cur = o.current_trick
            top = max((i for i, c in enumerate(cur.cards) if c.suit is led), key=lambda i: cur.cards[i].rank)
            assert not hand & SUIT_MASKS[led] and hand & penalty and legal == hand
            assert cur.seat_of(top, 4) == o.partner
        elif p.name == "a boosted trick's second round: follow the led suit":
            assert o.boosted and len(o.current_trick.cards) >= rules.players and legal == hand & SUIT_MASKS[led]
            assert legal != hand
        elif p.name == "the turbo-charge":  # 002 Turbo: a seat still to charge, holding a card it may charge
            assert rules.turbo_charging and any(str(c) in ("AH", "QS", "JD", "10C") for c in o.hand)
        elif p.name.startswith("a charged card, its suit's first lead"):
            barred = {c for s, c in o.charges if s == o.seat and c.suit is led}
            assert o.tricks and barred and barred <= set(o.hand) and not barred & set(o.legal)
            assert led not in {t.cards[0].suit for t in o.tricks} and legal and legal & ~SUIT_MASKS[led] == 0
        elif p.name == "on lead holding a charged card of a suit not led yet":
            led_before = {t.cards[0].suit for t in o.tricks}
            mine = {c for s, c in o.charges if s == o.seat and c in o.hand and c.suit not in led_before}
            assert o.is_leading and mine and legal and not mine & set(o.legal)
        elif p.name == "a boosted trick's second round, void in the led suit":
            assert o.boosted and len(o.current_trick.cards) >= rules.players and not hand & SUIT_MASKS[led]
            assert legal == hand
        elif p.name == "two packs: a legal card held twice":
            assert rules.packs == 2 and any(o.hand.cards.count(c) == 2 for c in o.legal)
        elif p.name == "two packs: following a trick with a cancelling pair":
            cards = o.current_trick.cards
            assert any(c.suit is led and cards.count(c) == 2 for c in cards) and legal & SUIT_MASKS[led]
        elif p.name == "two packs: on lead again, a winnerless trick on the table":
            assert o.is_leading and o.table and o.tricks[-1].winner is None
            assert o.tricks[-1].leader == p.seat  # 'the same player leads again'
    if rules.packs == 2:
        names = {p.name for p in built}
        assert {
            "two packs: a legal card held twice",
            "two packs: on lead again, a winnerless trick on the table",
        } <= names
    if rules.players == 3:  # 17 cards: no hand is ever only penalty cards (14 in play)
        assert [name for name, _ in missing] == ["trick one, a hand of only penalty cards"]
    else:
        assert not missing, missing


def test_a_chosen_deal_is_reached_through_its_pass() -> None:
    """Under black-maria (always pass right) the chosen deal is dealt before the pass, worked backwards: every
    seat passed three cards and received three, and the seat asked holds the 13 hearts only once it has."""
    built, _ = positions(Rules.parse("black-maria"))
    p = next(p for p in built if p.name == "trick one, a hand of only penalty cards")
    o = p.observation()
    assert o.pass_direction == "right" and len(o.passed) == 3 and len(o.received) == 3
    assert o.hand.mask == HEARTS and not set(o.passed) & set(o.hand)
    assert all(len(p.match.hand.passed[s] or ()) == 3 for s in range(4))


def test_positions_are_the_same_every_time() -> None:
    """Seeded: a bot gets the same requests on every run, so a failure can be reproduced."""
    for text in ("standard", "nasty", "standard,moon=shooter-chooses"):
        a, _ = positions(Rules.parse(text))
        b, _ = positions(Rules.parse(text))
        assert [(p.name, p.seat, p.observation()) for p in a] == [(p.name, p.seat, p.observation()) for p in b]


def test_a_salted_search_deals_other_cards_than_the_fixed_seeds() -> None:
    """A bot that knows the fixed seeds' positions (the code is public) cannot recognise the salted ones."""
    rules = Rules()
    fixed = {p.name: p.observation().hand for p in positions(rules)[0]}
    salted = {p.name: p.observation().hand for p in positions(rules, SALT)[0]}
    assert fixed.keys() == salted.keys()
    searched = [n for n in fixed if not n.startswith(("trick one,", "on lead, hearts unbroken, only"))]
    assert searched and all(fixed[n] != salted[n] for n in searched), searched
    assert [p.observation().hand for p in play_positions(rules, 4)] != [
        p.observation().hand for p in play_positions(rules, 4, SALT)
    ]
