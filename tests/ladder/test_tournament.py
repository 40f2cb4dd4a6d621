"""Tournaments with real subprocess bots over loopback gRPC and real SQLite files."""

from __future__ import annotations

import asyncio
import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from bot_entries import remote_bots, sample

from clients.sdk import ThreadedBotServer
from ladder.bots.launcher import Launcher
from ladder.bots.registry import BotEntry
from ladder.ratings.leaderboard import live_elo, load_leaderboard
from ladder.store import Store
from ladder.tournament.progress import Progress
from ladder.tournament.run import (
    TournamentSpec,
    create_tournament,
    get_tournament,
    list_tournaments,
    pending_matches,
    run_tournament,
)
from ladder.venues import here
from referee.record import MatchRecord
from referee.seats import GrpcSeat

HERE = Path(__file__).parent
FAST = "standard,target=30"  # short matches: the tests are about the harness, not the game


def scheduled_vs_recorded(store: Store, tid: int) -> list[tuple[object, ...]]:
    """Every scheduled match beside its record: (idx, scheduled seed, seats, recorded seed, bots)."""
    return store.db.execute(
        "SELECT tm.idx, tm.seed, tm.seats, m.seed, "
        "(SELECT json_group_array(name) FROM (SELECT b.name FROM seats s JOIN bots b ON b.id = s.bot_id "
        " WHERE s.match_id = m.id ORDER BY s.seat)) "
        "FROM tournament_matches tm LEFT JOIN matches m ON m.id = tm.match_id WHERE tm.tournament_id = ? "
        "ORDER BY tm.idx",
        [tid],
    ).fetchall()


@pytest.mark.slow
def test_a_round_robin_is_played_recorded_and_ranked(tmp_path: Path) -> None:
    bots = [
        sample("random", "random", 1),
        sample("random-2", "random", 2),
        sample("lowest", "lowest"),
        sample("heuristic", "heuristic"),
        sample("lowest-2", "lowest"),
    ]
    out = io.StringIO()
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=FAST, deals=1, seed=5))
        info = get_tournament(store, tid)
        assert (info.total, info.done, info.status) == (5 * 4, 0, "pending")
        with Progress(info.total, title="t", stream=out, rich=False, every_s=0) as progress:
            summary = run_tournament(store, tid, concurrency=3, on_record=progress.on_record)
        assert summary.played == 20 and summary.remaining == 0
        info = get_tournament(store, tid)
        assert (info.done, info.status) == (20, "finished") and info.finished_at
        assert [t.id for t in list_tournaments(store)] == [tid]
        rows = scheduled_vs_recorded(store, tid)
        assert len(rows) == 20
        for _idx, seed, seats, recorded_seed, bots_json in rows:
            assert recorded_seed == seed and json.loads(bots_json) == json.loads(seats)
        # Duplicate deals: each seed was played by every bot of its table from every seat.
        cells: defaultdict[int, set[tuple[int, str]]] = defaultdict(set)
        for m in store.list_matches(tournament_id=tid):
            cells[m.seed] |= {(seat, bot) for seat, bot in enumerate(m.bots)}
        assert len(cells) == 5 and all(len(c) == 16 for c in cells.values())
        # Live Elo: one change per player per match, zero-sum per match.
        sums = store.db.execute("SELECT match_id, SUM(elo_change), COUNT(*) FROM live_elo GROUP BY match_id").fetchall()
        assert len(sums) == 20 and all(abs(s) < 1e-9 and n == 4 for _m, s, n in sums)
        assert sum(live_elo(store).values()) == pytest.approx(1500 * 5)
        lb = load_leaderboard(store, tournament_id=tid, provisional_games=5)
        assert lb.matches == 20 and {r.games for r in lb.rows} == {16}
        assert all(math.isfinite(r.ci95) and r.dup_delta is not None for r in lb.rows)
        assert lb["heuristic"].rank < lb["random"].rank  # the strong bot outranks the random one
        # Running it again plays nothing.
        assert run_tournament(store, tid).played == 0
    text = out.getvalue()
    assert "t: 0/20 matches" in text and "t: 20/20 matches" in text and "matches/s" in text and "ETA" in text
    assert (tmp_path / "logs" / "heuristic.log").exists()


@pytest.mark.slow
def test_a_bot_that_dies_between_matches_is_restarted(tmp_path: Path) -> None:
    mark = tmp_path / "died"
    bots = [
        sample("a", "lowest"),
        sample("b", "random", 1),
        sample("c", "random", 2),
        BotEntry("mortal", command=f"python {HERE / 'bots' / 'mortal.py'} {{port}} 5 {mark}"),
    ]
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=FAST, deals=2, seed=1))
        summary = run_tournament(store, tid, concurrency=1)
        assert mark.exists() and summary.remaining == 0 and summary.played == 8
        assert any("'mortal' exited (code 17); restarting" in e for e in summary.events)
        # The match it died in: a transport fault and a forfeit; every later match is clean.
        records = [store.load_match(m.match_id) for m in store.list_matches(tournament_id=tid)]
        forfeited = [r for r in records if any(s.forfeit for s in r.seats)]
        assert len(forfeited) == 1 and forfeited[0].seats[[s.bot for s in forfeited[0].seats].index("mortal")].forfeit
        assert sum(1 for r in records if not r.faults) == 7
    assert (tmp_path / "logs" / "mortal.log").read_text().count("listening on") == 2


@pytest.mark.slow
def test_a_bot_that_stops_answering_but_lingers_is_replaced_not_seated_again(tmp_path: Path) -> None:
    """The referee sees the connection drop before the process exits: the next match must not
    seat the dead address (a second forfeit) but check the bot's health and start a new one."""
    mark = tmp_path / "silent"
    bots = [
        sample("a", "lowest"),
        sample("b", "random", 1),
        sample("c", "random", 2),
        BotEntry("lingering", command=f"python {HERE / 'bots' / 'lingering.py'} {{port}} 5 {mark}"),
    ]
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=FAST, deals=2, seed=1))
        summary = run_tournament(store, tid, concurrency=1)
        assert mark.exists() and summary.remaining == 0 and summary.played == 8
        records = [store.load_match(m.match_id) for m in store.list_matches(tournament_id=tid)]
        forfeited = [r for r in records if any(s.forfeit for s in r.seats)]
        assert len(forfeited) == 1, [[(s.bot, s.forfeit_reason) for s in r.seats if s.forfeit] for r in forfeited]
    assert (tmp_path / "logs" / "lingering.log").read_text().count("listening on") == 2


@pytest.mark.slow
def test_max_concurrent_games_is_never_exceeded(tmp_path: Path) -> None:
    out = tmp_path / "counts.json"
    bots = [
        BotEntry("counting", command=f"python {HERE / 'bots' / 'counting.py'} {{port}} 2 {out}"),
        sample("a", "lowest"),
        sample("b", "random", 1),
        sample("c", "random", 2),
        sample("d", "lowest"),
    ]
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules=FAST, deals=1, seed=3))
        summary = run_tournament(store, tid, concurrency=5)
        assert summary.remaining == 0 and summary.faults == 0
    assert summary.limits["counting"] == 2
    counts = json.loads(out.read_text())
    assert counts["requests"] > 0
    assert counts["max_matches"] <= 2 and counts["max_requests"] <= 2
    assert summary.max_in_flight["counting"] == 2  # the limit was reached: the test had teeth
    assert max(summary.max_in_flight[b] for b in "abcd") > 2  # unlimited bots did serve more at once


def test_bad_specs_are_refused_before_anything_is_stored(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(ValueError, match="rules"):
            create_tournament(store, [sample("a", "lowest")] * 1, TournamentSpec(rules="nonsense"))
        with pytest.raises(ValueError, match="cannot fill a table"):
            create_tournament(store, [sample("a", "lowest"), sample("b", "lowest")], TournamentSpec())
        assert list_tournaments(store) == []
        with pytest.raises(KeyError, match="no tournament 9"):
            get_tournament(store, 9)
        tid = create_tournament(store, [sample(n, "lowest") for n in "abc"], TournamentSpec(rules="standard,players=3"))
        assert len(pending_matches(store, tid)) == 3


# -- the play loop saves a whole batch, and a new address never leaks a channel -------------------


@pytest.mark.slow
def test_one_failing_match_does_not_lose_the_others_of_its_batch(
    tmp_path: Path, lowest_servers: list[ThreadedBotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = here.play_match
    finished: list[str] = []
    all_done = asyncio.Event()

    async def flaky(*args: Any, match_id: str, **kw: Any) -> MatchRecord:
        rec = await real(*args, match_id=match_id, **kw)
        finished.append(match_id)
        if len(finished) == 4:
            all_done.set()
        await all_done.wait()  # the four matches end in one batch
        if match_id.endswith("000002"):
            raise RuntimeError("a referee bug")
        return rec

    monkeypatch.setattr(here, "play_match", flaky)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, remote_bots(lowest_servers[0].address), TournamentSpec(rules=FAST, seed=4))
        with pytest.raises(RuntimeError, match="a referee bug"):
            run_tournament(store, tid, concurrency=4, log_dir=tmp_path / "logs")
        assert [m.index for m in pending_matches(store, tid)] == [2]
        assert get_tournament(store, tid).done == 3


@pytest.mark.slow
def test_a_new_address_replaces_the_seat_before_the_old_one_closes(
    tmp_path: Path, lowest_servers: list[ThreadedBotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    seats: list[GrpcSeat] = []
    closed: set[int] = set()

    class Seat(GrpcSeat):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            seats.append(self)

        async def close(self) -> None:
            closed.add(id(self))
            await asyncio.sleep(0.01)  # closing a channel may take a while: other matches run meanwhile
            await super().close()

    async def moved(self: Launcher, name: str, *, check: bool = False) -> str:
        return lowest_servers[1].address  # every bot was restarted elsewhere

    monkeypatch.setattr(here, "GrpcSeat", Seat)
    monkeypatch.setattr(Launcher, "ensure", moved)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, remote_bots(lowest_servers[0].address), TournamentSpec(rules=FAST, seed=4))
        assert run_tournament(store, tid, concurrency=4, log_dir=tmp_path / "logs").played == 4
    assert len(seats) == 8  # one per bot at the start, one per bot at its new address
    assert all(id(s) in closed for s in seats), "a seat was replaced without being closed"


def test_a_partnership_tournament_schedules_every_pairing_of_partners(tmp_path: Path) -> None:
    """002 Partnership Hearts, 'partners sitting opposite each other': four bots at one table play it in
    its three pairings (each in every seat rotation), so no two bots share every result."""
    bots = [sample("random", "random", 1), sample("lowest", "lowest"), sample("heuristic", "heuristic")]
    bots.append(sample("random-2", "random", 2))
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules="partnership", deals=1, seed=5))
        assert get_tournament(store, tid).total == 3 * 4
        rows = store.db.execute("SELECT seats FROM tournament_matches WHERE tournament_id = ?", [tid]).fetchall()
    pairs = {frozenset((s[i], s[i + 2])) for (text,) in rows for s in [json.loads(text)] for i in (0, 1)}
    assert len(pairs) == 6  # every two of the four bots partnered
