"""``hearts match`` with bots given by command, by bots-file name and by registered name: one command line
starts them like a tournament, plays, records, and stops them (no four terminals, no fixed ports)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole processes and servers

ROOT = Path(__file__).resolve().parents[2]
HEARTS = str(Path(sys.executable).with_name("hearts"))


def _alive_with(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker``."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "pytest" not in cmdline:
                out.append(int(pid))
    return out


def test_one_command_line_starts_plays_records_and_stops_the_bots(tmp_path: Path) -> None:
    bot = tmp_path / "my_bot.py"  # the README's minimal bot, by its own file: a marker for its processes
    bot.write_text((ROOT / "clients" / "examples" / "minimal.py").read_text())
    bots = tmp_path / "bots.toml"
    bots.write_text('[bots.random]\ncommand = "python -m clients.bots.random --port {port} --seed 1"\n')
    db = tmp_path / "arena.db"
    assert (
        subprocess.run(
            [
                HEARTS,
                "bot",
                "add",
                "lowest",
                "--command",
                "python -m clients.bots.lowest --port {port}",
                "--db",
                str(db),
            ],
            capture_output=True,
            timeout=60,
        ).returncode
        == 0
    )
    run = subprocess.run(
        [
            HEARTS,
            "match",
            "--seat",
            f"me=python {bot}",
            "--seat",
            "random",
            "--seat",
            "lowest",
            "--seat",
            "h=python -m clients.bots.heuristic --port {port}",
            "--bots",
            str(bots),
            "--rules",
            "standard,target=30",
            "--seed",
            "4",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "recorded in" in run.stdout and "Faults" not in run.stdout
    matches = subprocess.run([HEARTS, "matches", "--db", str(db)], capture_output=True, text=True, timeout=60)
    assert all(n in matches.stdout for n in ("me", "random", "lowest", "h"))
    assert not _alive_with(str(bot)), "a bot outlived its match"
    assert (tmp_path / "logs" / "me.log").exists()


def test_a_seat_that_names_no_bot_says_what_to_give(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            HEARTS,
            "match",
            "--seat",
            "nobody",
            "--seat",
            "a=127.0.0.1:1",
            "--seat",
            "b=127.0.0.1:2",
            "--seat",
            "c=127.0.0.1:3",
            "--db",
            str(tmp_path / "a.db"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "seat 'nobody': no bot of that name" in run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "a.db").exists()
