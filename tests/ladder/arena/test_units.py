"""The arena's parts on their own: arena.toml's checks, tokens, the choice of tables."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from ladder.arena import worker
from ladder.arena.accounts import AccountError, add_user, authenticate, new_token, read_roster
from ladder.arena.config import TEMPLATE, ArenaConfig, ArenaConfigError, parse_config
from ladder.arena.scheduler import NEW_GAMES, Standing, next_batch
from ladder.arena.store import ArenaStore, VersionRow, VersionStatus
from ladder.arena.worker import _build
from ladder.bots.registry import BotEntry
from ladder.sandbox import Limits, SandboxMode
from referee.settings import TimeControl

pytestmark = pytest.mark.slow  # whole processes and servers


def test_the_template_is_the_defaults_and_reads_back() -> None:
    cfg = parse_config(tomllib.loads(TEMPLATE))
    assert cfg.rules == "standard" and cfg.host == "127.0.0.1" and cfg.deadline is None and not cfg.anonymous
    assert [h.name for h in cfg.house] == ["random", "random-2", "lowest", "heuristic"]
    assert (cfg.play_guests, cfg.play_tables, cfg.play_target) == (False, 4, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[ladder]\nrules = 'nosuch'\n", "[ladder] rules"),
        ("[ladder]\nconcurrency = 0\n", "[ladder] concurrency: must be at least 1"),
        ("[time]\nbudgt_ms = 5\n", "[time] unknown key(s) budgt_ms"),
        ("[classroom]\ndeadline = 'tomorrow'\n", "[classroom] deadline: 'tomorrow' is not an ISO 8601 time"),
        ("[classroom]\ndeadline = 2026-12-18T17:00:00\n", "[classroom] deadline: give a time with its zone"),
        ("[classroom]\nanonymous = 'yes'\n", "[classroom] anonymous: expected bool"),
        ("[house.x]\ncommand = 'a'\naddress = 'b:1'\n", "[house.x]: give exactly one of command or address"),
        ("[house.x]\ncommand = 'a'\nbudget_ms = 0\n", "[house.x]: budget_ms must be a number of milliseconds, above 0"),
        ("[house.x]\ncommand = 'a'\nbudgetms = 5\n", "[house.x]: unknown key(s) budgetms (known: command or address"),
        ("colour = 'red'\n", "unknown key(s) colour"),
    ],
)
def test_a_bad_setting_is_named_by_its_key(text: str, message: str) -> None:
    with pytest.raises(ArenaConfigError) as e:
        parse_config(tomllib.loads(text), "arena.toml")
    assert message in str(e.value) and str(e.value).startswith("arena.toml")


def test_user_add_json_names_its_shape_and_gives_each_token_once(tmp_path: Path) -> None:
    hearts = [sys.executable, "-m", "ladder.cli"]
    subprocess.run([*hearts, "arena", "init", str(tmp_path / "a")], check=True, capture_output=True, timeout=60)
    (tmp_path / "roster.csv").write_text("name\nalice\nbob\n")
    out = subprocess.run(
        [
            *hearts,
            "arena",
            "user",
            "add",
            "--roster",
            str(tmp_path / "roster.csv"),
            "--dir",
            str(tmp_path / "a"),
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    made = json.loads(out)
    assert (made["schema"], made["version"]) == ("hearts-arena/tokens", 1)
    assert [u["name"] for u in made["users"]] == ["alice", "bob"] and all(u["token"] for u in made["users"])


def test_tokens_are_stored_as_scrypt_hashes_and_a_new_one_revokes_the_old(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "arena.db")
    account, token = add_user(store, "alice")
    row = store.user(account.id)
    assert row is not None and row.token_hash.startswith("scrypt$") and token not in row.token_hash
    assert authenticate(store, token) == account
    assert authenticate(store, token + "x") is None and authenticate(store, "garbage") is None
    assert authenticate(store, f"{account.id + 7}.{token.split('.', 1)[1]}") is None
    fresh = new_token(store, "alice")
    assert authenticate(store, token) is None, "the old token stops working at once"
    assert authenticate(store, fresh) == account
    with pytest.raises(AccountError, match="exists already"):
        add_user(store, "alice")
    with pytest.raises(AccountError, match="not allowed"):
        add_user(store, "../alice")
    store.close()


def test_a_roster_names_its_participants(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("email,name\na@x,alice\nb@x, bob \n,\n")
    assert read_roster(tmp_path / "a.csv") == ["alice", "bob"]
    (tmp_path / "b.csv").write_text("carol\ndave\n")
    assert read_roster(tmp_path / "b.csv") == ["carol", "dave"]


def test_tables_centre_on_new_versions_then_wide_intervals_against_near_ratings() -> None:
    bots = [f"b{i}" for i in range(8)]
    st = {b: Standing(elo=1000 + 100 * i, ci95=50, games=100) for i, b in enumerate(bots)}
    st["b7"] = Standing(elo=1500, ci95=900, games=NEW_GAMES - 1)  # new
    st["b2"] = Standing(elo=1200, ci95=400, games=100)  # the widest of the rest
    batch = next_batch(bots, st, players=4, tables=2, start=40, rules="standard")
    assert len(batch) == 8 and [m.index for m in batch] == list(range(40, 48))
    first, second = {m.table: set(m.seats) for m in batch}.values()
    assert "b7" in first and "b2" in second
    assert "b0" not in first, "the new version (1500) meets bots near it, not the weakest (1000)"
    # Duplicate deals: each table is one deal in every rotation, every bot in every seat once.
    for t in (0, 1):
        ms = [m for m in batch if m.table == t]
        assert len({m.seed for m in ms}) == 1
        assert all(Counter(m.seats[s] for m in ms) == Counter(ms[0].seats) for s in range(4))
    # Rebuilt after a crash, a batch is the same batch.
    assert next_batch(bots, st, players=4, tables=2, start=40, rules="standard") == batch
    assert next_batch(bots[:3], st, players=4, tables=2, start=0, rules="standard") == []


def test_a_build_past_its_time_limit_is_stopped_and_says_so(tmp_path: Path) -> None:
    t0 = time.monotonic()
    report = asyncio.run(_build("echo started; sleep 20; echo never", tmp_path, 1.0, Limits()))
    assert time.monotonic() - t0 < 8
    assert report["timed_out"] and not report["ok"] and "longer than 1 s" in report["error"]
    assert "started" in report["output"] and "never" not in report["output"]


def test_the_jail_runs_a_bot_in_its_directory_under_its_cpu_limit(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("here")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ladder.arena.jail",
            "--cpu",
            "1",
            str(tmp_path),
            "python -c 'print(open(\"mine.txt\").read())'",
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0 and r.stdout.strip() == "here"
    t0 = time.monotonic()
    spin = subprocess.run(
        [sys.executable, "-m", "ladder.arena.jail", "--cpu", "1", str(tmp_path), "python -c 'while 1: pass'"],
        timeout=30,
    )
    assert spin.returncode < 0 and time.monotonic() - t0 < 10, "stopped by SIGXCPU (or SIGKILL) after 1 s of CPU"


def _version(tmp_path: Path) -> VersionRow:
    (tmp_path / "bot.py").write_text("")
    return VersionRow(
        1, 1, 1, "mine.v1", "archive", "h", 1, 1, str(tmp_path), "python bot.py --port {port}", None, "python",
        None, 1, "t", VersionStatus.VALID, None, None, "t", "mine",
    )  # fmt: skip


def test_a_house_bot_plays_under_its_own_clock_where_arena_toml_gives_one(tmp_path: Path) -> None:
    cfg = parse_config(
        tomllib.loads(
            "[time]\nbudget_ms = 1000\n[house.mc]\ncommand = 'python -m clients.bots.montecarlo --port {port}'\n"
            "budget_ms = 50\nbank_ms = 0\n[house.lowest]\ncommand = 'python -m clients.bots.lowest --port {port}'\n"
        )
    )
    store = ArenaStore(tmp_path / "arena.db")
    try:
        add_user(store, "teacher", organiser=True)
        worker.sync_house(store, cfg)
        entries = {v.bot: worker.bot_entry(v, cfg) for v in store.newest_valid()}
    finally:
        store.close()
    assert entries["mc"].time_control == TimeControl(budget_ms=50, bank_ms=0)
    assert entries["lowest"].time_control is None, "the others play under [time]"
    # The ladder's and the final's tournaments store their entries so: the clock goes with them.
    assert BotEntry.from_dict(entries["mc"].to_dict()).time_control == TimeControl(budget_ms=50, bank_ms=0)


def test_a_version_runs_in_the_sandbox_else_under_the_limits_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = ArenaConfig()
    monkeypatch.setattr(worker, "sandbox_mode", lambda: (SandboxMode.FULL, None))
    e = worker.bot_entry(_version(tmp_path), cfg)
    assert e.sandbox and e.limits is not None and e.limits.memory_mb == cfg.limits.memory_mb
    assert e.command == f"python {tmp_path.resolve() / 'bot.py'} --port {{port}}", "the sandbox mounts its directory"
    assert worker.play_mode() is SandboxMode.OFF, "house bots as they are; submitted ones by their entries"
    monkeypatch.setattr(worker, "sandbox_mode", lambda: (SandboxMode.LIMITS_ONLY, "NO SANDBOX: ..."))
    e = worker.bot_entry(_version(tmp_path), cfg)
    assert not e.sandbox and e.command is not None and e.command.startswith("python -m ladder.arena.jail --cpu 600 ")
    assert worker.play_mode() is SandboxMode.LIMITS_ONLY


def test_two_bots_of_one_participant_never_share_a_table_while_others_can_sit() -> None:
    """Team-mates at one table could play for each other (they may know each other's seats)."""
    bots = ["m1.v1", "m2.v1", "m3.v1", "alice.v1", "bob.v1", "carol.v1", "house1.v1", "house2.v1"]
    owners = {"m1.v1": "mallory", "m2.v1": "mallory", "m3.v1": "mallory", "alice.v1": "alice"}
    owners |= {"bob.v1": "bob", "carol.v1": "carol"}  # the house bots have no participant
    st = {b: Standing(1500.0 + 5 * i, 100.0, 50) for i, b in enumerate(bots)}
    batch = next_batch(bots, st, players=4, tables=16, start=0, rules="standard", owners=owners)
    for m in batch:
        mine = [b for b in m.seats if owners.get(b) == "mallory"]
        assert len(mine) <= 1, m.seats
    # Without enough other participants, the table is filled all the same.
    few = next_batch(bots[:4], st, players=4, tables=2, start=0, rules="standard", owners=owners)
    assert few and all(len(m.seats) == 4 for m in few)


def test_the_arena_s_database_fsyncs_every_commit(tmp_path: Path) -> None:
    """A submission the arena has accepted survives a power loss (the ladder's own store does not fsync each commit)."""
    store = ArenaStore(tmp_path / "arena.db")
    try:
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        store.close()


def test_the_ladder_deals_from_a_secret_seed(tmp_path: Path) -> None:
    """Every bot is sent its match id (t{tournament}-{index}), which names the batch and table its deal
    is drawn from: with a known tournament seed (it was 0) a bot could deal every other hand of its
    match. Each arena's ladder draws its own secret seed, and a ladder made with seed 0 gets one."""
    from ladder.arena.config import ArenaConfig
    from ladder.tournament.run import get_tournament

    seeds = []
    for name in ("a", "b"):
        store = ArenaStore(tmp_path / f"{name}.db")
        try:
            tid = worker.ladder_tournament(store, ArenaConfig())
            assert worker.ladder_tournament(store, ArenaConfig()) == tid  # made once
            seeds.append(get_tournament(store.ladder, tid).seed)
            store.db.execute("UPDATE tournaments SET seed = 0 WHERE id = ?", [tid])
            assert worker.ladder_tournament(store, ArenaConfig()) == tid
            assert get_tournament(store.ladder, tid).seed not in (0, seeds[-1])
        finally:
            store.close()
    assert 0 not in seeds and seeds[0] != seeds[1]
