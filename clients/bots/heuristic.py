"""A heuristic bot following the strategy tips of rule source 003 (docs/rules.md).

Passing: Q♠ K♠ A♠ go unless enough low spades protect them; then high hearts; then, when the
slots left allow, a whole short side suit (to be void of it early); then the most dangerous rest.
Play: duck with the highest card that still loses the trick; when void, dump Q♠, then the other
big penalty cards, then high hearts or other high cards; when it must win, win with its highest
card of the suit. Turbo-charging: Q♠ when it is well protected, else nothing. It answers only from
``view.legal`` and ``view.hand`` and reads the point values
from ``view.rules``, so every rules variant (3–5 players, spot, Black Maria, a bonus card, a kitty,
scatter passes...) gets a legal answer. With two packs (Cancellation Hearts) a card played twice to
the trick cancels: the card to duck under is the highest one standing alone.

With a partner (002 Partnership Hearts: ``view.partner``), the partner's points are the team's: it
sheds no penalty card on a trick its partner is winning when it has another card to play, passes its
partner no penalty card when it has others, and scores a moon (or a team's slam) by the team totals.
"""

from __future__ import annotations

from collections.abc import Sequence

from clients.sdk import Bot, View
from referee.rules import QUEEN_OF_SPADES, Card, MoonChoice, Suit

# Holding this many spades below the queen lets Q♠ K♠ A♠ stay: they can be kept under cover.
PROTECTING_SPADES = 4
HIGH_HEART = 11  # J♥ and up are passed
HIGH_DISCARD_HEART = 10  # when void, hearts from 10♥ up are dumped before other high cards
BIG_PENALTY = 5  # penalty cards worth this much (K♠ A♠ in Black Maria, high spot hearts) go right after Q♠


def _rank(card: Card) -> int:
    return card.rank


def _played_mask(view: View) -> int:
    m = 0
    for t in view.tricks:
        for c in t.cards:
            m |= c.mask
    for c in view.current_trick.cards:
        m |= c.mask
    return m


def _partner_winning(view: View) -> bool:
    """Whether the trick in progress is, so far, being won by this seat's partner (partnership)."""
    partner = view.partner
    cards = view.current_trick.cards
    if partner is None or not cards:
        return False
    led = cards[0].suit
    best = max((i for i, c in enumerate(cards) if c.suit is led), key=lambda i: cards[i].rank)
    return view.current_trick.seat_of(best, view.players) == partner


def _team_moon_choice(view: View) -> MoonChoice:
    """HeuristicBot.choose_moon's reasoning on the team totals: partners share the result (the partnership
    with fewer points wins). Under partnership=team the slam's points go to both opponents' one total, or
    come off ours."""
    rules = view.rules
    me, partner, pts = view.seat, view.partner, view.moon_points
    team = rules.partnership == "team"
    mates = (me, partner)
    added = [t + (0 if (s in mates if team else s == me) else pts) for s, t in enumerate(view.scores)]
    ours, theirs = rules.team_totals(added)[me % 2], rules.team_totals(added)[1 - me % 2]
    if max(added) >= rules.target:
        return MoonChoice.ADD_TO_OTHERS if ours < theirs else MoonChoice.SUBTRACT_FROM_SHOOTER
    now = view.team_scores
    leading = now[me % 2] <= now[1 - me % 2]
    return MoonChoice.ADD_TO_OTHERS if leading else MoonChoice.SUBTRACT_FROM_SHOOTER


def _queen_out(view: View) -> bool:
    """Whether Q♠ is still to come from another hand: high spades of ours would catch it."""
    qs = QUEEN_OF_SPADES.mask
    return bool(view.rules.deck_mask & qs) and not (_played_mask(view) | view.hand.mask) & qs


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1"
    author = "hearts-arena"

    def __init__(self, seed: int | None = None) -> None:
        pass  # deterministic: the seed is accepted for a uniform command line, and ignored

    # -- passing ----------------------------------------------------------------------------------

    def pass_cards(self, view: View) -> Sequence[Card]:
        k = view.rules.pass_count
        points = view.rules.card_points
        hand = view.hand
        chosen: list[Card] = []

        def take(cards: Sequence[Card]) -> None:
            for c in cards:
                if len(chosen) < k and c not in chosen:
                    chosen.append(c)

        if view.partner is not None and view.pass_direction == "across":
            # To the partner: its points are ours, so no penalty card while others can go; the highest
            # of the rest (they would win tricks for us), then the cheapest penalty cards if need be.
            take(sorted((c for c in hand if points[c.index] == 0), key=_rank, reverse=True))
            take(sorted(hand, key=lambda c: (points[c.index], c.rank)))
            return chosen

        spades = hand.of_suit(Suit.SPADES)
        protected = sum(1 for c in spades if c.rank < 12) >= PROTECTING_SPADES
        high_spades = [c for c in spades if c.rank >= 12]
        if not protected:
            # Q♠ first (it scores), then A♠ and K♠ (they catch it).
            take(sorted(high_spades, key=lambda c: (c is not QUEEN_OF_SPADES, -c.rank)))
        take(sorted((c for c in hand.of_suit(Suit.HEARTS) if c.rank >= HIGH_HEART), key=_rank, reverse=True))
        # Void a short side suit when the slots left take all of it (never one holding a bonus card).
        free = k - len(chosen)
        short = [
            cards
            for suit in (Suit.CLUBS, Suit.DIAMONDS)
            if 0 < len(cards := [c for c in hand.of_suit(suit) if c not in chosen]) <= free
            and all(points[c.index] >= 0 for c in cards)
        ]
        if short:
            shortest = min(short, key=len)
            take(sorted(shortest, key=_rank, reverse=True))

        # The rest by danger: keep protected high spades and reward cards; hearts before side cards.
        def keep_order(c: Card) -> tuple[bool, int]:
            keep = points[c.index] < 0 or (protected and c in high_spades)
            return keep, -(c.rank + (3 if c.suit is Suit.HEARTS else 0))

        take(sorted(hand, key=keep_order))
        return chosen

    # -- play -------------------------------------------------------------------------------------

    # -- turbo-charging (rules.turbo_charging) -----------------------------------------------------

    def charge_cards(self, view: View) -> Sequence[Card]:
        """Q♠ when it is safe to keep (protected by enough lower spades to duck every spade lead): it goes
        to someone else doubled. Nothing otherwise: a charge mostly raises the stakes of its holder."""
        hand = view.hand
        if QUEEN_OF_SPADES not in hand:
            return []
        spades = hand.of_suit(Suit.SPADES)
        low = sum(1 for c in spades if c.rank < 12)
        return [QUEEN_OF_SPADES] if low >= PROTECTING_SPADES else []

    def play_card(self, view: View) -> Card:
        legal = view.legal.cards
        if len(legal) == 1:
            return legal[0]
        trick = view.current_trick.cards
        if not trick:
            return self._lead(view, legal)
        points = view.rules.card_points
        led = trick[0].suit
        following = [c for c in legal if c.suit is led]
        partner_winning = _partner_winning(view)
        if not following:
            if partner_winning:  # the partner's trick is the team's: shed something that scores nothing
                free = [c for c in legal if points[c.index] == 0]
                if free:
                    return max(free, key=lambda c: (c.rank, -len(view.hand.of_suit(c.suit))))
                return min(legal, key=lambda c: (points[c.index] > 0, abs(points[c.index]), c.rank))
            return self._discard(view, legal)
        standing = [c for c in trick if c.suit is led]
        if view.rules.packs > 1:  # 002 Cancellation Hearts: identical cards cancel, neither can win
            standing = [c for c in standing if standing.count(c) == 1]
            if not standing:  # every card of the suit led so far cancelled: the lowest card we can spare
                return min([c for c in following if points[c.index] <= 0] or following, key=_rank)
        winning = max(standing, key=_rank)
        below = [c for c in following if c.rank < winning.rank]
        safe = [c for c in following if points[c.index] <= 0]
        last = len(trick) == view.trick_size - 1  # a boosted trick (booster_nines) takes a second round
        if below:
            # Shed a penalty card under someone else's winner (Q♠ under K♠), else duck as high as possible.
            give = [c for c in below if points[c.index] > 0] if not partner_winning else []
            if give:
                return max(give, key=lambda c: (points[c.index], c.rank))
            if partner_winning:  # duck under the partner with a card that scores nothing, if one is left
                return max(
                    [c for c in below if points[c.index] <= 0] or below, key=lambda c: (-points[c.index], c.rank)
                )
            if not (last and sum(points[c.index] for c in trick) <= 0 and safe):
                return max(below, key=_rank)
        # Must win (or winning costs nothing as the last to play): win with the highest card of the
        # suit, keeping penalty cards (our own Q♠) out of the trick when another card can do it.
        return max(safe or following, key=_rank)

    def _lead(self, view: View, legal: Sequence[Card]) -> Card:
        points = view.rules.card_points
        queen_out = _queen_out(view)
        hand = view.hand

        def danger(c: Card) -> int:
            if c is QUEEN_OF_SPADES or points[c.index] > BIG_PENALTY:
                return 3
            if c.suit is Suit.SPADES and c.rank > 12 and queen_out:
                return 2  # leading A♠/K♠ invites Q♠
            if c.suit is Suit.HEARTS or points[c.index] > 0:
                return 1
            return 0

        # The lowest safe card, from the shorter suit on a tie (towards a void).
        return min(legal, key=lambda c: (danger(c), c.rank, len(hand.of_suit(c.suit)), c.suit))

    def _discard(self, view: View, legal: Sequence[Card]) -> Card:
        points = view.rules.card_points
        if QUEEN_OF_SPADES in legal:
            return QUEEN_OF_SPADES
        big = [c for c in legal if points[c.index] >= BIG_PENALTY]
        if big:
            return max(big, key=lambda c: (points[c.index], c.rank))
        if _queen_out(view):
            catchers = [c for c in legal if c.suit is Suit.SPADES and c.rank > 12]
            if catchers:
                return max(catchers, key=_rank)
        high_hearts = [c for c in legal if c.suit is Suit.HEARTS and c.rank >= HIGH_DISCARD_HEART]
        if high_hearts:
            return max(high_hearts, key=_rank)
        hand = view.hand
        # Otherwise the highest card, from the shortest suit on a tie; a reward card (J♦ in Omnibus) last.
        return max(
            legal,
            key=lambda c: (
                points[c.index] >= 0,
                c.rank + (1 if c.suit is Suit.HEARTS else 0),
                -len(hand.of_suit(c.suit)),
            ),
        )

    # -- the moon ---------------------------------------------------------------------------------

    def choose_moon(self, view: View) -> MoonChoice:
        """Both choices move us the same distance from the others; they differ in ending the match.

        Adding ends it when another total reaches the target: do that only if we would then be alone
        at the bottom. Without an ending, add when we lead (hurry the end), subtract when behind.
        """
        rules = view.rules
        me = view.seat
        scores = view.scores
        if view.partner is not None:
            return _team_moon_choice(view)
        added = [t + (0 if s == me else view.moon_points) for s, t in enumerate(scores)]
        if max(added) >= rules.target:
            return (
                MoonChoice.ADD_TO_OTHERS
                if added[me] < min(t for s, t in enumerate(added) if s != me)
                else MoonChoice.SUBTRACT_FROM_SHOOTER
            )
        leading = scores[me] <= min(scores)
        return MoonChoice.ADD_TO_OTHERS if leading else MoonChoice.SUBTRACT_FROM_SHOOTER


if __name__ == "__main__":
    from clients.bots import main

    main("heuristic")
