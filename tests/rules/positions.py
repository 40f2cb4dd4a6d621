"""Build exact Hearts positions for the rules tests.

The engine deals from a seed; the tests need exact hands. ``position`` creates a ``Match`` and
overwrites its hand state (hands, completed tricks, the trick in progress, hearts broken, scores)
so that one rule sentence can be checked on one precise position. ``end_of_hand`` builds a hand
whose last trick is about to be played, with chosen captured cards, to check scoring.

``random_play`` and ``play_until`` drive real matches with a seeded chooser.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping

from referee.rules import (
    DECK,
    Card,
    CardSet,
    Match,
    MoonChoice,
    Phase,
    Rules,
    Trick,
    cards_of,
    mask_of,
    parse_cards,
)

HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"


def cs(text: str | Iterable[str | Card]) -> CardSet:
    """``cs("2C QS")``: a CardSet from text."""
    return CardSet(parse_cards(text))


def m_(text: str | Iterable[str | Card]) -> int:
    """The bitmask of some cards given as text."""
    return mask_of(parse_cards(text))


def trick_winner(leader: int, cards: tuple[Card, ...], players: int) -> int:
    led = cards[0].suit
    best = max((c for c in cards if c.suit is led), key=lambda c: c.rank)
    return (leader + cards.index(best)) % players


def position(
    rules: Rules | None = None,
    hands: Mapping[int, str] | None = None,
    *,
    seed: int = 0,
    tricks: Iterable[tuple[int, str]] = (),
    current: str = "",
    leader: int | None = None,
    hearts_broken: bool | None = None,
    scores: Iterable[int] | None = None,
    kitty: str = "",
    hand_number: int | None = None,
) -> Match:
    """A match in the play phase at an exact position.

    ``hands``: seat -> the cards it holds now (every seat must be given).
    ``tricks``: completed tricks as (leader, "cards in play order"); winners, captured cards,
    tricks won and hearts broken (a heart, or Q♠ with queen_breaks_hearts) follow from them.
    ``current``: the cards of the trick in progress, in play order, led by ``leader`` (default:
    the winner of the last completed trick, or the opening leader of the first trick).
    ``hearts_broken`` overrides the computed flag. ``scores`` sets the match totals.
    """
    rules = rules if rules is not None else Rules()
    n = rules.players
    match = Match(rules, seed)
    hand = match.hand
    if hand_number is not None:
        hand.number = hand_number
        hand.dealer = hand_number % n
    hands = dict(hands or {})
    assert set(hands) == set(range(n)), f"give the hands of all {n} seats"
    hand.hands = [m_(hands[s]) for s in range(n)]
    hand.kitty = m_(kitty)
    hand.passed = [None] * n
    hand.received = [0] * n
    hand.captured = [0] * n
    hand.tricks_won = [0] * n
    hand.tricks = []
    hand.trick_cards = []
    hand.trick_mask = 0
    hand.kitty_taker = None
    hand.hearts_broken = False
    hand._start_play()  # sets phase, the opening card and the opening leader from the hands
    broken = False
    for lead, text in tricks:
        cards = parse_cards(text)
        assert len(cards) == n
        w = trick_winner(lead, cards, n)
        hand.tricks.append(Trick(lead, cards, w))
        hand.captured[w] |= mask_of(cards)
        hand.tricks_won[w] += 1
        for c in cards:
            if c.suit.name == "HEARTS" or (str(c) == "QS" and rules.queen_breaks_hearts):
                broken = True
    if hand.tricks:
        hand.leader = hand.tricks[-1].winner
    if leader is not None:
        hand.leader = leader
    cur = parse_cards(current)
    hand.trick_cards = list(cur)
    hand.trick_mask = mask_of(cur)
    for c in cur:
        if c.suit.name == "HEARTS" or (str(c) == "QS" and rules.queen_breaks_hearts):
            broken = True
    hand.turn = (hand.leader + len(cur)) % n
    hand.hearts_broken = broken if hearts_broken is None else hearts_broken
    if scores is not None:
        match.scores = list(scores)
    check_cards_once(match, allow_missing=True)
    return match


def check_cards_once(match: Match, allow_missing: bool = False) -> None:
    """No card is in two places (hands, kitty, captured, the trick in progress)."""
    hand = match.hand
    places = list(hand.hands) + [hand.kitty, hand.trick_mask] + list(hand.captured)
    seen = 0
    for p in places:
        if hand.kitty_taker is not None and p is hand.kitty:
            continue
        # the kitty is inside its taker's captured cards once taken
        assert not (seen & p) or (hand.kitty_taker is not None and p & ~hand.kitty & seen == 0), \
            f"a card is in two places: {CardSet(seen & p)}"
        seen |= p
    if not allow_missing:
        assert seen == match.rules.deck_mask, f"cards missing: {CardSet(match.rules.deck_mask & ~seen)}"


def end_of_hand(
    rules: Rules | None = None,
    captured: Mapping[int, str] | None = None,
    *,
    last_trick: Mapping[int, str] | None = None,
    tricks_won: Mapping[int, int] | None = None,
    scores: Iterable[int] | None = None,
    hand_number: int = 0,
    seed: int = 0,
) -> Match:
    """A hand whose 12 first tricks are done: seat -> captured cards; the last trick is to play.

    ``last_trick``: seat -> the one card it holds (default: the rest of the pack, which must be
    one non-penalty card each with the winner chosen by the highest rank of the led suit).
    Call ``play_last_trick`` to score. Tricks won default to an even spread of the captured cards.
    """
    rules = rules if rules is not None else Rules()
    n = rules.players
    captured = {s: captured.get(s, "") for s in range(n)} if captured else {s: "" for s in range(n)}
    cap_masks = [m_(captured[s]) for s in range(n)]
    used = 0
    for m in cap_masks:
        assert not used & m
        used |= m
    if last_trick is None:
        rest = cards_of(rules.deck_mask & ~used)
        assert len(rest) == n, f"{len(rest)} cards left for the last trick: {' '.join(map(str, rest))}"
        last_trick = {s: str(rest[s]) for s in range(n)}
    match = position(rules, {s: last_trick[s] for s in range(n)}, seed=seed, hearts_broken=True,
                     scores=scores, hand_number=hand_number)
    hand = match.hand
    hand.captured = cap_masks
    if tricks_won is None:
        tw = [len(cards_of(m)) // n for m in cap_masks]
        # make the count add up to 12 completed tricks
        k = 0
        while sum(tw) < 12:
            if cap_masks[k % n]:
                tw[k % n] += 1
            k += 1
            if k > 100:
                tw[0] += 12 - sum(tw)
        while sum(tw) > 12:
            i = max(range(n), key=lambda s: tw[s])
            tw[i] -= 1
    else:
        tw = [tricks_won.get(s, 0) for s in range(n)]
    hand.tricks_won = tw
    hand.tricks = [Trick(0, (), 0) for _ in range(12)]
    # the last trick is led by the seat holding the highest card of the suit led
    cards = {s: Card.parse(last_trick[s]) for s in range(n)}
    lead = max(range(n), key=lambda s: cards[s].rank)
    hand.leader = hand.turn = lead
    return match


def play_last_trick(match: Match) -> None:
    hand = match.hand
    for _ in range(match.rules.players):
        seat = hand.turn
        match.play(cards_of(hand.hands[seat])[0], seat)


# -- real play ---------------------------------------------------------------------------------


Chooser = Callable[[Match, random.Random], None]


def random_step(match: Match, rng: random.Random) -> None:
    """One decision of a random player."""
    phase = match.phase
    if phase is Phase.PASS:
        seat = match.to_move[0]
        hand = cards_of(match.hand.hands[seat])
        match.pass_cards(seat, rng.sample(hand, match.rules.pass_count))
    elif phase is Phase.PLAY:
        legal = match.legal_plays()
        match.play(rng.choice(legal.cards))
    elif phase is Phase.MOON:
        match.choose_moon(match.turn, rng.choice(list(MoonChoice)))
    else:
        raise AssertionError("no decision in phase " + str(phase))


def random_play(match: Match, rng: random.Random | int = 0, max_steps: int = 100_000) -> Match:
    """Play the match to its end with random legal decisions."""
    if isinstance(rng, int):
        rng = random.Random(rng)
    for _ in range(max_steps):
        if match.over:
            return match
        random_step(match, rng)
    raise AssertionError("the match did not end")


def play_until(match: Match, cond: Callable[[Match], bool], rng: random.Random | int = 0,
               max_steps: int = 100_000) -> bool:
    """Random play until ``cond(match)`` holds (checked before each decision)."""
    if isinstance(rng, int):
        rng = random.Random(rng)
    for _ in range(max_steps):
        if cond(match):
            return True
        if match.over:
            return False
        random_step(match, rng)
    return False


def seat_holding(match: Match, card: str | Card) -> int:
    c = card if isinstance(card, Card) else Card.parse(card)
    return next(s for s in range(match.rules.players) if match.hand.hands[s] & c.mask)


ALL_CARDS = " ".join(str(c) for c in DECK)
