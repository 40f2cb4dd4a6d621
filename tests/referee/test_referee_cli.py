"""``hearts match`` and ``hearts replay`` against real bots on loopback."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from referee_bots import Unspecified

from ladder.cli import main
from ladder.store import Store


@pytest.mark.slow
def test_a_match_is_played_recorded_summarised_and_replayed(
    serve: Callable[..., str], good_address: str, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    bad = serve(Unspecified())
    args = [
        "match",
        "--seat",
        f"north={good_address}",
        "--seat",
        f"east={bad}",
        "--seat",
        f"south={good_address}",
        "--seat",
        f"west={good_address}",
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
    ]
    result = CliRunner().invoke(main, args, terminal_width=160)
    assert result.exit_code == 0, result.output
    for words in ("Scores by hand", "Result", "p50", "p95", "max", "Faults (3)", "malformed", "east"):
        assert words in result.output
    with Store(db) as store:
        (m,) = store.list_matches()
        assert m.bots == ("north", "east", "south", "west") and m.seed == 7 and m.places[1] == 4
    replayed = CliRunner().invoke(main, ["replay", m.match_id[:8], "--db", str(db)], terminal_width=160)
    assert replayed.exit_code == 0, replayed.output
    out = replayed.output
    assert "Hand 0: pass left" in out and "leader" in out and "winner" in out and "points" in out
    assert "2♣" in out and "Q♠" in out and "♥" in out and "♦" in out
    assert "*" in out  # the substitutes played for the faulty bot are marked


def test_an_unreachable_seat_names_its_address_and_what_to_check(good_address: str, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    args = [
        "match",
        "--seat",
        f"a={good_address}",
        "--seat",
        f"ghost={dead}",
        "--seat",
        f"c={good_address}",
        "--seat",
        f"d={good_address}",
        "--db",
        str(tmp_path / "arena.db"),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert f"cannot reach bot 'ghost' at {dead}" in result.output
    assert "Is the bot running?" in result.output
    assert f"hearts bot serve random --port {dead.rpartition(':')[2]}" in result.output


def test_wrong_rules_and_wrong_seat_counts_say_what_is_valid(good_address: str) -> None:
    four = [x for i in range(4) for x in ("--seat", f"b{i}={good_address}")]
    bad_rules = CliRunner().invoke(main, ["match", *four, "--rules", "standard,moon=sometimes"])
    assert bad_rules.exit_code == 2 and "add-to-others | subtract-from-shooter" in bad_rules.output
    bad_preset = CliRunner().invoke(main, ["match", *four, "--rules", "hearts-deluxe"])
    assert bad_preset.exit_code == 2 and "standard, omnibus" in bad_preset.output
    three = CliRunner().invoke(main, ["match", *four, "--rules", "standard,players=3"])
    assert three.exit_code == 2 and "need 3 seats" in three.output
    bad_seat = CliRunner().invoke(main, ["match", "--seat", "just-a-name"])
    assert bad_seat.exit_code == 2 and "NAME=HOST:PORT" in bad_seat.output


def test_replaying_an_unknown_match_says_so(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Store(db).close()
    result = CliRunner().invoke(main, ["replay", "nope", "--db", str(db)])
    assert result.exit_code == 1 and "no match 'nope'" in result.output
