"""Resume: SIGKILL a tournament mid-run, resume it, and find every scheduled match recorded once; a
resume starts each bot by its current registration."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bot_entries import sample
from cli_procs import FAST
from cli_runner import ok, run

from ladder.bots.launcher import health_check
from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, get_tournament, run_tournament

pytestmark = pytest.mark.slow  # whole processes and servers

BOTS_TOML = """
[bots.random]
command = "python -m clients.bots.random --port {port} --seed 1"
[bots.random-2]
command = "python -m clients.bots.random --port {port} --seed 2"
[bots.lowest]
command = "python -m clients.bots.lowest --port {port}"
[bots.lowest-2]
command = "python -m clients.bots.lowest --port {port}"
[bots.heuristic]
command = "python -m clients.bots.heuristic --port {port}"
"""


def recorded(db: Path) -> int:
    with sqlite3.connect(db, timeout=5) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.OperationalError:  # the schema is not there yet
            return 0


def test_sigkill_mid_run_then_resume_records_every_match_exactly_once(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS_TOML)
    db = tmp_path / "arena.db"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ladder.cli",
            "tournament",
            "run",
            "--bots",
            "bots.toml",
            "--db",
            "arena.db",
            "--rules",
            "standard,target=30",
            "--seed",
            "9",
            "--deals",
            "1",
            "--concurrency",
            "3",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while recorded(db) < 4:  # some matches saved, others surely in flight
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the tournament did not get going"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    with Store(db) as store:
        info = get_tournament(store, 1)
        assert info.total == 20 and 4 <= info.done < 20 and info.status == "running"
        before = info.done
        # The bots died with the tournament (PR_SET_PDEATHSIG), so nothing is left listening.
        addresses = re.findall(r"listening on (\S+)", "".join(p.read_text() for p in (tmp_path / "logs").glob("*.log")))
        assert len(addresses) == 5

        async def any_alive() -> bool:
            await asyncio.sleep(0.5)
            return any(await asyncio.gather(*(health_check(a, timeout=0.3) for a in addresses)))

        assert not asyncio.run(any_alive())

        summary = run_tournament(store, 1, concurrency=3)
        assert summary.played == 20 - before and summary.remaining == 0
        assert get_tournament(store, 1).status == "finished"
        q = store.db.execute
        assert q(
            "SELECT COUNT(*), COUNT(DISTINCT idx), COUNT(match_id), COUNT(DISTINCT match_id) "
            "FROM tournament_matches WHERE tournament_id = 1"
        ).fetchone() == (20, 20, 20, 20)
        assert q("SELECT COUNT(*) FROM matches WHERE tournament_id = 1").fetchone()[0] == 20
        # Each record is the scheduled match: same seed, same bots in the same seats.
        mismatched = q(
            "SELECT COUNT(*) FROM tournament_matches tm JOIN matches m ON m.id = tm.match_id "
            "WHERE tm.seed != m.seed OR json(tm.seats) != (SELECT json_group_array(name) FROM "
            "(SELECT b.name FROM seats s JOIN bots b ON b.id = s.bot_id WHERE s.match_id = m.id ORDER BY s.seat))"
        ).fetchone()[0]
        assert mismatched == 0
        # Every match carries its full set of seats and hands, and one live Elo row per player.
        assert q("SELECT COUNT(*) FROM seats").fetchone()[0] == 80
        assert q("SELECT COUNT(*) FROM live_elo").fetchone()[0] == 80
        assert (
            q(
                "SELECT COUNT(*) FROM matches m WHERE NOT EXISTS (SELECT 1 FROM hands h WHERE h.match_id = m.id)"
            ).fetchone()[0]
            == 0
        )


def test_resume_starts_a_bot_by_its_current_registration(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    broken = BotEntry("fixme", command="python -m no_such_module_here --port {port}")
    with Store(db) as store:
        tid = create_tournament(
            store,
            [sample("low", "lowest"), sample("rnd", "random", 4), sample("heur", "heuristic"), broken],
            TournamentSpec(rules=FAST, seed=5),
        )
    failed = run("tournament", "resume", str(tid), "--db", str(db), "--startup-timeout", "10")
    assert failed.exit_code == 1
    assert "bot 'fixme' failed to start" in failed.output
    assert f'hearts bot add fixme --command "..." --db {db}' in failed.output
    assert f"hearts tournament resume {tid} --db {db}" in failed.output
    with Store(db) as store:  # a resumed tournament is kept, whatever happens
        assert get_tournament(store, tid).done == 0

    ok("bot", "add", "fixme", "--command", "python -m clients.bots.lowest --port {port}", "--db", str(db))
    out = ok("tournament", "resume", str(tid), "--db", str(db))
    assert "bot 'fixme': started by its current registration (command python -m clients.bots.lowest" in out
    assert "played 4 matches" in out
    with Store(db) as store:
        info = get_tournament(store, tid)
        assert info.status == "finished" and info.done == 4
        # The entry it ran with is now the tournament's: a later resume starts the same program.
        assert {b.name: b.command for b in info.bots}["fixme"] == "python -m clients.bots.lowest --port {port}"
    listing = ok("matches", "--db", str(db), "--tournament", str(tid))
    assert all(f"t{tid}-00000{i}" in listing for i in range(4)) and "target=30" in listing
