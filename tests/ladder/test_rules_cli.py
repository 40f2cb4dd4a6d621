"""``hearts rules``: a list of cards in a ruleset is shown in the form that parses (spaces, quoted),
and the comma form, wherever a ruleset is asked for, gets an error that says how to write it."""

from __future__ import annotations

import pytest
from cli_runner import ok, run
from rich.console import Console

from ladder import cli
from referee.rules import Rules


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
