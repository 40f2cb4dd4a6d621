"""The knockout's bracket (ladder/tournament/knockout.py, stages.py): seeding, hand-computed tables,
byes, fills, and a tie at the cut settled by sudden-death deals, on made-up results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from ladder.tournament.knockout import SUDDEN_DEATHS, bracket_sizes, deal_tables, knockout_round, seeding
from ladder.tournament.schedule import ScheduledMatch
from ladder.tournament.stages import Played, bracket_of, table_matches
from ladder.tournament.standings import SeatResult

SIXTEEN = [f"s{i:02d}" for i in range(1, 17)]  # best seed first


def test_the_seeding_is_the_ratings_then_the_names() -> None:
    assert seeding(["d", "c", "b", "a"], {"c": 1600.0, "d": 1700.0}) == ["d", "c", "a", "b"]


def test_sixteen_at_four_seats_are_dealt_like_a_serpentine() -> None:
    assert deal_tables(SIXTEEN, 4) == [
        ("s01", "s08", "s09", "s16"),
        ("s02", "s07", "s10", "s15"),
        ("s03", "s06", "s11", "s14"),
        ("s04", "s05", "s12", "s13"),
    ]


def test_the_bracket_of_sixteen_is_sixteen_eight_four_and_odd_fields_take_byes() -> None:
    assert bracket_sizes(16, 4, 2) == [16, 8, 4]
    assert bracket_sizes(10, 4, 2) == [10, 6, 4]  # two byes, then two byes again
    assert bracket_sizes(6, 4, 1) == [6, 4]  # one goes on, two byes: one more fills the final
    r = knockout_round([f"b{i}" for i in range(10)], 4, 2)
    assert r.byes == ("b0", "b1") and r.tables == (("b2", "b5", "b6", "b9"), ("b3", "b4", "b7", "b8"))
    final = knockout_round(["a", "b", "c", "d"], 4, 2)
    assert final.final and final.advance == 1
    with pytest.raises(ValueError, match="advance must be from 1 to 3"):
        knockout_round(SIXTEEN, 4, 4)


def _played(
    seeded: Sequence[str], schedule: Sequence[ScheduledMatch], points: Mapping[tuple[int, int, int, str], int]
) -> Played:
    """A knockout at tables of four with one deal a table: ``points`` by (round, table, deal, bot)
    for each match of that deal (every rotation scores the same), recorded where given."""
    recorded = [(m, (m.round, m.table, m.deal, m.seats[0]) in points) for m in schedule]
    results = [
        SeatResult(m.round, m.table, m.deal, b, points[(m.round, m.table, m.deal, b)], False, 5)
        for m, rec in recorded
        if rec
        for b in m.seats
    ]
    return Played(tuple(seeded), 4, 1, 3, 2, 7, "standard", list(recorded), results)


def test_a_tie_at_the_cut_is_played_off_by_sudden_death_deals_then_the_seeding() -> None:
    field = ["a", "b", "c", "d", "e", "f", "g", "h"]
    first = knockout_round(field, 4, 2)
    assert first.tables == (("a", "d", "e", "h"), ("b", "c", "f", "g"))
    schedule = [m for t, seats in enumerate(first.tables) for m in table_matches(0, 0, t, seats, [0], 7, "standard")]
    # Table 1: d and e tie for second; table 2 is clear (b, c go on).
    points = {(0, 0, 0, "a"): 2, (0, 0, 0, "d"): 5, (0, 0, 0, "e"): 5, (0, 0, 0, "h"): 14}
    points |= {(0, 1, 0, "b"): 1, (0, 1, 0, "c"): 3, (0, 1, 0, "f"): 9, (0, 1, 0, "g"): 13}
    b = bracket_of(_played(field, schedule, points))
    [r] = b.rounds
    assert not r.decided and 0 not in r.orders and r.orders[1] == ["b", "c", "f", "g"]
    # The sudden-death deal (deal 1, every rotation) is tied too, then e takes fewer points.
    for deal, (d_points, e_points) in enumerate([(4, 4), (6, 3)], start=1):
        schedule += table_matches(len(schedule), 0, 0, first.tables[0], [deal], 7, "standard")
        points |= {(0, 0, deal, "a"): 0, (0, 0, deal, "d"): d_points, (0, 0, deal, "e"): e_points}
        points |= {(0, 0, deal, "h"): 26 - d_points - e_points}
        r = bracket_of(_played(field, schedule, points)).rounds[0]
        assert r.sudden_deaths[0] == deal
    assert r.decided and r.orders[0] == ["a", "e", "d", "h"]
    assert r.going_on == ("a", "b", "c", "e")  # in seeding order
    assert SUDDEN_DEATHS == 3


def test_a_tie_that_outlasts_every_sudden_death_deal_goes_to_the_better_seed() -> None:
    field = ["a", "b", "c", "d"]  # the final: a tie for first
    schedule = table_matches(0, 0, 0, field, [0], 7, "standard")
    points = {(0, 0, 0, "a"): 3, (0, 0, 0, "b"): 3, (0, 0, 0, "c"): 8, (0, 0, 0, "d"): 12}
    for deal in range(1, SUDDEN_DEATHS + 1):
        schedule += table_matches(len(schedule), 0, 0, field, [deal], 7, "standard")
        points |= {(0, 0, deal, b): p for b, p in zip(field, (5, 5, 8, 8), strict=True)}
    b = bracket_of(_played(field, schedule, points))
    assert b.winner == "a" and b.placings() == ["a", "b", "c", "d"]
