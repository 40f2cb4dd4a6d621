"""docs/bots.md, "Writing and testing a bot", works as written: its bot is a bot, every `hearts`
command it shows parses with the real CLI, and its Python example runs on a real export."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import click
import pytest

from ladder.bots.registry import BotEntry
from ladder.cli import main
from ladder.export import write_jsonl
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, play_tournament

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE, flags=re.S)


def _commands() -> list[list[str]]:
    """Every `$ hearts ...` line of the guide's console blocks, continuation lines joined."""
    out = []
    for block in _blocks("console"):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            if line.startswith("$ hearts "):
                out.append(shlex.split(line[2:].partition(" > ")[0].partition("  #")[0])[1:])
    return out


def test_the_guide_walks_through_validate_compare_and_export() -> None:
    names = [c[0] for c in _commands()]
    for command in ("match", "validate", "compare", "export"):
        assert command in names, f"docs/bots.md shows no hearts {command}"


@pytest.mark.parametrize("args", _commands(), ids=lambda a: " ".join(a)[:60])
def test_each_command_of_the_guide_parses(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Store(tmp_path / "arena.db").close()  # the options that want an existing database find one
    cmd: click.Command = main
    ctx = cmd.make_context("hearts", list(args))
    while isinstance(cmd, click.Group):
        with warnings.catch_warnings():  # protected_args: deprecated in click 8.2, the way until 9.0
            warnings.simplefilter("ignore", DeprecationWarning)
            left = [*ctx.protected_args, *ctx.args]
        name, sub, rest = cmd.resolve_command(ctx, left)
        assert sub is not None, f"no command {name!r}"
        cmd = sub
        ctx = cmd.make_context(name or "", rest, parent=ctx)


def test_the_guides_bot_plays_and_its_export_example_runs(tmp_path: Path) -> None:
    bot = next(b for b in _blocks("python") if "class MyBot" in b)
    (tmp_path / "my_bot.py").write_text(bot)
    sys.path.insert(0, str(tmp_path))
    try:
        entries = [
            BotEntry("new", module="my_bot:MyBot"),
            BotEntry("r", module="clients.bots.random:RandomBot"),
            BotEntry("low", module="clients.bots.lowest:LowestBot"),
            BotEntry("h", module="clients.bots.heuristic:HeuristicBot"),
        ]
        with Store(tmp_path / "arena.db") as store:
            tid = create_tournament(store, entries, TournamentSpec(rules="standard,target=30", seed=4))
            summary = asyncio.run(play_tournament(store, tid, workers=0, log_dir=tmp_path / "logs"))
            assert summary.played == 4 and summary.faults == 0
            with open(tmp_path / "matches.jsonl", "w", encoding="utf-8") as out:
                write_jsonl(store, out, tournament_id=tid)
    finally:
        sys.path.remove(str(tmp_path))
    example = next(b for b in _blocks("python") if "matches.jsonl" in b)
    run = subprocess.run(
        [sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=os.environ
    )
    assert run.returncode == 0, run.stderr
    assert re.fullmatch(r"\[\('\w+', \d+\).*\]\n", run.stdout), run.stdout
