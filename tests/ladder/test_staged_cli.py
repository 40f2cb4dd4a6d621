"""A Swiss of 16 bots over 5 rounds and a knockout of 16, through the real ``hearts`` command, each
killed (SIGKILL) in its second round and resumed: every match recorded once, the rounds drawn by the
documented rules from what is recorded (re-derived here from the stored seats, independently)."""

from __future__ import annotations

import itertools
import json
import shutil
import signal
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from cli_procs import BOTS_DIR, hearts, running, wait_until

from ladder.tournament.swiss import met_counts, swiss_tables

pytestmark = pytest.mark.slow  # whole tournaments as processes

NAMES = [f"b{i:02d}" for i in range(16)]
# Deterministic (the lowest and heuristic bots), and able to freeze the run in its second round.
KINDS = ("gated:GatedLowest", "gated:GatedHeuristic")


def _bots_file(folder: Path) -> None:
    text = "".join(f'[bots.{n}]\nmodule = "{KINDS[i % 2]}"\n' for i, n in enumerate(NAMES))
    (folder / "bots.toml").write_text(text)
    shutil.copy(BOTS_DIR / "gated.py", folder)


def _q(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db, timeout=10) as c:
        return c.execute(sql, args).fetchall()


def _recorded_in(db: Path, round_: int) -> int:
    try:
        return _q(db, "SELECT COUNT(match_id) FROM tournament_matches WHERE round >= ?", round_)[0][0]
    except sqlite3.OperationalError:
        return 0  # not made yet


def _kill_in_round_two_and_resume(tmp_path: Path, db: Path, *args: str) -> str:
    # The bots freeze the run at their first card once a match of round 2 is recorded (however fast
    # the matches go, the round is under way, not over), and the run is killed there.
    (tmp_path / "gate").write_text(str(db))
    with running(tmp_path, *args, name="run") as run:
        wait_until((tmp_path / "held").exists, 120, "a match of round 2 is recorded", run)
        run.proc.send_signal(signal.SIGKILL)
        run.proc.wait(10)
    (tmp_path / "gate").unlink()
    [(status, done, total)] = _q(
        db, "SELECT status, (SELECT COUNT(match_id) FROM tournament_matches), "
        "(SELECT COUNT(*) FROM tournament_matches) FROM tournaments WHERE id = 1"
    )  # fmt: skip
    assert status == "running" and _recorded_in(db, 1) >= 1 and done < total, (status, done, total)
    resumed = hearts(tmp_path, "tournament", "resume", "1", "--workers", "0", "--db", db.name, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    return resumed.stdout


def _each_match_once(db: Path, total: int) -> None:
    assert _q(db, "SELECT COUNT(*), COUNT(DISTINCT idx), COUNT(match_id), COUNT(DISTINCT match_id) "
              "FROM tournament_matches") == [(total, total, total, total)]  # fmt: skip
    assert _q(db, "SELECT status FROM tournaments") == [("finished",)]


def _tables(db: Path) -> dict[int, list[tuple[str, ...]]]:
    """Each round's tables as seated in the first rotation of their first deal."""
    out: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    rows = _q(db, "SELECT round, table_no, seats FROM tournament_matches WHERE rotation = 0 AND deal = 0 "
              "ORDER BY round, table_no")  # fmt: skip
    for r, _t, seats in rows:
        out[r].append(tuple(json.loads(seats)))
    return dict(out)


def _points(db: Path) -> dict[tuple[int, int, bool], dict[str, list[int]]]:
    """By (round, table, sudden death): each bot's points and forfeits over those matches."""
    out: dict[tuple[int, int, bool], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    [(deals,)] = _q(db, "SELECT deals FROM tournaments WHERE id = 1")
    for r, t, d, bot, score, forfeit, hands in _q(
        db, "SELECT tm.round, tm.table_no, tm.deal, b.name, s.final_score, s.forfeit, "
        "(SELECT COUNT(*) FROM hands h WHERE h.match_id = tm.match_id) FROM tournament_matches tm "
        "JOIN seats s ON s.match_id = tm.match_id JOIN bots b ON b.id = s.bot_id"
    ):  # fmt: skip
        cell = out[(r, t, d >= deals)][bot]
        cell[0] += forfeit
        cell[1] += score
        cell[2] += hands
    return out


SERPENTINE = [
    ("b00", "b07", "b08", "b15"),
    ("b01", "b06", "b09", "b14"),
    ("b02", "b05", "b10", "b13"),
    ("b03", "b04", "b11", "b12"),
]


def test_a_swiss_of_sixteen_over_five_rounds_killed_and_resumed(tmp_path: Path) -> None:
    _bots_file(tmp_path)
    db = tmp_path / "swiss.db"
    out = _kill_in_round_two_and_resume(
        tmp_path,
        db,
        *("tournament", "run", "--bots", "bots.toml", "--format", "swiss", "--rounds", "5"),
        *("--rules", "standard,target=20", "--seed", "3", "--workers", "0", "--db", db.name),
    )
    _each_match_once(db, 5 * 4 * 4)
    tables = _tables(db)
    assert tables[0] == SERPENTINE  # no ratings yet: seeded by name, dealt like a serpentine
    points = _points(db)
    score = dict.fromkeys(NAMES, 0.0)
    margin = dict.fromkeys(NAMES, 0.0)
    for r in range(1, 5):
        # The standings after round r: a point for each table-mate beaten, a half for a tie; then the
        # margin (the table's mean points less one's own, per hand); then the seed.
        for t in range(4):
            cells = points[(r - 1, t, False)]
            mean = sum(c[1] for c in cells.values()) / 4
            for bot, (forfeits, pts, hands) in cells.items():
                mine = (forfeits, pts)
                score[bot] += sum(
                    1.0 if mine < (o[0], o[1]) else 0.5 if mine == (o[0], o[1]) else 0.0
                    for other, o in cells.items()
                    if other != bot
                )
                margin[bot] += (mean - pts) / hands
        ranked = sorted(NAMES, key=lambda b: (-score[b], -round(margin[b], 9), NAMES.index(b)))
        history = [t for rr in range(r) for t in tables[rr]]
        assert tables[r] == swiss_tables(ranked, 4, met_counts(history)), r
        assert tables[r][0][0] == ranked[0]  # the leader heads the first table
    met = met_counts([t for ts in tables.values() for t in ts])
    assert max(met.values()) <= 2
    assert "Swiss standings after 5 of 5 rounds:" in out
    assert "round 1 of 5 played; standings:" in (tmp_path / "run.out").read_text()  # said before the kill


def _order(cells: dict[str, list[int]], sudden: dict[str, list[int]], seeds: list[str]) -> list[str]:
    return sorted(cells, key=lambda b: (cells[b][0], cells[b][1], sudden.get(b, [0, 0, 0])[1], seeds.index(b)))


def test_a_knockout_of_sixteen_killed_and_resumed(tmp_path: Path) -> None:
    _bots_file(tmp_path)
    db = tmp_path / "ko.db"
    out = _kill_in_round_two_and_resume(
        tmp_path,
        db,
        *("tournament", "run", "--bots", "bots.toml", "--format", "knockout", "--advance", "2", "--deals", "2"),
        *("--rules", "standard,target=50", "--seed", "5", "--workers", "0", "--db", db.name),
    )
    tables = _tables(db)
    assert tables[0] == SERPENTINE and sorted(tables) == [0, 1, 2]
    points = _points(db)
    # Round 1 to round 2: the two best of each table (fewest points over its deals in every
    # rotation; a tie at the cut by sudden-death points, then seed), dealt again by seed.
    going = []
    for t in range(len(tables[0])):
        order = _order(points[(0, t, False)], points.get((0, t, True), {}), NAMES)
        going += order[:2]
    eight = sorted(going, key=NAMES.index)
    assert tables[1] == [(eight[0], eight[3], eight[4], eight[7]), (eight[1], eight[2], eight[5], eight[6])]
    four = sorted((b for t in range(2) for b in _order(points[(1, t, False)], points.get((1, t, True), {}), eight)[:2]),
                  key=NAMES.index)  # fmt: skip
    assert tables[2] == [tuple(four)]
    final = _order(points[(2, 0, False)], points.get((2, 0, True), {}), four)
    # Every table plays 2 deals in 4 rotations; a sudden-death deal adds 4 more matches to its table.
    [(own,)] = _q(db, "SELECT COUNT(*) FROM tournament_matches WHERE deal < 2")
    [(total,)] = _q(db, "SELECT COUNT(*) FROM tournament_matches")
    assert own == (4 + 2 + 1) * 2 * 4 and (total - own) % 4 == 0
    _each_match_once(db, total)
    assert f"winner: {final[0]}" in out
    assert "Knockout bracket of tournament 1:" in out and "go on" in out
    # Every pair of a round's tables never shares a bot.
    for ts in tables.values():
        assert not any(set(a) & set(b) for a, b in itertools.combinations(ts, 2))
