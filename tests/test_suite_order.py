"""The suite's order file (tests/durations.json) names modules that exist, longest first."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DURATIONS = ROOT / "tests" / "durations.json"  # what tests/conftest.py orders the suite by


def test_every_module_measured_is_a_test_module_of_the_suite() -> None:
    modules = json.loads(DURATIONS.read_text())["modules"]
    stale = [m for m in modules if not (ROOT / m).is_file()]
    assert not stale, f"tests/durations.json names modules that are gone: {stale} (run make test-durations)"


def test_the_order_file_is_longest_first() -> None:
    seconds = list(json.loads(DURATIONS.read_text())["modules"].values())
    assert seconds == sorted(seconds, reverse=True)
    assert all(isinstance(s, (int, float)) and s >= 0 for s in seconds)
