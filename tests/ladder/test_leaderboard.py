"""Leaderboard figures on a small hand-made set of records."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from rich.console import Console

from ladder.leaderboard import (
    RatedMatch,
    SeatResult,
    compute_leaderboard,
    render_table,
    to_csv,
    to_json,
)
from ladder.ratings import MatchResult, fit


def S(bot: str, seat: int, score: int, place: int, **kw: object) -> SeatResult:
    return SeatResult(bot=bot, seat=seat, score=score, place=place, **kw)  # type: ignore[arg-type]


# m1 and m2 are one deal (seed 1) in two seat rotations; m3 is another deal where b forfeits.
M1 = RatedMatch("m1", seed=1, hands=5, deal_key="std",
                  seats=(S("a", 0, 10, 1, moons=1), S("b", 1, 20, 2), S("c", 2, 20, 2), S("d", 3, 76, 4)))
M2 = RatedMatch("m2", seed=1, hands=4, deal_key="std",
                  seats=(S("d", 0, 30, 2), S("a", 1, 40, 3), S("b", 2, 50, 4), S("c", 3, 6, 1, faults=1)))
M3 = RatedMatch("m3", seed=2, hands=6, deal_key="std",
                  seats=(S("a", 0, 50, 1), S("b", 1, 10, 4, forfeit=True, faults=5), S("c", 2, 60, 2),
                         S("d", 3, 70, 3)))


@pytest.fixture(scope="module")
def board():  # type: ignore[no-untyped-def]
    return compute_leaderboard([M1, M2, M3], provisional_games=2)


def test_counts_per_bot(board) -> None:  # type: ignore[no-untyped-def]
    a, b, c, d = (board[x] for x in "abcd")
    assert (a.games, b.games, c.games, d.games) == (3, 3, 3, 3)
    # a: beat all three in m1, one of three in m2 (b), all three in m3.
    assert a.score_pct == pytest.approx(100 * (1 + 1 / 3 + 1) / 3)
    # b: m1 ties c (½) and beats d; m2 beaten by all; m3 forfeited, last.
    assert b.score_pct == pytest.approx(100 * (1.5 / 3 + 0 + 0) / 3)
    assert c.score_pct == pytest.approx(100 * (1.5 / 3 + 1 + 2 / 3) / 3)
    assert a.win_pct == pytest.approx(200 / 3) and c.win_pct == pytest.approx(100 / 3) and b.win_pct == 0
    assert a.avg_place == pytest.approx(5 / 3) and b.avg_place == pytest.approx(10 / 3)
    assert a.points_per_hand == pytest.approx((10 + 40 + 50) / 15)
    assert (a.moons, b.faults, b.forfeits, c.faults) == (1, 5, 1, 1)


def test_duplicate_delta_compares_the_same_deal_and_seat(board) -> None:  # type: ignore[no-untyped-def]
    # Seed 1, seat 0: a 10 vs d 30; seat 1: b 20 vs a 40; seat 2: c 20 vs b 50; seat 3: d 76 vs c 6.
    assert board["a"].dup_delta == pytest.approx((-20 + 20) / 2)
    assert board["b"].dup_delta == pytest.approx((-20 + 30) / 2)
    assert board["c"].dup_delta == pytest.approx((-30 - 70) / 2)
    assert board["d"].dup_delta == pytest.approx((20 + 70) / 2)


def test_elo_is_the_ratings_fit_with_forfeits_last(board) -> None:  # type: ignore[no-untyped-def]
    expected = fit([MatchResult.from_scores(("a", "b", "c", "d"), (10, 20, 20, 76)),
                    MatchResult.from_scores(("d", "a", "b", "c"), (30, 40, 50, 6)),
                    MatchResult.from_scores(("a", "b", "c", "d"), (50, 10, 60, 70), forfeited=("b",))],
                   provisional_games=2)
    assert [r.bot for r in board.rows] == [r.name for r in expected.bots]
    for row in board.rows:
        e = expected[row.bot]
        assert row.elo == pytest.approx(e.elo) and row.ci95 == pytest.approx(e.ci95)
        assert row.provisional == e.provisional and row.los_next == e.los_next
    assert [r.rank for r in board.rows] == [1, 2, 3, 4]
    assert board.rows[-1].bot == "b"  # its 10 points do not count: it forfeited


def test_a_split_pool_warns() -> None:
    other = RatedMatch("x", seed=3, hands=1, seats=(S("p", 0, 0, 1), S("q", 1, 26, 2)))
    lb = compute_leaderboard([M1, other])
    assert any("pool split" in w for w in lb.warnings)


def test_exports(board) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(to_json(board))
    assert data["matches"] == 3 and [r["bot"] for r in data["rows"]] == [r.bot for r in board.rows]
    rows = list(csv.DictReader(io.StringIO(to_csv(board))))
    assert rows[0]["rank"] == "1" and float(rows[0]["elo"]) == pytest.approx(board.rows[0].elo)
    assert {"rank", "bot", "elo", "ci95", "games", "score_pct", "win_pct", "avg_place", "points_per_hand",
            "moons", "faults"} <= set(rows[0])
    console = Console(width=200, record=True)
    console.print(render_table(board))
    text = console.export_text()
    assert "±95%" in text and "score %" in text and "forfeit" in text


def test_empty_board() -> None:
    lb = compute_leaderboard([])
    assert lb.rows == [] and lb.matches == 0
    assert math.isnan(compute_leaderboard([M1])["a"].points_per_hand) is False


def test_self_play_is_left_out_of_every_figure_and_counted(board) -> None:  # type: ignore[no-untyped-def]
    # One bot in every seat (and one in two seats of four): neither rates a bot against another.
    solo = RatedMatch("s1", seed=1, hands=5, deal_key="std",
                        seats=(S("a", 0, 0, 1), S("a", 1, 26, 2), S("a", 2, 26, 2), S("a", 3, 26, 2)))
    twice = RatedMatch("s2", seed=2, hands=3, deal_key="std",
                         seats=(S("d", 0, 0, 1), S("b", 1, 9, 2), S("d", 2, 30, 3), S("c", 3, 50, 4)))
    lb = compute_leaderboard([M1, solo, M2, twice, M3], provisional_games=2)
    assert lb.self_play == 2 and lb.matches == 3
    assert lb.rows == board.rows and board.self_play == 0 and board.notes == []
    assert lb.notes == [("2 matches in which one bot filled several seats are left out: "
                         "self-play rates no bot against another")]
    data = json.loads(to_json(lb))
    assert data["self_play"] == 2 and data["notes"] == lb.notes and data["matches"] == 3
    console = Console(width=200, record=True)
    console.print(render_table(lb))
    assert "note: 2 matches in which one bot filled several seats" in console.export_text()
    only = compute_leaderboard([solo])
    assert only.rows == [] and only.self_play == 1 and only.notes[0].startswith("1 match in which")


def test_ratings_rank_a_match_by_its_recorded_places_not_its_totals() -> None:
    """Under moon=wins-match (the nasty preset) a shot wins the match whatever the shooter's total: the
    referee records place 1 for it, and the ratings must follow the record, not re-rank by totals."""
    from ladder.leaderboard import RatedMatch, SeatResult

    m = RatedMatch("m1", 1, 4, (SeatResult("shooter", 0, 207, 1), SeatResult("broken", 1, 194, 4, forfeit=True),
                                  SeatResult("f2", 2, 53, 2), SeatResult("f3", 3, 72, 3)))
    assert m.result().places == (1, 4, 2, 3)
