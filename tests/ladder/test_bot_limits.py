"""The organiser's per-bot limit (``max_concurrency``): a synchronous bot in a gauntlet at
``--concurrency 8``. Real bot processes on loopback gRPC, the real ``hearts`` command, real SQLite.

The synchronous bot (bots/synchronous.py) thinks 40 ms per decision on one worker thread. The
budget (150 ms, 50 ms grace) fits 40 ms alone, not 8 requests queued behind each other; the bank
(300 ms a match) takes a moment of the machine's own load, and is gone after a few queued requests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from ladder.bots.registry import BotEntry, RegistryError, add_bot, get_bot, list_bots, load_bots_file
from ladder.cli import main
from ladder.store import Store
from ladder.tournament.run import (
    TournamentSpec,
    create_tournament,
    effective_limit,
    get_tournament,
    registry_changes,
    run_tournament,
)

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
HEARTS = Path(sys.executable).with_name("hearts")
SYNC = f"python {HERE / 'bots' / 'synchronous.py'} {{port}} 40"
RULES = "standard,target=10"  # about one hand a match
CLOCK = ["--budget-ms", "150", "--bank-ms", "300", "--grace-ms", "50"]
OPPONENTS = """
[bots.lowest]
command = "python -m clients.bots.lowest --port {port}"

[bots.random]
command = "python -m clients.bots.random --port {port} --seed 1"

[bots.heuristic]
command = "python -m clients.bots.heuristic --port {port}"
"""


def bots_file(tmp_path: Path, limit_line: str = "") -> Path:
    f = tmp_path / "bots.toml"
    f.write_text(f'[bots.sync]\ncommand = "{SYNC}"\n{limit_line}\n{OPPONENTS}')
    return f


def hearts(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real ``hearts`` command in a process of its own."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(HEARTS), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)


def gauntlet(tmp_path: Path, bots: Path) -> subprocess.CompletedProcess[str]:
    # 1 table of 4 × 4 rotations × 2 deals: 8 matches, all in flight at once unless a limit holds.
    result = hearts(
        "tournament",
        "run",
        "--bots",
        str(bots),
        "--gauntlet",
        "sync",
        "--deals",
        "2",
        "--seed",
        "1",
        "--concurrency",
        "8",
        "--rules",
        RULES,
        *CLOCK,
        "--db",
        str(tmp_path / "arena.db"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def faults_of(db: Path, bot: str) -> dict[str, int]:
    with Store(db) as store:
        return dict(
            store.db.execute(
                "SELECT f.kind, COUNT(*) FROM faults f JOIN seats s ON s.match_id = f.match_id AND s.seat = f.seat "
                "JOIN bots b ON b.id = s.bot_id WHERE b.name = ? GROUP BY f.kind",
                [bot],
            ).fetchall()
        )


def most_at_once(db: Path, bot: str) -> int:
    """The most of the bot's recorded matches that were being played at the same moment."""
    with Store(db) as store:
        spans = [
            (datetime.fromisoformat(a), datetime.fromisoformat(b))
            for a, b in store.db.execute(
                "SELECT m.started_at, m.finished_at FROM matches m JOIN seats s ON s.match_id = m.id "
                "JOIN bots b ON b.id = s.bot_id WHERE b.name = ?",
                [bot],
            )
        ]
    edges = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])  # an end sorts before a start
    now = peak = 0
    for _t, step in edges:
        now += step
        peak = max(peak, now)
    return peak


@pytest.mark.slow
def test_a_synchronous_bot_without_a_limit_times_out_in_a_gauntlet_at_concurrency_8(tmp_path: Path) -> None:
    """The sibling of the next test: without a limit the same bot, clock and schedule time out."""
    result = gauntlet(tmp_path, bots_file(tmp_path))
    faults = faults_of(tmp_path / "arena.db", "sync")
    assert faults.get("timeout", 0) >= 3, faults  # its own queue was charged to it
    assert most_at_once(tmp_path / "arena.db", "sync") > 1
    assert f"sync: {sum(faults.values())} faults ({faults['timeout']} timeout" in result.stdout


@pytest.mark.slow
def test_max_concurrency_1_keeps_a_synchronous_bot_from_timing_out(tmp_path: Path) -> None:
    gauntlet(tmp_path, bots_file(tmp_path, "max_concurrency = 1"))
    db = tmp_path / "arena.db"
    assert faults_of(db, "sync") == {}
    assert most_at_once(db, "sync") == 1  # never seated in two matches at once
    with Store(db) as store:
        assert store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 8
        assert get_bot(store, "sync").max_concurrency == 1
        assert (
            get_tournament(store, 1).bots[[b.name for b in get_tournament(store, 1).bots].index("sync")].max_concurrency
            == 1
        )


@pytest.mark.slow
def test_resume_keeps_the_limit_stored_with_the_tournament(tmp_path: Path) -> None:
    """The limit travels with the tournament's bot entries: a resume holds the bot to it even
    when the bot is no longer registered."""
    db = tmp_path / "arena.db"
    with Store(db) as store:
        entries = load_bots_file(bots_file(tmp_path, "max_concurrency = 1"))
        create_tournament(
            store, entries, TournamentSpec(format="gauntlet", gauntlet="sync", rules=RULES, deals=1, seed=2)
        )
        stored = json.loads(store.db.execute("SELECT bots FROM tournaments WHERE id = 1").fetchone()[0])
        assert {b["name"]: b["max_concurrency"] for b in stored}["sync"] == 1
    assert hearts("bot", "remove", "sync", "--db", str(db)).returncode == 0
    result = hearts("tournament", "resume", "1", "--concurrency", "8", "--db", str(db))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "played 4 matches" in result.stdout
    assert most_at_once(db, "sync") == 1


@pytest.mark.slow
def test_the_lower_of_max_concurrency_and_the_handshake_applies(tmp_path: Path) -> None:
    out = tmp_path / "counts.json"
    # The counting bot declares 2 in its handshake; the organiser allows it 1.
    bots = [
        BotEntry("counting", command=f"python {HERE / 'bots' / 'counting.py'} {{port}} 2 {out}", max_concurrency=1),
        *(BotEntry(n, command="python -m clients.bots.lowest --port {port}") for n in "abcd"),
    ]
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules="standard,target=30", deals=1, seed=3))
        summary = run_tournament(store, tid, concurrency=5)
    assert summary.remaining == 0 and summary.faults == 0
    assert summary.declared["counting"] == 2 and summary.limits["counting"] == 1
    assert summary.max_in_flight["counting"] == 1 and json.loads(out.read_text())["max_matches"] == 1
    assert max(summary.max_in_flight[b] for b in "abcd") > 1  # the others were not held back


@pytest.mark.parametrize(
    "organiser,declared,limit",
    [
        (None, 0, 0),
        (0, 0, 0),
        (1, 0, 1),
        (None, 3, 3),
        (1, 3, 1),
        (4, 2, 2),
        (2, 2, 2),
    ],
)
def test_effective_limit(organiser: int | None, declared: int, limit: int) -> None:
    assert effective_limit(organiser, declared) == limit


def test_a_changed_limit_is_a_registry_change_for_resume(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        entries = load_bots_file(bots_file(tmp_path, "max_concurrency = 1"))
        tid = create_tournament(store, entries, TournamentSpec(format="gauntlet", gauntlet="sync", rules=RULES))
        assert registry_changes(store, tid) == {}
        add_bot(store, BotEntry("sync", command=SYNC, max_concurrency=2))
        assert registry_changes(store, tid) == {"sync": get_bot(store, "sync")}


# -- the registry and hearts bot add / list ------------------------------------------------------


def test_bots_files_take_a_max_concurrency(tmp_path: Path) -> None:
    f = tmp_path / "bots.toml"
    f.write_text('[bots.a]\ncommand = "x {port}"\nmax_concurrency = 1\n[bots.b]\naddress = "h:1"\n')
    assert [(b.name, b.max_concurrency) for b in load_bots_file(f)] == [("a", 1), ("b", None)]
    for bad in ("-1", '"1"', "true", "1.5"):
        f.write_text(f'[bots.a]\ncommand = "x {{port}}"\nmax_concurrency = {bad}\n')
        with pytest.raises(RegistryError, match="bots.a.max_concurrency must be a whole number"):
            load_bots_file(f)


def test_add_bot_keeps_or_clears_the_limit(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        add_bot(store, BotEntry("a", command="x {port}", max_concurrency=2))
        add_bot(store, BotEntry("a", command="y {port}"))  # None keeps it
        assert get_bot(store, "a") == BotEntry("a", command="y {port}", max_concurrency=2)
        add_bot(store, BotEntry("a", command="y {port}", max_concurrency=0))  # 0 clears it
        assert get_bot(store, "a") == BotEntry("a", command="y {port}")
    with pytest.raises(RegistryError, match="max_concurrency must be a whole number"):
        BotEntry("a", command="x", max_concurrency=-1)
    # Tournaments stored before the field existed read as no limit.
    assert BotEntry.from_dict({"name": "a", "command": "x"}).max_concurrency is None


def test_hearts_bot_add_and_list_show_the_limit(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")

    def ok(*args: str) -> str:
        result = CliRunner().invoke(main, [*args, "--db", db], env={"COLUMNS": "160"})
        assert result.exit_code == 0, result.output
        return result.output

    ok("bot", "add", "slow", "--command", "python slow.py --port {port}", "--max-concurrency", "1")
    ok("bot", "add", "fast", "--command", "python fast.py --port {port}")
    listing = ok("bot", "list")
    slow_line = next(line for line in listing.splitlines() if "slow.py" in line)
    fast_line = next(line for line in listing.splitlines() if "fast.py" in line)
    assert "limit: max_concurrency" in listing and slow_line.rstrip(" │").endswith("1") and "1" not in fast_line
    # A limit alone updates a registered bot, keeping how it is started.
    assert "updated bot 'fast'" in ok("bot", "add", "fast", "--max-concurrency", "3")
    assert "updated bot 'slow'" in ok("bot", "add", "slow", "--max-concurrency", "0")
    with Store(db) as store:
        assert {e.name: (e.command, e.max_concurrency) for e in list_bots(store)} == {
            "fast": ("python fast.py --port {port}", 3),
            "slow": ("python slow.py --port {port}", None),
        }
    bad = CliRunner().invoke(main, ["bot", "add", "x", "--command", "c", "--max-concurrency", "-1", "--db", db])
    assert bad.exit_code == 2 and "--max-concurrency" in bad.output
    mixed = CliRunner().invoke(
        main, ["bot", "add", "--from", str(bots_file(tmp_path)), "--max-concurrency", "1", "--db", db]
    )
    assert mixed.exit_code == 2 and "give either --from FILE" in mixed.output
