"""A mistake in what ``hearts`` is given, or a machine that fails it (a full disk, a read-only one),
is one ``Error:`` line that names the input and what to do, never a traceback, with the documented
exit status, and writes nothing; options out of range are refused before anything is created or any
bot is asked. Real ``hearts`` runs
(CliRunner, or a process where one must be stopped or filled up mid-run), real SQLite files, real
bot processes; a real small filesystem (tmpfs) for a full disk and a read-only one."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from bot_entries import sample
from cli_procs import (
    FAST,
    SAMPLE,
    every_command,
    fill,
    hearts,
    recorded,
    remount,
    running,
    small_filesystem,
    tournament,
    wait_until,
)
from cli_runner import run
from click.testing import CliRunner, Result

from clients.sdk import ThreadedBotServer
from ladder.bots.registry import load_bots_file
from ladder.cli import main
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, get_tournament, list_tournaments

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert "Traceback" not in result.output, result.output
    return result


def one_error(result: Result, code: int, *words: str) -> str:
    """The command failed with ``code`` and printed exactly one ``Error:`` line holding ``words``."""
    assert result.exit_code == code, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, result.output
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# -- --db ----------------------------------------------------------------------------------------


def test_a_db_that_is_not_sqlite_is_refused_by_every_command(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a database\n" * 50)
    before = snapshot(tmp_path)
    for args in every_command(str(db), str(tmp_path / "bots.toml")):
        one_error(invoke(*args), 1, f"--db {db}", "not an SQLite database")
        assert snapshot(tmp_path) == before, args


def test_a_db_in_a_missing_directory_is_refused_before_anything_is_done(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = str(tmp_path / "nodir" / "arena.db")
    bots = str(tmp_path / "bots.toml")
    for args in (
        ["tournament", "run", "--bots", bots, "--db", db, "--rules", FAST],
        ["tournament", "resume", "1", "--db", db],
        ["bot", "add", "--from", bots, "--db", db],
        ["match", *[x for i in range(4) for x in ("--seat", f"b{i}=localhost:1")], "--db", db],
    ):
        one_error(invoke(*args), 1, f"--db {db}", f"the directory {tmp_path / 'nodir'} does not exist")
        assert not (tmp_path / "nodir").exists() and not (tmp_path / "logs").exists()
    # Reading commands have nothing to read, and create nothing either.
    assert "no bots registered" in invoke("bot", "list", "--db", db).output
    assert "no tournaments" in invoke("tournament", "list", "--db", db).output
    one_error(invoke("ladder", "--db", db), 1, "no database")
    assert not (tmp_path / "nodir").exists()


@pytest.mark.slow
def test_reading_commands_work_on_a_read_only_filesystem_and_writing_ones_say_why_not(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "ro", "16m") as fs:
        (tmp_path / "bots.toml").write_text(SAMPLE)
        db, bots = str(fs / "arena.db"), str(tmp_path / "bots.toml")
        assert invoke("tournament", "run", "--bots", bots, "--db", db, "--rules", FAST, "--seed", "3").exit_code == 0
        remount(fs, "ro")
        try:
            before = snapshot(fs)
            assert "Ladder: 4 matches" in invoke("ladder", "--db", db).output
            assert "t1-000003" in invoke("matches", "--db", db).output
            assert "Match t1-000000" in invoke("replay", "t1-000000", "--db", db).output
            assert "4/4" in invoke("tournament", "list", "--db", db).output
            assert "heuristic" in invoke("bot", "list", "--db", db).output
            for args in (
                ["tournament", "run", "--bots", bots, "--db", db, "--rules", FAST],
                ["tournament", "resume", "1", "--db", db],
                ["bot", "add", "--from", bots, "--db", db],
                ["bot", "remove", "lowest", "--db", db],
            ):
                one_error(invoke(*args), 1, f"--db {db}", "read-only")
            assert snapshot(fs) == before
        finally:
            remount(fs, "rw")


def test_the_ladder_on_an_empty_file_writes_no_schema_into_it(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    for args in (["ladder"], ["matches"], ["tournament", "list"], ["bot", "list"]):
        result = invoke(*args, "--db", str(db))
        assert result.exit_code == 0 and "no " in result.output, (args, result.output)
        assert db.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"], args


@pytest.mark.slow
def test_a_full_disk_at_commit_is_said_and_the_tournament_stays_resumable(tmp_path: Path) -> None:
    # A real full disk: the database on a small tmpfs, filled up by another file mid-run.
    with small_filesystem(tmp_path / "small", "16m") as fs:
        (fs / "bots.toml").write_text(
            SAMPLE + '[bots.lowest-2]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
        )
        db = fs / "arena.db"
        with running(
            fs,
            "tournament",
            "run",
            "--bots",
            "bots.toml",
            "--db",
            "arena.db",
            "--rules",
            FAST,
            "--seed",
            "4",
            "--concurrency",
            "2",
            out_dir=tmp_path,
        ) as run:
            wait_until(lambda: recorded(db, 1) >= 2, 120, "two matches are recorded", run)
            fill(fs / "filler")
            code = run.wait(60)
            out = run.output()
        assert code == 1, out
        assert "Traceback" not in out
        [error] = [line for line in out.splitlines() if line.startswith("Error:")]
        assert "--db arena.db" in error and "disk" in error and "full" in error
        assert "hearts tournament resume 1 --db arena.db" in error
        row = tournament(db, 1)
        assert 2 <= row["done"] < row["total"] == 20
        (fs / "filler").unlink()
        resumed = hearts(fs, "tournament", "resume", "1", "--db", "arena.db")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        row = tournament(db, 1)
        assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"] == 20
        assert recorded(db, 1) == 20


# -- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value",
    [
        ("--seed", str(2**64)),
        ("--seed", str(2**63)),
        ("--seed", str(-(2**63) - 1)),
        ("--budget-ms", "nan"),
        ("--budget-ms", "inf"),
        ("--budget-ms", str(2**32)),
        ("--budget-ms", "1e12"),
        ("--bank-ms", "nan"),
        ("--bank-ms", "inf"),
        ("--bank-ms", str(2**32)),
        ("--grace-ms", "nan"),
    ],
)
def test_numbers_that_cannot_be_stored_or_timed_are_usage_errors(tmp_path: Path, option: str, value: str) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    result = invoke(
        "tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", str(db), "--rules", FAST, option, value
    )
    one_error(result, 2, f"Invalid value for '{option}'")
    assert not db.exists() and not (tmp_path / "logs").exists()
    seats = [x for i in range(4) for x in ("--seat", f"b{i}=localhost:1")]
    one_error(invoke("match", *seats, "--db", str(db), option, value), 2, f"Invalid value for '{option}'")
    assert not db.exists()


def test_a_tournament_stored_with_a_nan_clock_is_refused_on_resume_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    with Store(db) as store:  # a clock that cannot be timed: resume checks what it reads, not only what it is given
        create_tournament(store, load_bots_file(tmp_path / "bots.toml"), TournamentSpec(rules=FAST))
        (settings,) = store.db.execute("SELECT settings FROM tournaments").fetchone()
        stored = {**json.loads(settings), "budget_ms": math.nan}  # as a script or another program could write it
        store.db.execute("UPDATE tournaments SET settings = ?", [json.dumps(stored)])
        store.db.conn.commit()
    before = db.read_bytes()
    one_error(invoke("tournament", "resume", "1", "--db", str(db)), 1, "tournament 1", "budget_ms", "nan")
    assert db.read_bytes() == before and not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "run", "--concurrency", "0"],
        ["tournament", "run", "--budget-ms", "-5"],
        ["tournament", "run", "--budget-ms", "0"],
        ["tournament", "run", "--bank-ms", "-1"],
        ["tournament", "run", "--grace-ms", "-1"],
        ["tournament", "run", "--max-faults", "0"],
        ["tournament", "run", "--rounds", "0"],
        ["tournament", "run", "--deals", "-2"],
        ["tournament", "run", "--startup-timeout", "0"],
        ["tournament", "resume", "1", "--concurrency", "0"],
        ["tournament", "resume", "1", "--startup-timeout", "-1"],
        ["ladder", "--provisional-games", "-1"],
        ["matches", "--limit", "0"],
        ["bot", "serve", "lowest", "--port", "70000"],
    ],
)
def test_out_of_range_options_are_usage_errors(args: list[str], tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with Store(db) as store:
        create_tournament(store, [sample(n, "lowest") for n in "abcd"], TournamentSpec(rules=FAST, seed=1))
    if args[0] != "bot":
        args = [*args, "--db", str(db)]
    result = run(*args)
    assert result.exit_code == 2 and "is not in the range" in result.output, result.output
    option = next(a for a in args if a.startswith("--"))
    assert f"Invalid value for '{option}'" in result.output
    with Store(db) as store:  # nothing new was created
        assert [t.id for t in list_tournaments(store)] == [1] and get_tournament(store, 1).done == 0


def test_match_limits_are_checked_before_any_bot_is_asked() -> None:
    seats = [x for i in range(4) for x in ("--seat", f"b{i}=localhost:1")]
    for option, value in (("--budget-ms", "-5"), ("--bank-ms", "-5"), ("--grace-ms", "-1"), ("--max-faults", "0")):
        result = run("match", *seats, option, value)
        assert result.exit_code == 2 and f"Invalid value for '{option}'" in result.output


# -- bot serve -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_serving_on_a_taken_port_says_to_choose_another(sample_servers: dict[str, ThreadedBotServer]) -> None:
    port = sample_servers["lowest"].port
    proc = subprocess.run(
        [sys.executable, "-m", "ladder.cli", "bot", "serve", "lowest", "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert f"port {port} is taken" in proc.stderr and "--port 0" in proc.stderr


def test_bot_serve_names_its_argument() -> None:
    result = run("bot", "serve", "nosuch")
    assert result.exit_code == 2
    assert "Invalid value for 'NAME': 'nosuch' is not one of 'random', 'lowest', 'heuristic'" in result.output
    assert "bot serve [OPTIONS] NAME" in result.output


# -- bots files and commands ---------------------------------------------------------------------


def test_a_bots_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    bots = tmp_path / "latin1.toml"
    bots.write_bytes('[bots.caf\u00e9]\ncommand = "python -m clients.bots.lowest --port {port}"\n'.encode("latin-1"))
    db = tmp_path / "arena.db"
    for args in (
        ["tournament", "run", "--bots", str(bots), "--db", str(db)],
        ["bot", "add", "--from", str(bots), "--db", str(db)],
    ):
        one_error(invoke(*args), 1, str(bots), "not UTF-8", "line 1")
        assert not db.exists()


def test_a_bot_command_that_does_not_exist_is_named(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(
        SAMPLE.replace("python -m clients.bots.lowest", "no-such-bot-program").replace(
            "python -m clients.bots.heuristic", "./missing-bot.sh"
        )
    )
    db = tmp_path / "arena.db"
    result = invoke("tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", str(db), "--rules", FAST)
    error = one_error(result, 1, "failed to start: command not found:")
    assert "no-such-bot-program" in error or "./missing-bot.sh" in error
    assert "Traceback" not in result.output and "execvp" not in result.output
    assert "tournament 1 was not kept" in result.output


# -- rulesets ------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["", " ", "standard,,", ",standard", "standard,,target=30", "standard, ,target=30"])
def test_a_ruleset_with_an_empty_part_is_refused(tmp_path: Path, spec: str) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    one_error(invoke("rules", "show", spec), 2, "Invalid value for RULESET")
    one_error(
        invoke("tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", str(db), "--rules", spec),
        2,
        "Invalid value for --rules",
    )
    seats = [x for i in range(4) for x in ("--seat", f"b{i}=localhost:1")]
    one_error(invoke("match", *seats, "--rules", spec, "--db", str(db)), 2, "Invalid value for --rules")
    assert not db.exists()
    db.touch()
    one_error(invoke("ladder", "--db", str(db), "--rules", spec), 2, "Invalid value for --rules")


def test_a_gauntlet_without_its_bot_names_the_option(tmp_path: Path) -> None:
    """The library says what a gauntlet needs; the command line names the option that gives it."""
    bots = tmp_path / "bots.toml"
    bots.write_text(SAMPLE)
    result = invoke("tournament", "run", "--bots", str(bots), "--format", "gauntlet", "--db", str(tmp_path / "a.db"))
    one_error(result, 2, "--gauntlet BOT")
    assert not (tmp_path / "a.db").exists()
