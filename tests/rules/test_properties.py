"""Properties of the engine over random seeds, every preset and some option mixes (hypothesis).

Sources: 001 ('There are 13 tricks in every hand', 'There are always exactly 26 penalty points in a
hand', 'A finished game of Hearts therefore always has exactly one winner'), 002 (the variants) and
004 (the presets). Random legal play drives real matches; each property keeps its examples modest, and
``make test-fast`` runs a fifth of them.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import STEPS, random_step
from reference import penalty_cards, ref_charged_points, ref_legal, ref_multiplier, ref_points, ref_results

from referee.rules import (
    PRESETS,
    Deal,
    Discard,
    IllegalPlayError,
    Match,
    MixRedeal,
    MoonChoice,
    Observation,
    Phase,
    Play,
    Rules,
    cards_of,
)
from referee.rules.cards import CardMultiset

MIXES = {
    "three": dict(players=3),
    "five": dict(players=5),
    "five-kitty": dict(players=5, kitty="first-trick", pass_cycle="five-player"),
    "kitty-12": dict(kitty="first-trick", hand_size=12),
    "three-kitty-points": dict(players=3, kitty="first-points"),
    "mix-kitty": dict(pass_cycle="mix", kitty="first-points", hand_size=12),
    "scatter": dict(pass_cycle="scatter-hold"),
    "three-scatter": dict(players=3, pass_count=4, pass_cycle="left right scatter"),
    "moon-choice-sun": dict(moon="shooter-chooses", sun_points=52),
    "add-unless-win-reset": dict(moon="add-unless-win", exact_target_reset=50),
    "omnibus-extras": dict(bonus_card="JD", no_tricks_bonus=-5, queen_at_first_safe_chance=True),
    "left-of-dealer": dict(first_lead="left-of-dealer", hearts_lead="any-time"),
    "left-of-dealer-broken": dict(first_lead="left-of-dealer", points_on_first_trick=True),
    "loose": dict(queen_breaks_hearts=True, lead_hearts_with_queen=True, points_on_first_trick=True),
    "spot-flat-subtract-share": dict(points="spot-flat", moon="subtract-from-shooter", tied_lowest="share"),
    "black-maria-three": dict(players=3, points="black-maria", pass_cycle="always-right"),
    "left-of-dealer-safe": dict(first_lead="left-of-dealer"),
    "queen-forced-open": dict(queen_at_first_safe_chance=True, points_on_first_trick=True, points="black-maria"),
    "five-long-points-kitty": dict(players=5, pass_cycle="five-player-long", kitty="first-points"),
    "spot-choice-sun": dict(points="spot", target=500, moon="shooter-chooses", sun_points=200),
    "three-no-2c": dict(players=3, removed_cards="2C", pass_cycle="left-right"),
    "ten-of-diamonds-share": dict(bonus_card="TD", tied_lowest="share", exact_target_reset=0),
    "add-unless-win-share": dict(moon="add-unless-win", tied_lowest="share", target=60),
    "spot-reset-at-100": dict(points="spot", target=500, exact_target_reset=50),
    "spot-reset-at-target": dict(points="spot", target=500, exact_target_reset=250, exact_reset_at=500),
    "pass-on": dict(pass_on=True, pass_cycle="left right across scatter"),
    "dealer-calls": dict(pass_cycle="call hold"),
    "three-dealer-calls-four": dict(players=3, pass_count=4, pass_cycle="call"),
    "five-dealer-calls-kitty": dict(players=5, removed_cards="2C", kitty="first-trick", pass_cycle="call left"),
    "kitty-discard": dict(kitty="first-trick", kitty_discard=True, hand_size=12, pass_cycle="left mix hold"),
    "three-kitty-discard-points": dict(players=3, removed_cards="", kitty="first-points", kitty_discard=True),
    "five-kitty-discard-choice": dict(
        players=5, removed_cards="2C", kitty="first-points", kitty_discard=True, moon="shooter-chooses", sun_points=52
    ),
    "five-pass-on-kitty": dict(players=5, pass_on=True, kitty="first-trick", pass_cycle="five-player"),
    "booster-three-sun-choice": dict(booster_nines=True, players=3, moon="shooter-chooses", sun_points=52),
    "booster-five-kitty-discard": dict(
        booster_nines=True, players=5, removed_cards="2C", kitty="first-points", kitty_discard=True
    ),
    "booster-queen-forced-open": dict(
        booster_nines=True, queen_at_first_safe_chance=True, points_on_first_trick=True, first_lead="left-of-dealer"
    ),
    "booster-omnibus-mix": dict(booster_nines=True, bonus_card="JD", pass_cycle="mix", moon="add-unless-win"),
    "ten-of-clubs-omnibus": dict(ten_of_clubs_doubles=True, bonus_card="JD", moon="add-unless-win"),
    "cancellation-ten-pass-on-sun": dict(
        packs=2,
        players=10,
        kitty="first-trick",
        first_lead="left-of-dealer",
        pass_cycle="left right hold",
        pass_on=True,
        sun_points=52,
        moon="subtract-from-shooter",
    ),
    "cancellation-seven-spot-points-kitty": dict(
        packs=2,
        players=7,
        kitty="first-points",
        first_lead="left-of-dealer",
        points="spot",
        target=500,
        ten_of_clubs_doubles=True,
        no_tricks_bonus=-5,
        hearts_lead="any-time",
        moon="add-unless-win",
    ),
    "cancellation-eight-scatter": dict(
        packs=2,
        players=8,
        first_lead="left-of-dealer",
        pass_count=7,
        pass_cycle="scatter hold",
        points_on_first_trick=True,
        queen_breaks_hearts=True,
        exact_target_reset=50,
    ),
    "ten-of-clubs-sun-choice-kitty": dict(
        ten_of_clubs_doubles=True, moon="shooter-chooses", sun_points=52, kitty="first-trick", hand_size=12
    ),
    "turbo-any-slough-choice": dict(
        turbo_charging=True, turbo_charges="any", charged_singleton="may-slough", moon="shooter-chooses"
    ),
    "turbo-hold-unless-win": dict(
        turbo_charging=True, pass_cycle="hold", moon="add-unless-win", bonus_card="JD", target=60
    ),
    "turbo-three-kitty-discard-safe": dict(
        turbo_charging=True, players=3, removed_cards="2D", kitty="none", queen_at_first_safe_chance=True
    ),
    "turbo-any-five-kitty-discard": dict(
        turbo_charging=True,
        turbo_charges="any",
        players=5,
        removed_cards="2C",
        kitty="first-points",
        kitty_discard=True,
        ten_of_clubs_doubles=True,
    ),
    "turbo-left-of-dealer-booster": dict(
        turbo_charging=True, first_lead="left-of-dealer", booster_nines=True, charged_singleton="may-slough"
    ),
    "partnership-team-sun-omnibus": dict(partnership="team", moon="shooter-chooses", sun_points=52, bonus_card="JD"),
    "partnership-team-unless-win-share": dict(
        partnership="team", moon="add-unless-win", tied_lowest="share", pass_cycle="across", no_tricks_bonus=-5
    ),
    "partnership-team-kitty": dict(partnership="team", kitty="first-points", hand_size=12, pass_cycle="across"),
    "partnership-individual-unless-win": dict(partnership="individual", moon="add-unless-win", pass_cycle="across"),
    "partnership-individual-share-sun": dict(
        partnership="individual", tied_lowest="share", moon="shooter-chooses", sun_points=52
    ),
}

RULESETS = {**{f"preset:{k}": v for k, v in PRESETS.items()}, **{k: Rules(**v) for k, v in MIXES.items()}}
NAMES = sorted(RULESETS)

rulesets = st.sampled_from(NAMES)
seeds = st.integers(min_value=0, max_value=2**31)
styles = st.sampled_from(sorted(STEPS))
FEWER = bool(os.environ.get("HEARTS_FEWER_EXAMPLES"))  # make test-fast: every property, a fifth of its examples


def examples(n: int) -> settings:
    """Hypothesis settings for ``n`` examples (a fifth, at least 10, in the inner loop)."""
    return settings(
        max_examples=max(10, n // 5) if FEWER else n, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


FAST = examples(150)


def drive(
    rules: Rules,
    seed: int,
    rng_seed: int,
    hands: int,
    before: Callable[[Match], None] | None = None,
    style: str = "random",
) -> Match:
    """Legal play (random, or a table helping seat 0 to shoot the moon) from the start until the match
    ends or hand ``hands`` begins."""
    m = Match(rules, seed)
    rng = random.Random(rng_seed)
    step = STEPS[style]
    steps = 0
    while not m.over and m.hand_number < hands:
        if before is not None:
            before(m)
        step(m, rng)
        steps += 1
        assert steps < 10_000
    return m


def hands_of_history(m: Match) -> list[dict]:
    """Per hand: the deal, the final kitty (after any mix) and the plays."""
    out: list[dict] = []
    for e in m.history:
        if isinstance(e, Deal):
            out.append({"deal": e, "kitty": e.kitty.mask, "plays": [], "discards": []})
        elif isinstance(e, Discard):
            out[-1]["discards"].append(e)
        elif isinstance(e, MixRedeal):
            out[-1]["kitty"] = e.kitty.mask
        elif isinstance(e, Play):
            out[-1]["plays"].append(e)
    return out


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_each_card_played_exactly_once_per_hand(name, seed, rng_seed, style):
    """001: 'There are 13 tricks in every hand.' and 'The whole 52-card deck is dealt out' — every card in
    play (all but removed cards and the kitty) is played exactly once in a hand."""
    rules = RULESETS[name]
    m = drive(rules, seed, rng_seed, hands=6, style=style)
    complete = len(m.results)
    per_hand = hands_of_history(m)
    for h in per_hand[:complete]:
        plays = h["plays"]
        cards = [p.card for p in plays]
        if rules.packs == 2:  # 002 Cancellation Hearts: 'dealt out as far as they will go': every copy once
            kitty = Counter(CardMultiset(h["kitty"]))
            assert sum(kitty.values()) == rules.kitty_size
            assert Counter(cards) + kitty == Counter({c: 2 for c in cards_of(rules.deck_mask)})
            assert len(cards) == rules.players * rules.cards_per_player
            continue
        assert len(cards) == len(set(cards)) == rules.players * rules.cards_per_player
        mask = sum(c.mask for c in cards)
        assert h["kitty"].bit_count() == rules.kitty_size
        if rules.kitty_discard:  # 002 method 2: the taker's discards go unplayed instead of the kitty
            (discard,) = h["discards"]
            assert len(discard.cards) == rules.kitty_size and not mask & sum(c.mask for c in discard.cards)
            assert mask | sum(c.mask for c in discard.cards) == rules.deck_mask
        else:
            assert mask == rules.deck_mask & ~h["kitty"]
    for r in m.results:
        if rules.packs == 2:  # 002: 'the cards go to the winner of the next trick': a trick each, carried too
            # (or none, when no trick of the hand had a winner: then nobody takes them)
            assert sum(r.tricks_won) in (0, rules.cards_per_player)
        elif rules.booster_nines:  # 002: each boost (one per nine at most) makes one trick of two rounds
            assert rules.cards_per_player - 4 <= sum(r.tricks_won) <= rules.cards_per_player
        else:
            assert sum(r.tricks_won) == rules.cards_per_player


def hand_values(rules: Rules, r) -> tuple[int, int]:
    """(the penalty cards' total, the bonus card's value) in this hand, turbo-charged values included."""
    charged = {c for _, c in r.charges}
    moon_total = sum(ref_charged_points(rules, c, charged) for c in penalty_cards(rules)) * rules.packs
    bonus = ref_charged_points(rules, rules.bonus_card, charged) if rules.bonus_card is not None else 0
    return moon_total, bonus


def expected_hand_total(rules: Rules, r) -> int:
    moon_total, bonus = hand_values(rules, r)
    nt = rules.no_tricks_bonus * sum(1 for t in r.tricks_won if t == 0)
    shooter = r.sun if r.sun is not None else r.moon
    if rules.partnership == "team":  # 002 'Partners keep their tricks together': both partners score the team's
        team_tricks = [r.tricks_won[s] + r.tricks_won[(s + 2) % 4] for s in range(4)]
        nt = rules.no_tricks_bonus * sum(1 for t in team_tricks if t == 0)
        if shooter is None:
            return 2 * (rules.moon_total + bonus) + nt
        t = rules.sun_points if r.sun is not None else rules.moon_total
        return 2 * (-t if r.moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER else t) + 2 * bonus + nt
    if shooter is None:
        return moon_total + bonus + nt
    if rules.moon == "wins-match":  # 002 Da Nasty Fix: the shot wins the game; only bonuses are scored
        return bonus + nt
    t = rules.sun_points if r.sun is not None else moon_total
    if r.moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER:
        return -t + bonus + nt
    return (rules.players - 1) * t + bonus + nt


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_hand_points_sum_to_the_total_or_its_moon_form(name, seed, rng_seed, style):
    """001: 'There are always exactly 26 penalty points in a hand' (004: 129 in Spot, 43 in Black Maria,
    '26 (16 net with the jack)' in Omnibus); a moon scores 'each of the other three players scores 26'."""
    rules = RULESETS[name]
    m = drive(rules, seed, rng_seed, hands=8, style=style)
    prev = [0] * rules.players
    for r in m.results:
        moon_total, bonus = hand_values(rules, r)
        assert sum(r.points_taken) == moon_total + bonus
        k = ref_multiplier(rules, {c for _, c in r.charges})
        if k > 1:  # 002 Turbo: the 10♣'s captor scores k times: (k - 1) k-ths of its score are extra
            extra = sum(r.score) - expected_hand_total(rules, r)
            if rules.packs == 2:
                # (two packs: two 10♣, so up to two captors, each doubled)
                halves = [x // 2 for x in r.score if x % 2 == 0]
                sums = set(halves) | (
                    {a + b for i, a in enumerate(halves) for b in halves[i + 1 :]} if rules.packs == 2 else set()
                )
                assert extra in sums, (r.score, extra)
            else:
                assert any(x % k == 0 and x // k * (k - 1) == extra for x in r.score), (r.score, extra)
        else:
            assert sum(r.score) == expected_hand_total(rules, r)
        raw = [p + s for p, s in zip(prev, r.score)]
        if rules.exact_target_reset is None:
            assert list(r.totals) == raw
        else:
            assert list(r.totals) == [rules.exact_target_reset if t == rules.exact_reset_at else t for t in raw]
        prev = list(r.totals)
        if r.moon is not None:
            took = r.points_taken[r.moon]
            if rules.partnership == "team":  # 002: 'one team takes all 14 penalty cards'
                took += r.points_taken[(r.moon + 2) % 4]
            assert took in (moon_total, moon_total + bonus)
    assert m.scores == prev


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_a_pending_decision_always_has_a_legal_choice(name, seed, rng_seed, style):
    """001: 'On every trick you must follow suit if you hold a card of the suit that was led. If you are void
    in that suit you may discard any card' — the rules never leave the player to move without a legal card."""
    rules = RULESETS[name]

    def check(m: Match) -> None:
        assert m.to_move
        if m.phase is Phase.PLAY:
            legal = m.legal_plays()
            assert legal
            hand = m.hand.hands[m.turn]
            assert legal.mask & ~hand == 0
            assert m.observation(m.turn).legal == legal
            for s in range(rules.players):
                if s != m.turn:
                    assert not m.legal_plays(s)
        elif m.phase is Phase.PASS:
            for s in m.to_move:
                assert m.hand.hands[s].bit_count() >= rules.pass_count
        elif m.phase is Phase.CALL:  # the dealer owes the call, and nobody may pass before it
            assert m.to_move == (m.hand.dealer,) and not m.legal_plays()
        elif m.phase is Phase.DISCARD:  # the kitty's taker holds the kitty and can discard as many
            (s,) = m.to_move
            assert s == m.hand.kitty_taker and m.hand.hands[s] & m.hand.kitty == m.hand.kitty
            assert not m.legal_plays()
        elif m.phase is Phase.CHARGE:  # 002 Turbo: every seat still to charge may (charging none is legal)
            assert rules.turbo_charging and not m.legal_plays()
            assert m.to_move == tuple(s for s in range(rules.players) if m.hand.charges[s] is None)
        else:
            assert m.phase is Phase.MOON

    drive(rules, seed, rng_seed, hands=3, before=check, style=style)


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
@pytest.mark.slow
def test_observation_is_a_whole_dataclass_instance(name, seed, rng_seed, style):
    """Match.observation builds its Observation without the dataclass __init__ (for speed): every field
    is set, nothing else is, and it equals, hashes and prints as Observation(**the same fields)."""
    rules = RULESETS[name]
    names = {f.name for f in dataclasses.fields(Observation)}

    def check(m: Match) -> None:
        for seat in range(rules.players):
            obs = m.observation(seat)
            assert set(vars(obs)) == names
            built = Observation(**vars(obs))
            assert obs == built and hash(obs) == hash(built) and repr(obs) == repr(built)

    drive(rules, seed, rng_seed, hands=2, before=check, style=style)


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_observation_never_shows_another_seats_unplayed_card(name, seed, rng_seed, style):
    """001: 'each player chooses exactly three cards and passes them face down' and 002: 'the player may look
    at them first' (the kitty, its taker only) — an observation holds its own hand and public play, never a
    card still in another hand or in an untaken kitty (except the cards this seat itself passed)."""
    rules = RULESETS[name]
    n = rules.players

    def check(m: Match) -> None:
        hand = m.hand
        for seat in range(n):
            obs = m.observation(seat)
            assert obs.seat == seat
            if rules.packs == 2:
                # 002 Cancellation Hearts, two packs: a card may be in this hand and another; what this seat
                # sees (its hand, the play, the table) and what the others hold never exceed two copies.
                assert obs.hand.mask == hand.held(seat) and len(obs.hand) == len(obs.hand.cards)
                assert obs.legal.mask & ~hand.hands[seat] == 0
                played = [c for t in obs.tricks for c in t.cards] + list(obs.current_trick.cards)
                assert Counter(played) == Counter(c for t in hand.tricks for c in t.cards) + Counter(hand.trick_cards)
                hidden = Counter(c for o in range(n) if o != seat for c in CardMultiset(hand.held(o)))
                if hand.kitty_taker is None:
                    hidden += Counter(CardMultiset(hand.kitty))
                assert max((Counter(obs.hand) + Counter(played) + hidden).values()) <= 2
                assert Counter(obs.table) <= Counter(played)
                continue
            # 002: the dealer calls the pass 'before the start of the deal': no seat sees its cards yet.
            assert obs.hand.mask == (hand.hands[seat] if m.phase is not Phase.CALL else 0)
            seen = (
                obs.hand.mask | obs.received.mask | obs.legal.mask | obs.kitty.mask | sum(c.mask for c in obs.discarded)
            )
            for c in obs.passed:
                seen |= c.mask
            for t in obs.tricks:
                for c in t.cards:
                    seen |= c.mask
            for c in obs.current_trick.cards:
                seen |= c.mask
            hidden = 0
            for other in range(n):
                if other != seat:
                    hidden |= hand.hands[other]
            if hand.kitty_taker is None:
                hidden |= hand.kitty
            own_pass = sum(c.mask for c in obs.passed)
            assert seen & hidden & ~own_pass == 0
            assert obs.legal.mask & ~hand.hands[seat] == 0
            if obs.kitty:
                assert hand.kitty_taker == seat
            if obs.received:  # still held, played, or discarded by this seat into its tricks (kitty_discard)
                assert (
                    obs.received.mask
                    & ~hand.hands[seat]
                    & ~sum(c.mask for t in hand.tricks for c in t.cards)
                    & ~sum(c.mask for c in hand.trick_cards)
                    & ~sum(c.mask for c in obs.discarded)
                    == 0
                )
            assert not obs.discarded or hand.kitty_taker == seat

    drive(rules, seed, rng_seed, hands=3, before=check, style=style)


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, cut=st.integers(min_value=1, max_value=600), style=styles)
def test_replaying_the_history_reproduces_the_state(name, seed, rng_seed, cut, style):
    """state.py: 'Match.replay rebuilds any state from the seed and the players' decisions alone' — the deal
    (001: 'The whole 52-card deck is dealt out, 13 cards to each player') is drawn from the seed."""
    rules = RULESETS[name]
    m = Match(rules, seed)
    rng = random.Random(rng_seed)
    for _ in range(cut):
        if m.over:
            break
        STEPS[style](m, rng)
    r = Match.replay(rules, seed, m.history)
    assert r.scores == m.scores
    assert r.results == m.results
    assert r.hand.hands == m.hand.hands
    assert r.hand.tricks == m.hand.tricks
    assert r.hand.trick_cards == m.hand.trick_cards
    assert r.hand.kitty == m.hand.kitty
    assert r.phase is m.phase and r.to_move == m.to_move and r.over == m.over and r.winners == m.winners
    assert r.history == m.history
    if m.phase is Phase.PLAY:
        assert r.legal_plays() == m.legal_plays()
    for s in range(rules.players):
        assert r.observation(s) == m.observation(s)


@examples(100)
@given(seed=seeds, rng_seed=seeds, style=styles)
def test_standard_match_ends_with_exactly_one_winner(seed, rng_seed, style):
    """001: 'A finished game of Hearts therefore always has exactly one winner; there are no shared wins.'
    and 'Hands are played until at least one player has 100 points or more at the end of a hand. The player
    with the lowest total then wins.'"""
    m = drive(Rules(), seed, rng_seed, hands=10_000, style=style)
    assert m.over and m.phase is Phase.OVER
    assert len(m.winners) == 1
    w = m.winners[0]
    assert max(m.scores) >= 100
    assert all(m.scores[w] < m.scores[s] for s in range(4) if s != w)
    # every hand but the last ended below 100 or with a tie at the bottom
    for r in m.results[:-1]:
        low = min(r.totals)
        assert max(r.totals) < 100 or list(r.totals).count(low) > 1
    assert m.results[-1].totals == tuple(m.scores)


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, cut=st.integers(min_value=0, max_value=300), style=styles)
def test_clone_is_independent(name, seed, rng_seed, cut, style):
    """state.py: ``Match.clone`` — a copy for search: playing on the clone never changes the original, and
    the same decisions on both give the same state."""
    rules = RULESETS[name]
    m = Match(rules, seed)
    rng = random.Random(rng_seed)
    for _ in range(cut):
        if m.over:
            return
        STEPS[style](m, rng)
    if m.over:
        return

    def position() -> tuple[object, ...]:
        return (
            list(m.hand.hands),
            list(m.hand.captured),
            list(m.scores),
            len(m.history),
            m.phase,
            m.to_move,
            list(m.hand.tricks),
            list(m.hand.trick_cards),
            list(m.hand.passed),
            m.hand_number,
            m.legal_plays(),
        )

    snapshot = position()
    c = m.clone()
    rng_c = random.Random(rng_seed + 1)
    state = rng_c.getstate()
    for _ in range(60):
        if c.over:
            break
        random_step(c, rng_c)
    after = position()
    assert after == snapshot
    # the same decisions on the original reproduce the clone
    rng_m = random.Random()
    rng_m.setstate(state)
    for _ in range(60):
        if m.over:
            break
        random_step(m, rng_m)
    assert m.scores == c.scores and m.hand.hands == c.hand.hands and m.history == c.history
    assert m.results == c.results and m.phase is c.phase


# -- cross-checks against the reference rules (tests/rules/reference.py) ------------------------------


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_legal_plays_match_the_reference_rules(name, seed, rng_seed, style):
    """001: 'On every trick you must follow suit ... First-trick safety rule ... Leading hearts ...' and the
    002 options — the engine's legal set equals a separate reading of the rules, at every decision."""
    rules = RULESETS[name]

    def check(m: Match) -> None:
        if m.phase is not Phase.PLAY:
            return
        obs = m.observation(m.turn)
        want = ref_legal(rules, obs, set(cards_of(m.hand.kitty)))
        assert set(m.legal_plays()) == want, (str(obs.hand), [str(t) for t in obs.tricks], str(obs.current_trick))

    drive(rules, seed, rng_seed, hands=4, before=check, style=style)


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
def test_scoring_matches_the_reference_rules(name, seed, rng_seed, style):
    """001 Scoring / Shooting the moon / Winning the game, 002 and 004 scoring options — every hand's score,
    the totals, the end of the match and its winners equal a separate reading of the rules."""
    rules = RULESETS[name]
    for r in (rules, rules.replace(target=60)):
        m = drive(r, seed, rng_seed, hands=10_000 if r.target <= 100 else 8, style=style)
        results, over, winners = ref_results(r, m.history)
        assert len(results) == len(m.results)
        for mine, ref in zip(m.results, results):
            assert mine.points_taken == ref.points_taken
            assert mine.tricks_won == ref.tricks_won
            assert mine.score == ref.score, (mine, ref)
            assert mine.totals == ref.totals
            assert mine.moon == ref.moon and mine.sun == ref.sun
        assert m.over == over and m.winners == winners


def test_reference_points_agree_with_the_engine_tables():
    """001: 'There are always exactly 26 penalty points in a hand'; 004: Spot 129, Black Maria 43."""
    for rules in RULESETS.values():
        for c in cards_of((1 << 52) - 1):
            assert rules.points_of(c) == ref_points(rules, c), (rules.changes(), c)
        # 002 Cancellation Hearts: 'two 52-card packs shuffled together': each penalty card twice.
        assert rules.moon_total == rules.packs * sum(ref_points(rules, c) for c in penalty_cards(rules))


def test_replay_rejects_a_foreign_deal_and_an_illegal_decision():
    """state.py: 'Match.replay' re-checks decisions, and chance events 'are checked against the seed'."""
    m = Match(Rules(), 3)
    rng = random.Random(3)
    for _ in range(30):
        random_step(m, rng)
    history = m.history
    other = Match(Rules(), 4).history[0]
    with pytest.raises(ValueError):
        Match.replay(Rules(), 3, [other, *history[1:]])
    plays = [i for i, e in enumerate(history) if isinstance(e, Play)]
    bad = list(history)
    i = plays[1]
    # the second play of the hand made by the wrong seat: out of turn
    bad[i] = Play((bad[i].seat + 1) % 4, bad[i].card)
    with pytest.raises(IllegalPlayError):
        Match.replay(Rules(), 3, bad)
    with pytest.raises(ValueError):
        Match.replay(Rules(), 4, history)  # the same decisions do not fit another seed's deal
    assert Match.replay(Rules(), 3, history).history == history


@FAST
@given(name=rulesets, seed=seeds, rng_seed=seeds, style=styles)
@pytest.mark.slow
def test_the_matchs_fast_play_agrees_with_the_hands_checked_play(name, seed, rng_seed, style):
    """001: 'The highest card of the led suit wins the trick, the winner collects the four cards, and the
    winner leads the next trick.' ``Match.play`` writes ``Hand.play``'s lines out for a legal set already
    known; at every play of a random match, a card played both ways leaves the same state."""
    rules = RULESETS[name]
    rng = random.Random(rng_seed)

    def check(m: Match) -> None:
        if m.phase is not Phase.PLAY:
            return
        fast, checked = m.clone(), m.clone()
        card = rng.choice(fast.legal_plays().cards)  # the legal set known: Match.play's own lines
        if hasattr(checked.hand, "_legal"):
            checked.hand._legal = -1  # unknown: through Hand.play
        assert fast.play(card) == checked.play(card)
        assert fast.history == checked.history and fast.phase is checked.phase and fast.scores == checked.scores
        for s in range(rules.players):
            assert fast.observation(s) == checked.observation(s)

    drive(rules, seed, rng_seed, hands=3, before=check, style=style)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_canonical_text_of_a_ruleset_reads_back_as_it(name):
    """004: 'Skim the whole family first' — every preset and 002's options are one ``Rules`` value each: its text,
    ``str(rules)``, is what every table keeps; it parses back to the same rules, and rules written
    differently but playing the same share it."""
    rules = RULESETS[name]
    for r in (rules, rules.replace(target=60), rules.replace(sun_points=52, moon="shooter-chooses")):
        text = str(r)
        assert Rules.parse(text) == r, text
        assert str(Rules.parse(text)) == text
        assert str(Rules.from_dict(r.to_dict())) == text
    assert str(Rules.parse("standard,target=100,pass_cycle=standard")) == "standard"
    assert str(Rules.parse("spot,target=500")) == "spot"


BOOSTERS = sorted(n for n in NAMES if RULESETS[n].booster_nines)


def _led_nine(cards, n: int) -> bool:
    """A nine of the led suit among the first round's cards (only it can boost: one pack, one such nine)."""
    return any(c.rank == 9 and c.suit is cards[0].suit for c in cards[:n])


@examples(60)
@given(name=st.sampled_from(BOOSTERS), seed=seeds, rng_seed=seeds, style=styles)
def test_booster_tricks_match_the_reference_rules(name, seed, rng_seed, style):
    """002: 'If a nine is led to a trick or played while following suit, then there is a boost: one more
    round is played in the same suit' and 'If a nine is sloughed ... or played in the last trick, there is
    no boost' — at every play the trick in progress is boosted exactly when a nine of the led suit is in
    its first round and it is not the last trick; every trick has players or twice as many cards; the
    legal sets and the scores agree with the reference."""
    rules = RULESETS[name]
    n = rules.players
    hands: dict[int, tuple] = {}

    def check(m: Match) -> None:
        if m.phase is not Phase.PLAY:
            return
        obs = m.observation(m.turn)
        assert set(m.legal_plays()) == ref_legal(rules, obs, set(cards_of(m.hand.kitty)))
        cur = obs.current_trick
        mine = sum(1 for i in range(len(cur.cards)) if cur.seat_of(i, n) == obs.seat)
        held_at_start = len(obs.hand) + mine  # every seat holds as many cards when a trick starts
        assert obs.boosted == (bool(cur.cards) and _led_nine(cur.cards, n) and held_at_start > 1)
        hands[obs.hand_number] = obs.tricks

    m = drive(rules, seed, rng_seed, hands=3, before=check, style=style)
    for tricks in hands.values():
        for t in tricks:
            assert len(t.cards) == n or (len(t.cards) == 2 * n and _led_nine(t.cards, n))
    results, over, winners = ref_results(rules, m.history)
    assert [(r.points_taken, r.tricks_won, r.score) for r in results] == [
        (r.points_taken, r.tricks_won, r.score) for r in m.results
    ]


def test_booster_nines_boost_in_real_play():
    """002: 'one more round is played in the same suit' — random play of the preset meets boosted tricks
    (so the properties above are not vacuous), and each hand still plays every card once."""
    rules = PRESETS["booster-nines"]
    boosts = 0
    for seed in range(20):
        m = drive(rules, seed, seed, hands=1)
        plays = [e for e in m.history if isinstance(e, Play)]
        assert len(plays) == 52 and len({p.card for p in plays}) == 52
        boosts += 13 - sum(m.results[0].tricks_won)  # a boosted trick takes two rounds
    assert boosts >= 10


TURBO_NAMES = sorted(n for n, r in RULESETS.items() if r.turbo_charging)


@FAST
@given(name=st.sampled_from(TURBO_NAMES), seed=seeds, rng_seed=seeds, style=styles)
def test_a_charged_card_is_held_back_on_its_suits_first_lead_unless_nothing_else_is_legal(name, seed, rng_seed, style):
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.' At every
    play: a charged card of a suit not yet led is never legal while the seat may play something else
    (leading, or following that suit), and the seat always has a legal card."""
    rules = RULESETS[name]

    def check(m: Match) -> None:
        if m.phase is not Phase.PLAY:
            return
        o = m.observation(m.turn)
        legal = set(o.legal)
        assert legal
        led_before = {t.cards[0].suit for t in o.tricks}
        trick = o.current_trick.cards
        barred = {c for s, c in o.charges if s == o.seat and c in o.hand and c.suit not in led_before}
        if trick:
            barred = {c for c in barred if c.suit is trick[0].suit}
        if barred & legal:  # the restriction gave way: only because every card the rules allow is barred
            assert legal <= barred, (o.hand, barred, legal)
            if trick:  # following: the seat holds no other card of the led suit
                assert {c for c in o.hand if c.suit is trick[0].suit} <= barred

    drive(rules, seed, rng_seed, hands=3, before=check, style=style)


PARTNERSHIPS = sorted(n for n in NAMES if RULESETS[n].partnership != "none")


@examples(80)
@given(name=st.sampled_from(PARTNERSHIPS), seed=seeds, rng_seed=seeds, style=styles)
def test_partnership_matches_end_with_a_team_winning(name, seed, rng_seed, style):
    """002: 'The game continues until an individual player's score reaches 100 or more; then the scores of
    the partners are totalled and the partnership with fewer points wins.' (and, with partners keeping their
    tricks together, both partners' totals are the team's: 'On each hand your team scores the total number
    of penalty points you have taken in your tricks.') — every match ends with a team, or all four under
    tied_lowest=share, winning with fewer points; partners share their place; no hand before the last ended it."""
    rules = RULESETS[name].replace(target=60)
    m = drive(rules, seed, rng_seed, hands=10_000, style=style)
    assert m.over
    teams = rules.team_totals(m.scores)
    places = m.places()
    assert places[0] == places[2] and places[1] == places[3]
    if rules.partnership == "team":
        assert all(r.totals[0] == r.totals[2] and r.totals[1] == r.totals[3] for r in m.results)
    assert max(m.scores) >= rules.target
    if m.winners == (0, 1, 2, 3):
        assert rules.tied_lowest == "share" and teams[0] == teams[1] and places == (1, 1, 1, 1)
    else:
        assert m.winners in ((0, 2), (1, 3))
        w = m.winners[0] % 2
        assert teams[w] < teams[1 - w] and places[w] == 1 and places[1 - w] == 3
    for r in m.results[:-1]:
        t = rules.team_totals(r.totals)
        assert max(r.totals) < rules.target or (t[0] == t[1] and rules.tied_lowest == "play-on")
