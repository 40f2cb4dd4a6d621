"""Fixes of a review of ``ladder/``: real SQLite files in tmp_path, hand-made match records where
the referee's play is not the point."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread
from ladder import tournament
from ladder.cli import main
from ladder.launcher import Launcher
from ladder.leaderboard import live_elo, load_leaderboard
from ladder.ratings import ELO_BASE
from ladder.registry import BotEntry, add_bot, add_bots, get_bot, load_bots_file
from ladder.store import Store
from ladder.tournament import (
    AlreadyRecorded,
    TournamentBusy,
    TournamentSpec,
    create_tournament,
    get_tournament,
    pending_matches,
    run_tournament,
    save_scheduled,
)
from referee.record import HandRecord, MatchRecord, SeatRecord
from referee.rules import Rules
from referee.seats import GrpcSeat

FAST = "standard,target=30"  # short matches

BOTS = [BotEntry(n, command=f"python -m clients.bots.lowest --port {{port}} --name {n}") for n in "abcd"]


def record(mid: str, tid: int | None, rules: str, places: dict[str, int], *,
           hands: list[HandRecord] | None = None, scores: dict[str, int] | None = None) -> MatchRecord:
    """A finished match of the bots in ``places`` (seat order as given)."""
    seats = [SeatRecord(seat=i, bot=b, place=p, final_score=(scores or {}).get(b, 10 * p))
             for i, (b, p) in enumerate(places.items())]
    return MatchRecord(match_id=mid, seed=1, rules=Rules.parse(rules).to_dict(), seats=seats,
                       started_at="2024-01-01T00:00:00.000+00:00", tournament_id=tid, hands=hands or [])


def play_by_hand(store: Store, tid: int, places: dict[str, int]) -> None:
    """Save every pending match of ``tid`` as if played, with the given places."""
    rules = store.db.execute("SELECT rules FROM tournaments WHERE id = ?", [tid]).fetchone()[0]
    for m in pending_matches(store, tid):
        save_scheduled(store, tid, m.index, record(f"t{tid}-{m.index:06d}", tid, rules,
                                                   {b: places[b] for b in m.seats}))


# -- 2: live Elo follows the leaderboard's filters -----------------------------------------------


def test_live_elo_counts_only_the_filtered_matches(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        t1 = create_tournament(store, BOTS, TournamentSpec(rules="standard", seed=1))
        t2 = create_tournament(store, BOTS, TournamentSpec(rules="standard,target=50", seed=2))
        play_by_hand(store, t1, {"a": 1, "b": 2, "c": 3, "d": 4})
        play_by_hand(store, t2, {"a": 4, "b": 3, "c": 2, "d": 1})

        def changes(tid: int) -> dict[str, float]:
            return {n: ELO_BASE + v for n, v in store.db.execute(
                "SELECT b.name, SUM(l.elo_change) FROM live_elo l JOIN bots b ON b.id = l.bot_id "
                "JOIN matches m ON m.id = l.match_id WHERE m.tournament_id = ? GROUP BY b.name", [tid])}

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
            {k: v for k, v in changes(t2).items() if k in "ad"})
        # Saving goes on from the figure of the match's ruleset: t2 (another ruleset) started at 1500,
        # a third tournament of t1's ruleset where t1 ended.
        t3 = create_tournament(store, BOTS, TournamentSpec(rules="standard", seed=3))
        play_by_hand(store, t3, {"a": 1, "b": 2, "c": 3, "d": 4})

        def before(tid: int) -> dict[str, float]:
            return dict(store.db.execute("SELECT b.name, l.elo_before FROM live_elo l JOIN bots b ON b.id = "
                                         "l.bot_id WHERE l.match_id = ?", [f"t{tid}-000000"]).fetchall())

        assert before(t2) == pytest.approx(dict.fromkeys(before(t2), ELO_BASE))
        assert before(t3) == pytest.approx({n: only_t1[n] for n in before(t3)})


# -- 3: a sun counts as a moon -------------------------------------------------------------------


def hand(n: int, *, moon: int | None = None, sun: int | None = None) -> HandRecord:
    return HandRecord(hand=n, pass_direction="left", dealer=0, deal=((), (), (), ()), moon=moon, sun=sun)


def test_moons_count_moons_and_suns(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        hands = [hand(0, moon=0), hand(1, sun=0), hand(2, sun=2), hand(3)]
        store.save_match(record("m1", None, "standard", {"a": 1, "b": 2, "c": 3, "d": 4}, hands=hands,
                                scores={"a": 10, "b": 30, "c": 50, "d": 70}))
        lb = load_leaderboard(store)
        assert {r.bot: r.moons for r in lb.rows} == {"a": 2, "b": 0, "c": 1, "d": 0}
        # pts/hand is the final score over the hands played (what the total grew by per hand).
        assert {r.bot: r.points_per_hand for r in lb.rows} == {"a": 2.5, "b": 7.5, "c": 12.5, "d": 17.5}


def test_both_docs_define_pts_per_hand_alike() -> None:
    root = Path(__file__).resolve().parents[2]
    definition = "| pts/hand | final score / hands played: what the bot's total grew by per hand (lower is better) |"
    for doc in ("cli.md", "tournaments.md"):
        assert definition in (root / "docs" / doc).read_text(), doc


# -- 4: a bots file without descriptions keeps the registered ones --------------------------------


def test_registering_from_a_bots_file_keeps_descriptions(tmp_path: Path) -> None:
    f = tmp_path / "bots.toml"
    f.write_text('[bots.a]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
                 '[bots.b]\naddress = "127.0.0.1:5"\ndescription = "from the file"\n')
    with Store(tmp_path / "arena.db") as store:
        add_bot(store, BotEntry("a", command="python -m clients.bots.random --port {port}",
                                description="kept"))
        add_bot(store, BotEntry("b", address="127.0.0.1:5", description="replaced"))
        add_bots(store, load_bots_file(f))
        a, b = get_bot(store, "a"), get_bot(store, "b")
        assert a is not None and a.description == "kept" and a.command is not None and "lowest" in a.command
        assert b is not None and b.description == "from the file"
        # None keeps, "" clears; a new bot without one has none.
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}"))
        assert get_bot(store, "a") == BotEntry("a", command="python -m clients.bots.lowest --port {port}",
                                               description="kept")
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}", description=""))
        assert get_bot(store, "a").description is None  # type: ignore[union-attr]
        add_bot(store, BotEntry("c", address="127.0.0.1:6"))
        assert get_bot(store, "c").description is None  # type: ignore[union-attr]
        # create_tournament registers the bots file's entries the same way (tournament run --bots).
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}", description="again"))
        create_tournament(store, [*load_bots_file(f), BotEntry("c", address="127.0.0.1:6"),
                                  BotEntry("d", address="127.0.0.1:7")], TournamentSpec(seed=3))
        assert get_bot(store, "a").description == "again"  # type: ignore[union-attr]


# -- 5: the play loop saves a whole batch, and a new address never leaks a channel ----------------


@pytest.fixture()
def servers() -> Iterator[list[ThreadedBotServer]]:
    srvs = [start_in_thread(make_bot("lowest")) for _ in range(2)]
    yield srvs
    for s in srvs:
        s.stop()


def remote_bots(address: str) -> list[BotEntry]:
    return [BotEntry(n, address=address) for n in "abcd"]


def test_one_failing_match_does_not_lose_the_others_of_its_batch(
        tmp_path: Path, servers: list[ThreadedBotServer], monkeypatch: pytest.MonkeyPatch) -> None:
    real = tournament.play_match
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

    monkeypatch.setattr(tournament, "play_match", flaky)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, remote_bots(servers[0].address), TournamentSpec(rules=FAST, seed=4))
        with pytest.raises(RuntimeError, match="a referee bug"):
            run_tournament(store, tid, concurrency=4, log_dir=tmp_path / "logs")
        assert [m.index for m in pending_matches(store, tid)] == [2]
        assert get_tournament(store, tid).done == 3


def test_a_new_address_replaces_the_seat_before_the_old_one_closes(
        tmp_path: Path, servers: list[ThreadedBotServer], monkeypatch: pytest.MonkeyPatch) -> None:
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
        return servers[1].address  # every bot was restarted elsewhere

    monkeypatch.setattr(tournament, "GrpcSeat", Seat)
    monkeypatch.setattr(Launcher, "ensure", moved)
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, remote_bots(servers[0].address), TournamentSpec(rules=FAST, seed=4))
        assert run_tournament(store, tid, concurrency=4, log_dir=tmp_path / "logs").played == 4
    assert len(seats) == 8  # one per bot at the start, one per bot at its new address
    assert all(id(s) in closed for s in seats), "a seat was replaced without being closed"


# -- 6: one process plays a tournament at a time --------------------------------------------------


def test_a_resume_is_refused_while_another_live_process_plays(
        tmp_path: Path, servers: list[ThreadedBotServer]) -> None:
    db = tmp_path / "arena.db"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with Store(db) as store:
            tid = create_tournament(store, remote_bots(servers[0].address), TournamentSpec(rules=FAST, seed=4))
            store.db.execute("UPDATE tournaments SET runner_pid = ? WHERE id = ?", [other.pid, tid])
            store.db.conn.commit()
            with pytest.raises(TournamentBusy, match=f"tournament {tid} is being played by process {other.pid}; "
                                                     "wait for it or stop it"):
                run_tournament(store, tid, log_dir=tmp_path / "logs")
            assert get_tournament(store, tid).done == 0
            result = CliRunner().invoke(main, ["tournament", "resume", str(tid), "--db", str(db)])
            assert result.exit_code != 0 and f"being played by process {other.pid}" in result.output
    finally:
        other.kill()
        other.wait()
    with Store(db) as store:  # the process is gone: its claim is stale and taken over
        assert run_tournament(store, tid, log_dir=tmp_path / "logs").played == 4
        assert store.db.execute("SELECT runner_pid FROM tournaments WHERE id = ?", [tid]).fetchone()[0] is None


def test_a_match_recorded_by_another_process_is_already_recorded(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, BOTS, TournamentSpec(rules=FAST, seed=1))
        rec = record(f"t{tid}-000000", tid, FAST, {"a": 1, "b": 2, "c": 3, "d": 4})
        save_scheduled(store, tid, 0, rec)
        with pytest.raises(AlreadyRecorded, match="already recorded"):
            save_scheduled(store, tid, 0, rec)  # the same match id: an IntegrityError in save_match
        assert get_tournament(store, tid).done == 1
