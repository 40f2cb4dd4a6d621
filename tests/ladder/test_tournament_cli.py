"""The ladder's commands through click's CliRunner: bot add/list/remove, tournament run/resume/list, ladder."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from bot_entries import sample
from cli_procs import FAST
from cli_runner import ok, run
from click.testing import CliRunner

from clients.sdk import ThreadedBotServer
from ladder.cli import main
from ladder.store import Store
from ladder.tournament.run import get_tournament, list_tournaments

BOTS = """
[bots.low]
command = "python -m clients.bots.lowest --port {port}"
[bots.rnd]
command = "python -m clients.bots.random --port {port} --seed 4"
[bots.rnd-2]
command = "python -m clients.bots.random --port {port} --seed 5"
[bots.heur]
command = "python -m clients.bots.heuristic --port {port}"
"""


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_bot_add_list_remove(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    assert "registered bot 'x'" in invoke("bot", "add", "x", "--command", "python -m x --port {port}", "--db", db)
    assert "registered bot 'far'" in invoke("bot", "add", "far", "--address", "10.1.2.3:50051", "--db", db)
    assert "updated bot 'x'" in invoke("bot", "add", "x", "--command", "python -m y --port {port}", "--db", db)
    out = invoke("bot", "list", "--db", db)
    assert "python -m y --port {port}" in out and "remote 10.1.2.3:50051" in out
    assert "removed bot 'x'" in invoke("bot", "remove", "x", "--db", db)
    assert "python -m y" not in invoke("bot", "list", "--db", db)
    (tmp_path / "bots.toml").write_text(BOTS)
    assert "registered 4 bots" in invoke("bot", "add", "--from", str(tmp_path / "bots.toml"), "--db", db)
    bad = CliRunner().invoke(main, ["bot", "add", "y", "--db", db])
    assert bad.exit_code == 1 and "exactly one of command, address or module" in bad.output
    missing = CliRunner().invoke(main, ["bot", "remove", "nobody", "--db", db])
    assert missing.exit_code == 1 and "no bot 'nobody'" in missing.output


@pytest.mark.slow
def test_tournament_run_list_resume_and_the_ladder(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS)
    db = str(tmp_path / "arena.db")
    out = invoke(
        "tournament",
        "run",
        "--bots",
        str(tmp_path / "bots.toml"),
        "--format",
        "round-robin",
        "--concurrency",
        "4",
        "--db",
        db,
        "--rules",
        "standard,target=30",
        "--seed",
        "3",
        "--deals",
        "2",
    )
    assert "tournament 1: round-robin" in out and "8/8 matches" in out and "played 8 matches" in out
    assert "Tournament 1: 8 matches" in out and "±95%" in out
    listing = invoke("tournament", "list", "--db", db)
    assert "8/8" in listing and "finished" in listing
    assert "played 0 matches" in invoke("tournament", "resume", "1", "--db", db)

    data = json.loads(invoke("ladder", "--db", db, "--json"))
    assert data["matches"] == 8 and len(data["rows"]) == 4
    assert {r["games"] for r in data["rows"]} == {8}
    assert all(r["live_elo"] is not None for r in data["rows"])
    rows = list(csv.DictReader(io.StringIO(invoke("ladder", "--db", db, "--csv"))))
    assert [r["bot"] for r in rows] == [r["bot"] for r in data["rows"]]
    table = invoke("ladder", "--db", db)
    assert "Ladder: 8 matches" in table and "heur" in table and "live Elo*" in table

    # A gauntlet: the hero at every table (the others are drawn from the registered bots).
    out = invoke(
        "tournament",
        "run",
        "--gauntlet",
        "heur",
        "--bot",
        "heur",
        "--bot",
        "low",
        "--bot",
        "rnd",
        "--bot",
        "rnd-2",
        "--db",
        db,
        "--rules",
        "standard,target=30",
        "--seed",
        "4",
    )
    assert "tournament 2: gauntlet" in out and "4/4 matches" in out
    assert json.loads(invoke("ladder", "--db", db, "--json", "--tournament", "2"))["matches"] == 4


def test_a_bot_that_cannot_start_is_reported_with_its_log(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(
        BOTS + '[bots.broken]\ncommand = "python -m no_such_module_here --port {port}"\n'
    )
    db = str(tmp_path / "arena.db")
    result = CliRunner().invoke(
        main, ["tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", db, "--startup-timeout", "10"]
    )
    assert result.exit_code == 1
    assert "bot 'broken' failed to start" in result.output
    assert "python -m no_such_module_here --port {port}" in result.output
    assert "broken.log" in result.output and "No module named no_such_module_here" in result.output
    # Nothing was played: the tournament is not kept, and the error says how to go on.
    assert "tournament 1 was not kept" in result.output and "run the same command again" in result.output
    assert "no tournaments" in invoke("tournament", "list", "--db", db)


def test_ladder_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["ladder", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 1 and "no database" in result.output
    result = CliRunner().invoke(main, ["tournament", "resume", "7", "--db", str(tmp_path / "a.db")])
    assert result.exit_code == 1 and "no tournament 7" in result.output


def test_a_run_whose_bot_cannot_start_keeps_no_tournament(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, entry in (
        ("low", sample("low", "lowest")),
        ("rnd", sample("rnd", "random")),
        ("heur", sample("heur", "heuristic")),
    ):
        ok("bot", "add", name, "--command", entry.command or "", "--db", str(db))
    ok("bot", "add", "fixme", "--command", "python -m no_such_module_here --port {port}", "--db", str(db))
    failed = run("tournament", "run", "--db", str(db), "--rules", FAST, "--seed", "8", "--startup-timeout", "10")
    assert failed.exit_code == 1 and "bot 'fixme' failed to start" in failed.output
    assert "nothing was played, so tournament 1 was not kept" in failed.output
    assert f'hearts bot add fixme --command "..." --db {db}' in failed.output
    assert "run the same command again (with --seed 8" in failed.output
    assert "resume" not in failed.output
    with Store(db) as store:
        assert list_tournaments(store) == []


@pytest.mark.slow
def test_tournament_run_takes_grace_ms(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    bots = tmp_path / "bots.toml"
    bots.write_text(
        "".join(
            f'[bots.{n}]\ncommand = "python -m clients.bots.{m} --port {{port}}"\n'
            for n, m in (("a", "lowest"), ("b", "random"), ("c", "heuristic"), ("d", "lowest"))
        )
    )
    out = ok(
        "tournament",
        "run",
        "--bots",
        str(bots),
        "--rules",
        FAST,
        "--seed",
        "2",
        "--grace-ms",
        "7",
        "--budget-ms",
        "500",
        "--db",
        str(db),
    )
    assert "played 4 matches" in out
    with Store(db) as store:
        settings = get_tournament(store, 1).settings
    assert settings.grace_ms == 7 and settings.budget_ms == 500


@pytest.mark.slow
def test_the_ladder_of_an_unknown_tournament_is_an_error(self_play_db: Path) -> None:
    result = run("ladder", "--tournament", "9", "--db", str(self_play_db))
    assert result.exit_code == 1
    assert f"no tournament 9 in {self_play_db} (hearts tournament list --db {self_play_db})" in result.output


# -- self-play rates no bot against another -------------------------------------------------------


def test_the_ladder_leaves_self_play_out_and_says_so(self_play_db: Path) -> None:
    table = ok("ladder", "--db", str(self_play_db))
    assert "Ladder: 2 matches" in table and "heur" in table
    assert "1 match in which one bot filled several seats is left out" in " ".join(table.split())
    assert not re.search(r"│\s*\d+\s*│ r\s", table)  # r (only in self-play) has no row
    data = json.loads(ok("ladder", "--db", str(self_play_db), "--json"))
    assert data["matches"] == 2 and data["self_play"] == 1 and len(data["notes"]) == 1
    assert {r["bot"] for r in data["rows"]} == {"rnd", "low", "heur", "low-2"}
    assert {r["games"] for r in data["rows"]} == {2}
    assert "rank,bot" in ok("ladder", "--db", str(self_play_db), "--csv")


@pytest.mark.slow
def test_a_database_of_self_play_only_says_nothing_is_rated(
    sample_servers: dict[str, ThreadedBotServer], tmp_path: Path
) -> None:
    db = tmp_path / "x.db"
    low = sample_servers["lowest"].address
    ok("match", *[x for _ in range(4) for x in ("--seat", f"r={low}")], "--rules", FAST, "--seed", "1", "--db", str(db))
    out = " ".join(ok("ladder", "--db", str(db)).split())
    assert "no matches to rate" in out and "1 match in which one bot filled several seats is left out" in out
