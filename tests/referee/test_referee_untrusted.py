"""Text a bot controls reaches the operator as inert data: no markup, no escape codes, capped.

Real runs: a bot over loopback whose error status carries rich markup and ANSI sequences, played
and replayed with the real ``hearts`` command; and a bot whose start-up log holds the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from referee_bots import FirstLegal

from hearts.v1 import bot_pb2 as pb
from ladder.store import Store
from referee.untrusted import inert, inert_text

HEARTS = str(Path(sys.executable).with_name("hearts"))
# A stray closing tag, a clear screen, a window title, a colour, a bidi override, and a rich emoji code.
NASTY = "[/] [bold]loud[/bold] \x1b[2J\x1b]0;pwned\x07\x1b[31mred \u202eevil :thumbs_up:"


def test_inert_writes_controls_out_and_caps_length() -> None:
    shown = inert(NASTY)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b[2J" in shown and "\\x07" in shown and "\\u202e" in shown and "[/]" in shown
    assert inert("a\nb") == "a\\x0ab" and inert("a\nb", multiline=True) == "a\nb"
    long = inert("x" * 1000, 100)
    assert long.startswith("x" * 100) and long.endswith("… (900 more characters)")
    assert inert(b"\xff\x1b") == "\ufffd\\x1b" and inert(3) == "3"
    assert inert_text("[/]").plain == "[/]"  # a Text: rich never parses it


class Nasty(FirstLegal):
    """Plays well, but answers its plays from the eighth on with an error whose message is NASTY."""

    name = "nasty"

    def __init__(self) -> None:
        super().__init__()
        self.plays = 0

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        self.plays += 1
        if self.plays >= 8:
            context.abort(grpc.StatusCode.UNKNOWN, "play_card: ValueError: " + NASTY)
        return super().PlayCard(request, context)


def _hearts(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "TERM": "xterm-256color", "FORCE_COLOR": "1"}
    return subprocess.run([HEARTS, *args], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.slow
def test_a_bots_error_text_is_shown_inert_by_match_and_replay(
    serve: Callable[..., str], good_address: str, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    bad = serve(Nasty())
    seats = [f"north={good_address}", f"east={bad}", f"south={good_address}", f"west={good_address}"]
    played = _hearts(
        "match",
        *(a for s in seats for a in ("--seat", s)),
        "--rules",
        "standard,target=50",
        "--seed",
        "7",
        "--db",
        str(db),
        "--budget-ms",
        "300",
        "--bank-ms",
        "300",
    )
    assert played.returncode == 0, played.stderr
    with Store(db) as store:
        (m,) = store.list_matches()
        rec = store.load_match(m.match_id)
    assert rec.seats[1].forfeit and all("ValueError" in f.detail for f in rec.faults)
    replayed = _hearts("replay", m.match_id, "--db", str(db))
    assert replayed.returncode == 0, replayed.stderr
    for out in (played.stdout, replayed.stdout):
        # The bot's own words are shown (docs/sdk.md promises them), made inert: its escape codes never
        # reach the terminal raw, and its markup is printed as the characters it is.
        assert "play_card: ValueError: [/] [bold]loud[/bold]" in out
        assert "\\x1b[2J" in out and "\\x07" in out and "\\u202e" in out and ":thumbs_up:" in out
        assert "\x1b]0;" not in out and "\x1b[2J" not in out and "\x07" not in out and "\u202e" not in out


@pytest.mark.slow
def test_a_bots_start_up_log_is_shown_inert(tmp_path: Path) -> None:
    script = tmp_path / "noisy.py"
    script.write_text(f"import sys\nprint({NASTY!r}, flush=True)\nsys.exit(3)\n")
    bots = tmp_path / "bots.toml"
    bots.write_text(
        f'[bots.noisy]\ncommand = "{sys.executable} {script} --port {{port}}"\n'
        '[bots.random]\ncommand = "python -m clients.bots.random --port {port}"\n'
        '[bots.lowest]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
        '[bots.lowest-2]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
    )
    run = _hearts(
        "tournament", "run", "--bots", str(bots), "--db", str(tmp_path / "arena.db"), "--rules", "standard,target=30"
    )
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "noisy" in out and "\\x1b[2J" in out
    assert "\x1b]0;" not in out and "\x1b[2J" not in out and "\x07" not in out
