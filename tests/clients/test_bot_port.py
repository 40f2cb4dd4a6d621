"""The port a bot listens on: ``--port`` on its command line, else the launcher's ``HEARTS_BOT_PORT``,
else the one it was written with; so the README's minimal bot runs unchanged under the launcher, twice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clients.sdk import PORT_ENV, bot_port
from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, run_tournament

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_line_wins_then_the_launchers_port_then_the_written_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PORT_ENV, raising=False)
    assert bot_port(50051, []) == 50051
    monkeypatch.setenv(PORT_ENV, "41234")
    assert bot_port(50051, []) == 41234
    assert bot_port(50051, ["--port", "5"]) == 5 and bot_port(50051, ["--seed", "1", "--port=6"]) == 6
    for bad in (["--port", "x"], ["--port=70000"]):
        with pytest.raises(ValueError, match="not a port number"):
            bot_port(0, bad)
    monkeypatch.setenv(PORT_ENV, "nope")
    with pytest.raises(ValueError, match=PORT_ENV):
        bot_port(0, [])


@pytest.mark.slow
def test_the_readmes_minimal_bot_plays_twice_in_a_tournament_without_a_port_in_its_command(tmp_path: Path) -> None:
    """Written with ``serve(Lowest(), port=50051)`` and started with no ``{port}``: each copy listens on the
    port the launcher offers it, and says so on its ``listening on`` line, which the launcher reads."""
    minimal = f"{sys.executable} {ROOT / 'clients' / 'examples' / 'minimal.py'}"
    bots = [
        BotEntry("minimal", command=minimal),
        BotEntry("minimal-2", command=minimal),
        BotEntry("random", command="python -m clients.bots.random --port {port} --seed 1"),
        BotEntry("lowest", command="python -m clients.bots.lowest --port {port}"),
    ]
    with Store(tmp_path / "arena.db") as store:
        tid = create_tournament(store, bots, TournamentSpec(rules="standard,target=20", seed=3))
        summary = run_tournament(store, tid, concurrency=2, log_dir=tmp_path / "logs")
        assert summary.played == 4 and summary.faults == 0 and summary.remaining == 0
    logs = (tmp_path / "logs" / "minimal.log").read_text() + (tmp_path / "logs" / "minimal-2.log").read_text()
    assert "listening on" in logs and ":50051" not in logs
