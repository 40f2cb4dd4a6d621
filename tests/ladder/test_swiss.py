"""The Swiss pairing (ladder/tournament/swiss.py) and the standings it pairs from: hand-computed
seatings, byes, and against a brute force over every seating of small fields."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence

import pytest

from ladder.tournament.standings import SeatResult, bye_points, match_points, standings, table_results
from ladder.tournament.swiss import met_counts, swiss_byes, swiss_tables

BOTS = "abcdefgh"


def _cost(tables: Sequence[Sequence[str]], history: Sequence[Sequence[str]]) -> int:
    met = met_counts(history)
    return sum(met.get(frozenset(p), 0) for t in tables for p in itertools.combinations(t, 2))


def _seatings(bots: Sequence[str], players: int) -> Iterator[list[tuple[str, ...]]]:
    """Every way of seating ``bots`` at tables of ``players``, each table led by its first bot left."""
    if not bots:
        yield []
        return
    head, rest = bots[0], list(bots[1:])
    for others in itertools.combinations(rest, players - 1):
        left = [b for b in rest if b not in others]
        for more in _seatings(left, players):
            yield [(head, *others), *more]


def test_with_no_history_the_standings_are_cut_into_tables_in_order() -> None:
    assert swiss_tables(list(BOTS), 4, {}) == [tuple("abcd"), tuple("efgh")]


def test_the_leader_takes_the_best_placed_bots_it_has_not_met() -> None:
    # a met b before: a sits with c, d and e, and b heads the second table.
    assert swiss_tables(list(BOTS), 4, met_counts([("a", "b")])) == [tuple("acde"), tuple("bfgh")]


def test_where_every_seating_repeats_a_pair_the_fewest_repeats_win_then_the_standings() -> None:
    # After abcd and efgh, any table of four holds two of one of them: at least one repeat a table.
    # Of the seatings with two repeats in all, the first in standings order: a, b with e, f.
    history = [tuple("abcd"), tuple("efgh")]
    tables = swiss_tables(list(BOTS), 4, met_counts(history))
    assert tables == [tuple("abef"), tuple("cdgh")]
    assert _cost(tables, history) == 4


def test_no_pair_meets_twice_while_a_seating_without_a_rematch_exists() -> None:
    """Against a brute force over every seating: the search finds the least rematches and, among
    those, the first seating in standings order."""
    rng = random.Random(5)
    for trial in range(60):
        n, players = rng.choice([(8, 4), (9, 3), (12, 4), (10, 5), (12, 3)])
        bots = [f"b{i:02d}" for i in range(n)]
        history: list[tuple[str, ...]] = []
        for _ in range(rng.randrange(0, 4)):
            order = bots[:]
            rng.shuffle(order)
            history += [tuple(order[i : i + players]) for i in range(0, n, players)]
        ranked = bots[:]
        rng.shuffle(ranked)
        got = swiss_tables(ranked, players, met_counts(history))
        best = min(_seatings(ranked, players), key=lambda s: _cost(s, history))  # min keeps the first
        assert _cost(got, history) == _cost(best, history), (trial, ranked, history)
        assert got == best, (trial, ranked, history)


def test_byes_go_to_the_fewest_byes_so_far_then_the_lowest_placed() -> None:
    ranked = list("abcdefghij")  # ten at tables of four: two sit out
    assert swiss_byes(ranked, 4, {}) == ["i", "j"]
    assert swiss_byes(ranked, 4, {"i": 1, "j": 1}) == ["g", "h"]
    assert swiss_byes(ranked, 4, {"j": 1}) == ["h", "i"]
    assert swiss_byes(list("abcdefgh"), 4, {}) == []


def test_a_field_that_does_not_fill_its_tables_is_refused() -> None:
    with pytest.raises(ValueError, match="do not fill tables of 4"):
        swiss_tables(list("abcdef"), 4, {})


def _seat(bot: str, points: int, *, deal: int = 0, forfeit: bool = False, hands: int = 5) -> SeatResult:
    return SeatResult(0, 0, deal, bot, points, forfeit, hands)


def test_a_table_is_ordered_by_forfeits_then_points_and_scores_one_point_a_table_mate_beaten() -> None:
    [table] = table_results(
        [_seat("a", 30), _seat("b", 50), _seat("c", 50), _seat("d", 10, forfeit=True)]
        + [_seat("a", 20, deal=1), _seat("b", 10, deal=1), _seat("c", 10, deal=1), _seat("d", 0, deal=1)]
    )
    assert table.points == {"a": 50, "b": 60, "c": 60, "d": 10} and table.hands == 10
    assert table.order() == ["a", "b", "c", "d"]  # d forfeited a match: last, whatever its points
    assert [match_points(table, b) for b in "abcd"] == [3.0, 1.5, 1.5, 0.0]
    assert [table.place(b) for b in "abcd"] == [1, 2, 2, 4]
    assert table.margin("a") == pytest.approx((45 - 50) / 10)


def test_standings_add_match_points_and_byes_and_break_ties_by_margin_then_seed() -> None:
    results = [SeatResult(0, 0, 0, b, p, False, 4) for b, p in zip("abcd", (10, 20, 20, 30), strict=True)]
    tables = table_results(results)
    rows = standings(list("abcde"), tables, {"e": 1}, 4)
    assert [(s.bot, s.score) for s in rows] == [("a", 3.0), ("b", 1.5), ("c", 1.5), ("e", 1.5), ("d", 0.0)]
    # b and c tie on points and margin: the better seed first; e's bye is half a table's winner.
    assert bye_points(4) == 1.5 and rows[3].margin == 0.0 and rows[3].byes == 1
