"""The store under concurrency, signals and stale state (issue #10, item 5), with the real ``hearts``
command as processes, real bot processes and real SQLite files.

- two ``hearts tournament run`` on one file both finish while ``hearts ladder`` reads it;
- a runner is known by its pid, its start and its host, so a pid that now names another process
  is stale, and a runner that cannot be checked is taken over with ``resume --force`` only;
- SIGTERM stops a tournament as Ctrl-C does, and a second Ctrl-C never leaves it ``running``;
- a database of a newer schema is refused and never written.
"""

from __future__ import annotations

import json
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
from click.testing import CliRunner
from cli_procs import (
    BOTS_DIR,
    FAST,
    SAMPLE,
    hearts,
    process_gone,
    query,
    recorded,
    running,
    tournament,
    wait_until,
    write,
)

from ladder import store as store_module
from ladder.cli import main
from ladder.store import Store

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


def listening(logs: Path) -> list[tuple[str, int]]:
    found = re.findall(r"listening on (\S+):(\d+)", "".join(p.read_text() for p in logs.glob("*.log")))
    return [(host, int(port)) for host, port in found]


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
    args = ("tournament", "run", "--bots", "bots.toml", "--db", "arena.db", "--rules", "standard,target=1",
            "--deals", "5", "--concurrency", "4")
    ladders = 0
    with running(tmp_path, *args, "--seed", "1", name="a") as a, \
            running(tmp_path, *args, "--seed", "2", name="b") as b:
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
