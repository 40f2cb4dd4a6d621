"""Positions for ``hearts validate``: the rule sources' edge cases, each a real engine state.

Each ``Position`` is a ``Match`` at the moment one seat owes a decision: the trick one a hand of
nothing but penalty cards, a void in the suit led, a hand of only hearts on lead before hearts are
broken, Q♠ on lead, a pass of each direction of the cycle, a pass where passing on is allowed, the
kitty's discard, the dealer's call, the moon's choice. Each cites the sentence of the rule sources
(docs/rules.md) that it exercises, as the rules tests do.

Every position is reached through the engine's own checked moves, never by editing its state
behind its back: common ones by playing seeded deals forward until they occur; rare ones from a
chosen deal (``_chosen``), with the hand's pass worked backwards so that the cards the seats
pass arrive where the position needs them, and the first tricks played out by a script. So a
position exists under any ruleset where the engine can reach it; ``positions(rules)`` says which
could not be built, and why, instead of asking a bot something the rules never ask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.rules import (
    QUEEN_OF_SPADES,
    TURBO_CARDS,
    Card,
    CardSet,
    Deal,
    Hand,
    IllegalPlayError,
    Match,
    MoonChoice,
    Observation,
    Phase,
    Rules,
    SeededRandom,
    Suit,
    cards_of,
)
from referee.rules.cards import SUIT_MASKS

HEARTS = SUIT_MASKS[Suit.HEARTS]
CLUBS = SUIT_MASKS[Suit.CLUBS]

SEEDS = 60
"""Seeded deals tried for a position found by playing forward (the commonest turn up in the first)."""
HANDS = 8
"""Hands played forward per seed before the next seed is tried."""


@dataclass(frozen=True)
class Citation:
    """The sentence of a rule source a position exercises: ``source`` is its number (``"001"``)."""

    source: str
    quote: str

    def __str__(self) -> str:
        return f"{self.source}: '{self.quote}'"


@dataclass(frozen=True)
class Position:
    """A decision owed by ``seat`` in ``match`` (never changed: judge answers on a clone)."""

    name: str
    rules: Rules
    match: Match
    seat: int
    cites: Citation | None = None

    @property
    def phase(self) -> Phase:
        return self.match.phase

    def observation(self) -> Observation:
        return self.match.observation(self.seat)


# -- the sentences ---------------------------------------------------------------------------------

OPENING = Citation(
    "001", "The holder of the 2 of clubs must lead it to the first trick — no other opening lead is legal"
)
OPENING_FIVE = Citation(
    "002", "With five players also remove the 2♣, and the holder of the 3♣ leads it to the first trick"
)
OPENING_LEFT = Citation(
    "002",
    "the player to the left of the dealer always leads to the first trick (rather than the holder of the 2 of clubs",
)
FOLLOW = Citation("001", "On every trick you must follow suit if you hold a card of the suit that was led")
VOID = Citation("001", "If you are void in that suit you may discard any card, with the two exceptions below")
FIRST_TRICK_SAFE = Citation("001", "If you cannot follow with a club you must throw a safe card")
FIRST_TRICK_PENALTY = Citation(
    "001", "The only exception: a player whose hand is nothing but penalty cards may discard one"
)
HEARTS_UNBROKEN = Citation("001", "you may not lead a heart until hearts have been broken")
ONLY_HEARTS = Citation("001", "If your hand is nothing but hearts, you may lead one anyway")
QUEEN_LEAD = Citation(
    "001",
    "the Queen of Spades is a spade and may be led at any time, even on the second trick of the hand "
    "while hearts are still unbroken",
)
QUEEN_FIRST_SAFE = Citation("002", "you must play the queen of spades as soon as it is safe to do so")
PASS = Citation("001", "each player chooses exactly three cards and passes them face down to another player")
PASS_SCATTER = Citation("002", "scatter instead of hold (players pass one card to every other player)")
PASS_MIX = Citation(
    "002", "everyone discards three cards to a pile in the centre, which is shuffled and then redealt to the players"
)
PASS_SECOND = Citation("002", "Left, right, 2nd person to the left, 2nd person to the right, hold, repeat")
PASS_ON = Citation("002", "players are not required to pass any cards if they do not wish to")
PASS_SPLIT = Citation(
    "002",
    "The dealer may choose any variant (for example: two to the left, one to the right), as long as each "
    "player passes and receives three cards",
)
CALL = Citation(
    "002", 'before the start of the deal, the dealer "calls pass", that is, specifies how cards will be passed'
)
DISCARD = Citation(
    "002",
    "the person who takes the first point or trick adds the kitty to their hand and discards an equal number of "
    "cards face down into their tricks",
)
MOON = Citation("002", "you may choose instead to have all other players' scores increased by 26 points")
BOOST = Citation("002", "one more round is played in the same suit — i.e. a further card from each player, in rotation")
BOOST_VOID = Citation(
    "002", "The suit of the first of the eight cards played is the led suit, and the highest card of this suit takes"
)
CHARGE = Citation(
    "002",
    "After the pass but before the first lead, each player may turbo-charge one of the following cards: ace of "
    "hearts, queen of spades, jack of diamonds, or ten of clubs",
)
CHARGED = Citation("002", "A player may not play a turbo-charged card the first time a card of that suit is led")
TEAM_SLAM = Citation(
    "002",
    "A slam occurs if one team takes all 14 penalty cards in a hand; they can choose to give the opponents 26 "
    "penalty points or to subtract 26 penalty points from their own score",
)
PARTNER_PASS = Citation("002", "Some prefer to play this game passing three cards to partner on every deal")
PARTNER_TRICK = Citation(
    "002", "On each hand your team scores the total number of penalty points you have taken in your tricks"
)
TWO_PACKS = Citation("002", "This is a version of Hearts for 6 to 10 players using two 52-card packs shuffled together")
CANCELLED = Citation(
    "002",
    "When two identical cards are played to a trick, they cancel each other out in terms of trick-taking power",
)
ON_THE_TABLE = Citation(
    "002",
    "the trick remains on the table, the same player leads again, and the cards go to the winner of the next trick",
)

CITATIONS: tuple[Citation, ...] = (
    OPENING,
    OPENING_FIVE,
    OPENING_LEFT,
    FOLLOW,
    VOID,
    FIRST_TRICK_SAFE,
    FIRST_TRICK_PENALTY,
    HEARTS_UNBROKEN,
    ONLY_HEARTS,
    QUEEN_LEAD,
    QUEEN_FIRST_SAFE,
    PASS,
    PASS_SCATTER,
    PASS_MIX,
    PASS_SECOND,
    PASS_ON,
    PASS_SPLIT,
    CALL,
    DISCARD,
    MOON,
    BOOST,
    BOOST_VOID,
    CHARGE,
    CHARGED,
    TEAM_SLAM,
    PARTNER_PASS,
    PARTNER_TRICK,
    TWO_PACKS,
    CANCELLED,
    ON_THE_TABLE,
)
"""Every sentence a position cites (a test finds each in its source)."""


# -- playing forward -------------------------------------------------------------------------------


def _random_step(m: Match, rng: SeededRandom) -> None:
    """One decision of a seeded random table (every seat passes; the dealer calls left)."""
    phase = m.phase
    rules = m.rules
    if phase is Phase.PASS:
        for s in m.to_move:
            cards = list(m.observation(s).hand.cards)
            rng.shuffle(cards)
            m.pass_cards(s, cards[: rules.pass_count])
    elif phase is Phase.PLAY:
        m.play(rng.choice(m.legal_plays().cards), m.turn)
    elif phase is Phase.CALL:
        m.call_pass(m.to_move[0], "left")
    elif phase is Phase.DISCARD:
        s = m.to_move[0]
        obs = m.observation(s)
        cards = list(obs.hand.cards)
        rng.shuffle(cards)
        m.discard(s, cards[: len(obs.kitty)])
    elif phase is Phase.MOON:
        m.choose_moon(m.turn, MoonChoice.ADD_TO_OTHERS)
    elif phase is Phase.CHARGE:  # a seat charges what it may, or (one in two) nothing
        for s in m.to_move:
            held = [c for c in TURBO_CARDS if c in m.observation(s).hand] if rng.below(2) else []
            m.charge(s, held if rules.turbo_charges == "any" else held[:1])


def _shooter_step(m: Match, rng: SeededRandom) -> None:
    """One decision of a table that helps seat 0 take every penalty card (to reach a moon choice):
    seat 0 passes its lowest cards and plays its highest; the others pass their highest, follow
    low, and throw their costliest penalty card when void."""
    phase = m.phase
    rules = m.rules
    if phase is Phase.PASS:
        for s in m.to_move:
            hand = m.observation(s).hand.cards
            order = sorted(hand, key=lambda c: c.rank if s == 0 else -c.rank)
            m.pass_cards(s, order[: rules.pass_count])
    elif phase is Phase.PLAY:
        s = m.turn
        legal = m.legal_plays().cards
        led = m.observation(s).current_trick.cards
        if s == 0:
            card = max(legal, key=lambda c: c.rank)
        elif led and any(c.suit is led[0].suit for c in legal):
            card = min(legal, key=lambda c: c.rank)
        else:
            card = max(legal, key=lambda c: (rules.points_of(c) > 0, rules.points_of(c), c.rank))
        m.play(card, s)
    else:
        _random_step(m, rng)


def _team_slam_step(m: Match, rng: SeededRandom) -> None:
    """``_shooter_step`` for a team (partnership=team): seats 0 and 2 pass their lowest cards and play their
    highest; the others pass their highest, follow low and throw their costliest penalty card when void."""
    if m.phase is Phase.PASS:
        for s in m.to_move:
            hand = m.observation(s).hand.cards
            order = sorted(hand, key=lambda c: c.rank if s % 2 == 0 else -c.rank)
            m.pass_cards(s, order[: m.rules.pass_count])
    elif m.phase is Phase.PLAY and m.turn % 2 == 0:
        m.play(max(m.legal_plays().cards, key=lambda c: c.rank), m.turn)
    elif m.phase is Phase.PLAY:
        _shooter_step(m, rng)  # an opponent: ducks, or sheds its costliest penalty card
    else:
        _random_step(m, rng)


def _team_slam(m: Match) -> int | None:
    """A team's slam to score (partnership=team): both partners took penalty cards, all of them together."""
    if m.phase is not Phase.MOON:
        return None
    seat = m.to_move[0]
    pen = m.rules.penalty_mask
    captured = m.hand.captured
    mine, partner = captured[seat] & pen, captured[(seat + 2) % 4] & pen
    return seat if mine and partner and mine | partner == pen else None


def _partner_winning_void(m: Match) -> int | None:
    """Void in the suit led, holding a penalty card and a safe one, while the partner is winning the trick."""
    seat = _void(m)
    if seat is None:
        return None
    trick = m.observation(seat).current_trick
    led = trick.cards[0].suit
    best = max((i for i, c in enumerate(trick.cards) if c.suit is led), key=lambda i: trick.cards[i].rank)
    return seat if trick.seat_of(best, 4) == m.rules.partner(seat) else None


def _seeds(salt: int) -> list[int]:
    """The deals a search tries: ``SEEDS`` from ``salt`` on, then (for a rare position) the first
    ``SEEDS``, where every position the catalogue names is known to turn up."""
    fixed = list(range(SEEDS))
    return fixed if salt == 0 else [salt + k for k in range(SEEDS)] + fixed


def _find(
    rules: Rules,
    wanted: Callable[[Match], int | None],
    step: Callable[[Match, SeededRandom], None] = _random_step,
    salt: int = 0,
) -> tuple[Match, int] | None:
    """The first state of seeded play where ``wanted`` names the seat to ask, with that seat."""
    for seed in _seeds(salt):
        m = Match(rules, seed)
        rng = SeededRandom(seed, "validate")
        while not m.over and m.hand_number < HANDS:
            seat = wanted(m)
            if seat is not None:
                return m, seat
            step(m, rng)
    return None


def _to_play(m: Match) -> Observation | None:
    return m.observation(m.turn) if m.phase is Phase.PLAY else None


def _opening(m: Match) -> int | None:
    o = _to_play(m)
    if o is None or o.tricks or not o.is_leading:
        return None
    clubs = m.rules.deck_mask & CLUBS
    if m.rules.first_lead == "lowest-club" and not o.hand.mask & clubs & -clubs:
        return None  # the lowest club lies in the kitty: the position is a deal that leads it
    return m.turn


def _follows(m: Match) -> int | None:
    o = _to_play(m)
    if o is None or not o.tricks or o.is_leading:
        return None
    led = o.current_trick.cards[0].suit
    suits = {c.suit for c in o.hand}
    return m.turn if led in suits and len(suits) > 1 else None


def _void(m: Match) -> int | None:
    o = _to_play(m)
    if o is None or not o.tricks or o.is_leading:
        return None
    penalty = m.rules.penalty_mask
    mask = o.hand.mask
    void = not mask & SUIT_MASKS[o.current_trick.cards[0].suit]
    return m.turn if void and mask & penalty and mask & ~penalty else None


def _unbroken_lead(m: Match) -> int | None:
    o = _to_play(m)
    if o is None or not o.tricks or not o.is_leading or o.hearts_broken:
        return None
    return m.turn if o.hand.mask & HEARTS and o.hand.mask & ~HEARTS else None


def _queen_lead(m: Match) -> int | None:
    o = _to_play(m)
    if o is None or len(o.tricks) != 1 or not o.is_leading or o.hearts_broken:
        return None
    return m.turn if QUEEN_OF_SPADES in o.legal else None


def _queen_forced(m: Match) -> int | None:
    o = _to_play(m)
    return m.turn if o is not None and o.legal.mask == QUEEN_OF_SPADES.mask and len(o.hand) > 1 else None


def _boosted(void: bool) -> Callable[[Match], int | None]:
    """The second round of a boosted trick (booster_nines): a seat holding the led suit and another,
    or (``void``) one holding none of the led suit."""

    def wanted(m: Match) -> int | None:
        o = _to_play(m)
        # Past trick one, so that the case is the boost's alone (not first-trick safety's too).
        if o is None or not o.tricks or not o.boosted or len(o.current_trick.cards) < o.players:
            return None
        suits = {c.suit for c in o.hand}
        led = o.current_trick.cards[0].suit
        if void:
            return m.turn if led not in suits and len(o.hand) > 1 else None
        return m.turn if led in suits and len(suits) > 1 else None

    return wanted


def _charging(m: Match) -> int | None:
    """The charge (turbo_charging): a seat still to charge that holds a card it may charge."""
    if m.phase is not Phase.CHARGE:
        return None
    return next((s for s in m.to_move if any(c in m.observation(s).hand for c in TURBO_CARDS)), None)


def _charged_first_lead(lead: bool) -> Callable[[Match], int | None]:
    """The first lead of a suit (past trick one) with the seat to play holding a card of it it charged:
    following with another card of the suit, or (``lead``) on lead with other cards to lead."""

    def wanted(m: Match) -> int | None:
        o = _to_play(m)
        if o is None or not o.tricks or o.is_leading is not lead:
            return None
        led_before = {t.cards[0].suit for t in o.tricks}
        mine = [c for s, c in o.charges if s == o.seat and c in o.hand and c.suit not in led_before]
        if lead:
            return m.turn if mine and o.legal and not any(c in o.legal for c in mine) else None
        led = o.current_trick.cards[0].suit
        barred = [c for c in mine if c.suit is led]
        return m.turn if barred and any(c.suit is led and c not in barred for c in o.hand) else None

    return wanted


def _held_twice(m: Match) -> int | None:
    """Two packs: a play where the seat holds a legal card twice (its hand lists it twice)."""
    o = _to_play(m)
    if o is None or not o.tricks:
        return None
    return m.turn if any(o.hand.cards.count(c) == 2 for c in o.legal) else None


def _cancelling(m: Match) -> int | None:
    """Two packs: a seat following suit to a trick in which two identical cards of the suit led cancel."""
    o = _to_play(m)
    if o is None or not o.tricks or o.is_leading:
        return None
    cards = o.current_trick.cards
    led = cards[0].suit
    paired = any(c.suit is led and cards.count(c) > 1 for c in cards)
    return m.turn if paired and any(c.suit is led for c in o.legal) else None


def _on_the_table(m: Match) -> int | None:
    """Two packs: the leader of the trick after one with no winner, its cards still on the table."""
    o = _to_play(m)
    return m.turn if o is not None and o.is_leading and o.table else None


def _phase(phase: Phase) -> Callable[[Match], int | None]:
    return lambda m: m.to_move[0] if m.phase is phase else None


def _passing(direction: str) -> Callable[[Match], int | None]:
    return lambda m: m.to_move[0] if m.phase is Phase.PASS and m.hand.direction == direction else None


# -- chosen deals ----------------------------------------------------------------------------------

_OFFSETS = {"left": 1, "right": -1, "across": 2, "left2": 2, "right2": -2}


def _pass_offsets(rules: Rules, direction: str) -> tuple[int, ...] | None:
    """Where each card of a pass goes (seats to the left, per card); None for a mix (a shuffle)."""
    k, n = rules.pass_count, rules.players
    if direction in _OFFSETS:
        return (_OFFSETS[direction] % n,) * k
    if direction == "scatter":
        return tuple(1 + j % (n - 1) for j in range(k))
    if direction == "call":
        return (1,) * k  # the dealer of a chosen deal calls left
    return None


def _chosen_hand(rules: Rules) -> tuple[int, tuple[int, ...] | None] | None:
    """A hand number to deal a chosen deal in, and its pass offsets (None: a hold hand, no pass).
    A hold hand if the cycle has one; else the first hand whose pass can be worked backwards."""
    cycle = rules.pass_cycle or ()
    for h, direction in enumerate(cycle):
        if direction == "hold":
            return h, None
    for h, direction in enumerate(cycle):
        offsets = _pass_offsets(rules, direction)
        if offsets is not None:
            return h, offsets
    return None


def _dealt(after: Sequence[list[Card]], offsets: tuple[int, ...]) -> tuple[list[list[Card]], list[list[Card]]]:
    """The deal and the passes that leave the seats holding ``after`` once the pass is made: seat
    s passes its k-th card ``offsets[k]`` seats to the left, each card taken from the hand it must
    end in (the highest cards first)."""
    n = len(after)
    left = [sorted(h, key=lambda c: c.index) for h in after]
    passes: list[list[Card]] = [[] for _ in range(n)]
    for s in range(n):
        for off in offsets:
            passes[s].append(left[(s + off) % n].pop())
    dealt = [left[s] + passes[s] for s in range(n)]
    return dealt, passes


def _chosen(rules: Rules, asked: list[Card], wins: int) -> tuple[Match, int] | None:
    """A match at trick one (``wins`` = 0) or on lead after ``wins`` tricks, from a chosen deal.

    The seat asked, V, sits left of the first trick's leader L and holds ``asked``. L holds the
    lowest club (so it leads it, whether the rules open with the lowest club or left of the dealer);
    the other seats get the other clubs first, so they follow the scripted club tricks, then the
    rest of the pack; what is left is the kitty. With ``wins`` > 0, V wins that many club tricks
    with its highest clubs (discarding the kitty itself if it takes it with kitty_discard) and
    then leads. None when the rules cannot deal it or the engine refuses a scripted move.
    """
    n, per = rules.players, rules.cards_per_player
    chosen = _chosen_hand(rules)
    if chosen is None or len(asked) != per or len(set(asked)) != per:
        return None
    if any(not rules.deck_mask & c.mask for c in asked):
        return None
    h, offsets = chosen
    dealer = h % n
    leader = (dealer + 1) % n
    v = (leader + 1) % n
    taken = sum(c.mask for c in asked)
    rest = [c for c in cards_of(rules.deck_mask & ~taken)]
    others = [(leader + i) % n for i in range(n) if (leader + i) % n != v]
    hands: list[list[Card]] = [[] for _ in range(n)]
    hands[v] = list(asked)
    kitty: list[Card] = []
    clubs = [c for c in rest if c.suit is Suit.CLUBS]
    if not clubs:
        return None
    i = 0
    for c in clubs + [c for c in rest if c.suit is not Suit.CLUBS]:
        for _ in range(len(others)):
            s = others[i % len(others)]
            i += 1
            if len(hands[s]) < per:
                hands[s].append(c)
                break
        else:
            kitty.append(c)
    m = Match(rules, 0)
    direction = rules.pass_direction(h)
    dealt, passes = _dealt(hands, offsets) if offsets is not None else (hands, [])
    m.hand = Hand(rules, Deal(h, tuple(CardSet(d) for d in dealt), CardSet(kitty)), direction, dealer)
    try:
        if m.phase is Phase.CALL:
            m.call_pass(dealer, "left")
        if m.phase is Phase.PASS:
            for s in range(n):
                m.pass_cards(s, passes[s])
        if m.phase is Phase.CHARGE:  # turbo_charging: nobody charges (the position is another rule's)
            for s in range(n):
                m.charge(s, ())
        if m.phase is not Phase.PLAY or m.turn != leader:
            return None
        for trick in range(max(wins, 1)):
            done = len(m.hand.tricks)
            while len(m.hand.tricks) == done:  # n cards, or 2 n when a nine boosts it (booster_nines)
                if trick == 0 == wins and m.turn == v:
                    return m, v
                _script_play(m, v)
                if m.phase is Phase.DISCARD and m.to_move[0] == v:
                    m.discard(v, m.observation(v).kitty.cards)
            if m.phase is not Phase.PLAY:
                return None
    except IllegalPlayError:
        return None
    return (m, v) if m.turn == v else None


def _script_play(m: Match, v: int) -> None:
    """V plays its highest legal card (to win); the others their lowest legal card that scores
    nothing if they have one (to keep hearts unbroken and the tricks pointless)."""
    s = m.turn
    legal = m.legal_plays().cards
    if s == v:
        card = max(legal, key=lambda c: (c.suit is Suit.CLUBS, c.rank))
    else:
        pts = m.rules.card_points
        card = min(legal, key=lambda c: (pts[c.index] != 0, c.suit is not Suit.CLUBS, c.rank))
    m.play(card, s)


def _only_penalty(rules: Rules) -> list[Card]:
    """A hand of nothing but penalty cards, none a club (hearts first)."""
    penalty = [c for c in cards_of(rules.penalty_mask & ~CLUBS)]
    penalty.sort(key=lambda c: (c.suit is not Suit.HEARTS, c.index))
    return penalty[: rules.cards_per_player]


def _clubless_mixed(rules: Rules) -> list[Card]:
    """A hand void in clubs with penalty cards (Q♠ and the highest hearts, if in play) and safe ones."""
    per = rules.cards_per_player
    penalty = [c for c in cards_of(rules.penalty_mask & ~CLUBS)]
    penalty.sort(key=lambda c: (c != QUEEN_OF_SPADES, -c.index))
    safe = [c for c in cards_of(rules.deck_mask & ~CLUBS & ~rules.penalty_mask)]
    if len(penalty) < 2 or len(safe) < per - 2:
        return []
    return penalty[:2] + safe[: per - 2]


def _only_hearts(rules: Rules) -> tuple[list[Card], int]:
    """The top clubs and the highest hearts: after winning one club trick per club it holds only
    hearts. (the hand, how many tricks it wins first)"""
    per = rules.cards_per_player
    hearts = [c for c in cards_of(rules.deck_mask & HEARTS)]
    clubs = [c for c in cards_of(rules.deck_mask & CLUBS)]
    wins = per - min(len(hearts), per - 1)
    if wins > len(clubs):
        return [], 0
    return clubs[len(clubs) - wins :] + hearts[len(hearts) - (per - wins) :], wins


# -- the catalogue ---------------------------------------------------------------------------------


def _opening_citation(rules: Rules) -> Citation:
    if rules.first_lead == "left-of-dealer":
        return OPENING_LEFT
    return OPENING_FIVE if rules.players == 5 else OPENING


def _pass_citation(rules: Rules, direction: str) -> Citation:
    if rules.may_pass_on(direction):
        return PASS_ON
    if direction == "across" and rules.partnership != "none":
        return PARTNER_PASS  # across is to the partner
    return {"scatter": PASS_SCATTER, "mix": PASS_MIX, "left2": PASS_SECOND, "right2": PASS_SECOND}.get(direction, PASS)


def _split_call(rules: Rules) -> tuple[int, ...]:
    """A called split: all but the last card to the left, the last to the right."""
    return (1,) * (rules.pass_count - 1) + (rules.players - 1,)


def _split_step(m: Match, rng: SeededRandom) -> None:
    """A random table whose dealer calls a split (then the pass it called is asked)."""
    if m.phase is Phase.CALL:
        m.call_pass(m.to_move[0], _split_call(m.rules))
    else:
        _random_step(m, rng)


Build = Callable[[Rules, int], tuple[Match, int] | None]
"""How a position is built under the rules, its seeded searches from a salt (``_seeds``)."""


def catalogue(rules: Rules) -> list[tuple[str, Citation, Build]]:
    """The positions these rules can ask: (name, the sentence it exercises, how it is built)."""
    out: list[tuple[str, Citation, Build]] = []
    cycle = list(dict.fromkeys(rules.pass_cycle or ()))
    for direction in cycle:
        if direction in ("hold", "call"):
            continue
        on = ", passing on allowed" if rules.may_pass_on(direction) else ""
        out.append((f"pass {direction}{on}", _pass_citation(rules, direction), _built(_passing(direction))))
    if "call" in cycle:
        out.append(("the dealer's call", CALL, _built(_phase(Phase.CALL))))
        out.append(("pass after a called split", PASS_SPLIT, _searched(_passing("split"), _split_step)))
    lead = "2♣" if rules.first_lead == "lowest-club" else "any card"
    out.append((f"opening lead ({lead})", _opening_citation(rules), _built(_opening)))
    out.append(("follow suit", FOLLOW, _built(_follows)))
    out.append(("void in the suit led", VOID, _built(_void)))
    if not rules.points_on_first_trick and rules.packs == 1:  # a chosen deal is one pack's
        out.append(
            (
                "trick one, void in clubs: a safe card",
                FIRST_TRICK_SAFE,
                _unsalted(lambda r: _chosen(r, _clubless_mixed(r), 0)),
            )
        )
        out.append(
            (
                "trick one, a hand of only penalty cards",
                FIRST_TRICK_PENALTY,
                _unsalted(lambda r: _chosen(r, _only_penalty(r), 0)),
            )
        )
    if rules.hearts_lead == "broken":
        out.append(("on lead, hearts unbroken", HEARTS_UNBROKEN, _built(_unbroken_lead)))
        if rules.packs == 1:  # a chosen deal is one pack's
            out.append(
                (
                    "on lead, hearts unbroken, only hearts",
                    ONLY_HEARTS,
                    _unsalted(lambda r: _chosen(r, *_only_hearts(r))),
                )
            )
        if rules.deck_mask & QUEEN_OF_SPADES.mask:
            out.append(("Q♠ on lead at trick two, hearts unbroken", QUEEN_LEAD, _built(_queen_lead)))
    if rules.queen_at_first_safe_chance:
        out.append(("Q♠ at the first safe chance", QUEEN_FIRST_SAFE, _built(_queen_forced)))
    if rules.kitty_discard:
        out.append(("the kitty's discard", DISCARD, _built(_phase(Phase.DISCARD))))
    if rules.moon == "shooter-chooses":
        out.append(("the moon's choice", MOON, _searched(_phase(Phase.MOON), _shooter_step)))
    if rules.partnership == "team" and rules.moon == "shooter-chooses":
        out.append(
            (
                "a team's slam (moon): the partner who took Q♠ chooses",
                TEAM_SLAM,
                _searched(_team_slam, _team_slam_step),
            )
        )
    if rules.partnership != "none":
        out.append(
            ("void in the suit led, the partner winning the trick", PARTNER_TRICK, _built(_partner_winning_void))
        )
    if rules.booster_nines:
        out.append(("a boosted trick's second round: follow the led suit", BOOST, _built(_boosted(False))))
        out.append(("a boosted trick's second round, void in the led suit", BOOST_VOID, _built(_boosted(True))))
    if rules.turbo_charging:
        out.append(("the turbo-charge", CHARGE, _built(_charging)))
        out.append(
            ("a charged card, its suit's first lead: follow with another", CHARGED, _built(_charged_first_lead(False)))
        )
        out.append(("on lead holding a charged card of a suit not led yet", CHARGED, _built(_charged_first_lead(True))))
    if rules.packs == 2:
        out.append(("two packs: a legal card held twice", TWO_PACKS, _built(_held_twice)))
        out.append(("two packs: following a trick with a cancelling pair", CANCELLED, _built(_cancelling)))
        out.append(("two packs: on lead again, a winnerless trick on the table", ON_THE_TABLE, _built(_on_the_table)))
    return out


def _built(wanted: Callable[[Match], int | None]) -> Build:
    return lambda rules, salt: _find(rules, wanted, salt=salt)


def _searched(wanted: Callable[[Match], int | None], step: Callable[[Match, SeededRandom], None]) -> Build:
    return lambda rules, salt: _find(rules, wanted, step, salt)


def _unsalted(build: Callable[[Rules], tuple[Match, int] | None]) -> Build:
    """A chosen deal's build: its hands are the position's own, whatever the salt."""
    return lambda rules, _salt: build(rules)


def positions(rules: Rules, salt: int = 0) -> tuple[list[Position], list[tuple[str, Citation]]]:
    """Every position of the catalogue these rules allow, and those that could not be built.
    ``salt``: the seeded searches start from it (0: the same positions every time; a secret salt
    gives deals a bot cannot know in advance)."""
    built: list[Position] = []
    missing: list[tuple[str, Citation]] = []
    for name, cites, build in catalogue(rules):
        found = build(rules, salt)
        if found is None:
            missing.append((name, cites))
        else:
            built.append(Position(name, rules, found[0], found[1], cites))
    return built, missing


def play_positions(rules: Rules, count: int, salt: int = 0) -> list[Position]:
    """``count`` plays, each from a different seeded deal (for requests of many matches at once);
    ``salt`` as ``positions`` takes it."""
    out: list[Position] = []
    for seed in range(count * 4):
        if len(out) == count:
            break
        m = Match(rules, salt + 1000 + seed)
        rng = SeededRandom(seed, "validate", "many")
        while not m.over and m.hand_number < 2:
            o = _to_play(m)
            if o is not None and o.tricks:
                out.append(Position(f"a play of deal {seed}", rules, m, m.turn))
                break
            _random_step(m, rng)
    return out
