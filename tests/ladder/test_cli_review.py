"""Fixes of a review of the ``hearts`` CLI: every mistake gets an ``Error:`` that says what to do,
never a traceback. Real sample bots on loopback, real SQLite files in tmp_path."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread
from ladder import cli
from ladder.cli import main
from ladder.registry import BotEntry, get_bot
from ladder.store import Store
from ladder.tournament import (
    TournamentSpec,
    create_tournament,
    get_tournament,
    list_tournaments,
)
from referee.rules import Rules

FAST = "standard,target=30"  # short matches: these tests are about the CLI, not the game
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, **kw: object) -> Result:
    result = CliRunner().invoke(main, list(args), **kw)  # type: ignore[arg-type]
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def ok(*args: str, **kw: object) -> str:
    result = run(*args, **kw)
    assert result.exit_code == 0, result.output
    return result.output


def sample(name: str, module: str, seed: int | None = None) -> BotEntry:
    extra = f" --seed {seed}" if seed is not None else ""
    return BotEntry(name, command=f"python -m clients.bots.{module} --port {{port}}{extra}")


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ThreadedBotServer]]:
    """The sample bots served in this process on loopback (port 0)."""
    srvs = {name: start_in_thread(make_bot(name, seed=3)) for name in ("random", "lowest", "heuristic")}
    yield srvs
    for s in srvs.values():
        s.stop()


# -- 1. one bot in several seats ------------------------------------------------------------------


@pytest.fixture(scope="module")
def self_play_db(servers: dict[str, ThreadedBotServer], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with one self-play match (one name in every seat) and two ordinary matches."""
    db = tmp_path_factory.mktemp("selfplay") / "x.db"
    low = servers["lowest"].address
    out = ok("match", *[x for _ in range(4) for x in ("--seat", f"r={low}")], "--rules", FAST, "--seed", "1",
             "--db", str(db))
    assert "one name filled several seats" in out
    seats = [f"rnd={servers['random'].address}", f"low={low}", f"heur={servers['heuristic'].address}",
             f"low-2={low}"]
    for seed in ("2", "3"):
        ok("match", *[x for s in seats for x in ("--seat", s)], "--rules", FAST, "--seed", seed, "--db", str(db))
    return db


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


def test_a_database_of_self_play_only_says_nothing_is_rated(servers: dict[str, ThreadedBotServer],
                                                           tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    low = servers["lowest"].address
    ok("match", *[x for _ in range(4) for x in ("--seat", f"r={low}")], "--rules", FAST, "--seed", "1",
       "--db", str(db))
    out = " ".join(ok("ladder", "--db", str(db)).split())
    assert "no matches to rate" in out and "1 match in which one bot filled several seats is left out" in out


# -- 2. resume after a failed start ---------------------------------------------------------------


def test_resume_starts_a_bot_by_its_current_registration(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    broken = BotEntry("fixme", command="python -m no_such_module_here --port {port}")
    with Store(db) as store:
        tid = create_tournament(store, [sample("low", "lowest"), sample("rnd", "random", 4),
                                        sample("heur", "heuristic"), broken],
                                TournamentSpec(rules=FAST, seed=5))
    failed = run("tournament", "resume", str(tid), "--db", str(db), "--startup-timeout", "10")
    assert failed.exit_code == 1
    assert "bot 'fixme' failed to start" in failed.output
    assert f'hearts bot add fixme --command "..." --db {db}' in failed.output
    assert f"hearts tournament resume {tid} --db {db}" in failed.output
    with Store(db) as store:  # a resumed tournament is kept, whatever happens
        assert get_tournament(store, tid).done == 0

    ok("bot", "add", "fixme", "--command", "python -m clients.bots.lowest --port {port}", "--db", str(db))
    out = ok("tournament", "resume", str(tid), "--db", str(db))
    assert "bot 'fixme': started by its current registration (command python -m clients.bots.lowest" in out
    assert "played 4 matches" in out
    with Store(db) as store:
        info = get_tournament(store, tid)
        assert info.status == "finished" and info.done == 4
        # The entry it ran with is now the tournament's: a later resume starts the same program.
        assert {b.name: b.command for b in info.bots}["fixme"] == "python -m clients.bots.lowest --port {port}"
    listing = ok("matches", "--db", str(db), "--tournament", str(tid))
    assert all(f"t{tid}-00000{i}" in listing for i in range(4)) and "target=30" in listing


def test_a_run_whose_bot_cannot_start_keeps_no_tournament(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, entry in (("low", sample("low", "lowest")), ("rnd", sample("rnd", "random")),
                        ("heur", sample("heur", "heuristic"))):
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


# -- 3. ranges are checked before anything is created ---------------------------------------------


@pytest.mark.parametrize("args", [
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
])
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


def test_serving_on_a_taken_port_says_to_choose_another(servers: dict[str, ThreadedBotServer]) -> None:
    port = servers["lowest"].port
    proc = subprocess.run([sys.executable, "-m", "ladder.cli", "bot", "serve", "lowest", "--port", str(port)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert f"port {port} is taken" in proc.stderr and "--port 0" in proc.stderr


# -- 4. listing match ids -------------------------------------------------------------------------


def test_matches_lists_ids_seats_scores_and_winners(self_play_db: Path) -> None:
    out = ok("matches", "--db", str(self_play_db))
    with Store(self_play_db) as store:
        recorded = store.list_matches()
    assert len(recorded) == 3
    for m in recorded:
        assert m.match_id in out  # whole, never wrapped: it is what hearts replay takes
        assert f"{m.bots[0]} {m.scores[0]} ({m.places[0]})" in out
    assert "target=30" in out and "replay one with: hearts replay ID" in out
    assert "rnd" in out and "heur" in out
    one = ok("matches", "--db", str(self_play_db), "--limit", "1")
    assert recorded[0].match_id in one and recorded[2].match_id not in one and "--limit N shows more" in one
    result = run("matches", "--db", str(self_play_db), "--tournament", "9")
    assert result.exit_code == 1
    assert f"no tournament 9 in {self_play_db} (hearts tournament list --db {self_play_db})" in result.output
    missing = run("matches", "--db", str(self_play_db.with_name("none.db")))
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_replay_errors_point_to_hearts_matches(self_play_db: Path) -> None:
    result = run("replay", "zzz", "--db", str(self_play_db))
    assert result.exit_code == 1
    assert f"no match 'zzz' in {self_play_db}: list them with hearts matches --db {self_play_db}" in result.output
    empty = run("replay", " ", "--db", str(self_play_db))  # a blank id names no match, even in a one-match file
    assert empty.exit_code == 1
    assert "no match id given" in empty.output and f"hearts matches --db {self_play_db}" in empty.output


def test_the_docs_give_tournament_match_ids_zero_padded() -> None:
    text = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
    assert "t{tournament}-{index}`" not in text and "t1-000005" in text


# -- 5. updating a bot keeps its description -------------------------------------------------------


def test_bot_add_keeps_the_description_unless_given(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok("bot", "add", "lowest", "--command", "python -m clients.bots.lowest --port {port}",
       "--description", "always the lowest card", "--db", str(db))
    ok("bot", "add", "lowest", "--command", "python -m clients.bots.lowest --port {port} ", "--db", str(db))
    with Store(db) as store:
        entry = get_bot(store, "lowest")
        assert entry is not None and entry.description == "always the lowest card"
        assert entry.command == "python -m clients.bots.lowest --port {port} "
    ok("bot", "add", "lowest", "--address", "localhost:5", "--description", "", "--db", str(db))
    with Store(db) as store:
        assert get_bot(store, "lowest") == BotEntry("lowest", address="localhost:5")
    ok("bot", "add", "new", "--address", "localhost:6", "--db", str(db))
    result = run("bot", "add", "--from", str(ROOT / "bots.toml"), "--description", "x", "--db", str(db))
    assert result.exit_code == 2 and "give either --from FILE" in result.output


# -- 6. the ladder of a tournament that does not exist ---------------------------------------------


def test_the_ladder_of_an_unknown_tournament_is_an_error(self_play_db: Path) -> None:
    result = run("ladder", "--tournament", "9", "--db", str(self_play_db))
    assert result.exit_code == 1
    assert f"no tournament 9 in {self_play_db} (hearts tournament list --db {self_play_db})" in result.output


# -- 7. lists of cards in a ruleset ----------------------------------------------------------------


def test_hearts_rules_shows_the_form_of_removed_cards_that_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "console", Console(width=400))
    out = ok("rules")
    assert '"2C 2D"' in out and "2C,2D" not in out
    spec = "standard,removed_cards=2C 2D,hand_size=12,kitty=first-trick"
    assert spec in " ".join(ok("rules", "--help").split())
    assert [str(c) for c in Rules.parse(spec).removed] == ["2C", "2D"]
    assert "removed: 2C 2D" in ok("rules", "show", spec)


def test_the_comma_form_of_a_card_list_says_how_to_write_it() -> None:
    result = run("rules", "show", "standard,removed_cards=2C,2D,hand_size=12,kitty=first-trick")
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "a comma separates options, so a list of cards is written with spaces" in out
    assert '"standard,removed_cards=2C 2D,hand_size=12,kitty=first-trick"' in out
    assert ok("rules", "show", "standard,removed_cards=2C 2D,hand_size=12,kitty=first-trick")
    # The same advice wherever a ruleset is asked for.
    seats = [x for i in range(4) for x in ("--seat", f"b{i}=localhost:1")]
    result = run("match", *seats, "--rules", "players=5,removed_cards=2C,2D")
    assert result.exit_code == 2 and "players=5,removed_cards=2C 2D" in result.output
    result = run("rules", "show", "target=200,spot")
    assert result.exit_code == 2 and "the preset, if any, comes first" in result.output


# -- 8. smaller ones -----------------------------------------------------------------------------


def test_tournament_run_takes_grace_ms(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    bots = tmp_path / "bots.toml"
    bots.write_text("".join(f'[bots.{n}]\ncommand = "python -m clients.bots.{m} --port {{port}}"\n'
                            for n, m in (("a", "lowest"), ("b", "random"), ("c", "heuristic"), ("d", "lowest"))))
    out = ok("tournament", "run", "--bots", str(bots), "--rules", FAST, "--seed", "2", "--grace-ms", "7",
             "--budget-ms", "500", "--db", str(db))
    assert "played 4 matches" in out
    with Store(db) as store:
        settings = get_tournament(store, 1).settings
    assert settings.grace_ms == 7 and settings.budget_ms == 500


def test_bot_serve_names_its_argument() -> None:
    result = run("bot", "serve", "nosuch")
    assert result.exit_code == 2
    assert "Invalid value for 'NAME': 'nosuch' is not one of 'random', 'lowest', 'heuristic'" in result.output
    assert "bot serve [OPTIONS] NAME" in result.output


def test_the_replay_command_after_a_match_is_one_unwrapped_line(servers: dict[str, ThreadedBotServer],
                                                                 tmp_path: Path) -> None:
    db = tmp_path / "a-rather-long-directory-name-to-pass-eighty-columns" / "arena.db"
    db.parent.mkdir()
    seats = [f"rnd={servers['random'].address}", f"low={servers['lowest'].address}",
             f"heur={servers['heuristic'].address}", f"low-2={servers['lowest'].address}"]
    out = ok("match", *[x for s in seats for x in ("--seat", s)], "--rules", FAST, "--seed", "4", "--db", str(db))
    with Store(db) as store:
        (m,) = store.list_matches()
    line = f"  hearts replay {m.match_id} --db {db}"
    assert len(line) > 80 and line in out.splitlines()


@pytest.mark.parametrize("name", ["bad name", "a/b", "-x", "../up", "tab\tbed", ""])
def test_bot_names_are_letters_digits_dash_underscore_dot(name: str, tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    result = run("bot", "add", "--command", "python -m clients.bots.lowest --port {port}", "--db", str(db), "--", name)
    assert result.exit_code in (1, 2)
    if name:
        assert "use letters, digits, '-', '_' and '.'" in result.output
    bots = tmp_path / "bots.toml"
    bots.write_text(f'[bots."{name}"]\ncommand = "python -m clients.bots.lowest --port {{port}}"\n')
    result = run("tournament", "run", "--bots", str(bots), "--db", str(db))
    assert result.exit_code == 1 and "use letters, digits" in result.output
    with Store(db) as store:
        assert store.bots() == [] and list_tournaments(store) == []
    assert not (tmp_path / "logs").exists()
    if name:
        seats = [f"{name}=localhost:1", *(f"b{i}=localhost:1" for i in range(3))]
        result = run("match", *[x for s in seats for x in ("--seat", s)], "--db", str(db))
        assert result.exit_code == 2 and "use letters, digits" in result.output


def test_good_names_pass(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name in ("alice", "Bob_2", "random-2", "v1.3", "9lives"):
        assert f"registered bot '{name}'" in ok("bot", "add", name, "--address", "localhost:5", "--db", str(db))
