"""World sampling (clients/sampling.py): never an inconsistent world, the true deal always among the
consistent ones, uniform against full enumeration on small end games, and fast enough."""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from positions import random_step  # noqa: E402
from test_properties import RULESETS  # noqa: E402

from clients.sampling import Sampler, sample_worlds  # noqa: E402
from referee.rules import Match, Phase, Rules  # noqa: E402
from referee.rules.cards import cards_of  # noqa: E402

NAMES = sorted(n for n, r in RULESETS.items() if r.packs == 1)  # two packs: not sampled (see below)


def test_two_packs_are_refused_by_name() -> None:
    """The sampler deals 52 unique cards: a two-pack view (002 Cancellation Hearts) is refused, clearly;
    the Monte Carlo bot then plays the heuristic bot's card (tests/clients/test_sample_bots.py)."""
    m = Match(Rules.preset("cancellation"), 0)
    with pytest.raises(ValueError, match="two packs"):
        Sampler(m.observation(m.turn))


def _decisions(rules: Rules, seed: int, count: int):
    """(match, seat) at random play and pass decisions of a random match."""
    rng = random.Random(seed)
    m = Match(rules, seed)
    out = []
    for _ in range(600):
        if m.over or len(out) >= count:
            break
        if m.phase in (Phase.PLAY, Phase.PASS) and rng.random() < 0.12:
            out.append((m.clone(), m.to_move[0]))
        random_step(m, rng)
    return out


def _true_masks(s: Sampler, m: Match) -> list[int]:
    h = m.hand
    out = []
    for owner in s.owners:
        if owner >= 0:
            out.append(h.hands[owner])
        elif owner == -1:
            out.append(h.kitty)
        else:
            out.append(sum(c.mask for c in h.discarded))
    return out


FIELDS = ("hand", "tricks", "current_trick", "hearts_broken", "legal", "kitty_taker", "kitty", "discarded", "phase")


@pytest.mark.parametrize("name", NAMES)
def test_every_world_is_consistent_and_the_true_deal_is_one(name):
    rules = RULESETS[name]
    for m, seat in _decisions(rules, 5, 8):
        view = m.observation(seat)
        s = Sampler(view)
        if not s.other_discard:  # (there the kitty's part of the taker's cards is drawn too)
            assert s._world(_true_masks(s, m), random.Random(0), replay=True) is not None
        true_sizes = [h.bit_count() for h in m.hand.hands]
        worlds = s.sample(15, random.Random(1))
        assert worlds
        for w in worlds:
            assert w.hands[seat] == view.hand.mask
            assert [h.bit_count() for h in w.hands] == true_sizes
            seen = 0
            for h in w.hands:
                assert not seen & h
                seen |= h
            if not s.other_discard and -1 not in s.owners:  # every world passes the full replay too
                assert s._world([w.hands[o] for o in s.owners], random.Random(0), replay=True) is not None
            if rules.pass_on and view.passed and view.pass_direction in ("left", "right", "across"):
                block = sum(c.mask for c in view.passed)  # all with one seat (held or played by it)
                played = [
                    sum(
                        c.mask
                        for t in (*view.tricks, view.current_trick)
                        for i, c in enumerate(t.cards)
                        if t.seat_of(i, rules.players) == o
                    )
                    for o in range(rules.players)
                ]
                assert any((w.hands[o] | played[o]) & block == block for o in range(rules.players) if o != seat)
            wm = w.to_match()
            assert wm.phase is view.phase
            got = wm.observation(seat)
            for f in FIELDS:
                assert getattr(got, f) == getattr(view, f), f
            # a rollout plays on from it
            if view.phase is Phase.PLAY:
                assert len(wm.rollout(0, 1)) == rules.players


def _end_game(seed: int, tricks: int, rules: Rules | None = None):
    rules = rules or Rules()
    rng = random.Random(seed)
    m = Match(rules, seed)
    while not (m.phase is Phase.PLAY and len(m.hand.tricks) == tricks and len(m.hand.trick_cards) == 1):
        random_step(m, rng)
    return m


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.slow
def test_worlds_are_uniform_over_every_consistent_deal(seed):
    m = _end_game(seed, 10)
    seat = m.to_move[0]
    view = m.observation(seat)
    s = Sampler(view)
    # Full enumeration: every way to give the unseen cards to the hidden hands, judged by the engine.
    unseen = [c.mask for c in cards_of(s.unseen)]
    consistent = set()
    free = s.free

    def deals(cards, sizes):
        if not sizes:
            yield ()
            return
        for pick in itertools.combinations(cards, sizes[0]):
            rest = [c for c in cards if c not in pick]
            for more in deals(rest, sizes[1:]):
                yield (sum(pick), *more)

    for d in deals(unseen, list(free)):
        masks = [p | x for p, x in zip(s.pins, d)]
        if s._world(masks, random.Random(0), replay=True) is not None:
            consistent.add(tuple(masks))
    assert tuple(_true_masks(s, m)) in consistent
    draws = 300 * len(consistent)
    counts = Counter(tuple(w.hands[o] for o in s.owners) for w in s.sample(draws, random.Random(seed)))
    assert set(counts) <= consistent  # never a world outside the enumeration
    assert set(counts) == consistent
    # Chi-square against uniform: with k cells, mean k - 1, sd sqrt(2(k - 1)); 5 sd is far out.
    k = len(consistent)
    expected = draws / k
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in consistent)
    assert chi2 < (k - 1) + 5 * (2 * max(1, k - 1)) ** 0.5 + 5, (chi2, k)


def test_voids_and_pinned_cards_are_respected_in_every_world():
    for seed in range(6):
        m = _end_game(seed, 6)
        seat = m.to_move[0]
        view = m.observation(seat)
        for w in sample_worlds(view, 50, random.Random(seed)):
            for t in view.tricks:
                led = t.cards[0].suit
                for i, c in enumerate(t.cards):
                    if c.suit is not led:
                        assert not w.hands[t.seat_of(i, 4)] & (0x1FFF << (13 * led))
            for c in view.passed:
                to = (seat + {"left": 1, "right": -1, "across": 2}.get(view.pass_direction, 0)) % 4
                if view.pass_direction != "hold" and not any(c in t.cards for t in view.tricks):
                    if c not in view.current_trick.cards:
                        assert w.hands[to] & c.mask


def test_a_thousand_worlds_are_drawn_early_in_a_hand():
    """As many worlds as asked, where the most cards are unseen; how fast is bench/rollout.py's to say."""
    m = _end_game(3, 1)  # early in the hand: the most unseen cards
    view = m.observation(m.to_move[0])
    worlds = Sampler(view).sample(1000, random.Random(0))
    assert len(worlds) == 1000
