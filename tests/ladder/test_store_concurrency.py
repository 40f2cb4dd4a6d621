"""The store under concurrency, signals and stale state, mostly with the real ``hearts`` command as
processes, real bot processes and real SQLite files.

- two ``hearts tournament run`` on one file both finish while ``hearts ladder`` reads it, and a
  match that another process recorded first is refused as already recorded;
- one process plays a tournament at a time: while its runner lives, a resume is refused;
- a runner is known by its pid, its start and its host, so a pid that now names another process
  is stale, and a runner that cannot be checked is taken over with ``resume --force`` only;
- SIGTERM stops a tournament as Ctrl-C does, and a second Ctrl-C never leaves it ``running``;
- a database of a newer schema is refused and never written.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bot_entries import BOTS, remote_bots
from cli_procs import (
    BOTS_DIR,
    FAST,
    SAMPLE,
    every_command,
    hearts,
    process_gone,
    query,
    recorded,
    running,
    tournament,
    wait_until,
    write,
)
from click.testing import CliRunner
from hand_made import record

from clients.sdk import ThreadedBotServer
from ladder.cli import main
from ladder.store import Store
from ladder.store import schema as store_module
from ladder.store.save import AlreadyRecorded, save_scheduled
from ladder.tournament.run import TournamentBusy, TournamentSpec, create_tournament, get_tournament, run_tournament

pytestmark = pytest.mark.slow  # whole processes and servers

RUN = ("tournament", "run", "--bots", "bots.toml", "--db", "arena.db", "--rules", FAST)


@contextmanager
def unrelated_process() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that has nothing to do with any tournament (the owner of a reused pid)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(10)


def refused(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return True
    return False


def errors(output: str) -> list[str]:
    """The ``Error:`` lines (click prints an error unwrapped, on one line)."""
    return [line for line in output.splitlines() if line.startswith("Error:")]


# -- two writers and a reader --------------------------------------------------------------------


def test_two_runs_on_one_database_both_finish_while_the_ladder_reads(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    # One-hand matches: many commits a second from each run, so their writes surely overlap.
    args = (
        "tournament",
        "run",
        "--bots",
        "bots.toml",
        "--db",
        "arena.db",
        "--rules",
        "standard,target=1",
        "--deals",
        "5",
        "--concurrency",
        "4",
    )
    ladders = 0
    with running(tmp_path, *args, "--seed", "1", name="a") as a, running(tmp_path, *args, "--seed", "2", name="b") as b:
        wait_until(lambda: recorded(db) >= 1, 120, "a first match is recorded", a)
        deadline = time.monotonic() + 240
        while a.proc.poll() is None or b.proc.poll() is None:
            assert time.monotonic() < deadline, "the two tournaments did not end"
            ladder = hearts(tmp_path, "ladder", "--db", "arena.db", "--json")
            assert ladder.returncode == 0, ladder.stdout + ladder.stderr
            assert "Traceback" not in ladder.stderr
            json.loads(ladder.stdout)
            ladders += 1
        codes = a.wait(10), b.wait(10)
        assert codes == (0, 0), a.output() + "\n---\n" + b.output()
    assert ladders >= 1
    for tid in (1, 2):
        row = tournament(db, tid)
        assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"] == 20
    assert recorded(db) == 40


def test_a_match_recorded_by_another_process_is_already_recorded(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, BOTS, TournamentSpec(rules=FAST, seed=1))
        rec = record(f"t{tid}-000000", tid, FAST, {"a": 1, "b": 2, "c": 3, "d": 4})
        save_scheduled(store, tid, 0, rec)
        with pytest.raises(AlreadyRecorded, match="already recorded"):
            save_scheduled(store, tid, 0, rec)  # the same match id: an IntegrityError in save_match
        assert get_tournament(store, tid).done == 1


# -- the runner's identity -----------------------------------------------------------------------


def killed_run(tmp_path: Path, seed: int, tid: int) -> int:
    """Play tournament ``tid`` and SIGKILL its runner mid-run: the claim stays in its row. The pid."""
    db = tmp_path / "arena.db"
    with running(
        tmp_path, *RUN, "--seed", str(seed), "--deals", "3", "--concurrency", "2", name=f"killed-{tid}"
    ) as run:
        wait_until(lambda: recorded(db, tid) >= 1, 120, f"tournament {tid} records a match", run)
        run.proc.send_signal(signal.SIGKILL)
        assert run.wait(10) == -signal.SIGKILL
    row = tournament(db, tid)
    assert row["status"] == "running" and row["runner_pid"] == run.pid and row["done"] < row["total"]
    return run.pid


def test_a_runner_pid_that_now_names_another_process_is_stale(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    killed_run(tmp_path, 5, 1)
    # As after a reboot: the recorded pid now belongs to an unrelated process, started after the
    # runner. Only the pid is changed; the rest of the claim is what the killed runner wrote.
    with unrelated_process() as other:
        write(db, "UPDATE tournaments SET runner_pid = ? WHERE id = 1", (other.pid,))
        resumed = hearts(tmp_path, "tournament", "resume", "1", "--db", "arena.db")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert other.poll() is None  # nothing was done to the unrelated process
    row = tournament(db, 1)
    assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"] == 12
    assert row["runner_pid"] is None


def test_a_runner_that_cannot_be_checked_is_taken_over_with_force_only(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    pid = killed_run(tmp_path, 6, 1)
    # A runner on another machine (a database on a shared disk): its pid cannot be checked here.
    write(db, "UPDATE tournaments SET runner_host = 'another-machine' WHERE id = 1")
    before = tournament(db, 1)
    refusal = hearts(tmp_path, "tournament", "resume", "1", "--db", "arena.db")
    assert refusal.returncode == 1, refusal.stdout + refusal.stderr
    assert "Traceback" not in refusal.stderr
    [error] = errors(refusal.stdout + refusal.stderr)
    assert f"tournament 1 is being played by process {pid}" in error and "another-machine" in error
    assert "hearts tournament resume 1 --force --db arena.db" in error
    assert tournament(db, 1) == before  # refused: nothing written
    forced = hearts(tmp_path, "tournament", "resume", "1", "--force", "--db", "arena.db")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    row = tournament(db, 1)
    assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"] == 12
    assert row["runner_pid"] is None and row["runner_host"] is None


def test_a_live_runner_is_never_taken_over_even_with_force(tmp_path: Path) -> None:
    from ladder.tournament.run import runner_of  # the identity a runner records

    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    killed_run(tmp_path, 7, 1)
    with unrelated_process() as live:  # recorded as the runner, with its true identity
        runner = runner_of(live.pid)
        write(
            db,
            "UPDATE tournaments SET runner_pid = ?, runner_host = ?, runner_started = ? WHERE id = 1",
            (runner.pid, runner.host, runner.started),
        )
        before = tournament(db, 1)
        for extra in ((), ("--force",)):
            refusal = hearts(tmp_path, "tournament", "resume", "1", *extra, "--db", "arena.db")
            assert refusal.returncode == 1, refusal.stdout + refusal.stderr
            [error] = errors(refusal.stdout + refusal.stderr)
            assert f"tournament 1 is being played by process {live.pid}; wait for it or stop it" in error
            assert tournament(db, 1) == before


def test_a_resume_is_refused_while_another_live_process_plays(
    tmp_path: Path, lowest_servers: list[ThreadedBotServer]
) -> None:
    db = tmp_path / "arena.db"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with Store(db) as store:
            tid = create_tournament(store, remote_bots(lowest_servers[0].address), TournamentSpec(rules=FAST, seed=4))
            store.db.execute("UPDATE tournaments SET runner_pid = ? WHERE id = ?", [other.pid, tid])
            store.db.conn.commit()
            with pytest.raises(
                TournamentBusy, match=f"tournament {tid} is being played by process {other.pid}; wait for it or stop it"
            ):
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


def test_the_runner_identity_is_a_migration_of_older_databases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "old.db"
    step = store_module._m7_runner_identity
    older = store_module.MIGRATIONS[: store_module.MIGRATIONS.index(step)]
    with monkeypatch.context() as m:  # a database written before the migration, with a claim in it
        m.setattr(store_module, "MIGRATIONS", older)
        with Store(db) as old:
            old.db.execute(
                "INSERT INTO tournaments (format, rules, seed, rounds, deals, bots, settings, status, "
                "created_at, runner_pid) VALUES ('round-robin', 'standard', 1, 1, 1, '[]', '{}', "
                "'running', '2026-01-01', 4242)"
            )
            old.db.conn.commit()
    with Store(db) as store:
        assert store.version == len(store_module.MIGRATIONS)
        assert query(db, "PRAGMA user_version") == [(len(store_module.MIGRATIONS),)]
        assert query(db, "SELECT runner_pid, runner_host, runner_started FROM tournaments") == [(4242, None, None)]


# -- signals -------------------------------------------------------------------------------------


def test_sigterm_stops_a_tournament_as_ctrl_c_does(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    with running(tmp_path, *RUN, "--seed", "8", "--deals", "5", "--concurrency", "2") as run:
        wait_until(lambda: recorded(db, 1) >= 1, 120, "a first match is recorded", run)
        run.proc.send_signal(signal.SIGTERM)
        code = run.wait(60)
        out = run.output()
    assert code == 128 + signal.SIGTERM, out
    assert "Traceback" not in out
    assert "resume with: hearts tournament resume 1 --db arena.db" in " ".join(out.split())
    row = tournament(db, 1)
    assert row["status"] == "interrupted" and row["runner_pid"] is None and row["done"] < row["total"]
    # The bots were stopped: the addresses the recorded matches reached them at take no connection
    # (read from the records: a bot's own "listening on" line may not have reached its log by then).
    addresses = [tuple(a.rsplit(":", 1)) for (a,) in query(db, "SELECT DISTINCT address FROM seats")]
    assert len(addresses) == 4 and all(refused(h, int(p)) for h, p in addresses)
    resumed = hearts(tmp_path, "tournament", "resume", "1", "--db", "arena.db")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    row = tournament(db, 1)
    assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"] == 20


def test_a_double_ctrl_c_leaves_the_tournament_interrupted(tmp_path: Path) -> None:
    # A bot that ignores SIGTERM keeps the stop going for the launcher's grace (5 s): the second
    # Ctrl-C surely lands while the bots are being stopped.
    (tmp_path / "bots.toml").write_text(
        SAMPLE.replace(
            "python -m clients.bots.random --port {port} --seed 2", f"python {BOTS_DIR / 'deaf.py'} {{port}}"
        )
    )
    db = tmp_path / "arena.db"
    log = tmp_path / "logs" / "random-2.log"
    deaf: list[int] = []
    try:
        with running(tmp_path, *RUN, "--seed", "9", "--deals", "5", "--concurrency", "2") as run:
            wait_until(lambda: recorded(db, 1) >= 1, 120, "a first match is recorded", run)
            deaf.extend(int(p) for p in re.findall(r"^pid (\d+)$", log.read_text(), re.MULTILINE))
            run.proc.send_signal(signal.SIGINT)
            wait_until(lambda: "SIGTERM ignored" in log.read_text(), 30, "the bots are being stopped", run)
            run.proc.send_signal(signal.SIGINT)
            code = run.wait(30)
            out = run.output()
        assert code == 130, out
        assert "resume with: hearts tournament resume 1 --db arena.db" in " ".join(out.split())
        row = tournament(db, 1)
        assert row["status"] == "interrupted" and row["runner_pid"] is None and row["done"] < row["total"]
        assert len(deaf) == 1
        wait_until(lambda: process_gone(deaf[0]), 10, "the bot that ignores SIGTERM is gone")
    finally:
        for pid in deaf:  # it outlives a tournament that failed to stop it: never leave it behind
            if not process_gone(pid):
                os.kill(pid, signal.SIGKILL)


# -- a newer schema ------------------------------------------------------------------------------


def test_a_database_of_a_newer_schema_is_refused_and_never_written(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(SAMPLE)
    db = tmp_path / "arena.db"
    made = hearts(tmp_path, "bot", "add", "--from", "bots.toml", "--db", "arena.db")
    assert made.returncode == 0, made.stdout + made.stderr
    [(version,)] = query(db, "PRAGMA user_version")
    write(db, f"PRAGMA user_version = {version + 1}")  # as a later hearts-arena would leave it
    snapshot = db.read_bytes()
    d, bots = str(db), str(tmp_path / "bots.toml")
    commands = every_command(d, bots)
    for args in commands:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
        [error] = errors(result.output)
        assert f"schema version {version + 1}" in error and "upgrade hearts-arena" in error, error
        assert db.read_bytes() == snapshot, args
    assert not (tmp_path / "logs").exists()


ROOT = Path(__file__).resolve().parents[2]

_OPEN_AT = """
import sys, time
from ladder.store import Store
start = float(sys.argv[1])
for i, path in enumerate(sys.argv[2:]):
    time.sleep(max(0.0, start + 0.25 * i - time.time()))  # all four at once, one file after another
    Store(path).close()
"""


def test_processes_creating_one_new_database_at_once_all_open_it(tmp_path: Path) -> None:
    """Four processes open one new file at the same moment (two tournaments and two ladders started
    together): before it is in WAL mode SQLite may answer one "locked" at once, and one may read the
    schema between another's first tables and their version. Each opens it, migrated, whatever the
    order (it failed about one time in ten before). Twelve files, each opened by the same four
    processes at one moment: starting a process costs far more than its twelve opens."""
    dbs = [tmp_path / f"{trial}.db" for trial in range(12)]
    start = time.time() + 3.0  # the first moment comes after all four have imported the store
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AT, repr(start), *map(str, dbs)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, outs
    for db in dbs:
        assert query(db, "PRAGMA user_version") == [(len(store_module.MIGRATIONS),)], db
