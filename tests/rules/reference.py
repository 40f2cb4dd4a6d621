"""An independent, slow reference of the rules, written from the rule sentences, for cross-checks.

It works on plain sets of cards and a match's public history (plus the deal), never on the engine's
internal tables: legal plays from an observation, and the whole scoring of every hand (tricks,
kitty, moon, sun, bonus card, no-tricks bonus, exact-target reset, the end of the match).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from referee.rules import (
    TURBO_CARDS,
    CallPass,
    Card,
    ChargeCards,
    ChooseMoon,
    Deal,
    Discard,
    MixRedeal,
    MoonChoice,
    Observation,
    PassCards,
    Play,
    Rules,
    Suit,
    cards_of,
)

QS, KS, AS = Card.parse("QS"), Card.parse("KS"), Card.parse("AS")
H = Suit.HEARTS


def ref_points(rules: Rules, card: Card) -> int:
    """001 Scoring; 004 Spot / Black Maria / Omnibus; 002 spot-flat, bonus card."""
    if not rules.deck_mask & card.mask:
        return 0
    p = 0
    if rules.points == "standard":
        p = 1 if card.suit is H else 13 if card is QS else 0
    elif rules.points == "spot":
        p = card.rank if card.suit is H else 25 if card is QS else 0
    elif rules.points == "spot-flat":
        p = (15 if card.rank == 14 else min(card.rank, 10)) if card.suit is H else 25 if card is QS else 0
    elif rules.points == "black-maria":
        p = 1 if card.suit is H else {QS: 13, KS: 10, AS: 7}.get(card, 0)
    elif rules.points == "nasty":  # 002: Q♠ 26, 'the other three queens cost 13 points apiece', hearts 1
        p = 26 if card is QS else 13 if card.rank == 12 else 1 if card.suit is H else 0
    else:
        raise AssertionError(rules.points)
    if card is rules.bonus_card:
        p += rules.bonus_points
    return p


def ref_charged_points(rules: Rules, card: Card, charged: set[Card]) -> int:
    """002 Turbo Hearts: 'A turbo-charged queen of spades or jack of diamonds doubles the value of that
    card for that hand.' 'A turbo-charged ace of hearts doubles the value of all hearts for that hand.'"""
    p = ref_points(rules, card)
    if card in charged and card.rank != 14:  # Q♠ or J♦ (A♥ doubles every heart, itself included)
        p *= 2
    if card.suit is H and Card.parse("AH") in charged:
        p *= 2
    return p


def ref_multiplier(rules: Rules, charged: set[Card]) -> int:
    """002: 'Whoever captures the ten of clubs doubles their score'; 'A turbo-charged ten of clubs
    quadruples the score for that hand of the player who captures it'."""
    return 4 if Card.parse("TC") in charged else 2 if rules.ten_of_clubs_doubles else 1


def penalty_cards(rules: Rules) -> set[Card]:
    deck = set(cards_of(rules.deck_mask))
    return {c for c in deck if c is not rules.bonus_card and ref_points(rules, c) > 0}


def deck_clubs_order(rules: Rules, kitty: set[Card]) -> list[Card]:
    return [c for c in cards_of(rules.deck_mask) if c.suit is Suit.CLUBS and c not in kitty]


def ref_legal(rules: Rules, obs: Observation, kitty: set[Card]) -> set[Card]:
    """The legal plays of the seat to move, from its observation (and the kitty, for the opening)."""
    hand = set(obs.hand)
    played = [c for t in obs.tricks for c in t.cards] + list(obs.current_trick.cards)
    breakers = {c for c in played if c.suit is H or (rules.queen_breaks_hearts and c is QS)}
    broken = bool(breakers)
    assert obs.hearts_broken == broken, "hearts broken flag disagrees with the cards played"
    first = not obs.tricks
    trick = list(obs.current_trick.cards)
    pen = penalty_cards(rules)
    if not trick:
        if first and rules.first_lead == "lowest-club":
            opening = deck_clubs_order(rules, kitty)[0]
            return {opening} if opening in hand else set()
        legal = set(hand)
        if rules.hearts_lead == "broken" and not broken:
            others = {c for c in hand if c.suit is not H}
            if others and not (rules.lead_hearts_with_queen and others == {QS}):
                legal = others
    else:
        follow = {c for c in hand if c.suit is trick[0].suit}
        legal = follow or set(hand)
    # 002 Turbo Hearts: 'A player may not play a turbo-charged card the first time a card of that suit is
    # led' (nor lead it then); never to the point of leaving no legal card (charged_singleton).
    led_before = {t.cards[0].suit for t in obs.tricks}
    barred = {c for s, c in obs.charges if s == obs.seat and c.suit not in led_before and c in hand}
    if trick:
        barred = {c for c in barred if c.suit is trick[0].suit}
    if legal & barred:
        if legal - barred:
            legal = legal - barred
        elif trick and rules.charged_singleton == "may-slough" and hand - barred:
            legal = hand - barred  # every card of the led suit it holds is charged: as if void
    if first and not rules.points_on_first_trick:
        safe = legal - pen
        if safe:
            legal = safe
    if rules.queen_at_first_safe_chance and QS in legal and trick:
        if trick[0].suit is not Suit.SPADES or AS in trick or KS in trick:
            legal = {QS}
    return legal


@dataclass
class RefHand:
    number: int
    hands: list[set[Card]]
    kitty: set[Card]
    passed: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    captured: list[set[Card]] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    trick: list[tuple[int, Card]] = field(default_factory=list)
    n_tricks: int = 0
    leader: int | None = None
    kitty_taker: int | None = None
    call: CallPass | None = None
    charges: dict[int, tuple[Card, ...]] = field(default_factory=dict)  # turbo_charging
    boosted: bool = False  # 002 Booster Nines: the trick in progress takes a second round


@dataclass
class RefResult:
    points_taken: tuple[int, ...]
    tricks_won: tuple[int, ...]
    score: tuple[int, ...]
    totals: tuple[int, ...]
    moon: int | None
    sun: int | None


def _ends(rules: Rules, totals: list[int]) -> tuple[bool, tuple[int, ...]]:
    if max(totals) < rules.target:
        return False, ()
    if rules.partnership != "none":
        # 002 Partnership Hearts: 'the partnership with fewer points wins'; a team's total is the one both
        # partners carry (team), or 'the scores of the partners are totalled' (individual).
        teams = [(0, 2), (1, 3)]
        if rules.partnership == "team":
            assert all(totals[a] == totals[b] for a, b in teams)
            sums = [totals[a] for a, _ in teams]
        else:
            sums = [totals[a] + totals[b] for a, b in teams]
        if sums[0] == sums[1]:
            return (False, ()) if rules.tied_lowest == "play-on" else (True, (0, 1, 2, 3))
        return True, teams[0] if sums[0] < sums[1] else teams[1]
    low = min(totals)
    w = tuple(s for s, t in enumerate(totals) if t == low)
    if len(w) > 1 and rules.tied_lowest == "play-on":
        return False, ()
    return True, w


OFFSETS = {"left": 1, "right": -1, "across": 2, "left2": 2, "right2": -2}


def ref_results(rules: Rules, history) -> tuple[list[RefResult], bool, tuple[int, ...]]:
    """Replay a history by the reference rules: (results of completed hands, over, winners)."""
    if rules.packs == 2:
        return ref_results_two_packs(rules, history)
    n = rules.players
    totals = [0] * n
    results: list[RefResult] = []
    over, winners = False, ()
    h: RefHand | None = None
    pending_moon: tuple | None = None
    pending_discard: tuple | None = None
    pen = penalty_cards(rules)

    def start_play(hd: RefHand) -> None:
        if rules.turbo_charging and len(hd.charges) < n:
            return  # 002 Turbo Hearts: 'After the pass but before the first lead' every seat may charge
        if rules.first_lead == "lowest-club":
            opening = deck_clubs_order(rules, hd.kitty)[0]
            hd.leader = next(s for s in range(n) if opening in hd.hands[s])
        else:
            hd.leader = (hd.number % n + 1) % n

    def score(hd: RefHand, choice: MoonChoice | None) -> None:
        nonlocal totals, over, winners
        charged = {c for cs in hd.charges.values() for c in cs}
        taken = [sum(ref_charged_points(rules, c, charged) for c in cap) for cap in hd.captured]
        # 002 Partnership Hearts: 'Partners keep their tricks together': each seat scores its team's tricks.
        captured, tricks_won = team_tricks(hd)
        base = [sum(ref_charged_points(rules, c, charged) for c in cap if c in pen) for cap in captured]
        sun = None
        if rules.sun_points:
            alls = [s for s in range(n) if tricks_won[s] == hd.n_tricks]
            sun = speaker(hd, alls[0]) if alls else None
        moon = None
        if sun is None:
            shooters = [s for s in range(n) if pen <= captured[s]]
            moon = speaker(hd, shooters[0]) if shooters else None
        shooter = sun if sun is not None else moon
        side = {shooter, (shooter + 2) % 4} if shooter is not None and rules.partnership == "team" else {shooter}
        extras = [0] * n
        for s in range(n):
            if rules.bonus_card is not None and rules.bonus_card in captured[s]:
                extras[s] += ref_charged_points(rules, rules.bonus_card, charged)
            if rules.no_tricks_bonus and tricks_won[s] == 0:
                extras[s] += rules.no_tricks_bonus

        def doubled(sc: list[int]) -> list[int]:
            # 002 Turbo Hearts: 'Whoever captures the ten of clubs doubles their score for that hand'
            ten = Card.parse("10C")
            k = ref_multiplier(rules, charged)
            return [k * x if ten in captured[s] else x for s, x in enumerate(sc)]

        def after(sc: list[int]) -> list[int]:
            t = [a + b for a, b in zip(totals, doubled([b + e for b, e in zip(sc, extras)]))]
            if rules.exact_target_reset is not None:
                t = [rules.exact_target_reset if x == rules.exact_reset_at else x for x in t]
            return t

        if shooter is None:
            sc = base
        else:
            total = rules.sun_points if sun is not None else sum(ref_charged_points(rules, c, charged) for c in pen)
            add = [0 if s in side else total for s in range(n)]
            sub = [-total if s in side else 0 for s in range(n)]
            if rules.moon == "add-to-others":
                sc = add
            elif rules.moon == "subtract-from-shooter":
                sc = sub
            elif rules.moon == "wins-match":
                sc = [0] * n
            elif rules.moon == "shooter-chooses":
                assert choice is not None
                sc = add if choice is MoonChoice.ADD_TO_OTHERS else sub
            else:  # add-unless-win: add unless that hands one of the others the win, or a share of it
                ends, w = _ends(rules, after(add))
                # with partners, the shooter's partner winning is the shooter's team winning
                ours = {shooter, (shooter + 2) % 4} if rules.partnership != "none" else {shooter}
                sc = sub if ends and any(s not in ours for s in w) else add
        new = after(sc)
        hand_score = doubled([a + e for a, e in zip(sc, extras)])
        results.append(RefResult(tuple(taken), tuple(hd.tricks_won), tuple(hand_score), tuple(new), moon, sun))
        totals = new
        over, winners = _ends(rules, totals)
        if shooter is not None and rules.moon == "wins-match":  # 002: 'you win the game'
            over, winners = True, (shooter,)

    def team_tricks(hd: RefHand) -> tuple[list[set[Card]], list[int]]:
        """What each seat scores: its own tricks, or under partnership=team its team's."""
        if rules.partnership != "team":
            return hd.captured, hd.tricks_won
        return (
            [hd.captured[s] | hd.captured[(s + 2) % 4] for s in range(n)],
            [hd.tricks_won[s] + hd.tricks_won[(s + 2) % 4] for s in range(n)],
        )

    def speaker(hd: RefHand, seat: int) -> int:
        """The seat that shot for its team (partnership=team): the partner holding Q♠ in its tricks, else
        the one with more penalty points in them (the lower seat on a tie)."""
        if rules.partnership != "team":
            return seat
        a, b = sorted((seat, (seat + 2) % 4))
        qs = Card.parse("QS")
        if qs in pen:
            return a if qs in hd.captured[a] else b
        pa, pb = (sum(ref_points(rules, c) for c in hd.captured[x] if c in pen) for x in (a, b))
        return a if pa >= pb else b

    for e in history:
        if isinstance(e, Deal):
            assert not over
            h = RefHand(
                e.hand_number,
                [set(x) for x in e.hands],
                set(e.kitty),
                captured=[set() for _ in range(n)],
                tricks_won=[0] * n,
            )
            if rules.pass_direction(e.hand_number) == "hold":
                start_play(h)
        elif isinstance(e, CallPass):  # 002 Da Nasty Fix: the dealer calls the pass
            assert h is not None and rules.pass_direction(h.number) == "call" and h.call is None
            assert e.seat == h.number % n, "only the dealer calls the pass"
            assert e.direction == "mix" or (len(e.offsets) == rules.pass_count and all(1 <= o < n for o in e.offsets))
            h.call = e
        elif isinstance(e, PassCards):
            assert h is not None and e.seat not in h.passed
            d = rules.pass_direction(h.number)
            if d == "call":
                assert h.call is not None, "a pass before the dealer called it"
                d = h.call.direction  # a named pass (as its offsets show), mix, or a split
            # 002 pass_on: no cards at all, on a pass to one seat, sends on whatever is passed to it.
            passes_on = rules.pass_on and d in OFFSETS and not e.cards
            assert passes_on or (len(e.cards) == rules.pass_count and set(e.cards) <= h.hands[e.seat])
            h.passed[e.seat] = e.cards
            if len(h.passed) == n and d not in ("mix",):
                for s in range(n):
                    h.hands[s] -= set(h.passed[s])
                for s in range(n):
                    for k, c in enumerate(h.passed[s]):
                        if d == "scatter":
                            to = (s + 1 + k % (n - 1)) % n
                        elif d == "split":  # the k-th card passed goes offsets[k] seats to the left
                            to = (s + h.call.offsets[k]) % n
                        else:  # on around the table past every seat that passed on
                            to = (s + OFFSETS[d]) % n
                            while not h.passed[to]:
                                to = (to + OFFSETS[d]) % n
                        h.hands[to].add(c)
                start_play(h)
        elif isinstance(e, MixRedeal):
            assert h is not None and len(h.passed) == n
            pool = {c for s in range(n) for c in h.passed[s]} | h.kitty
            got = [set(x) for x in e.received]
            assert all(len(g) == rules.pass_count for g in got)
            assert set().union(*got) | set(e.kitty) == pool and sum(len(g) for g in got) + len(e.kitty) == len(pool)
            for s in range(n):
                h.hands[s] = (h.hands[s] - set(h.passed[s])) | got[s]
            h.kitty = set(e.kitty)
            start_play(h)
        elif isinstance(e, ChargeCards):
            assert h is not None and rules.turbo_charging and h.leader is None and e.seat not in h.charges
            assert set(e.cards) <= set(TURBO_CARDS) & h.hands[e.seat] and len(set(e.cards)) == len(e.cards)
            assert rules.turbo_charges == "any" or len(e.cards) <= 1, "002: 'one of the following cards'"
            assert rules.pass_direction(h.number) == "hold" or len(h.passed) == n, "a charge before the pass"
            h.charges[e.seat] = e.cards
            start_play(h)
        elif isinstance(e, Discard):
            assert pending_discard is not None and pending_discard[1] == e.seat
            assert len(set(e.cards)) == len(e.cards) == len(h.kitty) and set(e.cards) <= h.hands[e.seat]
            h.hands[e.seat] -= set(e.cards)
            h.captured[e.seat] |= set(e.cards)  # 'face down into their tricks'
            pending_discard = None
            if not any(h.hands):  # the kitty came with the last trick
                shooters = [s for s in range(n) if pen <= team_tricks(h)[0][s]]
                if shooters and rules.moon == "shooter-chooses":
                    pending_moon = (h, speaker(h, shooters[0]))
                else:
                    score(h, None)
        elif isinstance(e, Play):
            assert h is not None and h.leader is not None
            assert pending_discard is None, "a play before the kitty's taker discarded"
            expected = (h.leader + len(h.trick)) % n
            assert e.seat == expected, f"seat {e.seat} played out of turn (expected {expected})"
            assert e.card in h.hands[e.seat]
            h.hands[e.seat].discard(e.card)
            h.trick.append((e.seat, e.card))
            # 002: 'If a nine is led to a trick or played while following suit, then there is a boost: one
            # more round is played in the same suit'; 'If a nine is sloughed ... or played in the last
            # trick, there is no boost' (the last trick: the seat has just played its last card).
            led_card = h.trick[0][1]
            if (
                rules.booster_nines
                and e.card.rank == 9
                and e.card.suit is led_card.suit
                and len(h.trick) <= n
                and h.hands[e.seat]
            ):
                h.boosted = True
            if len(h.trick) == (2 * n if h.boosted else n):
                h.boosted = False
                led = h.trick[0][1].suit
                w, _ = max(((s, c) for s, c in h.trick if c.suit is led), key=lambda x: x[1].rank)
                cards = {c for _, c in h.trick}
                h.captured[w] |= cards
                h.tricks_won[w] += 1
                h.n_tricks += 1
                if h.kitty and h.kitty_taker is None:
                    if rules.kitty == "first-trick" or (rules.kitty == "first-points" and cards & pen):
                        h.kitty_taker = w
                        if rules.kitty_discard:  # 002 method 2: into the hand; a discard must follow
                            h.hands[w] |= h.kitty
                            pending_discard = (h, w)
                        else:
                            h.captured[w] |= h.kitty
                h.trick = []
                h.leader = w
                if not any(h.hands):
                    shooters = [s for s in range(n) if pen <= team_tricks(h)[0][s]]
                    if shooters and rules.moon == "shooter-chooses":
                        pending_moon = (h, speaker(h, shooters[0]))
                    else:
                        score(h, None)
        elif isinstance(e, ChooseMoon):
            assert pending_moon is not None and pending_moon[1] == e.seat
            score(pending_moon[0], e.choice)
            pending_moon = None
    return results, over, winners


def ref_results_two_packs(rules: Rules, history) -> tuple[list[RefResult], bool, tuple[int, ...]]:
    """002 Cancellation Hearts by the sentences, on multisets (``Counter``): 'two 52-card packs shuffled
    together'; 'When two identical cards are played to a trick, they cancel each other out in terms of
    trick-taking power (but still carry penalty points if they are penalty cards). The trick is taken by
    the highest card of the suit led which is not duplicated. If all the cards played of the suit led are
    in cancelling pairs, the trick remains on the table, the same player leads again, and the cards go to
    the winner of the next trick. If the very last trick has no winner, its cards go to the winner of the
    previous trick.' (Several winnerless at the end: the last trick that had a winner; none had one:
    nobody.) The kitty goes with the first trick's cards. The moon: every penalty card of both packs."""
    n = rules.players
    totals = [0] * n
    results: list[RefResult] = []
    over, winners = False, ()
    pen = Counter({c: 2 for c in penalty_cards(rules)})
    moon_points = sum(ref_points(rules, c) * k for c, k in pen.items())
    hands: list[Counter] = []
    kitty: Counter = Counter()
    captured: list[Counter] = []
    won = [0] * n
    passed: dict[int, tuple[Card, ...]] = {}
    trick: list[tuple[int, Card]] = []
    table: Counter = Counter()
    table_tricks = 0
    last_winner: int | None = None
    kitty_taken = False
    leader = 0
    number = 0

    def take(seat: int, cards: Counter, tricks: int) -> None:
        nonlocal kitty_taken
        captured[seat].update(cards)
        won[seat] += tricks
        if kitty and not kitty_taken and (rules.kitty == "first-trick" or any(c in pen for c in cards)):
            kitty_taken = True
            captured[seat].update(kitty)

    def score() -> None:
        nonlocal totals, over, winners
        taken = [sum(ref_points(rules, c) * k for c, k in cap.items()) for cap in captured]
        shooters = [s for s in range(n) if all(captured[s][c] >= k for c, k in pen.items())]
        sun = None
        if rules.sun_points:
            alls = [s for s in range(n) if won[s] == rules.cards_per_player]
            sun = alls[0] if alls else None
        moon = shooters[0] if shooters and sun is None else None
        shooter = sun if sun is not None else moon
        extras = [rules.no_tricks_bonus if rules.no_tricks_bonus and won[s] == 0 else 0 for s in range(n)]
        ten = Card.parse("10C")

        def doubled(sc: list[int]) -> list[int]:
            return [
                (a + e) * (2 if rules.ten_of_clubs_doubles and captured[s][ten] else 1)
                for s, (a, e) in enumerate(zip(sc, extras))
            ]

        def after(sc: list[int]) -> list[int]:
            t = [a + b for a, b in zip(totals, doubled(sc))]
            if rules.exact_target_reset is not None:
                t = [rules.exact_target_reset if x == rules.exact_reset_at else x for x in t]
            return t

        sc = taken
        if shooter is not None:
            total = rules.sun_points if sun is not None else moon_points
            add = [0 if s == shooter else total for s in range(n)]
            sub = [-total if s == shooter else 0 for s in range(n)]
            sc = sub if rules.moon == "subtract-from-shooter" else add
            if rules.moon == "add-unless-win":
                ends, w = _ends(rules, after(add))
                sc = sub if ends and any(s != shooter for s in w) else add
            elif rules.moon == "wins-match":
                sc = [0] * n
        new = after(sc)
        results.append(RefResult(tuple(taken), tuple(won), tuple(doubled(sc)), tuple(new), moon, sun))
        totals = new
        over, winners = _ends(rules, totals)
        if shooter is not None and rules.moon == "wins-match":
            over, winners = True, (shooter,)

    for e in history:
        if isinstance(e, Deal):
            assert not over
            number = e.hand_number
            hands = [Counter(x) for x in e.hands]
            kitty = Counter(e.kitty)
            assert sum(sum(h.values()) for h in hands) + sum(kitty.values()) == 104
            captured = [Counter() for _ in range(n)]
            won = [0] * n
            passed = {}
            trick, table, table_tricks, last_winner, kitty_taken = [], Counter(), 0, None, False
            leader = (number % n + 1) % n  # 'The player to the dealer's left leads first'
        elif isinstance(e, PassCards):
            d = rules.pass_direction(number)
            assert e.seat not in passed and (not e.cards or Counter(e.cards) <= hands[e.seat])
            passed[e.seat] = e.cards
            if len(passed) == n:
                for s in range(n):
                    hands[s] -= Counter(passed[s])
                for s in range(n):
                    for k, c in enumerate(passed[s]):
                        if d == "scatter":
                            to = (s + 1 + k % (n - 1)) % n
                        else:
                            to = (s + OFFSETS[d]) % n
                            while not passed[to]:
                                to = (to + OFFSETS[d]) % n
                        hands[to][c] += 1
        elif isinstance(e, Play):
            assert e.seat == (leader + len(trick)) % n and hands[e.seat][e.card] > 0
            hands[e.seat][e.card] -= 1
            trick.append((e.seat, e.card))
            if len(trick) < n:
                continue
            played = Counter(c for _, c in trick)
            led = trick[0][1].suit
            single = [(s, c) for s, c in trick if c.suit is led and played[c] == 1]
            if single:
                w = max(single, key=lambda x: x[1].rank)[0]
                take(w, played + table, 1 + table_tricks)
                table, table_tricks, last_winner, leader = Counter(), 0, w, w
            else:
                table += played  # 'the same player leads again'
                table_tricks += 1
            trick = []
            if not any(+h for h in hands):
                if table and last_winner is not None:
                    take(last_winner, table, table_tricks)
                score()
        elif isinstance(e, ChooseMoon):
            raise AssertionError("moon=shooter-chooses is not in the two-pack reference")
    return results, over, winners
