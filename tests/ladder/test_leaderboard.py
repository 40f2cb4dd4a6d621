"""Leaderboard figures on a small hand-made set of records, in memory and saved in a real SQLite
file (live Elo, moons)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest
from bot_entries import BOTS
from hand_made import play_by_hand, record
from rich.console import Console

from ladder.ratings.fit import ELO_BASE, MatchResult, fit
from ladder.ratings.leaderboard import (
    RatedMatch,
    SeatResult,
    compute_leaderboard,
    live_elo,
    load_leaderboard,
    render_table,
    to_csv,
    to_json,
)
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament
from referee.record import HandRecord


def S(bot: str, seat: int, score: int, place: int, **kw: object) -> SeatResult:
    return SeatResult(bot=bot, seat=seat, score=score, place=place, **kw)


# m1 and m2 are one deal (seed 1) in two seat rotations; m3 is another deal where b forfeits.
M1 = RatedMatch(
    "m1",
    seed=1,
    hands=5,
    deal_key="std",
    seats=(S("a", 0, 10, 1, moons=1), S("b", 1, 20, 2), S("c", 2, 20, 2), S("d", 3, 76, 4)),
)
M2 = RatedMatch(
    "m2",
    seed=1,
    hands=4,
    deal_key="std",
    seats=(S("d", 0, 30, 2), S("a", 1, 40, 3), S("b", 2, 50, 4), S("c", 3, 6, 1, faults=1)),
)
M3 = RatedMatch(
    "m3",
    seed=2,
    hands=6,
    deal_key="std",
    seats=(S("a", 0, 50, 1), S("b", 1, 10, 4, forfeit=True, faults=5), S("c", 2, 60, 2), S("d", 3, 70, 3)),
)


@pytest.fixture(scope="module")
def board():
    return compute_leaderboard([M1, M2, M3], provisional_games=2)


def test_counts_per_bot(board) -> None:
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


def test_duplicate_delta_compares_the_same_deal_and_seat(board) -> None:
    # Seed 1, seat 0: a 10 vs d 30; seat 1: b 20 vs a 40; seat 2: c 20 vs b 50; seat 3: d 76 vs c 6.
    assert board["a"].dup_delta == pytest.approx((-20 + 20) / 2)
    assert board["b"].dup_delta == pytest.approx((-20 + 30) / 2)
    assert board["c"].dup_delta == pytest.approx((-30 - 70) / 2)
    assert board["d"].dup_delta == pytest.approx((20 + 70) / 2)


def test_elo_is_the_ratings_fit_with_forfeits_last(board) -> None:
    expected = fit(
        [
            MatchResult.from_scores(("a", "b", "c", "d"), (10, 20, 20, 76)),
            MatchResult.from_scores(("d", "a", "b", "c"), (30, 40, 50, 6)),
            MatchResult.from_scores(("a", "b", "c", "d"), (50, 10, 60, 70), forfeited=("b",)),
        ],
        provisional_games=2,
    )
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


def test_exports(board) -> None:
    data = json.loads(to_json(board))
    assert list(data)[:2] == ["schema", "version"] and (data["schema"], data["version"]) == ("hearts-arena/ladder", 1)
    assert data["matches"] == 3 and [r["bot"] for r in data["rows"]] == [r.bot for r in board.rows]
    assert data["rows"][0]["elo"] == board.rows[0].elo, "JSON keeps every digit"
    rows = list(csv.DictReader(io.StringIO(to_csv(board))))
    assert rows[0]["rank"] == "1" and rows[0]["elo"] == f"{board.rows[0].elo:.1f}"
    # A spreadsheet's cells: figures to the table's digits, true and false, nothing for no value.
    assert {r["provisional"] for r in rows} <= {"true", "false"}
    for r, row in zip(rows, board.rows, strict=True):
        assert r["ci95"] == f"{row.ci95:.1f}" and r["avg_place"] == f"{row.avg_place:.2f}"
        assert r["points_per_hand"] == f"{row.points_per_hand:.2f}" and r["score_pct"] == f"{row.score_pct:.1f}"
        assert r["los_next"] == ("" if row.los_next is None else f"{row.los_next:.3f}")
    assert {
        "rank",
        "bot",
        "elo",
        "ci95",
        "games",
        "score_pct",
        "win_pct",
        "avg_place",
        "points_per_hand",
        "moons",
        "faults",
    } <= set(rows[0])
    console = Console(width=200, record=True)
    console.print(render_table(board))
    text = console.export_text()
    assert "±95%" in text and "score %" in text and "forfeit" in text


def test_empty_board() -> None:
    lb = compute_leaderboard([])
    assert lb.rows == [] and lb.matches == 0
    assert math.isnan(compute_leaderboard([M1])["a"].points_per_hand) is False


def test_self_play_is_left_out_of_every_figure_and_counted(board) -> None:
    # One bot in every seat (and one in two seats of four): neither rates a bot against another.
    solo = RatedMatch(
        "s1",
        seed=1,
        hands=5,
        deal_key="std",
        seats=(S("a", 0, 0, 1), S("a", 1, 26, 2), S("a", 2, 26, 2), S("a", 3, 26, 2)),
    )
    twice = RatedMatch(
        "s2",
        seed=2,
        hands=3,
        deal_key="std",
        seats=(S("d", 0, 0, 1), S("b", 1, 9, 2), S("d", 2, 30, 3), S("c", 3, 50, 4)),
    )
    lb = compute_leaderboard([M1, solo, M2, twice, M3], provisional_games=2)
    assert lb.self_play == 2 and lb.matches == 3
    assert lb.rows == board.rows and board.self_play == 0 and board.notes == []
    assert lb.notes == [
        ("2 matches in which one bot filled several seats are left out: self-play rates no bot against another")
    ]
    data = json.loads(to_json(lb))
    assert data["self_play"] == 2 and data["notes"] == lb.notes and data["matches"] == 3
    console = Console(width=200, record=True)
    console.print(render_table(lb))
    assert "note: 2 matches in which one bot filled several seats" in console.export_text()
    only = compute_leaderboard([solo])
    assert only.rows == [] and only.self_play == 1 and only.notes[0].startswith("1 match in which")


def test_a_match_with_a_person_at_the_table_is_left_out_and_counted(board) -> None:
    """People are not rated with the bots: a match with a person in a seat moves no bot's figures, and
    the note says how many were left out."""
    with_person = RatedMatch(
        "p1",
        seed=3,
        hands=4,
        deal_key="std",
        seats=(S("alice", 0, 90, 4, kind="human"), S("a", 1, 0, 1), S("b", 2, 10, 2), S("c", 3, 20, 3)),
    )
    lb = compute_leaderboard([M1, with_person, M2, M3], provisional_games=2)
    assert lb.with_people == 1 and lb.matches == 3 and lb.self_play == 0
    assert lb.rows == board.rows and board.with_people == 0
    assert lb.notes == ["1 match with a person at the table is left out: people are not rated with the bots"]
    data = json.loads(to_json(lb))
    assert data["with_people"] == 1 and data["notes"] == lb.notes
    only = compute_leaderboard([with_person])
    assert only.rows == [] and only.with_people == 1


def test_ratings_rank_a_match_by_its_recorded_places_not_its_totals() -> None:
    """Under moon=wins-match (the nasty preset) a shot wins the match whatever the shooter's total: the
    referee records place 1 for it, and the ratings must follow the record, not re-rank by totals."""
    from ladder.ratings.leaderboard import RatedMatch, SeatResult

    m = RatedMatch(
        "m1",
        1,
        4,
        (
            SeatResult("shooter", 0, 207, 1),
            SeatResult("broken", 1, 194, 4, forfeit=True),
            SeatResult("f2", 2, 53, 2),
            SeatResult("f3", 3, 72, 3),
        ),
    )
    assert m.result().places == (1, 4, 2, 3)


# -- from a store ---------------------------------------------------------------------------------


def test_live_elo_counts_only_the_filtered_matches(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        t1 = create_tournament(store, BOTS, TournamentSpec(rules="standard", seed=1))
        t2 = create_tournament(store, BOTS, TournamentSpec(rules="standard,target=50", seed=2))
        play_by_hand(store, t1, {"a": 1, "b": 2, "c": 3, "d": 4})
        play_by_hand(store, t2, {"a": 4, "b": 3, "c": 2, "d": 1})

        def changes(tid: int) -> dict[str, float]:
            return {
                n: ELO_BASE + v
                for n, v in store.db.execute(
                    "SELECT b.name, SUM(l.elo_change) FROM live_elo l JOIN bots b ON b.id = l.bot_id "
                    "JOIN matches m ON m.id = l.match_id WHERE m.tournament_id = ? GROUP BY b.name",
                    [tid],
                )
            }

        everything = live_elo(store)
        only_t1 = changes(t1)
        assert only_t1["a"] > ELO_BASE > only_t1["d"]
        assert only_t1 != pytest.approx(everything)
        lb = load_leaderboard(store, tournament_id=t1)
        assert lb.live_elo == pytest.approx(only_t1)
        assert load_leaderboard(store, rules="standard,target=50").live_elo == pytest.approx(changes(t2))
        # The default ladder is the latest tournament's ruleset, so its live Elo is t2's alone.
        assert load_leaderboard(store).live_elo == pytest.approx(changes(t2))
        assert live_elo(store, tournament_id=t2, bots=["a", "d"]) == pytest.approx(
            {k: v for k, v in changes(t2).items() if k in "ad"}
        )
        # Saving goes on from the figure of the match's ruleset: t2 (another ruleset) started at 1500,
        # a third tournament of t1's ruleset where t1 ended.
        t3 = create_tournament(store, BOTS, TournamentSpec(rules="standard", seed=3))
        play_by_hand(store, t3, {"a": 1, "b": 2, "c": 3, "d": 4})

        def before(tid: int) -> dict[str, float]:
            return dict(
                store.db.execute(
                    "SELECT b.name, l.elo_before FROM live_elo l JOIN bots b ON b.id = l.bot_id WHERE l.match_id = ?",
                    [f"t{tid}-000000"],
                ).fetchall()
            )

        assert before(t2) == pytest.approx(dict.fromkeys(before(t2), ELO_BASE))
        assert before(t3) == pytest.approx({n: only_t1[n] for n in before(t3)})


def hand(n: int, *, moon: int | None = None, sun: int | None = None) -> HandRecord:
    return HandRecord(hand=n, pass_direction="left", dealer=0, deal=((), (), (), ()), moon=moon, sun=sun)


def test_moons_count_moons_and_suns(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        hands = [hand(0, moon=0), hand(1, sun=0), hand(2, sun=2), hand(3)]
        store.save_match(
            record(
                "m1",
                None,
                "standard",
                {"a": 1, "b": 2, "c": 3, "d": 4},
                hands=hands,
                scores={"a": 10, "b": 30, "c": 50, "d": 70},
            )
        )
        lb = load_leaderboard(store)
        assert {r.bot: r.moons for r in lb.rows} == {"a": 2, "b": 0, "c": 1, "d": 0}
        # pts/hand is the final score over the hands played (what the total grew by per hand).
        assert {r.bot: r.points_per_hand for r in lb.rows} == {"a": 2.5, "b": 7.5, "c": 12.5, "d": 17.5}
