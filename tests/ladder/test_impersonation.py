"""A bot started by command that names another bot's address as its own, through the real
``hearts match``: the launcher finds that its port is served by a process that is not the bot's
(nor one it started), and its seat forfeits with an ``impersonation`` fault saying so."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ladder.bots.launcher import free_port
from tests.ladder.cli_procs import FAST, HEARTS

pytestmark = pytest.mark.slow  # whole processes and servers


def _serve_random(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "clients.bots.random", "--port", str(port), "--seed", "5"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):  # bounded: the SDK serves within a second or two
        try:
            with __import__("socket").create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("the honest bot did not listen")


def _impostor(port: int) -> str:
    """A command that prints another bot's address as the one it listens on, and listens nowhere."""
    return f"python -c \"print('listening on 127.0.0.1:{port}', flush=True); import time; time.sleep(600)\""


def test_a_bot_that_names_another_bots_port_as_its_own_forfeits_for_impersonation(tmp_path: Path) -> None:
    port = free_port()
    honest = _serve_random(port)
    try:
        impostor = _impostor(port)
        db = tmp_path / "m.db"
        run = subprocess.run(
            [HEARTS, "match", "--seat", f"impostor={impostor}", "--seat", "r=clients.bots.random:RandomBot",
             "--seat", "l=clients.bots.lowest:LowestBot", "--seat", "h=clients.bots.heuristic:HeuristicBot",
             "--rules", FAST, "--seed", "3", "--db", str(db)],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        honest.kill()
        honest.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    with sqlite3.connect(db) as con:
        faults = con.execute("SELECT seat, kind, detail FROM faults").fetchall()
        reason = con.execute("SELECT forfeit_reason FROM seats WHERE seat = 0").fetchone()
    assert [(s, k) for s, k, _ in faults] == [(0, "impersonation")], faults
    assert f"port {port} is served by a process that is not this bot's" in faults[0][2]
    assert reason == ("impersonation",)
    replay = subprocess.run(
        [HEARTS, "replay", "--db", str(db), "--json", _match_id(db)], capture_output=True, text=True, timeout=60
    )
    assert "impersonation" in replay.stdout


def _match_id(db: Path) -> str:
    with sqlite3.connect(db) as con:
        return str(con.execute("SELECT id FROM matches").fetchone()[0])


def test_validate_fails_a_bot_that_names_another_bots_port(tmp_path: Path) -> None:
    port = free_port()
    honest = _serve_random(port)
    try:
        run = subprocess.run(
            [HEARTS, "validate", "--command", _impostor(port), "--rules", "standard"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        honest.kill()
        honest.wait()
    assert run.returncode == 1, run.stdout + run.stderr
    assert "impersonation" in run.stdout and f"port {port} is served by a process that is not this bot's" in run.stdout
