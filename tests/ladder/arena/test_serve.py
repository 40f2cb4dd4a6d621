"""hearts arena init + serve: a real uvicorn on a free port, the house bots playing continuously,
pause and resume, and an arena SIGKILLed mid-ladder and started again (nothing lost or doubled)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from arena_helpers import ROOT, Arena, hearts, make_arena, token_of

from ladder.bots.launcher import free_port
from ladder.tournament.schedule import match_seed

pytestmark = pytest.mark.slow  # whole processes and servers


def _recorded(db: Path) -> dict[str, str]:
    """Every recorded match of the arena's ladder: scheduled index -> match id (read straight from the file)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT tm.idx, tm.match_id FROM tournament_matches tm WHERE tm.match_id IS NOT NULL"
        ).fetchall()
        matches = {r[0] for r in conn.execute("SELECT id FROM matches")}
    ids = {str(i): m for i, m in rows}
    assert set(ids.values()) == matches, (
        "every match is a scheduled one, and every recorded schedule slot has its match"
    )
    return ids


def test_init_writes_a_commented_config_and_a_token_shown_once(tmp_path: Path) -> None:
    out = hearts("arena", "init", str(tmp_path / "a")).stdout
    token = token_of(out)
    text = (tmp_path / "a" / "arena.toml").read_text()
    for key in ("rules", "budget_ms", "max_faults", "memory_mb", "concurrency", "deadline", "anonymous", "[house."):
        assert key in text
    assert token not in (tmp_path / "a" / "arena.db").read_bytes().decode("latin-1"), "only a hash is stored"
    again = hearts("arena", "init", str(tmp_path / "a"), check=False)
    assert again.returncode == 1 and "exists already" in again.stderr


def test_init_draws_a_secret_final_seed_for_each_arena(tmp_path: Path) -> None:
    """The final deals from final_seed and each match's id, which every bot is sent: the template's
    2026 would let a bot deal every hand of its final matches."""
    import tomllib

    seeds = []
    for name in ("a", "b"):
        hearts("arena", "init", str(tmp_path / name))
        seeds.append(tomllib.loads((tmp_path / name / "arena.toml").read_text())["classroom"]["final_seed"])
    assert 2026 not in seeds and seeds[0] != seeds[1]


def test_a_config_error_names_the_key(tmp_path: Path) -> None:
    a = make_arena(tmp_path)
    (a.dir / "arena.toml").write_text('[time]\nbudget_ms = "fast"\n')
    r = hearts("arena", "serve", str(a.dir), check=False)
    assert r.returncode == 2 and "[time] budget_ms: expected float, not 'fast'" in r.stderr


def test_house_bots_play_continuously_and_every_call_needs_a_token(tmp_path: Path, arena_factory: list[Arena]) -> None:
    a = make_arena(tmp_path)
    arena_factory.append(a)
    a.serve()
    with a.client(None) as anon, a.client("1.wrong") as wrong, a.client(a.organiser) as org:
        for path in ("/api/status", "/api/leaderboard", "/api/bots", "/api/matches", "/api/live"):
            assert anon.get(path).status_code == 401
            assert wrong.get(path).status_code == 401
        assert anon.post("/api/admin/pause").status_code == 401
        second = hearts("arena", "serve", str(a.dir), "--port", "1", check=False)
        assert second.returncode == 1 and "another `hearts arena serve` runs on" in second.stderr
        status = a.wait_for(a.organiser, lambda s: s["matches"] >= 4)
        assert status["bots"] == 4 and status["rules"] == "standard,target=30"
        # The leaderboard's fit may be a few seconds older than the matches: wait for it to count them.
        board = a.wait_for(a.organiser, lambda b: len(b["rows"]) == 4, path="/api/leaderboard")
        assert {r["bot"] for r in board["rows"]} == {"random", "random-2", "lowest", "heuristic"}
        assert board["rows"][0]["games"] >= 4
        # Pause: the batch in play stops between matches; nothing more is recorded.
        assert org.post("/api/admin/pause").json() == {"paused": True}
        before = a.wait_for(a.organiser, lambda s: s["live"] == 0)["matches"]  # the matches in flight finish
        time.sleep(1.0)
        assert org.get("/api/status").json()["matches"] == before
        org.post("/api/admin/resume")
        a.wait_for(a.organiser, lambda s: s["matches"] > before)


def test_sigkill_mid_ladder_and_restart_lose_and_double_nothing(tmp_path: Path, arena_factory: list[Arena]) -> None:
    a = make_arena(tmp_path)
    arena_factory.append(a)
    alice = a.add_user("alice")
    a.serve()
    a.wait_for(a.organiser, lambda s: s["matches"] >= 4 and s["live"] > 0)
    # A new version mid-batch: the rest of the batch is dropped and its tables come next.
    port = free_port()
    hosted = subprocess.Popen(
        [sys.executable, "-m", "ladder.cli", "bot", "serve", "lowest", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with a.client(alice) as c:
            assert c.post("/api/bots/newcomer/versions", json={"address": f"127.0.0.1:{port}"}).status_code == 201
        a.wait_for(alice, lambda b: any(r["bot"] == "newcomer" for r in b["rows"]), path="/api/leaderboard")
        a.wait_for(a.organiser, lambda s: s["live"] > 0)
        a.kill()
        db = a.dir / "arena.db"
        before = _recorded(db)
        a.serve()  # the newcomer's server still up: the batch left by the kill is played as it was
        a.wait_for(a.organiser, lambda s: s["matches"] >= len(before) + 4)
        a.stop()
    finally:
        hosted.terminate()
        hosted.wait()
    after = _recorded(db)
    assert all(after[i] == m for i, m in before.items()), "every match recorded before the kill is kept as it was"
    # Every batch, before the kill and after, dealt from the ladder's secret seed (the match ids bots
    # are sent name round and table: with seed 0 they would name the deal too).
    with sqlite3.connect(db) as conn:
        [(tid, secret)] = conn.execute("SELECT id, seed FROM tournaments WHERE format = 'arena'").fetchall()
        scheduled = conn.execute(
            "SELECT round, table_no, seed FROM tournament_matches WHERE tournament_id = ?", [tid]
        ).fetchall()
    assert secret != 0 and len({r for r, _, _ in scheduled}) >= 2  # batches from both runs
    assert all(seed == match_seed(secret, r, t, 0) != match_seed(0, r, t, 0) for r, t, seed in scheduled)
    # hearts ladder reads the arena's database as any other.
    out = hearts("ladder", "--db", str(db), "--json").stdout
    assert "heuristic.v1" in out
