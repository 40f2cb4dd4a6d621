"""A bot's own time control (``referee.settings.TimeControl``): its text and its dict read back what
they wrote, each bad key or value is refused in words that say what to write, and over the match's
settings it replaces only the keys it gives."""

from __future__ import annotations

import pytest

from referee.settings import MatchSettings, TimeControl, TimeControlError


@pytest.mark.parametrize(
    "text",
    ["budget_ms=200", "bank_ms=0", "grace_ms=12.5", "budget_ms=200,bank_ms=1000", "budget_ms=5,bank_ms=0,grace_ms=0"],
)
def test_parse_reads_back_what_str_writes(text: str) -> None:
    clock = TimeControl.parse(text)
    assert str(clock) == text and TimeControl.parse(str(clock)) == clock
    assert TimeControl.from_dict(clock.to_dict()) == clock


def test_parse_takes_spaces_and_any_order_and_writes_the_keys_in_their_order() -> None:
    clock = TimeControl.parse(" grace_ms = 0 , budget_ms=200.0 ")
    assert clock == TimeControl(budget_ms=200, grace_ms=0)
    assert str(clock) == "budget_ms=200,grace_ms=0"
    assert clock.to_dict() == {"budget_ms": 200.0, "grace_ms": 0.0}


@pytest.mark.parametrize(
    "text, said",
    [
        ("", "write KEY=MS pairs separated by commas"),
        ("budget_ms=200,", "write KEY=MS pairs separated by commas"),
        ("budget=200", "unknown key 'budget'; did you mean budget_ms?"),
        ("bank-ms=0", "did you mean bank_ms?"),
        ("tc=40/60", "unknown key 'tc'; the keys are budget_ms, bank_ms, grace_ms"),
        ("budget_ms", "'budget_ms' is not KEY=MS"),
        ("budget_ms=fast", "budget_ms='fast' is no number of milliseconds"),
        ("budget_ms=5,budget_ms=6", "budget_ms is given twice"),
        ("budget_ms=0", "budget_ms must be a number of milliseconds, above 0"),
        ("bank_ms=-1", "bank_ms must be a number of milliseconds, 0 or more"),
        ("grace_ms=nan", "grace_ms must be"),
        ("bank_ms=inf", "bank_ms must be"),
        ("budget_ms=4294967296", "below 2^32"),
    ],
)
def test_a_bad_time_control_is_refused_saying_what_to_write(text: str, said: str) -> None:
    with pytest.raises(TimeControlError, match=f"time control {text!r}") as e:
        TimeControl.parse(text)
    assert said in str(e.value)


@pytest.mark.parametrize(
    "data, said",
    [
        ({}, "at least one of budget_ms, bank_ms, grace_ms"),
        ({"budget_ms": True}, "budget_ms must be"),
        ({"bank_ms": "5"}, "bank_ms must be"),
        ({"grace_ms": 10**400}, "grace_ms must be"),  # too large for a float: refused, no OverflowError
        ({"max_faults": 1}, "unknown key(s) max_faults"),
    ],
)
def test_a_stored_time_control_is_checked_like_a_written_one(data: dict[str, object], said: str) -> None:
    with pytest.raises(TimeControlError, match="bots.slow") as e:
        TimeControl.from_dict(data, source="bots.slow")
    assert said in str(e.value)


def test_over_the_matchs_settings_it_replaces_only_what_it_gives() -> None:
    match = MatchSettings(budget_ms=1000, bank_ms=10_000, grace_ms=50, max_faults=5)
    mine = TimeControl(budget_ms=100).over(match)
    assert mine == MatchSettings(budget_ms=100, bank_ms=10_000, grace_ms=50, max_faults=5)
    assert TimeControl(budget_ms=5, bank_ms=0, grace_ms=0).over(match).max_faults == 5
