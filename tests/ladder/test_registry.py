"""The bot registry: TOML files, the store's bots table, and ``hearts bot add``."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import ok, run

from ladder.bots.registry import (
    BotEntry,
    RegistryError,
    add_bot,
    add_bots,
    check_name,
    get_bot,
    list_bots,
    load_bots_file,
    remove_bot,
)
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, list_tournaments

ROOT = Path(__file__).resolve().parents[2]


def test_the_sample_bots_file_parses() -> None:
    bots = load_bots_file(ROOT / "bots.toml")
    names = [b.name for b in bots]
    assert {"random", "random-2", "lowest", "heuristic"} <= set(names)
    assert all(b.command and "{port}" in b.command for b in bots)


def test_a_bots_file_with_commands_and_addresses(tmp_path: Path) -> None:
    f = tmp_path / "bots.toml"
    f.write_text(
        '[bots.a]\ncommand = "python -m x --port {port}"\ndescription = "first"\n'
        '[bots."far.away"]\naddress = "10.0.0.7:50051"\n'
    )
    assert load_bots_file(f) == [
        BotEntry("a", command="python -m x --port {port}", description="first"),
        BotEntry("far.away", address="10.0.0.7:50051"),
    ]


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "no \\[bots.NAME\\] tables"),
        ("[bots.a]\n", "exactly one of command, address or module"),
        ('[bots.a]\ncommand = "x"\naddress = "h:1"\n', "exactly one of command, address or module"),
        ('[bots.a]\naddress = "nohost"\n', "is not HOST:PORT"),
        ('[bots.a]\ncommand = "x"\nport = 3\n', "unknown key\\(s\\) port"),
        ('[bot.a]\ncommand = "x"\n', "unknown top-level key"),
        ("[bots.a]\ncommand = 3\n", "must be a string"),
        ("[bots.a\n", "not valid TOML"),
    ],
)
def test_bad_bots_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "bots.toml"
    f.write_text(text)
    with pytest.raises(RegistryError, match=message):
        load_bots_file(f)


def test_missing_file() -> None:
    with pytest.raises(RegistryError, match="does not exist"):
        load_bots_file("/nonexistent/bots.toml")


def test_add_list_remove_in_the_store(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        assert add_bot(store, BotEntry("b", command="run b {port}"))
        assert not add_bot(store, BotEntry("b", command="run b2 {port}"))  # update
        with pytest.raises(RegistryError, match="already registered"):
            add_bot(store, BotEntry("b", address="h:1"), replace=False)
        add_bots(store, [BotEntry("a", address="h:1"), BotEntry("c", command="c {port}")])
        assert [e.name for e in list_bots(store)] == ["a", "b", "c"]
        assert get_bot(store, "b") == BotEntry("b", command="run b2 {port}")
        assert remove_bot(store, "c") and not remove_bot(store, "c") and get_bot(store, "c") is None
        # A bot seen in matches but never registered is not listed.
        store.bot_id("ghost")
        assert [e.name for e in list_bots(store)] == ["a", "b"]
    with Store(tmp_path / "arena.db") as store:  # it persists
        assert [e.name for e in list_bots(store)] == ["a", "b"]


def test_removing_a_bot_that_played_keeps_its_matches(tmp_path: Path) -> None:
    from referee.record import MatchRecord, SeatRecord

    with Store(tmp_path / "arena.db") as store:
        add_bots(store, [BotEntry(n, command=f"{n} {{port}}") for n in "wxyz"])
        store.save_match(
            MatchRecord(
                match_id="m",
                seed=1,
                rules={},
                started_at="t",
                seats=[SeatRecord(seat=i, bot=n, place=i + 1) for i, n in enumerate("wxyz")],
            )
        )
        assert remove_bot(store, "w")
        assert "w" not in [e.name for e in list_bots(store)]
        assert store.load_match("m").bots == list("wxyz")
        add_bot(store, BotEntry("w", command="w2 {port}"))  # and it can come back under its name
        assert get_bot(store, "w") == BotEntry("w", command="w2 {port}")


@pytest.mark.parametrize("name", ["bad name", "a/b", "../x", "-x", ".hidden", "tab\tbed", "é"])
def test_names_that_cannot_name_a_log_file_are_refused(tmp_path: Path, name: str) -> None:
    with Store(tmp_path / "arena.db") as store:
        with pytest.raises(RegistryError, match="use letters, digits, '-', '_' and '.'"):
            add_bot(store, BotEntry(name, command="run {port}"))
        assert list_bots(store) == [] and store.bots() == []
    f = tmp_path / "bots.toml"
    f.write_text(f'[bots."{name}"]\ncommand = "run {{port}}"\n')
    with pytest.raises(RegistryError, match=f"{f}: bot name"):
        load_bots_file(f)


def test_check_name_accepts_letters_digits_dash_underscore_dot() -> None:
    for name in ("random", "random-2", "Bob_2", "v1.3", "9lives"):
        assert check_name(name) == name


# -- an update keeps the description unless it gives one -----------------------------------------


def test_registering_from_a_bots_file_keeps_descriptions(tmp_path: Path) -> None:
    f = tmp_path / "bots.toml"
    f.write_text(
        '[bots.a]\ncommand = "python -m clients.bots.lowest --port {port}"\n'
        '[bots.b]\naddress = "127.0.0.1:5"\ndescription = "from the file"\n'
    )
    with Store(tmp_path / "arena.db") as store:
        add_bot(store, BotEntry("a", command="python -m clients.bots.random --port {port}", description="kept"))
        add_bot(store, BotEntry("b", address="127.0.0.1:5", description="replaced"))
        add_bots(store, load_bots_file(f))
        a, b = get_bot(store, "a"), get_bot(store, "b")
        assert a is not None and a.description == "kept" and a.command is not None and "lowest" in a.command
        assert b is not None and b.description == "from the file"
        # None keeps, "" clears; a new bot without one has none.
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}"))
        assert get_bot(store, "a") == BotEntry(
            "a", command="python -m clients.bots.lowest --port {port}", description="kept"
        )
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}", description=""))
        assert get_bot(store, "a").description is None
        add_bot(store, BotEntry("c", address="127.0.0.1:6"))
        assert get_bot(store, "c").description is None
        # create_tournament registers the bots file's entries the same way (tournament run --bots).
        add_bot(store, BotEntry("a", command="python -m clients.bots.lowest --port {port}", description="again"))
        create_tournament(
            store,
            [*load_bots_file(f), BotEntry("c", address="127.0.0.1:6"), BotEntry("d", address="127.0.0.1:7")],
            TournamentSpec(seed=3),
        )
        assert get_bot(store, "a").description == "again"


def test_bot_add_keeps_the_description_unless_given(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    ok(
        "bot",
        "add",
        "lowest",
        "--command",
        "python -m clients.bots.lowest --port {port}",
        "--description",
        "always the lowest card",
        "--db",
        str(db),
    )
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


# -- names, through the CLI ----------------------------------------------------------------------


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


def test_bot_list_says_what_a_leading_python_runs_as(tmp_path: Path) -> None:
    """A bots.toml written as ``python bot.py`` runs under the harness's interpreter: the list says so, and
    how to name another."""
    import sys

    from click.testing import CliRunner

    from ladder.cli import main

    db = str(tmp_path / "a.db")
    runner = CliRunner()
    assert (
        runner.invoke(main, ["bot", "add", "p", "--command", "python bot.py --port {port}", "--db", db]).exit_code == 0
    )
    out = runner.invoke(main, ["bot", "list", "--db", db], terminal_width=200).output
    assert "leading python or python3 runs as this harness's interpreter" in out and sys.executable in out
    assert "name another by its path" in out
