"""Schedules: table designs, balance, duplicate seat rotation, seeds."""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict

import pytest

from ladder.tournament.schedule import (
    all_tables,
    balanced_tables,
    build_schedule,
    gauntlet_tables,
    match_seed,
    pair_counts,
    rotations,
    round_robin_tables,
)


def names(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(n)]


def test_few_bots_play_every_group() -> None:
    t = round_robin_tables(names(6), 4)
    assert len(t) == math.comb(6, 4) == len(set(t))
    assert all(len(set(x)) == 4 for x in t)


def test_exactly_four_bots_is_one_table() -> None:
    assert round_robin_tables(names(4), 4) == [tuple(names(4))]


@pytest.mark.parametrize("n,k,meetings", [(12, 4, 1), (20, 4, 1), (16, 4, 3), (30, 4, 2), (9, 3, 2), (15, 5, 1)])
def test_many_bots_get_a_balanced_design(n: int, k: int, meetings: int) -> None:
    bots = names(n)
    t = round_robin_tables(bots, k, max_tables=10, meetings=meetings)
    assert len(t) < math.comb(n, k)
    assert all(len(set(x)) == k and set(x) <= set(bots) for x in t)
    pairs = pair_counts(t)
    counts = [pairs.get((a, b), 0) for i, a in enumerate(bots) for b in bots[i + 1 :]]
    # Each pair meets about `meetings` times: the spread is at most two.
    assert max(counts) - min(counts) <= 2
    assert abs(sum(counts) / len(counts) - meetings) < 0.5
    games = Counter(b for x in t for b in x)
    assert set(games) == set(bots) and max(games.values()) - min(games.values()) <= 2


@pytest.mark.slow
def test_balanced_design_is_deterministic_in_its_seed() -> None:
    assert balanced_tables(names(14), 4, seed=3) == balanced_tables(names(14), 4, seed=3)
    assert balanced_tables(names(14), 4, seed=3) != balanced_tables(names(14), 4, seed=4)


def test_too_few_or_duplicate_bots_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot fill a table of 4"):
        all_tables(names(3), 4)
    with pytest.raises(ValueError, match="listed twice"):
        all_tables(["a", "b", "a", "c"], 3)


def test_gauntlet_puts_the_hero_at_every_table_and_spreads_the_pool() -> None:
    t = gauntlet_tables("hero", ["hero", *names(7)], 4)
    assert len(t) == math.comb(7, 3)
    assert all(x[0] == "hero" and "hero" not in x[1:] for x in t)
    big = gauntlet_tables("hero", ["hero", *names(29)], 4, max_tables=20)
    pool = Counter(b for x in big for b in x[1:])
    assert len(pool) == 29 and max(pool.values()) - min(pool.values()) <= 2


def test_rotations_put_every_bot_in_every_seat_once() -> None:
    rots = rotations(("a", "b", "c", "d"))
    assert len(rots) == 4 == len(set(rots))
    for seat in range(4):
        assert sorted(r[seat] for r in rots) == ["a", "b", "c", "d"]
    # Cyclic: neighbours stay neighbours (a table is a table).
    assert all(r[(r.index("a") + 1) % 4] == "b" for r in rots)


def test_duplicate_schedule_plays_each_deal_from_each_seat() -> None:
    s = build_schedule(names(5), rules="standard", deals=3, rounds=2, seed=11)
    assert len(s) == 2 * math.comb(5, 4) * 3 * 4
    assert [m.index for m in s] == list(range(len(s)))
    by_seed: defaultdict[int, list[tuple[str, ...]]] = defaultdict(list)
    for m in s:
        by_seed[m.seed].append(m.seats)
    assert len(by_seed) == 2 * 5 * 3  # rounds × tables × deals distinct seeds
    for seatings in by_seed.values():
        assert len(seatings) == 4
        bots = set(seatings[0])
        for seat in range(4):  # every bot of the table sits in every seat on this deal
            assert {x[seat] for x in seatings} == bots


def test_without_duplicate_each_deal_is_played_once_and_seats_still_rotate() -> None:
    s = build_schedule(names(4), deals=8, duplicate=False)
    assert len(s) == 8 and len({m.seed for m in s}) == 8
    seat0 = Counter(m.seats[0] for m in s)
    assert set(seat0.values()) == {2}


def test_gauntlet_schedule_and_errors() -> None:
    s = build_schedule(names(6), "gauntlet", gauntlet="b03", deals=1)
    assert len(s) == math.comb(5, 3) * 4
    assert all("b03" in m.seats for m in s)
    with pytest.raises(ValueError, match="needs the bot"):
        build_schedule(names(6), "gauntlet")
    with pytest.raises(ValueError, match="not among the bots"):
        build_schedule(names(6), "gauntlet", gauntlet="zz")
    with pytest.raises(ValueError, match="unknown format"):
        build_schedule(names(6), "swiss")


def test_seeds_are_stable_distinct_and_fit_int64() -> None:
    a = build_schedule(names(5), seed=1)
    assert [m.seed for m in a] == [m.seed for m in build_schedule(names(5), seed=1)]
    assert not {m.seed for m in a} & {m.seed for m in build_schedule(names(5), seed=2)}
    assert all(0 <= m.seed < 2**62 for m in a)
    assert match_seed(0, 0, 0, 0) != match_seed(0, 0, 0, 1)


def test_three_player_rules_make_three_seat_tables() -> None:
    s = build_schedule(names(4), rules="standard,players=3", players=3)
    assert len(s) == 4 * 3 and all(len(m.seats) == 3 for m in s)


def test_a_gauntlet_needs_three_player_tables() -> None:
    # Rules allow 3 to 5 players: a 2-player gauntlet is refused, and a 3-player one draws pairs.
    with pytest.raises(ValueError, match="at least 3 players"):
        gauntlet_tables("b00", names(4), 2)
    t = gauntlet_tables("b00", names(4), 3)
    assert sorted(t) == [("b00", "b01", "b02"), ("b00", "b01", "b03"), ("b00", "b02", "b03")]


def test_the_removed_dead_code_is_gone() -> None:
    import ladder.ratings.leaderboard
    import ladder.store

    assert not hasattr(ladder.store, "open_store")
    assert not hasattr(ladder.ratings.leaderboard, "COLUMNS")


def test_with_partners_every_bot_partners_every_other_at_its_table() -> None:
    """002 Partnership Hearts: 'partners sitting opposite each other'. A rotation keeps each bot opposite
    the same one, so each table is played in its three pairings, each in every rotation."""
    bots = names(4)
    alone = build_schedule(bots, deals=2, seed=3)
    paired = build_schedule(bots, deals=2, seed=3, partners=True)
    assert len(paired) == 3 * len(alone)
    partnered: Counter[tuple[str, str]] = Counter()
    seats: Counter[tuple[str, int]] = Counter()
    for m in paired:
        for s in (0, 1):
            partnered[tuple(sorted((m.seats[s], m.seats[s + 2])))] += 1  # type: ignore[arg-type]
        seats.update((b, s) for s, b in enumerate(m.seats))
    assert set(partnered) == {tuple(sorted(p)) for p in itertools.combinations(bots, 2)}
    assert len(set(partnered.values())) == 1 and len(set(seats.values())) == 1  # evenly, in every seat
    opposite = {tuple(sorted((m.seats[0], m.seats[2]))) for m in alone} | {
        tuple(sorted((m.seats[1], m.seats[3]))) for m in alone
    }
    assert len(opposite) == 2  # without the pairings: the same two partnerships every match
