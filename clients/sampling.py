"""World sampling: deals of the cards a seat has not seen, consistent with everything it knows.

``Sampler(view)`` reads a ``View`` (or any engine ``Observation``) once; ``sampler.sample(n, rng)``
then draws ``n`` worlds, each uniformly at random among the deals of the unseen cards that agree with
the view: every play of the hand is legal in it (so a seat that failed to follow suit holds none of
that suit, a heart led before hearts broke came from a hand of hearts, ...), the cards this seat
passed stay with their receiver until played, the cards received, the kitty if this seat saw it, the
cards played, the hand sizes, and the cards removed from the pack (3 or 5 players) appear nowhere.
``sample_worlds(view, n, rng)`` is the one-call form.

How: the constraints that are a seat's suits (voids) and its size are counted exactly: for each suit
in turn, how the suit's unseen cards split among the hidden hands is drawn with the weight of that
split times the number of ways the later suits can complete the hands (a small memoised count), so a
deal is drawn uniformly from every deal meeting the voids, the sizes and the pinned cards. Every
drawn deal is then replayed through the engine from the first lead (``Hand.play``, checked); one
where some play would have been illegal is thrown away and drawn again. Rejection from a uniform
draw is uniform over what it keeps, so the worlds are uniform over the consistent deals, and none is
inconsistent: the engine itself judged every play. Under ``kitty_discard`` when another seat took
the kitty, which of its cards came from the kitty is drawn uniformly as well (and checked the same way).

A world is a ``World``: ``world.hands`` (each seat's cards now, as masks), ``world.to_hand()`` an engine
``Hand`` at this decision to play on (cheap: rollouts), ``world.to_match()`` a ``Match`` in that state
(scores from the view; its history is not replayable, its seed is not the real one).
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from math import comb

from referee.rules import Card, Deal, Hand, Match, Observation, Phase
from referee.rules.cards import DECK, SUIT_MASKS, CardSet, cards_of

_HEARTS = SUIT_MASKS[3]
_OFFSETS = {"left": 1, "right": -1, "across": 2, "left2": 2, "right2": -2}


@dataclass(frozen=True)
class World:
    """One consistent deal: every seat's cards now, and the hand replayed to this decision."""

    view: Observation
    hands: tuple[int, ...]  # each seat's cards now, as bit masks (this seat's are its own)
    hand: Hand  # the engine's hand at this decision (do not change it: ``to_hand`` gives a copy)

    def to_hand(self) -> Hand:
        """A copy of the engine ``Hand`` at this decision, to play on (``rollout``, ``Hand.play``)."""
        return self.hand.copy()

    def to_match(self) -> Match:
        """A ``Match`` in this world's state at the view's decision (scores as the view has them)."""
        m = Match(self.view.rules, 0)
        m.hand = self.hand.copy()
        m.scores = list(self.view.scores)
        m._log = []
        return m


class InconsistentView(ValueError):
    """No deal agrees with the view (a view not produced by the engine)."""


class Sampler:
    """The constraints of one view, read once; ``sample`` draws worlds from them (see the module)."""

    def __init__(self, view: Observation) -> None:
        rules = view.rules
        self.view = view
        self.rules = rules
        n = self.players = rules.players
        me = self.me = view.seat
        phase = view.phase
        if phase not in (Phase.PASS, Phase.PLAY, Phase.DISCARD, Phase.MOON, Phase.CHARGE):
            raise ValueError(f"no worlds to sample in the {phase.value} phase")
        if rules.packs != 1:
            # The constraints below are card sets (each card in one place): two packs put a card in two.
            raise ValueError("no worlds are sampled with two packs (rules.packs 2): the sampler deals 52 unique cards")
        tricks = list(view.tricks)
        if view.current_trick.cards:
            tricks.append(view.current_trick)
        self.tricks = tricks
        played_by = [0] * n
        plays: list[tuple[int, Card]] = []
        voids = [0] * n  # per seat, a 4-bit mask of suits it cannot hold now
        taker = view.kitty_taker
        discard_rule = rules.kitty_discard and rules.kitty_size > 0
        take_trick = self._take_trick(tricks) if taker is not None else None
        # turbo_charging: the charged cards are face up, so each is in its charger's hand until played.
        charged_by = [0] * n
        for s, c in view.charges:
            charged_by[s] |= c.mask
        self.charged_by = charged_by
        slough = rules.charged_singleton == "may-slough"
        led_before = 0  # suits led in the tricks before this one
        for t_index, t in enumerate(tricks):
            led = t.cards[0].suit
            for i, c in enumerate(t.cards):
                s = t.seat_of(i, n)
                played_by[s] |= c.mask
                plays.append((s, c))
                # A void shown now holds from then on, except for a kitty taker who may get the suit back.
                regains = discard_rule and s == taker and take_trick is not None and t_index <= take_trick
                # may-slough: on its suit's first lead, a seat may slough while holding its charged card.
                singleton = slough and not led_before >> led & 1 and charged_by[s] & SUIT_MASKS[led]
                if i and c.suit is not led and not regains and not singleton:
                    voids[s] |= 1 << led
                if (
                    i == 0
                    and c.suit == 3
                    and rules.hearts_lead == "broken"
                    and not rules.lead_hearts_with_queen
                    and not self._broken_before(tricks, t_index)
                    and not regains
                    and not (t_index == 0 and c.mask & self._opening_mask())
                ):
                    voids[s] |= 0b0111  # a heart led unbroken: nothing but hearts in that hand
            led_before |= 1 << led
        self.plays = plays
        played = 0
        for m in played_by:
            played |= m
        hand_mask = view.hand.mask
        known = hand_mask | played
        # The kitty: its cards when this seat saw them; else a hidden slot (or two, see below).
        self.kitty_known = view.kitty.mask if taker == me else 0
        known |= self.kitty_known
        discarded_mine = 0
        if taker == me:
            for c in view.discarded:
                discarded_mine |= c.mask
            known |= discarded_mine
        # Pinned cards: what this seat passed stays with its receiver until played; a charged card with
        # its charger.
        pinned = [charged_by[s] & ~played_by[s] if s != me else 0 for s in range(n)]
        self.with_taker = 0  # passed to a kitty taker that discards: in its hand or its discards
        if view.passed and phase is not Phase.PASS:
            for k, c in enumerate(view.passed):
                to = self._receiver(k)
                if to is None or played & c.mask:
                    continue
                if to == taker and rules.kitty_discard and rules.kitty_size and taker != me:
                    self.with_taker |= c.mask
                else:
                    pinned[to] |= c.mask
        # Slots: the other seats' hands, then the hidden kitty parts.
        per = rules.cards_per_player
        sizes = []
        owners: list[
            int
        ] = []  # seat of each slot, or -1 the kitty left on the table / in a taker's tricks, -2 discards
        slot_voids = []
        slot_pins = []
        for s in range(n):
            if s == me:
                continue
            size = per - played_by[s].bit_count()
            owners.append(s)
            sizes.append(size)
            slot_voids.append(voids[s])
            slot_pins.append(pinned[s])
        ksize = rules.kitty_size
        self.other_discard = taker is not None and taker != me and discard_rule
        if ksize and taker != me:
            if self.other_discard:
                owners.append(-2)  # what the taker discarded: hidden, out of play
            else:
                owners.append(-1)  # the kitty: on the table, or in the taker's tricks
            sizes.append(ksize)
            slot_voids.append(0)
            slot_pins.append(0)
        self.owners = owners
        self.pins = slot_pins
        pinned_all = 0
        for p in slot_pins:
            pinned_all |= p
        self.unseen = rules.deck_mask & ~known & ~pinned_all
        self.free = [sz - p.bit_count() for sz, p in zip(sizes, slot_pins)]
        if sum(self.free) != self.unseen.bit_count() or min(self.free, default=0) < 0:
            raise InconsistentView(f"{self.unseen.bit_count()} unseen cards for hidden hands of {self.free}")
        self.suit_cards = [self.unseen & SUIT_MASKS[s] for s in range(4)]
        # The counting runs over the slots with voids, and one more merging every slot without: how a
        # merged share splits among those is the same number of ways whatever its cards (a shuffle).
        self.constrained = [i for i, v in enumerate(slot_voids) if v]
        self.unconstrained = [i for i, v in enumerate(slot_voids) if not v]
        dp_voids = [slot_voids[i] for i in self.constrained]
        self.dp_free = [self.free[i] for i in self.constrained]
        if self.unconstrained:
            dp_voids.append(0)
            self.dp_free.append(sum(self.free[i] for i in self.unconstrained))
        self.allowed = [[not (v >> s & 1) for v in dp_voids] for s in range(4)]
        self._memo: dict[tuple[int, int, int, tuple[int, ...]], int] = {}
        self._choices: dict[tuple[int, int, int, tuple[int, ...]], list[int]] = {}
        self.no_voids = not any(slot_voids)
        self.unseen_cards = [c.mask for c in cards_of(self.unseen)]
        self.suit_lists = [[c.mask for c in cards_of(m)] for m in self.suit_cards]
        self.hand_mask = hand_mask
        self.played_by = played_by
        self.discarded_mine = discarded_mine
        self.take_trick = take_trick
        self.needs_replay = self._needs_replay()
        # pass_on: the cards this seat passed all went to one seat (the first that passed, that way),
        # which one the view cannot tell: a deal splitting them among seats is thrown away.
        self.pass_block = 0
        if rules.pass_on and view.passed and phase is not Phase.PASS and view.pass_direction in _OFFSETS:
            for c in view.passed:
                self.pass_block |= c.mask
        self.template: Hand | None = None
        if self._count(0, tuple(self.dp_free)) == 0:
            raise InconsistentView("no deal meets the voids and the hand sizes")

    # -- the view's facts ---------------------------------------------------------------------------

    def _opening_mask(self) -> int:
        rules = self.rules
        if rules.first_lead != "lowest-club":
            return 0
        clubs = rules.deck_mask & SUIT_MASKS[0]
        # the lowest club in play (a kitty may hold it: then the lowest club dealt leads; the replay judges)
        return clubs & -clubs

    def _broken_before(self, tricks: list, t_index: int) -> bool:
        breakers = _HEARTS | (DECK[36].mask if self.rules.queen_breaks_hearts else 0)
        return any(c.mask & breakers for t in tricks[:t_index] for c in t.cards)

    def _take_trick(self, tricks: list) -> int | None:
        """The index of the trick with which the kitty was taken."""
        rules = self.rules
        for i, t in enumerate(tricks):
            if t.winner is None:
                return None
            if rules.kitty == "first-trick" or any(c.mask & rules.penalty_mask for c in t.cards):
                return i
        return None

    def _receiver(self, k: int) -> int | None:
        """The seat that received the k-th card this seat passed (None when the view cannot tell)."""
        v = self.view
        n = self.players
        d = v.pass_direction
        if d == "split" and v.pass_offsets:
            return (self.me + v.pass_offsets[k]) % n
        if d == "scatter":
            return (self.me + 1 + k % (n - 1)) % n
        if d in _OFFSETS and not self.rules.pass_on:
            return (self.me + _OFFSETS[d]) % n
        return None  # mix, pass_on (a seat may have passed them on): anywhere unseen

    # -- counting and drawing ------------------------------------------------------------------------

    def _count(self, suit: int, caps: tuple[int, ...]) -> int:
        """The number of ways to deal the unseen cards of suits ``suit``.. into slots of room ``caps``."""
        if suit == 4:
            return int(not any(caps))
        return self._ways(suit, 0, self.suit_cards[suit].bit_count(), caps)

    def _ways(self, suit: int, i: int, left: int, caps: tuple[int, ...]) -> int:
        """The ways to give ``left`` cards of ``suit`` to slots ``i``.. (room ``caps``), times the
        ways to complete the later suits: memoised, so each sample is a walk down these counts."""
        if i == len(caps):
            return self._count(suit + 1, caps) if left == 0 else 0
        key = (suit, i, left, caps)
        got = self._memo.get(key)
        if got is not None:
            return got
        total = 0
        top = min(left, caps[i]) if self.allowed[suit][i] else 0
        for k in range(top + 1):
            rest = caps[:i] + (caps[i] - k,) + caps[i + 1 :] if k else caps
            total += comb(left, k) * self._ways(suit, i + 1, left - k, rest)
        self._memo[key] = total
        return total

    def _cumulative(self, suit: int, i: int, left: int, caps: tuple[int, ...]) -> list[int]:
        """The cumulative weights of giving slot ``i`` 0, 1, ... cards of ``suit`` (memoised)."""
        cum = []
        acc = 0
        top = min(left, caps[i]) if self.allowed[suit][i] else 0
        for k in range(top + 1):
            rest = caps[:i] + (caps[i] - k,) + caps[i + 1 :] if k else caps
            acc += comb(left, k) * self._ways(suit, i + 1, left - k, rest)
            cum.append(acc)
        self._choices[(suit, i, left, caps)] = cum
        return cum

    def _draw(self, rng: random.Random) -> list[int]:
        """Slot masks drawn uniformly from the deals meeting the voids, sizes and pins."""
        masks = list(self.pins)
        if self.no_voids:  # every slot may take every card: a shuffle, sliced
            self._deal_out(self.unseen_cards[:], self.unconstrained, masks, rng)
            return masks
        slots = len(self.dp_free)
        got = [0] * slots
        caps = tuple(self.dp_free)
        choices = self._choices
        for suit in range(4):
            cards = self.suit_lists[suit][:]
            rng.shuffle(cards)
            left = len(cards)
            j = 0
            for i in range(slots):
                # k cards of this suit to slot i, with probability C(left, k) * ways(rest) / ways(here)
                key = (suit, i, left, caps)
                cum = choices.get(key)
                if cum is None:
                    cum = self._cumulative(suit, i, left, caps)
                k = bisect.bisect_right(cum, rng.randrange(cum[-1]))
                if k:
                    for c in cards[j : j + k]:
                        got[i] |= c
                    j += k
                    left -= k
                    caps = caps[:i] + (caps[i] - k,) + caps[i + 1 :]
        for i, slot in enumerate(self.constrained):
            masks[slot] |= got[i]
        if self.unconstrained:
            self._deal_out([c.mask for c in cards_of(got[-1])], self.unconstrained, masks, rng)
        return masks

    def _deal_out(self, cards: list[int], slots: list[int], masks: list[int], rng: random.Random) -> None:
        """Shuffle ``cards`` and give each of ``slots`` as many as it has room for."""
        rng.shuffle(cards)
        i = 0
        for s in slots:
            for c in cards[i : i + self.free[s]]:
                masks[s] |= c
            i += self.free[s]

    def _needs_replay(self) -> bool:
        """Whether a play of this hand could say more than the voids and sizes already say.

        Following suit says nothing but the card; failing to follow is a void; a heart led before
        hearts broke is a hand of hearts (counted as voids above). Anything else a legal play may
        reveal needs the replay: a penalty card on the first trick (nothing else to play), Q♠ not
        played at its first safe chance, a lead under ``lead_hearts_with_queen``, and every kitty.
        """
        rules = self.rules
        if rules.kitty_size or rules.queen_at_first_safe_chance or rules.lead_hearts_with_queen:
            return True
        if self.view.charges:  # a charged card held back on its suit's first lead says something too
            return True
        if rules.first_lead != "lowest-club" or self.view.phase is Phase.PASS:
            return rules.first_lead != "lowest-club"
        first = self.tricks[0].cards if self.tricks else ()
        return not rules.points_on_first_trick and any(c.mask & rules.penalty_mask for c in first)

    def _world(self, masks: list[int], rng: random.Random, replay: bool = False) -> World | None:
        """The drawn deal replayed through the engine; None when some play would have been illegal.

        When no play can say more than the voids (``_needs_replay``), every drawn deal is consistent:
        after the first world, the others copy its hand and change only the cards held."""
        block = self.pass_block
        if block and not any(
            owner >= 0 and (m | self.played_by[owner]) & block == block for owner, m in zip(self.owners, masks)
        ):
            return None
        template = self.template
        if template is not None and not replay:
            n = self.players
            now = [0] * n
            now[self.me] = self.hand_mask
            for owner, m in zip(self.owners, masks):
                now[owner] = m
            h = template.copy()
            h.hands = now
            h.dealt = tuple([now[s] | self.played_by[s] for s in range(n)])
            h._legal = -1
            return World(self.view, tuple(now), h)
        world = self._replayed(masks, rng)
        if world is not None and not self.needs_replay and self.view.phase is not Phase.PASS:
            self.template = world.hand
        return world

    def _replayed(self, masks: list[int], rng: random.Random) -> World | None:
        view = self.view
        rules = self.rules
        n = self.players
        now = [0] * n
        now[self.me] = self.hand_mask
        kitty = self.kitty_known
        discards = self.discarded_mine
        for owner, m in zip(self.owners, masks):
            if owner >= 0:
                now[owner] = m
            elif owner == -1:
                kitty = m
            else:
                discards = m
        start = [now[s] | self.played_by[s] for s in range(n)]
        taker = view.kitty_taker
        if taker is not None and rules.kitty_discard and rules.kitty_size:
            # The taker's cards now and its discards include the kitty: which ones is drawn (or known).
            if taker != self.me:
                after = 0
                for t in self.tricks[(self.take_trick or 0) + 1 :]:
                    for i, c in enumerate(t.cards):
                        if t.seat_of(i, n) == taker:
                            after |= c.mask
                pool = [c.mask for c in cards_of(now[taker] | discards | after)]
                kitty = 0
                for b in rng.sample(pool, rules.kitty_size):
                    kitty |= b
            start[taker] = (start[taker] | discards) & ~kitty
            if self.with_taker & ~(now[taker] | discards):
                return None
        if view.phase is Phase.PASS:
            hand = Hand(
                rules, Deal(view.hand_number, tuple(CardSet(m) for m in now), CardSet(kitty)), "left", view.dealer
            )
            hand.direction = view.pass_direction
            hand.offsets = view.pass_offsets
            return World(view, tuple(now), hand)
        hand = Hand(
            rules, Deal(view.hand_number, tuple(CardSet(m) for m in start), CardSet(kitty)), "hold", view.dealer
        )
        hand.direction = view.pass_direction
        hand.offsets = view.pass_offsets
        out = tuple(view.discarded) if taker == self.me else cards_of(discards)
        try:
            if hand.phase is Phase.CHARGE:  # turbo_charging: the public charges, as made
                if view.phase is Phase.CHARGE:  # still charging: only this seat's own is known
                    if view.charges:
                        hand.charge(self.me, cards_of(self.charged_by[self.me]))
                else:
                    for s in range(n):
                        hand.charge(s, cards_of(self.charged_by[s]))
            for seat, card in self.plays:
                if hand.phase is Phase.DISCARD:
                    hand.discard(hand.turn, out)
                hand.play(seat, card)
            if hand.phase is Phase.DISCARD and view.phase is not Phase.DISCARD:
                hand.discard(hand.turn, out)
        except ValueError:  # IllegalPlayError: this deal contradicts a play
            return None
        if hand.hands != now:
            return None
        return World(view, tuple(now), hand)

    def sample(self, n: int, rng: random.Random | None = None, max_tries: int | None = None) -> list[World]:
        """Up to ``n`` worlds, each uniform over the consistent deals (independent draws).

        Fewer only when ``max_tries`` draws (default ``20 * n + 100``) were not enough: the view's
        plays rule out most deals that meet its voids (rare; the true deal is always consistent).
        """
        rng = rng or random.Random()
        out: list[World] = []
        tries = max_tries if max_tries is not None else 20 * n + 100
        while len(out) < n and tries > 0:
            tries -= 1
            w = self._world(self._draw(rng), rng)
            if w is not None:
                out.append(w)
        return out


def sample_worlds(view: Observation, n: int, rng: random.Random | None = None) -> list[World]:
    """``n`` worlds consistent with ``view``, uniform over the consistent deals (see ``Sampler``)."""
    return Sampler(view).sample(n, rng)
