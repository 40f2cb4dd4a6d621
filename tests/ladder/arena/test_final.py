"""Classroom mode's final tournament: each participant's last valid version, a fixed seed, duplicate
deals in a balanced round robin, N deals per table, published as its own ladder."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from arena_helpers import GOOD_BOT, HOUSE2, Arena, hearts, make_arena, write_bot

from ladder.arena.store import ArenaStore
from ladder.tournament.run import get_tournament, pending_matches

pytestmark = pytest.mark.slow  # whole processes and servers


def test_the_organiser_starts_the_final_and_it_is_its_own_ladder(tmp_path: Path, arena_factory: list[Arena]) -> None:
    a = make_arena(tmp_path, house=HOUSE2, classroom="final_deals = 2\nfinal_seed = 7")
    arena_factory.append(a)
    alice, bob = a.add_user("alice"), a.add_user("bob")
    a.serve()
    bot = write_bot(tmp_path / "b", GOOD_BOT)
    for who, token in (("alice", alice), ("bob", bob)):
        r = hearts("submit", str(bot), "--arena", a.url, "--token", token, "--bot", f"{who}-bot", check=False)
        assert r.returncode == 0, r.stdout + r.stderr
    # alice's second version is her last valid one.
    hearts("submit", str(bot), "--arena", a.url, "--token", alice, "--bot", "alice-bot")
    with a.client(a.organiser) as c:
        tid = c.post("/api/admin/final").json()["final_tournament"]
        assert c.post("/api/admin/final").json()["final_tournament"] == tid, "started once"
    status = a.wait_for(a.organiser, lambda s: s["final_tournament"] == tid)
    assert status["final_tournament"] == tid
    store = ArenaStore(a.dir / "arena.db")
    try:
        info = get_tournament(store.ladder, tid)
        names = sorted(b.name for b in info.bots)
        assert names == ["alice-bot.v2", "bob-bot.v1", "lowest.v1", "random.v1"]  # house bots fill the table
        assert info.seed == 7 and info.deals == 2 and info.format == "round-robin"
    finally:
        store.close()

    def finished(_: object) -> bool:
        s = ArenaStore(a.dir / "arena.db")
        try:
            return not pending_matches(s.ladder, tid)
        finally:
            s.close()

    a.wait_for(a.organiser, finished, timeout=120)
    with a.client(bob) as c:
        board = c.get("/api/leaderboard?board=final").json()
        assert board["tournament"] == tid and board["matches"] == 2 * 4  # 2 deals x 4 rotations
        assert {r["ladder_name"] for r in board["rows"]} == {"alice-bot.v2", "bob-bot.v1", "lowest.v1", "random.v1"}
        # A round robin's standings are its board: /api/final says what it is and how far, no more.
        final = c.get("/api/final").json()
        assert (final["format"], final["status"], final["matches"], final["scheduled"]) == (
            "round-robin",
            "finished",
            8,
            8,
        )
        assert final["swiss"] is None and final["knockout"] is None and final["seeding"] is None


def test_at_the_deadline_submissions_close_and_the_final_starts_by_itself(
    tmp_path: Path, arena_factory: list[Arena]
) -> None:
    a = make_arena(tmp_path, house=HOUSE2, classroom="final_deals = 1")
    arena_factory.append(a)
    # A roomy clock: on a loaded machine the submitted bots' validation must not time out (this is
    # about the deadline, and two valid submissions are what the final needs).
    toml = (a.dir / "arena.toml").read_text()
    assert "budget_ms = 300" in toml
    (a.dir / "arena.toml").write_text(toml.replace("budget_ms = 300", "budget_ms = 2000"))
    alice, bob = a.add_user("alice"), a.add_user("bob")
    a.serve()
    with a.client(a.organiser) as c:  # the ladder's matches are not what this is about
        assert c.post("/api/admin/pause").status_code == 200
    bot = write_bot(tmp_path / "b", GOOD_BOT)
    for who, token in (("alice", alice), ("bob", bob)):
        out = hearts(
            "submit", str(bot), "--arena", a.url, "--token", token, "--bot", f"{who}-bot", "--no-wait", "--json"
        )
        sent = json.loads(out.stdout)  # the output's shape first, then the API's version of the bot
        assert (sent["schema"], sent["version"], sent["bot"], sent["number"]) == (
            "hearts-arena/submission",
            1,
            f"{who}-bot",
            1,
        )
    # The deadline is set once both are in, a moment ahead (no margin for a loaded machine to start
    # and submit in, waited out): the arena, restarted on it, reaches it while it runs (or at once,
    # if its start took longer), the versions in the pipeline or checked, and starts the final itself.
    a.stop()
    deadline = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3)
    toml = (a.dir / "arena.toml").read_text()
    (a.dir / "arena.toml").write_text(
        toml.replace("final_deals = 1", f'final_deals = 1\ndeadline = "{deadline.isoformat(timespec="seconds")}"')
    )
    a.serve()
    status = a.wait_for(
        a.organiser,
        lambda s: s["final_tournament"] is not None or any("could not start" in e for e in s["events"]),
        timeout=90,
    )
    if status["final_tournament"] is None:  # say why: each submission's verdict
        with a.client(a.organiser) as c:
            verdicts = {w: c.get(f"/api/bots/{w}-bot/versions/1").json() for w in ("alice", "bob")}
        raise AssertionError(f"{status['events']}: {verdicts}")
    assert not status["submissions_open"]
    r = hearts("submit", str(bot), "--arena", a.url, "--token", alice, "--bot", "alice-bot", check=False)
    assert r.returncode == 1 and "submissions closed at the deadline" in r.stderr
    store = ArenaStore(a.dir / "arena.db")
    try:
        names = sorted(b.name for b in get_tournament(store.ladder, status["final_tournament"]).bots)
    finally:
        store.close()
    assert names == ["alice-bot.v1", "bob-bot.v1", "lowest.v1", "random.v1"]
