"""The engine's rollout path (``Match.rollout``, ``rollout``, ``Hand.copy``, ``hand_points``), on every
preset and the option mixes of test_properties: each rollout's plays replayed through the checked
``Match`` are legal, end the hand, and score what the rollout returned; the match rolled out from is
never changed; a copy of a hand has every attribute of the original."""

from __future__ import annotations

import random

import pytest
from positions import random_step
from test_properties import RULESETS

from referee.rules import Match, MoonChoice, Phase, Rules
from referee.rules.state import (
    ROLLOUT_RANDOM,
    ROLLOUT_RULES,
    _attrs,
    _fast_path,
    _rollout_four,
    _rollout_loop,
    hand_points,
    rollout,
)

NAMES = sorted(RULESETS)


def _positions(rules: Rules, seed: int, count: int = 6) -> list[Match]:
    """Matches of ``rules`` at play decisions of the first hands (some in the pass phase, some mid-trick)."""
    rng = random.Random(seed)
    m = Match(rules, seed)
    out = []
    for _ in range(400):
        if m.over or len(out) >= count:
            break
        if m.phase in (Phase.PLAY, Phase.DISCARD, Phase.CHARGE) or (
            m.phase is Phase.PASS and m.hand.direction != "mix"
        ):
            if rng.random() < 0.15:
                out.append(m.clone())
        random_step(m, rng)
    return out


def _exact_scoring(rules: Rules) -> bool:
    """Whether ``hand_points`` must equal the match's own score (the moon choice is not the match's)."""
    return rules.moon in ("add-to-others", "subtract-from-shooter")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("policy", [ROLLOUT_RANDOM, ROLLOUT_RULES])
def test_a_rollout_plays_legally_to_the_end_and_scores_as_the_match(name, policy):
    rules = RULESETS[name]
    for i, m in enumerate(_positions(rules, 11 + policy)):
        before = (_attrs(m.hand), list(m._log))
        points = m.rollout(policy, seed=i)
        assert (_attrs(m.hand), list(m._log)) == before  # the match is untouched
        assert len(points) == rules.players
        h = m.hand.copy()
        assert rollout(h, policy, i) == points  # the same seed, the same hand
        assert h.phase is Phase.OVER
        # Replay the rollout's own decisions through the checked engine.
        r = m.clone()
        if r.phase is Phase.PASS:
            for s in r.to_move:
                r.pass_cards(s, h.passed[s] or ())
        if r.phase is Phase.CHARGE:  # turbo_charging: the rollout's seats still to charge charged nothing
            for s in r.to_move:
                r.charge(s, h.charges[s] or ())
        done = len(r.hand.tricks)
        for t in h.tricks[done:]:
            for j, c in enumerate(t.cards):
                seat = t.seat_of(j, rules.players)
                if r.hand.trick_cards and j < len(r.hand.trick_cards):
                    continue  # already on the table
                if r.phase is Phase.DISCARD:
                    r.discard(r.to_move[0], h.discarded)
                r.play(c, seat)
        if r.phase is Phase.MOON:
            r.choose_moon(r.turn, MoonChoice.ADD_TO_OTHERS)
        assert len(r.results) == len(m.results) + 1
        result = r.results[-1]
        assert result.tricks_won == tuple(h.tricks_won)
        if _exact_scoring(rules):
            assert tuple(points) == result.score
        assert hand_points(h) == points


def test_a_random_rollout_varies_with_its_seed_and_the_rule_of_thumb_does_not():
    m = Match(Rules(), 5)
    random_points = {tuple(m.rollout(ROLLOUT_RANDOM, s)) for s in range(40)}
    rule_points = {tuple(m.rollout(ROLLOUT_RULES, s)) for s in range(40)}
    assert len(random_points) > 5
    assert len(rule_points) == 1


@pytest.mark.parametrize("name", NAMES)
def test_a_copy_of_a_hand_has_every_attribute_and_is_independent(name):
    for m in _positions(RULESETS[name], 3):
        h = m.hand.copy()
        assert _attrs(h) == _attrs(m.hand)
        before = _attrs(m.hand)
        rollout(h, ROLLOUT_RANDOM, 1)
        assert _attrs(m.hand) == before


def _play_positions(rules: Rules, seed: int) -> list[Match]:
    """Matches of ``rules`` at every play decision of a random first hand (first lead, mid-trick, last trick)."""
    rng = random.Random(seed)
    m = Match(rules, seed)
    out = []
    while not m.over and m.hand_number == 0:
        if m.phase is Phase.PLAY:
            out.append(m.clone())
        random_step(m, rng)
    return out


@pytest.mark.parametrize("policy", [ROLLOUT_RANDOM, ROLLOUT_RULES])
def test_the_fast_path_plays_every_position_as_the_general_loop(policy):
    """On every play decision of four-seat one-pack hands, _rollout_four and _rollout_loop end the same hand."""
    rng = random.Random(policy)
    checked = 0
    for name in NAMES:
        for seed in range(3):
            for m in _play_positions(RULESETS[name], seed):
                if not _fast_path(m.hand):
                    continue
                x = rng.getrandbits(32) or 1
                fast, general = m.hand.copy(), m.hand.copy()
                _rollout_four(fast, policy, x)
                _rollout_loop(general, policy, x)
                assert _attrs(fast) == _attrs(general), (name, seed, len(m.hand.tricks), len(m.hand.trick_cards))
                assert fast.phase is Phase.OVER and not any(fast.hands)
                assert hand_points(fast) == hand_points(general)
                checked += 1
    assert checked > 1000  # the presets and mixes give the fast path many positions


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=3),
        Rules(players=5),
        Rules(booster_nines=True),
        RULESETS["preset:cancellation"],
    ],
    ids=["3 players", "5 players", "booster nines", "two packs"],
)
def test_a_hand_outside_the_fast_path_plays_through_the_general_loop(rules):
    """Rulesets the fast path does not model are played to a legal end by the general loop."""
    for i, m in enumerate(_positions(rules, 5, count=8)):
        h = m.hand.copy()
        points = rollout(h, ROLLOUT_RANDOM, i)
        assert h.phase is Phase.OVER and points == hand_points(h) == m.rollout(ROLLOUT_RANDOM, i)
    assert not any(_fast_path(p.hand) for p in _positions(rules, 5, count=8) if p.phase is Phase.PLAY)


def test_no_rollout_from_a_call_or_before_a_mix():
    m = Match(Rules(pass_cycle="call"), 1)
    with pytest.raises(ValueError, match="call phase"):
        m.rollout()
    m = Match(Rules(pass_cycle="mix"), 1)
    m.hand.direction = "mix"  # the cycle's fourth hand, reached directly
    with pytest.raises(ValueError, match="mix pass"):
        m.rollout()
