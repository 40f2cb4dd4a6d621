"""``hearts rules``: a list of cards in a ruleset is shown in the form that parses (spaces, quoted),
and the comma form, wherever a ruleset is asked for, gets an error that says how to write it."""

from __future__ import annotations

import pytest
from cli_runner import ok, run
from rich.console import Console

from ladder.cli import rules as rules_cli
from referee.rules import Rules


def test_hearts_rules_shows_the_form_of_removed_cards_that_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules_cli, "console", Console(width=400))
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


def test_hearts_rules_lists_the_partnership_presets_and_refuses_partners_at_other_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """002 Partnership Hearts: `hearts rules` lists both presets and the option; partners at a table of
    three or five are an error naming the option and the table, wherever a ruleset is asked for."""
    monkeypatch.setattr(rules_cli, "console", Console(width=400))
    out = ok("rules")
    assert "partnership-individual" in out and "partnership=individual" in out
    assert "moon=shooter-chooses, partnership=team" in out and "none | team | individual" in out
    assert "partnership  " in ok("rules", "show", "partnership,pass_cycle=across")
    for players in (3, 5):
        result = run("rules", "show", f"partnership,players={players}")
        assert result.exit_code == 2
        assert "partnership=team needs 4 players" in result.output and f"players={players}" in result.output
    seats = [x for i in range(3) for x in ("--seat", f"b{i}=localhost:1")]
    result = run("match", *seats, "--rules", "partnership-individual,players=3")
    assert result.exit_code == 2 and "partnership=individual needs 4 players" in result.output
