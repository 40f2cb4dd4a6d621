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
    TURBO_CARDS,
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
    won_first: int | None = None,
) -> Match:
    """A match in the play phase at an exact position.

    ``hands``: seat -> the cards it holds now (every seat must be given).
    ``tricks``: completed tricks as (leader, "cards in play order"); winners, captured cards,
    tricks won and hearts broken (a heart, or Q♠ with queen_breaks_hearts) follow from them.
    ``current``: the cards of the trick in progress, in play order, led by ``leader`` (default:
    the winner of the last completed trick, or the opening leader of the first trick).
    ``won_first``: put before ``tricks`` an opening club trick (2♣ led) won by this seat, made of
    clubs no hand holds, so that the seat leads the next trick.
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
    if won_first is not None:
        tricks = [opening_trick(won_first, hands, n), *tricks]
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
    try:
        hand._start_play()  # sets phase, the opening card and the opening leader from the hands
    except StopIteration:  # a later position: nobody holds the opening card any more
        hand.phase = Phase.PLAY
        hand.leader = hand.turn = 0
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
        assert leader is None or leader == hand.leader, (
            f"seat {hand.tricks[-1].winner} won the last trick and must lead, not seat {leader}"
        )
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
    invalidate(match)
    return match


def invalidate(match: Match) -> None:
    """Drop the engine's per-decision caches after the tests rewrote the hand state."""
    hand = match.hand
    if hasattr(hand, "_legal"):
        hand._legal = -1


def opening_trick(winner: int, hands: Mapping[int, str], players: int = 4) -> tuple[int, str]:
    """A first trick of clubs (2♣ led) won by ``winner``, using clubs that no hand in ``hands`` holds.

    For ``position(tricks=[opening_trick(2, hands)])``: seat 2 then leads the second trick.
    """
    held = 0
    for text in hands.values():
        held |= m_(text)
    free = [c for c in cards_of(m_("3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")) if not held & c.mask]
    assert not held & m_("2C") and len(free) >= players - 1
    leader = (winner + 1) % players if winner != (winner + 1) % players else winner
    # the leader plays 2♣; the winner plays the highest free club; the others the lowest ones
    order = [(leader + i) % players for i in range(players)]
    low = iter(free[: players - 2])
    cards = []
    for seat in order:
        if seat == leader and seat != winner:
            cards.append("2C")
        elif seat == winner:
            cards.append(str(free[-1]))
        else:
            cards.append(str(next(low)))
    return leader, " ".join(cards)


def check_cards_once(match: Match, allow_missing: bool = False) -> None:
    """No card is in two places (hands, the untaken kitty, captured cards, the trick in progress)."""
    hand = match.hand
    places = list(hand.hands) + [hand.trick_mask] + list(hand.captured)
    if hand.kitty_taker is None:
        places.append(hand.kitty)  # once taken, the kitty is inside its taker's captured cards
    seen = 0
    for p in places:
        assert not seen & p, f"a card is in two places: {CardSet(seen & p)}"
        seen |= p
    if not allow_missing:
        assert seen == match.rules.deck_mask, f"cards missing: {CardSet(match.rules.deck_mask & ~seen)}"


def end_of_hand(
    rules: Rules | None = None,
    captured: Mapping[int, str] | None = None,
    *,
    last_trick: Mapping[int, str] | None = None,
    filler: int | None = None,
    tricks_won: Mapping[int, int] | None = None,
    scores: Iterable[int] | None = None,
    hand_number: int = 0,
    seed: int = 0,
) -> Match:
    """A hand at its last trick (12 done): ``captured`` gives seat -> cards it has taken so far.

    ``last_trick``: seat -> the one card it still holds (default: the lowest cards of the pack
    that score nothing, lowest to seat 0, so the highest seat wins the last trick with them).
    Every other card of the pack goes to the captured cards of ``filler`` (default: the seat that
    will win the last trick). The last trick is led by the seat with the highest card, so that seat
    wins it. ``tricks_won`` (seat -> tricks before the last) defaults to a plausible spread.
    Call ``play_last_trick`` to play it and score the hand.
    """
    rules = rules if rules is not None else Rules()
    n = rules.players
    spec = {s: parse_cards((captured or {}).get(s, "")) for s in range(n)}
    used = 0
    for cards in spec.values():
        m = mask_of(cards)
        assert not used & m, "a card is captured twice"
        used |= m
    if last_trick is None:
        free = [c for c in cards_of(rules.deck_mask & ~used) if rules.card_points[c.index] == 0]
        last = {s: free[s] for s in range(n)}
    else:
        last = {s: Card.parse(last_trick[s]) for s in range(n)}
    used_last = mask_of(last.values())
    assert not used & used_last
    lead = max(range(n), key=lambda s: last[s].rank)
    winner = lead  # the others' cards are lower in the led suit or of other suits
    assert all(
        last[s].suit is last[lead].suit and last[s].rank < last[lead].rank or last[s].suit is not last[lead].suit
        for s in range(n)
        if s != lead
    )
    cap = [mask_of(spec[s]) for s in range(n)]
    rest = rules.deck_mask & ~used & ~used_last
    cap[winner if filler is None else filler] |= rest
    match = position(
        rules,
        {s: str(last[s]) for s in range(n)},
        seed=seed,
        hearts_broken=True,
        scores=scores,
        hand_number=hand_number,
        leader=lead,
    )
    hand = match.hand
    hand.captured = cap
    if tricks_won is None:
        tw = [-(-len(cards_of(m)) // n) for m in cap]
        while sum(tw) > 12:
            tw[max(range(n), key=lambda s: tw[s])] -= 1
        while sum(tw) < 12:
            tw[max(range(n), key=lambda s: tw[s])] += 1
    else:
        tw = [tricks_won.get(s, 0) for s in range(n)]
    assert sum(tw) == 12
    hand.tricks_won = tw
    hand.tricks = [Trick(0, (), 0) for _ in range(12)]
    invalidate(match)
    return match


def play_last_trick(match: Match) -> None:
    """Play the last trick of an ``end_of_hand`` position (one card each)."""
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
        if match.rules.may_pass_on(match.hand.direction) and rng.random() < 0.4:
            match.pass_cards(seat, ())  # 002 pass_on (drawn only under that option: other runs are unchanged)
            return
        match.pass_cards(seat, rng.sample(hand, match.rules.pass_count))
    elif phase is Phase.PLAY:
        legal = match.legal_plays()
        match.play(rng.choice(legal.cards))
    elif phase is Phase.MOON:
        match.choose_moon(match.turn, rng.choice(list(MoonChoice)))
    elif phase is Phase.CALL:  # the dealer calls the pass: a named one, mix, or a random split
        n, k = match.rules.players, match.rules.pass_count
        call = rng.choice(["left", "right", "mix", tuple(rng.randrange(1, n) for _ in range(k))])
        match.call_pass(match.to_move[0], call)
    elif phase is Phase.DISCARD:
        seat = match.to_move[0]
        match.discard(seat, rng.sample(cards_of(match.hand.hands[seat]), match.rules.kitty_size))
    elif phase is Phase.CHARGE:  # turbo_charging: none, one, or (turbo_charges=any) several of its A♥ Q♠ J♦ 10♣
        seat = match.to_move[0]
        held = [c for c in cards_of(match.hand.hands[seat]) if c in TURBO_CARDS]
        most = len(held) if match.rules.turbo_charges == "any" else min(len(held), 1)
        match.charge(seat, rng.sample(held, rng.randint(0, most)))
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


def play_until(
    match: Match, cond: Callable[[Match], bool], rng: random.Random | int = 0, max_steps: int = 100_000
) -> bool:
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


def moon_step(match: Match, rng: random.Random) -> None:
    """One decision of a table that helps seat 0 shoot the moon (to reach moon and sun scoring often).

    Seat 0 passes its lowest cards and plays its highest legal card; the others pass their highest
    cards, follow with their lowest and throw their costliest penalty card when void.
    """
    phase = match.phase
    if phase is Phase.PLAY:
        legal = match.legal_plays().cards
        rules = match.rules
        if match.turn == 0:
            card = max(legal, key=lambda c: (c.rank, rng.random()))
        else:
            cur = match.hand.trick_cards
            if cur and any(c.suit is cur[0].suit for c in legal):
                card = min(legal, key=lambda c: (c.rank, rng.random()))
            else:
                card = max(
                    legal,
                    key=lambda c: (
                        rules.points_of(c) > 0,
                        rules.points_of(c),
                        c.rank if cur else -c.rank,
                        rng.random(),
                    ),
                )
        match.play(card)
    elif phase is Phase.PASS:
        seat = match.to_move[0]
        hand = cards_of(match.hand.hands[seat])
        key = (lambda c: c.rank) if seat == 0 else (lambda c: -c.rank)
        match.pass_cards(seat, sorted(hand, key=key)[: match.rules.pass_count])
    else:
        random_step(match, rng)


STEPS = {"random": random_step, "moon": moon_step}


def play_cards(m: Match, text: str) -> list:
    """Play these cards in turn; the tricks they completed."""
    done = []
    for c in text.split():
        t = m.play(c)
        if t is not None:
            done.append(t)
    return done


def advance_to_hand(m: Match, k: int, seed: int = 0) -> Match:
    """Random play until hand ``k`` begins (the match must not end first)."""
    rng = random.Random(seed)
    while m.hand_number < k:
        assert not m.over, "the match ended early: use a higher target"
        random_step(m, rng)
    assert m.hand_number == k
    return m


def pass_lowest(m: Match) -> dict[int, tuple[Card, ...]]:
    """Every seat passes its lowest cards; what each sent."""
    sent = {}
    for s in range(m.rules.players):
        cards = cards_of(m.hand.hands[s])[: m.rules.pass_count]
        sent[s] = cards
        m.pass_cards(s, cards)
    return sent
